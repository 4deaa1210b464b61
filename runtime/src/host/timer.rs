//! Futures that complete at an instant, whatever executor polls them: the hosts are called
//! from tokio (the transports) and from `bind!`'s plain `block_on`, which has no timer. One
//! thread per process serves every pending deadline; a future that is dropped first removes
//! its entry.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

struct Timer {
    state: Mutex<State>,
    changed: Condvar,
    next_id: AtomicU64,
    /// The thread started: deadlines are kept.
    running: AtomicBool,
}

struct State {
    /// Each pending future: its waker, and how much later than its instant it may complete.
    entries: BTreeMap<(Instant, u64), (Waker, Duration)>,
    /// Until when the thread sleeps (`None`: until woken). A new entry wakes it only when it
    /// must complete earlier, so that most calls (deadlines far ahead) cost no wake-up.
    sleeping_until: Option<Instant>,
}

impl State {
    /// When the thread must wake next: the earliest instant plus slack of its entries (each
    /// may complete that much late, so a thread woken for one also completes the others due).
    fn next_wake(&self) -> Option<Instant> {
        self.entries
            .iter()
            .map(|(&(at, _), &(_, slack))| at + slack)
            .min()
    }
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<&'static Timer> = OnceLock::new();
    TIMER.get_or_init(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer {
            state: Mutex::new(State {
                entries: BTreeMap::new(),
                sleeping_until: None,
            }),
            changed: Condvar::new(),
            next_id: AtomicU64::new(0),
            running: AtomicBool::new(false),
        }));
        let spawned = std::thread::Builder::new()
            .name("delphi-mcp-timer".into())
            .spawn(move || timer.run());
        match spawned {
            Ok(_) => timer.running.store(true, Ordering::Relaxed),
            // Without the thread deadlines are never reached early; calls still end normally.
            Err(error) => tracing::error!(%error, "cannot start the timer thread; call deadlines are not enforced"),
        }
        timer
    })
}

impl Timer {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&self) {
        let mut state = self.lock();
        loop {
            let now = Instant::now();
            let mut due = Vec::new();
            while let Some(entry) = state.entries.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                due.push(entry.remove().0);
            }
            if !due.is_empty() {
                // Woken outside the lock: a waker may poll its future at once (the stdio
                // direct path does), and the future's end drops other entries.
                drop(state);
                due.into_iter().for_each(Waker::wake);
                state = self.lock();
                continue;
            }
            state.sleeping_until = state.next_wake();
            state = match state.sleeping_until {
                Some(at) => {
                    self.changed
                        .wait_timeout(state, at.saturating_duration_since(now))
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

/// Whether the futures of this module complete at their instants: false only when the timer
/// thread could not be started (they then complete only when `at` has passed when polled).
pub(crate) fn keeps_deadlines() -> bool {
    timer().running.load(Ordering::Relaxed)
}

/// Completes at `at` (at once when `at` has passed).
pub(crate) fn sleep_until(at: Instant) -> Sleep {
    Sleep {
        at,
        slack: Duration::ZERO,
        id: None,
    }
}

/// Completes at `at` or up to `slack` later: registering it wakes the timer thread only when
/// the thread would otherwise sleep past `at + slack`, and the thread sleeps until then.
/// Entries registered again and again (one per call, each dropped before its instant) then
/// cost no wake-up each, while the thread wakes about once per `at - now + slack`.
#[cfg(target_os = "linux")]
pub(crate) fn sleep_until_lazily(at: Instant, slack: Duration) -> Sleep {
    Sleep {
        at,
        slack,
        id: None,
    }
}

/// The future of [`sleep_until`] and [`sleep_until_lazily`].
pub(crate) struct Sleep {
    at: Instant,
    slack: Duration,
    /// Set once registered with the timer thread.
    id: Option<u64>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.at {
            return Poll::Ready(());
        }
        let timer = timer();
        let id = *self
            .id
            .get_or_insert_with(|| timer.next_id.fetch_add(1, Ordering::Relaxed));
        let mut state = timer.lock();
        state
            .entries
            .insert((self.at, id), (cx.waker().clone(), self.slack));
        let sooner = state
            .sleeping_until
            .is_none_or(|until| self.at + self.slack < until);
        drop(state);
        if sooner {
            timer.changed.notify_one();
        }
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            timer().lock().entries.remove(&(self.at, id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_wakes_at_the_earliest_instant_plus_slack() {
        let now = Instant::now();
        let ms = Duration::from_millis;
        let waker = Waker::noop().clone();
        let mut state = State {
            entries: BTreeMap::new(),
            sleeping_until: None,
        };
        assert_eq!(state.next_wake(), None);
        // A lazy entry may complete up to its slack late; a later exact one cannot.
        state
            .entries
            .insert((now + ms(1), 0), (waker.clone(), ms(9)));
        assert_eq!(state.next_wake(), Some(now + ms(10)));
        state
            .entries
            .insert((now + ms(4), 1), (waker, Duration::ZERO));
        assert_eq!(state.next_wake(), Some(now + ms(4)));
    }

    #[test]
    fn completes_at_its_instant_under_a_plain_executor() {
        let started = Instant::now();
        let at = started + Duration::from_millis(30);
        crate::bind::block_on(sleep_until(at));
        assert!(Instant::now() >= at);
        assert!(
            keeps_deadlines(),
            "the thread that completed it is noted as running"
        );
        // A past instant completes at once; a dropped future leaves no entry behind.
        crate::bind::block_on(sleep_until(started));
        let mut far = Box::pin(sleep_until(started + Duration::from_secs(3600)));
        let waker = Waker::noop();
        assert!(far
            .as_mut()
            .poll(&mut Context::from_waker(waker))
            .is_pending());
        let id = far.id.expect("registered");
        assert!(timer().lock().entries.contains_key(&(far.at, id)));
        drop(far);
        assert!(!timer().lock().entries.keys().any(|&(_, other)| other == id));
    }
}
