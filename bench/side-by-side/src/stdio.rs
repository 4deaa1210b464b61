//! A stdio server measured: start to the `initialize` answer, idle RSS, calls one at a time
//! (p50/p99), pipelined calls (all written at once by another thread), RSS after the calls.

use crate::calls::{self, Expect};
use crate::proc::{self, Guard};
use crate::stats;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

/// How many calls a stdio run makes.
#[derive(Debug, Clone, Copy)]
pub struct Counts {
    /// Unmeasured calls first.
    pub warm_up: u64,
    /// Calls one at a time.
    pub sequential: u64,
    /// Calls written at once.
    pub pipelined: u64,
    /// Starts timed before the measured run (each spawns the server, reads its `initialize`
    /// answer and ends it): a start varies more than a call, so one start per round is noise.
    pub extra_starts: u64,
}

/// The figures of one run.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    /// Spawn to the `initialize` answer, ms: the median of the run's starts.
    pub start_ms: f64,
    /// RSS after the `initialize` answer, MB.
    pub rss_start_mb: f64,
    /// RSS after all calls, MB.
    pub rss_after_mb: f64,
    /// Sequential latency p50, µs.
    pub p50_us: f64,
    /// Sequential latency p99, µs.
    pub p99_us: f64,
    /// Pipelined calls per second.
    pub pipelined_per_s: f64,
}

/// Runs `command` as a stdio server and measures it; `Err` on any wrong or missing answer.
pub fn measure(command: &[String], expect: Expect, counts: Counts) -> Result<Figures, String> {
    let mut starts_ms = Vec::with_capacity(counts.extra_starts as usize + 1);
    for _ in 0..counts.extra_starts {
        starts_ms.push(Started::spawn(command, expect)?.start_ms);
    }
    let Started {
        start_ms,
        pid,
        stderr,
        mut input,
        mut output,
        guard,
    } = Started::spawn(command, expect)?;
    starts_ms.push(start_ms);
    let fail = |message: String| format!("{message}\nserver stderr: {}", stderr.text());
    let (_, initialized) = calls::handshake();
    // The limit answers every line, a notification too: it gets none.
    if expect == Expect::Mcp {
        send(&mut input, &initialized).map_err(fail)?;
    }
    let rss_start_mb = proc::rss_mb(pid);

    let mut next = 1u64;
    let mut one_call = |input: &mut std::process::ChildStdin| -> Result<f64, String> {
        let index = next;
        next += 1;
        let call_started = Instant::now();
        send(input, &calls::tools_call(index, None))?;
        let line = receive(&mut output)?;
        let elapsed = call_started.elapsed().as_secs_f64() * 1e6;
        calls::check(expect, index, &line)?;
        Ok(elapsed)
    };
    for _ in 0..counts.warm_up {
        one_call(&mut input).map_err(fail)?;
    }
    let mut latencies = Vec::with_capacity(counts.sequential as usize);
    for _ in 0..counts.sequential {
        latencies.push(one_call(&mut input).map_err(fail)?);
    }
    let first = next;

    // Pipelined: one thread writes every request, this one reads and checks the answers
    // (in any order: servers may answer concurrently running calls out of order).
    let mut batch = String::new();
    for index in first..first + counts.pipelined {
        batch.push_str(&calls::tools_call(index, None));
        batch.push('\n');
    }
    let pipelined_started = Instant::now();
    let writer = std::thread::spawn(move || {
        let written = input
            .write_all(batch.as_bytes())
            .and_then(|()| input.flush());
        (input, written)
    });
    let mut seen = vec![false; counts.pipelined as usize];
    for answered in 0..counts.pipelined {
        let line = receive(&mut output).map_err(fail)?;
        let index = if expect == Expect::Canned {
            first + answered
        } else {
            serde_json::from_str(&line)
                .ok()
                .as_ref()
                .and_then(calls::answer_id)
                .ok_or_else(|| fail(format!("answer without a numeric id: {line}")))?
        };
        let slot = index
            .checked_sub(first)
            .filter(|slot| *slot < counts.pipelined)
            .ok_or_else(|| fail(format!("answer to a call not sent: {line}")))?;
        if std::mem::replace(&mut seen[slot as usize], true) {
            return Err(fail(format!("a second answer to call {index}: {line}")));
        }
        calls::check(expect, index, &line).map_err(fail)?;
    }
    let pipelined_s = pipelined_started.elapsed().as_secs_f64();
    let (input, written) = writer
        .join()
        .map_err(|_| "the writer panicked".to_string())?;
    written.map_err(|e| fail(format!("write: {e}")))?;
    let rss_after_mb = proc::rss_mb(pid);
    drop(input);
    drop(guard);

    latencies.sort_by(f64::total_cmp);
    Ok(Figures {
        start_ms: stats::median(starts_ms),
        rss_start_mb,
        rss_after_mb,
        p50_us: stats::percentile(&latencies, 50.0),
        p99_us: stats::percentile(&latencies, 99.0),
        pipelined_per_s: counts.pipelined as f64 / pipelined_s,
    })
}

/// A server spawned and past its `initialize` answer (its process ends when `guard` drops).
struct Started {
    /// Spawn to the `initialize` answer, ms.
    start_ms: f64,
    pid: u32,
    stderr: proc::Tail,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
    guard: Guard,
}

impl Started {
    /// Spawns `command` and times it until its `initialize` answer.
    fn spawn(command: &[String], expect: Expect) -> Result<Started, String> {
        let started = Instant::now();
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("start {}: {e}", command[0]))?;
        let pid = child.id();
        let stderr = proc::collect_tail(child.stderr.take().expect("stderr"));
        let mut input = child.stdin.take().expect("stdin");
        let mut output = BufReader::new(child.stdout.take().expect("stdout"));
        let guard = Guard::new(child);
        let fail = |message: String| format!("{message}\nserver stderr: {}", stderr.text());
        let (initialize, _) = calls::handshake();
        send(&mut input, &initialize).map_err(fail)?;
        // Servers may log or notify before the answer: the answer is the line with id 0.
        loop {
            let line = receive(&mut output).map_err(fail)?;
            if expect == Expect::Canned || line.contains(r#""id":0"#) {
                break;
            }
        }
        Ok(Started {
            start_ms: started.elapsed().as_secs_f64() * 1000.0,
            pid,
            stderr,
            input,
            output,
            guard,
        })
    }
}

fn send(input: &mut std::process::ChildStdin, line: &str) -> Result<(), String> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    input
        .write_all(&bytes)
        .and_then(|()| input.flush())
        .map_err(|e| format!("write to the server: {e}"))
}

fn receive(output: &mut BufReader<std::process::ChildStdout>) -> Result<String, String> {
    let mut line = String::new();
    match output.read_line(&mut line) {
        Ok(0) => Err("the server closed its stdout (exited?)".to_string()),
        Ok(_) => Ok(line),
        Err(error) => Err(format!("read from the server: {error}")),
    }
}
