//! The [`ClientLink`] of a request served through rmcp: progress and log notifications and
//! requests to the client go through the request's peer, on the library thread (which blocks on
//! the runtime until each is sent or answered).

use crate::context::{ClientLink, ClientRequest, RequestOutcome, LOG_LEVELS};
use delphi_mcp_manifest::abi::context_status;
use rmcp::model::{ProgressToken, ServerNotification, ServerRequest};
use rmcp::service::Peer;
use rmcp::RoleServer;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::input_required::Round;

/// The client of one request.
pub struct PeerLink {
    peer: Peer<RoleServer>,
    progress_token: Option<ProgressToken>,
    runtime: tokio::runtime::Handle,
    /// The lowest level sent (`logging/setLevel`), an index of [`LOG_LEVELS`].
    min_level: Arc<AtomicUsize>,
    /// 2026-07-28 and later: no server-to-client requests; questions become input-required
    /// results through the request's round ([`crate::input_required`]), when it has one.
    stateless: bool,
    /// The answers and the pending question of a stateless request.
    round: Option<Arc<Round>>,
    /// 2026-07-28: the client's capabilities from the request's `_meta`.
    request_capabilities: Option<Value>,
    /// The server's resource subscriptions.
    subscriptions: Option<Arc<crate::subscriptions::Subscriptions>>,
    /// Questions asked so far (for their keys).
    asked: AtomicUsize,
}

impl PeerLink {
    /// The link of a request from `peer`.
    pub fn new(
        peer: Peer<RoleServer>,
        progress_token: Option<ProgressToken>,
        min_level: Arc<AtomicUsize>,
        stateless: bool,
    ) -> PeerLink {
        PeerLink {
            peer,
            progress_token,
            runtime: tokio::runtime::Handle::current(),
            min_level,
            stateless,
            round: None,
            request_capabilities: None,
            subscriptions: None,
            asked: AtomicUsize::new(0),
        }
    }

    /// Resource updates go to the subscribers in `subscriptions`.
    pub fn with_subscriptions(
        mut self,
        subscriptions: Arc<crate::subscriptions::Subscriptions>,
    ) -> PeerLink {
        self.subscriptions = Some(subscriptions);
        self
    }

    /// Questions in the stateless era are answered from, or recorded in, `round`; the client
    /// offers what `capabilities` (its request's `_meta` capabilities) declare.
    pub fn with_round(mut self, round: Arc<Round>, capabilities: Option<Value>) -> PeerLink {
        self.round = Some(round);
        self.request_capabilities = capabilities;
        self
    }

    fn notify(&self, method: &str, params: Value) -> bool {
        let notification = match serde_json::from_value::<ServerNotification>(
            json!({"method": method, "params": params}),
        ) {
            Ok(n) => n,
            Err(error) => {
                tracing::warn!(%method, %error, "notification not built");
                return false;
            }
        };
        let peer = self.peer.clone();
        self.runtime
            .block_on(async move { peer.send_notification(notification).await })
            .is_ok()
    }

    /// Whether the client declared the capability `request` needs.
    fn client_offers(&self, request: ClientRequest) -> bool {
        let capabilities = match (&self.request_capabilities, self.peer.peer_info()) {
            (Some(capabilities), _) => capabilities.clone(),
            (None, Some(info)) => serde_json::to_value(&info.capabilities).unwrap_or_default(),
            (None, None) => return false,
        };
        let key = match request {
            ClientRequest::Elicit => "elicitation",
            ClientRequest::Sample => "sampling",
            ClientRequest::Roots => "roots",
        };
        capabilities.get(key).is_some_and(|v| !v.is_null())
    }
}

impl ClientLink for PeerLink {
    fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(token) = &self.progress_token else {
            return false;
        };
        let mut params = json!({"progressToken": token, "progress": done});
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(message) = message {
            params["message"] = json!(message);
        }
        self.notify("notifications/progress", params)
    }

    fn log(&self, level: usize, message: &str) -> bool {
        if level < self.min_level.load(Ordering::Relaxed) {
            return false;
        }
        let level = LOG_LEVELS[level.min(LOG_LEVELS.len() - 1)];
        self.notify(
            "notifications/message",
            json!({"level": level, "logger": "delphi", "data": message}),
        )
    }

    fn resource_updated(&self, uri: &str) -> bool {
        self.subscriptions
            .as_ref()
            .is_some_and(|s| s.updated(uri, &self.runtime) > 0)
    }

    fn request(&self, request: ClientRequest, mut params: Value) -> RequestOutcome {
        // The key of the question in an input-required result: the library's `inputKey`, or
        // one made from the method and the question's number.
        let number = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        let key = match params.as_object_mut().and_then(|p| p.remove("inputKey")) {
            Some(Value::String(key)) => key,
            _ => format!("{}_{number}", request.method().replace('/', "_")),
        };
        if self.stateless {
            return match &self.round {
                Some(_) if !self.client_offers(request) => RequestOutcome::refused(
                    context_status::UNSUPPORTED,
                    format!(
                        "the client does not support {} (its request declares no such capability)",
                        request.method()
                    ),
                ),
                Some(round) => round.ask(key, request, params),
                None => RequestOutcome::refused(
                    context_status::UNSUPPORTED,
                    format!(
                        "{} cannot be sent in protocol 2026-07-28 outside tools/call (no server-to-client requests)",
                        request.method()
                    ),
                ),
            };
        }
        if !self.client_offers(request) {
            return RequestOutcome::refused(
                context_status::UNSUPPORTED,
                format!(
                    "the client does not support {} (no such capability)",
                    request.method()
                ),
            );
        }
        let message = json!({"method": request.method(), "params": params});
        let server_request = match serde_json::from_value::<ServerRequest>(message) {
            Ok(r) => r,
            Err(error) => {
                return RequestOutcome::refused(
                    context_status::FAILED,
                    format!("invalid {} params: {error}", request.method()),
                )
            }
        };
        let peer = self.peer.clone();
        match self
            .runtime
            .block_on(async move { peer.send_request(server_request).await })
        {
            Ok(result) => RequestOutcome::from_result(
                request,
                &serde_json::to_value(result).unwrap_or_default(),
            ),
            Err(error) => RequestOutcome::refused(
                context_status::FAILED,
                format!("{} failed: {error}", request.method()),
            ),
        }
    }
}
