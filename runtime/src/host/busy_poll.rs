//! Busy polling: a thread about to sleep until its next request first keeps looking for it
//! for a short budget (`serve --busy-poll`, [`super::HostOptions::busy_poll`]).
//!
//! Waking a sleeping thread costs a system call on each side and, when its CPU has halted
//! meanwhile (an idle virtual machine), 25–100 µs before the thread runs again. Requests that
//! follow each other closely (a client's next request after its answer, the next request on
//! an HTTP connection) then wait for that wake-up longer than for the work. A thread that keeps
//! looking, yielding its CPU between looks to any thread that wants it, takes such a request
//! at once. The price is CPU time: up to the budget after the last request of a burst.
//!
//! Polling pays only when requests come closer together than the budget, so each waiting
//! thread keeps a [`BusyPoll`] that polls before a wait only when its last wait ended within
//! the budget: calls seconds apart cost no polling at all, and a steady stream of calls just
//! further apart than the budget costs none either.
//!
//! Used where a request waits for a thread: the library thread's queue (and its reading of
//! stdin), an isolated worker's reading of its calls and the server's reading of its answers.

use std::time::{Duration, Instant};

/// The default budget: longer than a client's turn-around between an answer and its next
/// request on the same machine (10–60 µs measured), short enough that a thread never spends
/// much on it (`docs/performance.md`, "Busy polling").
pub const DEFAULT_BUSY_POLL: Duration = Duration::from_micros(200);

/// One thread's busy polling: its budget, and whether its last wait ended within it.
#[derive(Debug, Clone)]
pub struct BusyPoll {
    budget: Duration,
    poll_next: bool,
}

impl BusyPoll {
    /// Busy polling for at most `budget` before each wait (zero: never).
    pub fn new(budget: Duration) -> BusyPoll {
        BusyPoll {
            budget,
            poll_next: !budget.is_zero(),
        }
    }

    /// Whether it polls at all (a budget above zero).
    pub fn polls_at_all(&self) -> bool {
        !self.budget.is_zero()
    }

    /// Waits for what `look` finds (it must not block): polls with it for the budget when the
    /// last wait ended within the budget, then waits with `sleep` (which blocks until there is
    /// something, as `look` would see it).
    pub fn wait<T>(&mut self, mut look: impl FnMut() -> Option<T>, sleep: impl FnOnce() -> T) -> T {
        if self.budget.is_zero() {
            return sleep();
        }
        let start = Instant::now();
        if self.poll_next {
            if let Some(found) = look() {
                return found;
            }
            loop {
                std::thread::yield_now();
                if let Some(found) = look() {
                    return found;
                }
                if start.elapsed() >= self.budget {
                    break;
                }
            }
        }
        let found = sleep();
        self.poll_next = start.elapsed() < self.budget;
        found
    }

    /// Waits without polling until one of `fds` is readable or hung up: [`Self::wait_readable`]
    /// with no budget.
    #[cfg(unix)]
    pub fn sleep_readable<const N: usize>(fds: &[i32; N]) -> [bool; N] {
        BusyPoll::new(Duration::ZERO).wait_readable(fds)
    }

    /// Waits until one of `fds` is readable or hung up (`poll(2)`; interrupted waits are
    /// resumed); which of them are.
    #[cfg(unix)]
    pub fn wait_readable<const N: usize>(&mut self, fds: &[i32; N]) -> [bool; N] {
        let watched: [libc::pollfd; N] = std::array::from_fn(|i| libc::pollfd {
            fd: fds[i],
            events: libc::POLLIN,
            revents: 0,
        });
        let polled = self.wait(
            || {
                let mut polled = watched;
                (poll(&mut polled, 0) != 0).then_some(polled)
            },
            || {
                let mut polled = watched;
                while poll(&mut polled, -1) < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                }
                polled
            },
        );
        std::array::from_fn(|i| polled[i].revents != 0)
    }
}

/// `poll(2)` of `polled` with `timeout` milliseconds (-1: none).
#[cfg(unix)]
pub(crate) fn poll<const N: usize>(
    polled: &mut [libc::pollfd; N],
    timeout: libc::c_int,
) -> libc::c_int {
    // SAFETY: `polled` is a live array of N pollfd entries.
    unsafe { libc::poll(polled.as_mut_ptr(), N as libc::nfds_t, timeout) }
}

/// What a [`BusyPollRead`] reads from: a pipe (or any descriptor) whose [`InputProbe`] says
/// whether a read would find something.
pub trait Pollable {
    /// The probe of this reader's descriptor (valid while the reader lives).
    fn input_probe(&self) -> InputProbe;
}

/// Asks a descriptor whether a read would not block: `poll(2)` on Unix, `PeekNamedPipe` on
/// Windows.
#[derive(Debug, Clone, Copy)]
pub struct InputProbe(
    #[cfg(unix)] std::os::fd::RawFd,
    #[cfg(windows)] std::os::windows::io::RawHandle,
);

#[cfg(unix)]
impl<T: std::os::fd::AsRawFd> Pollable for T {
    fn input_probe(&self) -> InputProbe {
        InputProbe(self.as_raw_fd())
    }
}

#[cfg(windows)]
impl<T: std::os::windows::io::AsRawHandle> Pollable for T {
    fn input_probe(&self) -> InputProbe {
        InputProbe(self.as_raw_handle())
    }
}

impl InputProbe {
    /// Whether a read would not block: bytes to read, the end, or an error (which the read
    /// then reports).
    #[cfg(unix)]
    pub fn has_input(self) -> bool {
        let mut polled = [libc::pollfd {
            fd: self.0,
            events: libc::POLLIN,
            revents: 0,
        }];
        poll(&mut polled, 0) != 0
    }

    /// Whether a read would not block: bytes to read, the end, or an error (which the read
    /// then reports).
    #[cfg(windows)]
    pub fn has_input(self) -> bool {
        let mut available: u32 = 0;
        // SAFETY: peeks without a buffer at a handle its reader owns while it reads; writes
        // only `available`.
        let peeked = unsafe {
            windows_sys::Win32::System::Pipes::PeekNamedPipe(
                self.0,
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                &mut available,
                std::ptr::null_mut(),
            )
        };
        peeked == 0 || available > 0
    }
}

/// A reader that busy polls its pipe before each read ([`Pollable`]: `poll(2)` on Unix,
/// `PeekNamedPipe` on Windows); the blocking read itself is the sleep. Put it under the buffer
/// (`BufReader<BusyPollRead<_>>`), which reads only when it has nothing buffered.
#[derive(Debug)]
pub struct BusyPollRead<R> {
    inner: R,
    busy_poll: BusyPoll,
}

impl<R> BusyPollRead<R> {
    /// Reads `inner`, busy polling for at most `budget` before each read.
    pub fn new(inner: R, budget: Duration) -> BusyPollRead<R> {
        BusyPollRead {
            inner,
            busy_poll: BusyPoll::new(budget),
        }
    }

    /// The reader it reads.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }
}

impl<R: std::io::Read + Pollable> std::io::Read for BusyPollRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let BusyPollRead { inner, busy_poll } = self;
        let probe = inner.input_probe();
        // Found by polling: something to read at once (`None`); otherwise the read waited.
        match busy_poll.wait(
            || probe.has_input().then_some(None),
            || Some(inner.read(buf)),
        ) {
            Some(read) => read,
            None => inner.read(buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A `look` that finds something at its `nth` look, counting its looks.
    fn finds_at(nth: u32, looks: &Cell<u32>) -> impl FnMut() -> Option<&'static str> + '_ {
        move || {
            looks.set(looks.get() + 1);
            (looks.get() == nth).then_some("looked")
        }
    }

    #[test]
    fn polls_until_found_and_sleeps_once_the_budget_is_spent() {
        let looks = Cell::new(0);
        let mut busy = BusyPoll::new(Duration::from_secs(60));
        assert_eq!(busy.wait(finds_at(3, &looks), || "slept"), "looked");
        assert_eq!(looks.get(), 3);
        assert!(busy.poll_next, "found while polling: poll next time too");

        let looks = Cell::new(0);
        let mut busy = BusyPoll::new(Duration::from_millis(1));
        assert_eq!(busy.wait(finds_at(0, &looks), || "slept"), "slept");
        assert!(looks.get() > 1, "it polled before sleeping");
        assert!(!busy.poll_next, "the wait outlasted the budget");
    }

    #[test]
    fn a_wait_longer_than_the_budget_turns_polling_off_until_one_is_shorter() {
        let looks = Cell::new(0);
        let mut busy = BusyPoll::new(Duration::from_secs(60));
        busy.poll_next = false;
        assert_eq!(busy.wait(finds_at(1, &looks), || "slept"), "slept");
        assert_eq!(looks.get(), 0, "no polling after a long wait");
        assert!(busy.poll_next, "this wait ended within the budget");
        assert_eq!(busy.wait(finds_at(1, &looks), || "slept"), "looked");
    }

    #[test]
    fn a_zero_budget_never_polls() {
        let looks = Cell::new(0);
        let mut busy = BusyPoll::new(Duration::ZERO);
        for _ in 0..3 {
            assert_eq!(busy.wait(finds_at(1, &looks), || "slept"), "slept");
        }
        assert_eq!(looks.get(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn reads_what_was_written_before_and_after_its_wait_began() {
        use std::io::{Read, Write};
        use std::os::fd::AsRawFd;
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        writer.write_all(b"a").expect("write");
        let mut busy = BusyPoll::new(Duration::from_millis(1));
        assert_eq!(busy.wait_readable(&[reader.as_raw_fd()]), [true]);
        let mut reader = BusyPollRead::new(reader, Duration::from_micros(50));
        let mut byte = [0u8; 1];
        reader.read_exact(&mut byte).expect("read");
        assert_eq!(&byte, b"a");
        // Written by another thread at any point of the reader's polling or sleeping.
        let writing = std::thread::spawn(move || writer.write_all(b"b").expect("write"));
        reader.read_exact(&mut byte).expect("read");
        assert_eq!(&byte, b"b");
        writing.join().expect("writer");
        assert_eq!(reader.read(&mut byte).expect("read at the end"), 0);
    }
}
