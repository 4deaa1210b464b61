//! A future polled on whichever thread wakes it.
//!
//! A direct call's future waits for the library thread's answer. As a tokio task, the answer
//! would wake the stdio thread, which would then build the JSON-RPC answer and write it: a
//! second hop between threads per call, on the critical path of every round trip. Polled
//! here instead, the future's end (the result JSON, the answer line, the write to stdout)
//! runs on the library thread that completed the call; a cancellation runs it on the reader,
//! a deadline on the timer thread.
//!
//! Only futures whose wakers are called with no lock held that the rest of the future needs
//! may run here ([`crate::dispatch::Dispatch::completes_unlocked`]); the runtime's context is
//! entered while polling, so the future may still use tokio's timers and IO.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// Nobody polls; a wake polls on the waking thread.
const IDLE: u8 = 0;
/// A thread polls.
const POLLING: u8 = 1;
/// A thread polls and was woken meanwhile: it polls once more.
const REPOLL: u8 = 2;
/// The future completed.
const DONE: u8 = 3;

type BoxedFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A future driven by its wakers (see the module documentation).
pub struct InlineTask {
    state: AtomicU8,
    future: Mutex<Option<BoxedFuture>>,
    runtime: tokio::runtime::Handle,
}

impl InlineTask {
    /// Polls `future` once now, on this thread, and then on every wake until it completes;
    /// `runtime`'s context is entered for every poll.
    pub fn start(
        runtime: &tokio::runtime::Handle,
        future: impl Future<Output = ()> + Send + 'static,
    ) {
        let task = Arc::new(InlineTask {
            state: AtomicU8::new(IDLE),
            future: Mutex::new(Some(Box::pin(future))),
            runtime: runtime.clone(),
        });
        task.run();
    }

    fn run(self: &Arc<Self>) {
        let mut seen = self.state.load(Ordering::Acquire);
        loop {
            let next = match seen {
                IDLE => POLLING,
                POLLING => REPOLL,
                _ => return,
            };
            match self
                .state
                .compare_exchange(seen, next, Ordering::AcqRel, Ordering::Acquire)
            {
                // Another thread polls: it polls again after its poll.
                Ok(POLLING) => return,
                Ok(_) => break,
                Err(now) => seen = now,
            }
        }
        let _context = self.runtime.enter();
        let waker = Waker::from(Arc::clone(self));
        let mut cx = Context::from_waker(&waker);
        loop {
            let ready = {
                let mut slot = self.future.lock().unwrap_or_else(|e| e.into_inner());
                match slot.as_mut().map(|future| future.as_mut().poll(&mut cx)) {
                    Some(Poll::Pending) => false,
                    Some(Poll::Ready(())) | None => {
                        *slot = None;
                        true
                    }
                }
            };
            if ready {
                self.state.store(DONE, Ordering::Release);
                return;
            }
            if self
                .state
                .compare_exchange(POLLING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return;
            }
            // Woken while polling (REPOLL): poll again.
            self.state.store(POLLING, Ordering::Release);
        }
    }
}

impl Wake for InlineTask {
    fn wake(self: Arc<Self>) {
        self.run();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.run();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[tokio::test]
    async fn completes_on_the_thread_that_wakes_it() {
        let (send, receive) = tokio::sync::oneshot::channel::<u32>();
        let (done_send, done) = std::sync::mpsc::channel();
        InlineTask::start(&tokio::runtime::Handle::current(), async move {
            let value = receive.await.unwrap_or_default();
            let _ = done_send.send((value, std::thread::current().name().map(str::to_string)));
        });
        // Not complete yet: the value comes from another thread, which then runs the rest.
        assert!(done.try_recv().is_err());
        std::thread::Builder::new()
            .name("completer".into())
            .spawn(move || send.send(7))
            .and_then(|handle| handle.join().map_err(|_| std::io::Error::other("panicked")))
            .ok();
        let (value, thread) = done.recv().unwrap_or_default();
        assert_eq!(value, 7);
        assert_eq!(thread.as_deref(), Some("completer"));
    }

    #[tokio::test]
    async fn a_wake_during_a_poll_polls_again() {
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&polls);
        InlineTask::start(
            &tokio::runtime::Handle::current(),
            std::future::poll_fn(move |cx| {
                // Wakes itself twice while being polled, then completes on the third poll.
                if counted.fetch_add(1, Ordering::SeqCst) < 2 {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            }),
        );
        assert_eq!(polls.load(Ordering::SeqCst), 3);
    }
}
