//! The call context across the worker pipe (ABI 3): in a worker process, a tool's progress,
//! logs and requests to the client travel to the server as context frames; the server does them
//! through the call's [`ClientLink`] and answers requests; a client's cancellation reaches the
//! worker as a cancel frame.

use super::framing::{ContextUse, FromWorker};
use crate::context::{CallContext, ClientLink, ClientRequest, ContextArg, RequestOutcome};
use crate::host::ArgValue;
use delphi_mcp_manifest::abi::context_status;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Sends a frame to the server.
pub(super) type FrameSender = Arc<dyn Fn(&FromWorker) + Send + Sync>;

/// The worker's side: the contexts of the calls running in this process.
#[derive(Default)]
pub(super) struct WorkerContexts {
    /// Calls waiting for the answer to a request.
    waiting: Mutex<HashMap<u64, mpsc::Sender<RequestOutcome>>>,
    /// The cancellation of each running call with a context.
    cancelled: Mutex<HashMap<u64, CancellationToken>>,
}

impl WorkerContexts {
    /// Gives the context arguments of call `id` a context that talks to the server.
    pub fn attach(self: &Arc<Self>, id: u64, args: &mut [ArgValue], send: &FrameSender) {
        for arg in args.iter_mut() {
            if let ArgValue::Context(context) = arg {
                let token = CancellationToken::new();
                lock(&self.cancelled).insert(id, token.clone());
                let link = WorkerLink {
                    id,
                    send: Arc::clone(send),
                    contexts: Arc::clone(self),
                };
                *context = ContextArg(Some(Arc::new(CallContext::new(
                    "",
                    token,
                    Some(Arc::new(link)),
                ))));
            }
        }
    }

    /// Call `id` has returned.
    pub fn detach(&self, id: u64) {
        lock(&self.cancelled).remove(&id);
        lock(&self.waiting).remove(&id);
    }

    /// The server answered call `id`'s request.
    pub fn answer(&self, id: u64, outcome: RequestOutcome) {
        if let Some(waiting) = lock(&self.waiting).remove(&id) {
            let _ = waiting.send(outcome);
        }
    }

    /// The client cancelled call `id`.
    pub fn cancel(&self, id: u64) {
        if let Some(token) = lock(&self.cancelled).get(&id) {
            token.cancel();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The [`ClientLink`] of a call in a worker: frames to the server.
struct WorkerLink {
    id: u64,
    send: FrameSender,
    contexts: Arc<WorkerContexts>,
}

impl ClientLink for WorkerLink {
    fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) -> bool {
        (self.send)(&FromWorker::Context {
            id: self.id,
            what: ContextUse::Progress {
                done,
                total: total.unwrap_or(0.0),
            },
            text: message.unwrap_or_default().as_bytes().to_vec(),
        });
        true
    }

    fn log(&self, level: usize, message: &str) -> bool {
        (self.send)(&FromWorker::Context {
            id: self.id,
            what: ContextUse::Log(level as i32),
            text: message.as_bytes().to_vec(),
        });
        true
    }

    fn resource_updated(&self, uri: &str) -> bool {
        (self.send)(&FromWorker::Context {
            id: self.id,
            what: ContextUse::ResourceUpdated,
            text: uri.as_bytes().to_vec(),
        });
        true
    }

    fn request(&self, request: ClientRequest, params: Value) -> RequestOutcome {
        let (answer, answered) = mpsc::channel();
        lock(&self.contexts.waiting).insert(self.id, answer);
        (self.send)(&FromWorker::Context {
            id: self.id,
            what: ContextUse::Request(request.kind()),
            text: params.to_string().into_bytes(),
        });
        answered.recv().unwrap_or_else(|_| {
            RequestOutcome::refused(context_status::FAILED, "the server did not answer")
        })
    }
}

/// The client of a call in the server (for [`serve_context`]).
#[derive(Clone, Default)]
pub(super) struct CallClient(pub Option<Arc<dyn ClientLink>>);

impl std::fmt::Debug for CallClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "client"
        } else {
            "no client"
        })
    }
}

/// The server's side: does what a worker's context frame asks through the call's `client`,
/// and returns the answer of a request (to frame back), `None` for progress and logs.
pub(super) fn serve_context(
    client: Option<&Arc<dyn ClientLink>>,
    what: ContextUse,
    text: &[u8],
) -> Option<RequestOutcome> {
    let text = String::from_utf8_lossy(text);
    match what {
        ContextUse::Progress { done, total } => {
            if let Some(client) = client {
                let message = (!text.is_empty()).then_some(text.as_ref());
                client.progress(done, (total > 0.0).then_some(total), message);
            }
            None
        }
        ContextUse::Log(level) => {
            if let Some(client) = client {
                client.log(level.max(0) as usize, &text);
            }
            None
        }
        ContextUse::ResourceUpdated => {
            if let Some(client) = client {
                client.resource_updated(&text);
            }
            None
        }
        ContextUse::Request(kind) => Some(match ClientRequest::from_kind(kind) {
            None => RequestOutcome::refused(
                context_status::UNSUPPORTED,
                format!("unknown request kind {kind}"),
            ),
            // The same refusals and params check as a call in this process.
            Some(request) => CallContext::new("", CancellationToken::new(), client.cloned())
                .request(request, &text),
        }),
    }
}
