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

use super::pool::Reading;
use super::process::{self, Read};
use super::shared::Shared;
use crate::host::busy_poll::{BusyPollRead, Pollable};
use crate::host::{CallError, CallReturn};
use std::io::BufReader;
use std::process::ChildStdout;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot::{error::TryRecvError, Receiver};

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
        let mut frames = read.frames.lock().unwrap_or_else(|e| e.into_inner());
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
        let busy = matches!(worker.state, super::pool::WorkerState::Busy(_));
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
