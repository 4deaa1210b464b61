//! Whether the library thread polls stdin before it sleeps, chosen by measuring both ways.
//!
//! A client calling one tool after another waits for each answer, and the library thread
//! waits for the client's next line. Polling ([`crate::host::busy_poll`]) takes that line at
//! once, but keeps the thread's CPU busy, so the scheduler wakes the client on another CPU; on
//! a virtual machine whose idle CPUs halt, that wake-up is most of a round trip. Sleeping at
//! once leaves the CPU free, and the scheduler may then run client and server on one CPU,
//! where neither waits for a halted CPU. Which is faster depends on the machine and its load,
//! and changes while the server runs (`docs/performance.md`, "Busy polling"), so the library
//! thread measures: it uses one way, from time to time tries the other for a few waits, and
//! keeps the one whose waits were shorter. When both are about as fast it sleeps, which costs
//! no CPU.

use std::time::Duration;

/// Waits per measurement: their median stands for the way that took them.
const SAMPLES: usize = 12;

/// Waits after a change of way that are not measured: the scheduler takes a few round trips
/// to place the two processes anew.
const SETTLE: u32 = 4;

/// Waits before the first try of the other way: early, so that a client's first calls decide.
const FIRST_TRY: u32 = 24;

/// Waits between tries after the first; doubled after each, up to [`LAST_INTERVAL`], so that
/// tries (waits in the slower way) stay well under 1 % of the waits once the choice holds.
const FIRST_INTERVAL: u32 = 2_048;

/// The longest interval between tries.
const LAST_INTERVAL: u32 = 65_536;

/// Waits longer than this count as this long: the client was busy or idle rather than
/// waiting for an answer, and polling has lapsed by then. They are counted, not left out: a
/// way whose waits are often long must not be judged by its few short ones.
const LONGEST_SAMPLE: Duration = Duration::from_millis(1);

/// Polling is chosen over sleeping only when its waits are this much shorter (per cent of
/// sleeping's); sleeping is chosen when its waits are at most [`SLEEP_WITHIN`] per cent of
/// polling's. Between the two, the way in use stays.
const POLL_BELOW: u64 = 85;

/// See [`POLL_BELOW`].
const SLEEP_WITHIN: u64 = 105;

/// Two measurements in a row of the way in use above this (per cent of the last one that was
/// not) try the other way at once: the machine changed (a try may itself have moved the
/// processes apart). A try whose first [`EARLY`] waits have a median above this (per cent of
/// the way in use) ends there.
const WORSE_ABOVE: u64 = 200;

/// Measured waits after which a try that is plainly slower ends (see [`WORSE_ABOVE`]).
const EARLY: usize = 6;

/// What the chooser is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Using the chosen way, measuring it; `left` waits until the other is tried.
    Using { left: u32 },
    /// Trying the other way: `settle` waits to skip, then [`SAMPLES`] measured.
    Trying { settle: u32 },
}

/// Chooses between polling and sleeping for one thread's waits (see the module documentation).
#[derive(Debug, Clone)]
pub struct WaitChoice {
    polling: bool,
    phase: Phase,
    samples: [u32; SAMPLES],
    taken: usize,
    /// The median wait of the way in use, last measured (zero: not yet).
    in_use: u32,
    /// Measurements in a row of the way in use above [`WORSE_ABOVE`] per cent of `in_use`.
    worse: u32,
    interval: u32,
}

impl Default for WaitChoice {
    fn default() -> WaitChoice {
        WaitChoice {
            // Sleeping first: a server that sleeps from its first call is the one the
            // scheduler may place beside its client; a try of polling follows soon, and
            // polling stays if that is faster.
            polling: false,
            phase: Phase::Using { left: FIRST_TRY },
            samples: [0; SAMPLES],
            taken: 0,
            in_use: 0,
            worse: 0,
            interval: FIRST_INTERVAL,
        }
    }
}

impl WaitChoice {
    /// Whether the next wait polls before it sleeps.
    pub fn polls(&self) -> bool {
        self.polling
    }

    /// Records how long a wait for the next line took (from the read that found nothing to
    /// the line's arrival, as this thread saw it).
    pub fn record(&mut self, waited: Duration) {
        let nanos = u32::try_from(waited.min(LONGEST_SAMPLE).as_nanos()).unwrap_or(u32::MAX);
        match self.phase {
            Phase::Using { left } => {
                let left = left.saturating_sub(1);
                self.phase = Phase::Using { left };
                self.take(nanos);
                if self.taken < SAMPLES {
                    return;
                }
                let measured = self.median();
                if self.in_use != 0 && above(measured, self.in_use, WORSE_ABOVE) {
                    self.worse += 1;
                } else {
                    self.worse = 0;
                    self.in_use = measured;
                }
                if left == 0 || self.worse == 2 {
                    self.in_use = measured;
                    self.worse = 0;
                    self.polling = !self.polling;
                    self.phase = Phase::Trying { settle: SETTLE };
                }
            }
            Phase::Trying { settle } if settle > 0 => {
                self.phase = Phase::Trying { settle: settle - 1 };
            }
            Phase::Trying { .. } => {
                self.take(nanos);
                let plainly_slower =
                    self.taken == EARLY && above(self.lower_median(), self.in_use, WORSE_ABOVE);
                if self.taken < SAMPLES && !plainly_slower {
                    return;
                }
                let tried = self.median();
                // `polling` is the way being tried.
                let keep_tried = if plainly_slower {
                    false
                } else if self.polling {
                    u64::from(tried) * 100 < u64::from(self.in_use) * POLL_BELOW
                } else {
                    !above(tried, self.in_use, SLEEP_WITHIN)
                };
                tracing::debug!(
                    tried = if self.polling { "polling" } else { "sleeping" },
                    tried_us = f64::from(tried) / 1e3,
                    in_use_us = f64::from(self.in_use) / 1e3,
                    kept = keep_tried,
                    "stdin waits: medians of a try"
                );
                if keep_tried {
                    self.in_use = tried;
                } else {
                    self.polling = !self.polling;
                }
                self.phase = Phase::Using {
                    left: self.interval,
                };
                self.interval = (self.interval * 2).min(LAST_INTERVAL);
            }
        }
    }

    fn take(&mut self, nanos: u32) {
        if let Some(slot) = self.samples.get_mut(self.taken) {
            *slot = nanos;
            self.taken += 1;
        }
    }

    /// The lower median of the samples taken so far (kept).
    fn lower_median(&mut self) -> u32 {
        let taken = &mut self.samples[..self.taken];
        taken.sort_unstable();
        taken
            .get(taken.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0)
    }

    /// The median of the samples taken (which it clears).
    fn median(&mut self) -> u32 {
        let taken = &mut self.samples[..self.taken];
        taken.sort_unstable();
        let median = taken.get(taken.len() / 2).copied().unwrap_or(0);
        self.taken = 0;
        median
    }
}

/// Whether `value` is above `percent` per cent of `reference`.
fn above(value: u32, reference: u32, percent: u64) -> bool {
    u64::from(value) * 100 > u64::from(reference) * percent
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `waits` waits, each as long as the way in use takes (`poll` or `sleep` us);
    /// how many of them polled and how many slept.
    fn run(choice: &mut WaitChoice, poll: u64, sleep: u64, waits: u32) -> (u32, u32) {
        let (mut polled, mut slept) = (0, 0);
        for _ in 0..waits {
            let micros = if choice.polls() {
                polled += 1;
                poll
            } else {
                slept += 1;
                sleep
            };
            choice.record(Duration::from_micros(micros));
        }
        (polled, slept)
    }

    /// Waits until the first try has been decided.
    const FIRST_DECISION: u32 = FIRST_TRY + SETTLE + SAMPLES as u32;

    #[test]
    fn sleeping_stays_when_polling_is_not_faster() {
        let mut choice = WaitChoice::default();
        assert!(!choice.polls());
        run(&mut choice, 10, 10, FIRST_DECISION);
        assert!(!choice.polls(), "equal waits: sleeping costs no CPU");
        run(&mut choice, 10, 10, 100_000);
        assert!(!choice.polls());
    }

    #[test]
    fn polling_is_chosen_when_sleeping_is_slower() {
        let mut choice = WaitChoice::default();
        run(&mut choice, 10, 40, FIRST_DECISION);
        assert!(choice.polls());
        let (polled, slept) = run(&mut choice, 10, 40, 100_000);
        assert!(choice.polls());
        // Tries of sleeping: one per interval (doubling), under 1 % of the waits.
        assert!(slept > 0, "sleeping was tried again");
        assert!(
            u64::from(slept) * 100 < u64::from(polled + slept),
            "{slept} of {} waits slept",
            polled + slept
        );
    }

    #[test]
    fn a_change_of_the_machine_is_noticed_within_a_few_measurements() {
        let mut choice = WaitChoice::default();
        run(&mut choice, 10, 8, 5_000);
        assert!(!choice.polls());
        // Sleeping now waits for a halted CPU: tried against polling without waiting for the
        // next interval.
        // (At most one measurement begun before the change, two after it, then the try.)
        let waits = 3 * SAMPLES as u32 + SETTLE + SAMPLES as u32;
        run(&mut choice, 10, 60, waits);
        assert!(choice.polls());
        // And back: polling 12, sleeping 10 is noticed at the next try.
        run(&mut choice, 12, 10, 70_000);
        assert!(!choice.polls());
    }

    #[test]
    fn one_slow_measurement_tries_nothing() {
        let mut choice = WaitChoice::default();
        run(&mut choice, 10, 40, FIRST_DECISION);
        assert!(choice.polls());
        let interval = choice.interval;
        // A measurement of 30 us (three times the way's 10) between ordinary ones.
        run(&mut choice, 10, 40, SAMPLES as u32);
        run(&mut choice, 30, 40, SAMPLES as u32);
        run(&mut choice, 10, 40, 3 * SAMPLES as u32);
        assert!(choice.polls());
        assert!(
            matches!(choice.phase, Phase::Using { .. }),
            "{:?}",
            choice.phase
        );
        assert_eq!(choice.interval, interval, "no try was made");
    }

    #[test]
    fn a_plainly_slower_try_ends_early() {
        let mut choice = WaitChoice::default();
        run(&mut choice, 10, 40, FIRST_DECISION);
        assert!(choice.polls());
        // Until the next try, then through it: sleeping three times slower ends after its
        // settling waits and EARLY measured ones.
        let (_, slept) = run(&mut choice, 10, 30, FIRST_INTERVAL + 100);
        assert!(choice.polls());
        assert_eq!(slept, SETTLE + EARLY as u32);
    }

    #[test]
    fn a_margin_keeps_the_way_in_use() {
        // Polling 10 % faster: not enough to leave sleeping (15 % needed)...
        let mut choice = WaitChoice::default();
        run(&mut choice, 9, 10, 100_000);
        assert!(!choice.polls());
        // ... and too much to leave polling for sleeping (5 % allowed).
        let mut choice = WaitChoice::default();
        run(&mut choice, 10, 40, FIRST_DECISION);
        assert!(choice.polls());
        run(&mut choice, 9, 10, 100_000);
        assert!(choice.polls());
    }

    #[test]
    fn a_client_slow_to_send_its_next_line_gets_sleeping() {
        // Polling cannot take a line that comes milliseconds later any sooner.
        let mut choice = WaitChoice::default();
        run(&mut choice, 5_000, 50_000, 10_000);
        assert!(!choice.polls());
    }

    #[test]
    fn a_way_whose_waits_are_often_long_is_not_judged_by_its_short_ones() {
        let mut choice = WaitChoice::default();
        // Sleeping: two waits in three take 20 ms, the others 5 us; polling 15 us.
        for wait in 0..10_000u32 {
            let micros = match (choice.polls(), wait % 3) {
                (true, _) => 15,
                (false, 0) => 5,
                (false, _) => 20_000,
            };
            choice.record(Duration::from_micros(micros));
        }
        assert!(choice.polls());
    }

    #[test]
    fn the_median_ignores_a_few_outliers() {
        let mut choice = WaitChoice::default();
        run(&mut choice, 10, 40, FIRST_DECISION);
        assert!(choice.polls());
        // Polling 10 us, with one wait in six delayed to 500 us (a mean would be 90 us);
        // sleeping 11 us, more than 5 % slower.
        for wait in 0..10_000u32 {
            let micros = match (choice.polls(), wait % 6) {
                (true, 0) => 500,
                (true, _) => 10,
                (false, _) => 11,
            };
            choice.record(Duration::from_micros(micros));
        }
        assert!(choice.polls());
    }
}
