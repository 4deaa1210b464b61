//! Resource subscriptions: which clients watch which URIs — through `resources/subscribe` in the
//! handshake eras, through the `resourceSubscriptions` of a `subscriptions/listen` stream in
//! 2026-07-28 — and the `notifications/resources/updated` a tool's call context sends when it
//! changed a resource (`TMcpContext.ResourceUpdated`).

use rmcp::model::ServerNotification;
use rmcp::service::{Peer, SubscriptionSink};
use rmcp::RoleServer;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Mutex;

/// The subscribers of each URI.
#[derive(Default)]
pub struct Subscriptions {
    by_uri: Mutex<HashMap<String, Vec<Peer<RoleServer>>>>,
    /// Open `subscriptions/listen` streams (2026-07-28); each filters what it accepted.
    streams: Mutex<Vec<SubscriptionSink>>,
}

impl std::fmt::Debug for Subscriptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscriptions")
            .field("uris", &self.lock().len())
            .finish()
    }
}

/// One client session: its peer's `initialize` parameters, shared by all its requests.
fn same_client(a: &Peer<RoleServer>, b: &Peer<RoleServer>) -> bool {
    match (a.peer_info(), b.peer_info()) {
        (Some(a), Some(b)) => std::sync::Arc::ptr_eq(&a, &b),
        _ => false,
    }
}

impl Subscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Peer<RoleServer>>>> {
        self.by_uri
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `peer` watches `uri` (once, however often it subscribes).
    pub fn subscribe(&self, uri: &str, peer: Peer<RoleServer>) {
        let mut by_uri = self.lock();
        let peers = by_uri.entry(uri.to_string()).or_default();
        if !peers.iter().any(|p| same_client(p, &peer)) {
            peers.push(peer);
        }
    }

    /// `peer` no longer watches `uri`.
    pub fn unsubscribe(&self, uri: &str, peer: &Peer<RoleServer>) {
        let mut by_uri = self.lock();
        if let Some(peers) = by_uri.get_mut(uri) {
            peers.retain(|p| !same_client(p, peer));
            if peers.is_empty() {
                by_uri.remove(uri);
            }
        }
    }

    /// A `subscriptions/listen` stream opened; it is dropped once closed.
    pub fn listen(&self, sink: SubscriptionSink) {
        self.streams_lock().push(sink);
    }

    /// The stream `sink` closed.
    pub fn closed(&self, sink: &SubscriptionSink) {
        self.streams_lock().retain(|s| s.id() != sink.id());
    }

    fn streams_lock(&self) -> std::sync::MutexGuard<'_, Vec<SubscriptionSink>> {
        self.streams
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tells the subscribers of `uri` that it changed (blocking on `runtime` until each has
    /// the notification; closed sessions are dropped). Returns how many were told.
    pub fn updated(&self, uri: &str, runtime: &tokio::runtime::Handle) -> usize {
        let streams: Vec<SubscriptionSink> = self
            .streams_lock()
            .iter()
            .filter(|s| {
                s.accepted()
                    .resource_subscriptions
                    .as_ref()
                    .is_some_and(|uris| uris.iter().any(|u| u == uri))
            })
            .cloned()
            .collect();
        let peers = self.lock().get(uri).cloned().unwrap_or_default();
        let Ok(notification) = serde_json::from_value::<ServerNotification>(json!({
            "method": "notifications/resources/updated",
            "params": {"uri": uri}
        })) else {
            return 0;
        };
        let mut told = 0;
        for sink in streams {
            let notification = notification.clone();
            if runtime
                .block_on(async { sink.send(notification).await })
                .is_ok()
            {
                told += 1;
            }
        }
        for peer in peers {
            let notification = notification.clone();
            let sent = runtime.block_on(async { peer.send_notification(notification).await });
            match sent {
                Ok(()) => told += 1,
                Err(_) => self.unsubscribe(uri, &peer),
            }
        }
        told
    }
}
