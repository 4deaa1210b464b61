//! A request's `--timeout`: a tokio timer per request, left out when the request is answered
//! by an earlier deadline of its own.
//!
//! A direct call ([`super::direct`]) under `--call-timeout` is answered by the host at its
//! call deadline (a tool error) whatever the library does, so when that deadline comes before
//! the request's, the request's timer could never fire. Registering and removing it costs a
//! tokio timer entry per request (about 1 µs of CPU at 32 connections, `docs/performance.md`).

use crate::jsonrpc::RawId;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// What the request's handling tells its timeout while it runs.
#[derive(Debug)]
pub(super) struct Watch {
    /// When the request times out (`None`: `--timeout 0`).
    at: Option<Instant>,
    /// The request's id, once read: the timeout's answer carries it.
    id: OnceLock<RawId>,
    /// The request is answered before `at` by a deadline of its own.
    answered_in_time: AtomicBool,
}

impl Watch {
    /// The watch of a request that times out at `at`.
    pub(super) fn new(at: Option<Instant>) -> Watch {
        Watch {
            at,
            id: OnceLock::new(),
            answered_in_time: AtomicBool::new(false),
        }
    }

    /// Notes the request's id (the first one noted is kept).
    pub(super) fn note_id(&self, id: &RawId) {
        let _ = self.id.set(id.clone());
    }

    /// The request's id, or null before it was read.
    pub(super) fn id(&self) -> RawId {
        self.id.get().cloned().unwrap_or_else(RawId::null)
    }

    /// Notes that the request is answered within `limit` from now (`None`: no such limit).
    pub(super) fn answered_within(&self, limit: Option<Duration>) {
        if let (Some(at), Some(limit)) = (self.at, limit) {
            if Instant::now() + limit < at {
                self.answered_in_time.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// The request's timeout passed before its answer.
#[derive(Debug)]
pub(super) struct TimedOut;

/// `inner` under the timeout of `watch`: its timer is registered only once `inner` waits and
/// is not answered in time by a deadline of its own.
pub(super) struct Timed<'a, F> {
    inner: F,
    watch: &'a Watch,
    sleep: Option<Pin<Box<Sleep>>>,
}

impl<'a, F> Timed<'a, F> {
    /// `inner`, timed by `watch`.
    pub(super) fn new(inner: F, watch: &'a Watch) -> Timed<'a, F> {
        Timed {
            inner,
            watch,
            sleep: None,
        }
    }
}

impl<F: Future + Unpin> Future for Timed<'_, F> {
    type Output = Result<F::Output, TimedOut>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Poll::Ready(output) = Pin::new(&mut this.inner).poll(cx) {
            return Poll::Ready(Ok(output));
        }
        let Some(at) = this.watch.at else {
            return Poll::Pending;
        };
        if this.watch.answered_in_time.load(Ordering::Relaxed) {
            this.sleep = None;
            return Poll::Pending;
        }
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(at)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(TimedOut)),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn times_out_unless_answered_in_time() {
        let at = Instant::now() + Duration::from_secs(10);
        let watch = Watch::new(Some(at));
        let waiting = Timed::new(Box::pin(std::future::pending::<()>()), &watch);
        assert!(waiting.await.is_err(), "no answer: the timeout ends it");
        assert!(Instant::now() >= at);

        let watch = Watch::new(Some(Instant::now() + Duration::from_secs(10)));
        watch.answered_within(Some(Duration::from_secs(20)));
        let late = Timed::new(
            Box::pin(tokio::time::sleep(Duration::from_secs(15))),
            &watch,
        );
        assert!(
            late.await.is_err(),
            "a call limit past the timeout leaves the timer"
        );

        // Noted as answered by its own earlier deadline, the request has no timer of its own
        // (the host's deadline is what ends a real call; this one outlasts the timeout to show
        // that nothing else does).
        let watch = Watch::new(Some(Instant::now() + Duration::from_secs(10)));
        let noting = Timed::new(
            Box::pin(async {
                watch.answered_within(Some(Duration::from_secs(5)));
                tokio::time::sleep(Duration::from_secs(15)).await;
                "answered"
            }),
            &watch,
        );
        assert_eq!(noting.await.ok(), Some("answered"));

        let unlimited = Watch::new(None);
        unlimited.answered_within(Some(Duration::from_secs(1)));
        let slow = Timed::new(
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                "slow"
            }),
            &unlimited,
        );
        assert_eq!(
            slow.await.ok(),
            Some("slow"),
            "no --timeout: never timed out"
        );
    }

    #[test]
    fn the_first_id_noted_is_kept() {
        let watch = Watch::new(None);
        assert_eq!(watch.id(), RawId::null());
        watch.note_id(&RawId::integer(7));
        watch.note_id(&RawId::integer(8));
        assert_eq!(watch.id(), RawId::integer(7));
    }
}
