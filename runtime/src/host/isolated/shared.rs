//! What the pool's threads share: the pool under its lock, and the lock's guard, which sends
//! the answers decided under it once it is released (`Pool::replies`).

use super::pool::Pool;
use super::CancelPolicy;
use crate::host::{CallError, CallReturn};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Where a call's answer goes.
pub(super) type Reply = tokio::sync::oneshot::Sender<Result<CallReturn, CallError>>;

/// What the pool needs to know besides its state.
#[derive(Debug)]
pub(super) struct Config {
    pub program: PathBuf,
    /// The command's arguments followed by the worker's own.
    pub args: Vec<OsString>,
    pub call_timeout: Option<Duration>,
    pub max_result_bytes: usize,
    pub on_cancel: CancelPolicy,
    /// How long a worker's reader keeps looking for its next frame before it sleeps.
    pub busy_poll: Duration,
}

/// What the pool's threads share.
#[derive(Debug)]
pub(super) struct Shared {
    pub pool: Mutex<Pool>,
    /// Signalled on every change the manager or a starting host waits for.
    pub changed: Condvar,
    pub config: Config,
}

impl Shared {
    /// The pool, locked until the guard drops; the answers it decided meanwhile are sent then.
    pub fn lock(&self) -> PoolGuard<'_> {
        PoolGuard {
            guard: Some(self.pool.lock().unwrap_or_else(|e| e.into_inner())),
            shared: self,
        }
    }
}

/// The locked pool. Answers are sent once the lock is released (`Pool::replies`): a call's
/// future may then be completed on the thread that sends it (the worker's reader thread writes
/// the answer itself, [`crate::host::ToolHost::completes_unlocked`]), and what it does next
/// may lock the pool again.
pub(super) struct PoolGuard<'a> {
    /// `None` only while waiting on the condition variable.
    guard: Option<MutexGuard<'a, Pool>>,
    shared: &'a Shared,
}

impl PoolGuard<'_> {
    /// Waits for [`Shared::changed`] (at most `timeout`) and locks again. With answers to send,
    /// sends them and returns at once instead (a spurious wake-up: callers look again).
    pub fn wait(mut self, timeout: Option<Duration>) -> Self {
        let shared = self.shared;
        if !self.replies.is_empty() {
            drop(self);
            return shared.lock();
        }
        let Some(guard) = self.guard.take() else {
            return shared.lock();
        };
        let guard = match timeout {
            Some(timeout) => {
                shared
                    .changed
                    .wait_timeout(guard, timeout)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => shared
                .changed
                .wait(guard)
                .unwrap_or_else(|e| e.into_inner()),
        };
        self.guard = Some(guard);
        self
    }
}

impl std::ops::Deref for PoolGuard<'_> {
    type Target = Pool;
    fn deref(&self) -> &Pool {
        self.guard
            .as_deref()
            .expect("the pool is locked outside of waits")
    }
}

impl std::ops::DerefMut for PoolGuard<'_> {
    fn deref_mut(&mut self) -> &mut Pool {
        self.guard
            .as_deref_mut()
            .expect("the pool is locked outside of waits")
    }
}

impl Drop for PoolGuard<'_> {
    fn drop(&mut self) {
        let Some(mut guard) = self.guard.take() else {
            return;
        };
        let replies = std::mem::take(&mut guard.replies);
        drop(guard);
        send_replies(replies);
    }
}

/// Answers taken from [`Pool::replies`]; send them with the pool unlocked.
pub(super) type Replies = Vec<(Reply, Result<CallReturn, CallError>)>;

/// Sends `replies` (the pool must not be locked by this thread).
pub(super) fn send_replies(replies: Replies) {
    for (reply, outcome) in replies {
        let _ = reply.send(outcome);
    }
}
