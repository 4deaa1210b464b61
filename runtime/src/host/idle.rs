//! Work a library thread does while no call is queued, instead of sleeping.
//!
//! Serving stdio for a library with one thread, the library thread reads the protocol input
//! itself while it has nothing to run (`stdio/library_input.rs`): a request then reaches the
//! Pascal code without a hand-off between threads. The host's side is this: the thread runs
//! the [`IdleWork`] when its queue is empty, and a call queued by another thread raises the
//! [`JobSignal`], which the work waits for beside its own input.

use super::busy_poll::BusyPoll;
use std::cell::Cell;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

/// Work for a library thread with nothing queued ([`super::ToolHost::set_idle_work`]).
pub trait IdleWork: Send + Sync {
    /// Runs on the library thread while its queue is empty. Returns when `signal` was raised
    /// (a call may have been queued), or after queueing calls itself; the thread then runs
    /// what is queued and calls it again. Waiting for its input, it busy polls with
    /// `busy_poll` first, the library thread's own.
    fn idle(&self, signal: &JobSignal, busy_poll: &mut BusyPoll);

    /// Runs on the library thread before each call it takes from its queue.
    fn before_call(&self) {}
}

/// Raised when another thread queues a call: an `eventfd`, so that [`IdleWork`] can wait for
/// it together with descriptors of its own.
#[derive(Debug)]
pub struct JobSignal {
    fd: OwnedFd,
    /// Whether it may be raised: lowering a signal nobody raised costs no system call (the
    /// library thread lowers it before every look at its queue).
    raised: AtomicBool,
}

impl JobSignal {
    /// A new, lowered signal.
    pub fn new() -> std::io::Result<JobSignal> {
        // SAFETY: eventfd returns a new descriptor or -1.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` is a fresh descriptor owned by nobody else.
        Ok(JobSignal {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            raised: AtomicBool::new(false),
        })
    }

    /// Raises the signal.
    pub fn raise(&self) {
        self.raised.store(true, Ordering::SeqCst);
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd. It fails only when the
        // counter would overflow, and then the signal is raised already.
        unsafe { libc::write(self.fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }

    /// Lowers the signal.
    pub fn lower(&self) {
        if self.raised.swap(false, Ordering::SeqCst) {
            self.drain();
        }
    }

    /// Lowers the signal whatever the flag says: after a wait found the descriptor readable
    /// (a raise may have set the flag before a [`Self::lower`] and written after it).
    pub fn drain(&self) {
        self.raised.store(false, Ordering::SeqCst);
        let mut count: u64 = 0;
        // SAFETY: reads 8 bytes into a live u64 from our non-blocking eventfd; when it is not
        // raised the read fails with EAGAIN and nothing is written.
        unsafe { libc::read(self.fd.as_raw_fd(), (&mut count as *mut u64).cast(), 8) };
    }

    /// The descriptor to wait on (readable while raised).
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

thread_local! {
    static LIBRARY_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Marks the current thread as a library thread.
pub(super) fn mark_library_thread() {
    LIBRARY_THREAD.with(|flag| flag.set(true));
}

/// Whether the current thread is a library thread of this process.
pub fn on_library_thread() -> bool {
    LIBRARY_THREAD.with(Cell::get)
}

/// The installed work and its signal.
pub(super) struct IdleSlot {
    pub work: std::sync::Arc<dyn IdleWork>,
    pub signal: JobSignal,
}

impl std::fmt::Debug for IdleSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdleSlot")
            .field("signal", &self.signal)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readable(signal: &JobSignal) -> bool {
        let mut polled = libc::pollfd {
            fd: signal.fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one live pollfd, no timeout.
        unsafe { libc::poll(&mut polled, 1, 0) == 1 }
    }

    #[test]
    fn a_raised_signal_is_readable_until_lowered() {
        let signal = JobSignal::new().expect("eventfd");
        assert!(!readable(&signal));
        signal.raise();
        signal.raise();
        assert!(readable(&signal));
        signal.lower();
        assert!(!readable(&signal), "one lowering clears every raise");
        // Lowered before a raise wrote (the flag already taken): a wait drains it.
        signal.raise();
        signal.raised.store(false, Ordering::SeqCst);
        signal.lower();
        assert!(readable(&signal), "lower trusts the flag");
        signal.drain();
        assert!(!readable(&signal));
    }
}
