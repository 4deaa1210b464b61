//! A caller that reads its own answer from the worker's pipe.
//!
//! An answer read by the worker's reader thread reaches its caller through a wake-up: the
//! reader thread sends it, and a caller parked in its runtime is woken. With the reader
//! thread polling for answers besides the worker polling for calls, a caller that is the only
//! request in progress over HTTP ([`crate::host::CallControl::caller_idle`]) shares two CPUs
//! with two pollers, its client and the runtime's other worker, and every call pays for them
//! taking turns. Such a caller instead reads the worker's frames itself, busy polling for at
//! most the budget within the one poll of its call that wrote the call frame, while the reader
//! thread sleeps ([`Reading::Caller`]); it hands reading back when it is done
//! ([`Reading::Released`]: the reader thread reads again after a while, or at once when a call
//! starts whose caller does not read) or when the answer did not come within the budget, the
//! pipe ended or a frame could not be read ([`Reading::Thread`]: the reader thread handles
//! what follows, the worker's exit included).

use super::pool::{Pool, WorkerState};
use super::process::{self, Read};
use super::shared::Shared;
use crate::host::busy_poll::{BusyPollRead, Pollable};
use crate::host::{CallError, CallReturn};
use std::io::BufReader;
use std::process::ChildStdout;
use std::sync::{Arc, Mutex, TryLockError};
use std::time::{Duration, Instant};
use tokio::sync::oneshot::{error::TryRecvError, Receiver};

/// How long a worker's frames go unread after a caller read its own answer before the reader
/// thread reads them again ([`Reading::Released`]).
pub(super) const READER_TAKEOVER: Duration = Duration::from_millis(100);

/// Who reads a worker's frames. The pipe has one reader at a time
/// ([`super::pool::Worker::frames`] is locked for each frame); this decides who tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// The worker's reader thread.
    Thread,
    /// The caller of the call running on the worker reads its own answer, within one poll of
    /// its call ([`read_own_answer`]).
    Caller,
    /// Nobody, since the instant: the last call's caller read its answer, or could have, and
    /// the next call's caller will probably read its own too. The reader thread reads again
    /// after [`READER_TAKEOVER`] (a worker that dies between calls is noticed then), or at
    /// once when a call starts whose caller does not read.
    Released(Instant),
}

impl Pool {
    /// Who reads the answer of the call just given to worker `slot` ([`Pool::submit`]): its
    /// caller when it is idle, the worker's last call was quick and nobody reads its frames
    /// meanwhile ([`Reading::Released`]). Returns what the caller reads then; true when the
    /// reader thread must be woken to read instead.
    pub fn reader_of(&mut self, slot: usize, caller_idle: bool) -> (Option<CallerRead>, bool) {
        let worker = &mut self.workers[slot];
        if !matches!(worker.reading, Reading::Released(_)) {
            return (None, false);
        }
        match &worker.frames {
            Some(frames) if caller_idle && worker.quick => {
                worker.reading = Reading::Caller;
                let read = CallerRead {
                    slot,
                    generation: worker.generation,
                    frames: Arc::clone(frames),
                };
                (Some(read), false)
            }
            _ => {
                worker.reading = Reading::Thread;
                (None, true)
            }
        }
    }
}

/// A worker's frames: its stdout, buffered.
#[derive(Debug)]
pub(super) struct FrameReader {
    reader: BufReader<BusyPollRead<ChildStdout>>,
}

impl FrameReader {
    /// Reads `stdout`, busy polling for at most `budget` before each blocking read.
    pub fn new(stdout: ChildStdout, budget: Duration) -> FrameReader {
        FrameReader {
            reader: BufReader::with_capacity(64 * 1024, BusyPollRead::new(stdout, budget)),
        }
    }

    /// The buffered reader.
    pub fn reader(&mut self) -> &mut BufReader<BusyPollRead<ChildStdout>> {
        &mut self.reader
    }

    /// Whether a frame has begun: bytes buffered or waiting in the pipe (or its end).
    fn has_input(&self) -> bool {
        !self.reader.buffer().is_empty()
            || self.reader.get_ref().get_ref().input_probe().has_input()
    }
}

/// What a caller reads from ([`super::pool::Pool::reader_of`]).
#[derive(Debug)]
pub(super) struct CallerRead {
    pub slot: usize,
    pub generation: u64,
    pub frames: Arc<Mutex<FrameReader>>,
}

/// Waits for `answer` by reading worker `read.slot`'s frames on this thread (see the module
/// documentation), then hands reading back. The answer when it came.
pub(super) fn read_own_answer(
    shared: &Shared,
    read: &CallerRead,
    answer: &mut Receiver<Result<CallReturn, CallError>>,
) -> Option<Result<CallReturn, CallError>> {
    let start = Instant::now();
    let mut ended = false;
    let outcome = loop {
        match answer.try_recv() {
            Ok(outcome) => break Some(outcome),
            // Dropped unanswered: the caller's wait says why.
            Err(TryRecvError::Closed) => break None,
            Err(TryRecvError::Empty) => {}
        }
        if ended || start.elapsed() >= shared.config.busy_poll {
            break None;
        }
        // Never waits for the lock: only a reader thread given reading back by a kill holds it
        // meanwhile, and it may block in a read until the worker's pipe ends.
        let mut frames = match read.frames.try_lock() {
            Ok(frames) => frames,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                std::thread::yield_now();
                continue;
            }
        };
        if !frames.has_input() {
            drop(frames);
            std::thread::yield_now();
            continue;
        }
        // A frame has begun: the rest follows at once (or the pipe ends).
        let frame = process::read_frame(&mut frames, &shared.config);
        drop(frames);
        match frame {
            Read::Message(message) => {
                process::on_message(shared, read.slot, read.generation, message);
            }
            Read::End => ended = true,
            Read::Invalid(problem) => {
                process::stop_for_protocol(shared, read.slot, read.generation, problem);
                ended = true;
            }
        }
    };
    let mut pool = shared.lock();
    let worker = &mut pool.workers[read.slot];
    if worker.generation == read.generation {
        let busy = matches!(worker.state, WorkerState::Busy(_));
        if worker.reading == Reading::Caller && outcome.is_some() && !busy {
            worker.reading = Reading::Released(Instant::now());
        } else {
            // Also when the worker was killed meanwhile (`Worker::kill` gave reading back).
            worker.reading = Reading::Thread;
            shared.changed.notify_all();
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::isolated::pool::Pending;
    use crate::host::isolated::shared::Config;
    use crate::host::ReturnValue;

    fn config(busy_poll: Duration) -> Config {
        Config {
            program: "worker".into(),
            args: Vec::new(),
            call_timeout: None,
            max_result_bytes: 1024,
            on_cancel: super::super::CancelPolicy::Abandon,
            busy_poll,
        }
    }

    /// Submits call `id`; returns its answer's receiver and the worker it went to.
    fn submit(
        pool: &mut Pool,
        id: u64,
        caller_idle: bool,
    ) -> (
        tokio::sync::oneshot::Receiver<Result<CallReturn, CallError>>,
        Option<usize>,
    ) {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let submitted = pool.submit(Pending {
            id,
            tool: 0,
            frame: Vec::new(),
            deadline: None,
            reply,
            client: super::super::relay::CallClient::default(),
            caller_idle,
        });
        (answer, submitted.map(|(slot, _)| slot))
    }

    fn answer(pool: &mut Pool, id: u64, config: &Config) {
        let returned = CallReturn {
            status: 0,
            value: ReturnValue::Absent,
        };
        pool.returned(0, id, Ok(returned), config);
        super::super::shared::send_replies(std::mem::take(&mut pool.replies));
    }

    /// Who reads a worker's frames as calls come and go ([`Reading`]).
    #[cfg(unix)]
    #[test]
    fn an_idle_caller_reads_after_a_quick_answer_and_others_wake_the_reader_thread() {
        let mut child = std::process::Command::new("true")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("a child with a stdout pipe");
        let stdout = child.stdout.take().expect("stdout");
        let quick = config(Duration::from_secs(60));
        let mut pool = Pool::new(1);
        let worker = &mut pool.workers[0];
        worker.set(WorkerState::Idle);
        worker.frames = Some(Arc::new(Mutex::new(FrameReader::new(
            stdout,
            Duration::ZERO,
        ))));

        // The reader thread reads the first answer, and leaves the next to an idle caller.
        let (_first, slot) = submit(&mut pool, 1, true);
        assert_eq!(slot, Some(0));
        assert!(matches!(pool.reader_of(0, true), (None, false)));
        answer(&mut pool, 1, &quick);
        assert!(matches!(pool.workers[0].reading, Reading::Released(_)));
        let _second = submit(&mut pool, 2, true);
        let (read, wake) = pool.reader_of(0, true);
        assert!(read.is_some_and(|read| read.slot == 0) && !wake);
        assert_eq!(pool.workers[0].reading, Reading::Caller);
        // Answered while the caller reads: the caller hands reading back itself.
        answer(&mut pool, 2, &quick);
        assert_eq!(pool.workers[0].reading, Reading::Caller);

        // A caller that is not idle gives reading back to the reader thread, and wakes it.
        pool.workers[0].reading = Reading::Released(Instant::now());
        let _third = submit(&mut pool, 3, false);
        assert!(matches!(pool.reader_of(0, false), (None, true)));
        assert_eq!(pool.workers[0].reading, Reading::Thread);
        answer(&mut pool, 3, &quick);
        assert_eq!(
            pool.workers[0].reading,
            Reading::Thread,
            "its caller was not idle"
        );

        // An answer slower than the budget keeps the reader thread reading.
        let _fourth = submit(&mut pool, 4, true);
        answer(&mut pool, 4, &config(Duration::ZERO));
        assert!(!pool.workers[0].quick);
        assert_eq!(pool.workers[0].reading, Reading::Thread);

        // A queued call's caller never reads; a kill gives reading back.
        let _fifth = submit(&mut pool, 5, true);
        let (_queued, slot) = submit(&mut pool, 6, true);
        assert_eq!(slot, None, "queued: no worker, so no reading");
        pool.workers[0].reading = Reading::Caller;
        pool.workers[0].kill();
        assert_eq!(pool.workers[0].reading, Reading::Thread);
        let _ = child.wait();
    }
}
