//! Load test of an MCP server over stdio (not part of `cargo test`; see `docs/performance.md`,
//! "Runtime: stdio").
//!
//! usage: cargo run --release --example stdio_load -- [--calls N] [--pipelined N] -- COMMAND ARGS...
//!        cargo run --release --example stdio_load -- canned [WORK_US]
//!
//! Starts COMMAND with piped stdin and stdout (stderr discarded), times the start until the
//! `initialize` answer, then sends the calc example's `calc_scale` (`{"Value": i, "Factor": 2}`)
//! N times one at a time (default 20,000, after 1,000 not counted) and N more written by a
//! second thread while the answers are read (pipelined, default 50,000). Every answer is checked
//! (its id, and `structuredContent` unless the server is the canned one). Then reports latency
//! percentiles, calls per second, and the server's resident memory after the calls and after
//! start-up (`VmRSS`, and `Private` of `smaps_rollup`). Exits 1 when an answer is missing or wrong.
//!
//! `canned` makes this program the limit: a server that answers every line with a fixed reply
//! without reading it (run it as COMMAND: `stdio_load -- target/release/examples/stdio_load canned`).
//! With WORK_US it first spins that many microseconds per line, as a server doing that much
//! work before its answer would (`docs/performance.md`, "Busy polling").

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stdio_load","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CANNED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"result\\\":2.0}\"}],\"structuredContent\":{\"result\":2.0},\"isError\":false}}\n";

fn call(id: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"calc_scale\",\"arguments\":{{\"Value\":{id},\"Factor\":2}}}}}}\n"
    )
}

fn canned(work: Duration) -> std::process::ExitCode {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return std::process::ExitCode::SUCCESS,
            Ok(_) => {}
        }
        if line.starts_with(INITIALIZED.as_bytes()) {
            continue;
        }
        let started = Instant::now();
        while started.elapsed() < work {
            std::hint::spin_loop();
        }
        if output
            .write_all(CANNED)
            .and_then(|()| output.flush())
            .is_err()
        {
            return std::process::ExitCode::SUCCESS;
        }
    }
}

fn percentile(sorted: &[Duration], percent: usize) -> f64 {
    let index = (sorted.len() * percent)
        .div_ceil(100)
        .clamp(1, sorted.len())
        - 1;
    sorted[index].as_secs_f64() * 1e6
}

/// `VmRSS` and private (clean + dirty) memory of `pid`, in KiB.
fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let read = |file: &str, names: &[&str]| -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
        let mut sum = 0;
        for name in names {
            sum += text
                .lines()
                .find(|line| line.starts_with(name))?
                .split_whitespace()
                .nth(1)?
                .parse::<u64>()
                .ok()?;
        }
        Some(sum)
    };
    Some((
        read("status", &["VmRSS:"])?,
        read("smaps_rollup", &["Private_Clean:", "Private_Dirty:"])?,
    ))
}

fn check(line: &str, id: u64, canned: bool) -> Result<(), String> {
    let want = format!("\"id\":{id},");
    if canned || (line.contains(&want) && line.contains("\"structuredContent\"")) {
        Ok(())
    } else {
        Err(format!("answer to {id} wrong: {line}"))
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("canned") {
        let work = args.get(1).and_then(|us| us.parse().ok()).unwrap_or(0);
        return canned(Duration::from_micros(work));
    }
    let mut calls: u64 = 20_000;
    let mut pipelined: u64 = 50_000;
    let mut rest = args.iter();
    let mut command = Vec::new();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--calls" => calls = rest.next().and_then(|n| n.parse().ok()).unwrap_or(calls),
            "--pipelined" => {
                pipelined = rest
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(pipelined)
            }
            "--" => command.extend(rest.by_ref().cloned()),
            other => command.push(other.to_string()),
        }
    }
    let Some((program, program_args)) = command.split_first() else {
        eprintln!("usage: stdio_load [--calls N] [--pipelined N] -- COMMAND ARGS...");
        return std::process::ExitCode::from(2);
    };
    let is_canned = program_args.first().map(String::as_str) == Some("canned");
    match run(program, program_args, calls, pipelined, is_canned) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("stdio_load: {error}");
            std::process::ExitCode::from(1)
        }
    }
}

fn run(
    program: &str,
    args: &[String],
    calls: u64,
    pipelined: u64,
    canned: bool,
) -> Result<(), String> {
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let pid = child.id();
    let mut input = child.stdin.take().ok_or("no stdin")?;
    let mut output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    let mut read_line = |line: &mut String| -> Result<(), String> {
        line.clear();
        match output.read_line(line) {
            Ok(0) => Err("the server closed its stdout".into()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("read: {e}")),
        }
    };
    writeln!(input, "{INITIALIZE}").map_err(|e| e.to_string())?;
    read_line(&mut line)?;
    let start_up = started.elapsed();
    let fresh = memory_kib(pid);
    writeln!(input, "{INITIALIZED}").map_err(|e| e.to_string())?;

    let mut latencies = Vec::with_capacity(calls as usize);
    let warm_up = 1_000;
    let sequential = Instant::now();
    for id in 1..=warm_up + calls {
        let one = Instant::now();
        input
            .write_all(call(id).as_bytes())
            .map_err(|e| e.to_string())?;
        read_line(&mut line)?;
        if id > warm_up {
            latencies.push(one.elapsed());
        }
        check(&line, id, canned)?;
    }
    let sequential = sequential.elapsed();
    latencies.sort_unstable();

    let first = warm_up + calls + 1;
    let writer = std::thread::spawn(move || -> std::io::Result<std::process::ChildStdin> {
        let mut batch = Vec::with_capacity(64 * 1024);
        for id in first..first + pipelined {
            batch.extend_from_slice(call(id).as_bytes());
            if batch.len() > 60 * 1024 {
                input.write_all(&batch)?;
                batch.clear();
            }
        }
        input.write_all(&batch)?;
        Ok(input)
    });
    let flow = Instant::now();
    for id in first..first + pipelined {
        read_line(&mut line)?;
        check(&line, id, canned)?;
    }
    let flow = flow.elapsed();
    let input = writer
        .join()
        .map_err(|_| "the writer panicked")?
        .map_err(|e| e.to_string())?;
    let after = memory_kib(pid);
    drop(input);
    let _ = child.wait();

    println!(
        "start to the initialize answer: {:.2} ms",
        start_up.as_secs_f64() * 1e3
    );
    println!(
        "sequential: {calls} calls, p50 {:.1} us, p90 {:.1} us, p99 {:.1} us, {:.0} calls/s",
        percentile(&latencies, 50),
        percentile(&latencies, 90),
        percentile(&latencies, 99),
        (warm_up + calls) as f64 / sequential.as_secs_f64()
    );
    println!(
        "pipelined: {pipelined} calls in {:.3} s, {:.0} calls/s",
        flow.as_secs_f64(),
        pipelined as f64 / flow.as_secs_f64()
    );
    let show = |m: Option<(u64, u64)>| match m {
        Some((rss, private)) => format!(
            "RSS {:.1} MB, private {:.1} MB",
            rss as f64 / 1024.0,
            private as f64 / 1024.0
        ),
        None => "not readable".into(),
    };
    println!(
        "server memory: after start {}; after the calls {}",
        show(fresh),
        show(after)
    );
    Ok(())
}
