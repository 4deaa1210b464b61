//! Load test of `delphi-mcp serve --http` (not part of `cargo test`; see `bench/http_load.sh`
//! and `docs/performance.md`).
//!
//! usage: cargo run --release --example http_load -- ENDPOINT TOKEN_FILE [CALLS] [CONNECTIONS]
//!
//! Sends CALLS (default 10,000) stateless 2026-07-28 `tools/call` requests to the calc example's
//! `calc_add_integers` over CONNECTIONS (default 64) keep-alive HTTP/1.1 connections, checks
//! every answer (`A + B` for the arguments sent) and reports requests per second and latency
//! percentiles. Exits 1 when any call is lost or answered wrongly.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

struct Outcome {
    latencies: Vec<Duration>,
    wrong: Vec<String>,
}

async fn connection(
    authority: String,
    path: String,
    token: String,
    next: Arc<AtomicUsize>,
    calls: usize,
) -> Result<Outcome, String> {
    let stream = TcpStream::connect(&authority)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (reader, mut writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    let mut outcome = Outcome {
        latencies: Vec::new(),
        wrong: Vec::new(),
    };
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= calls {
            return Ok(outcome);
        }
        let (a, b) = (index as i64, (index as i64) * 3 - 7);
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{index},"method":"tools/call","params":{{"name":"calc_add_integers","arguments":{{"A":{a},"B":{b}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"http_load","version":"1"}}}}}}}}"#
        );
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {authority}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: calc_add_integers\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let started = Instant::now();
        writer
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("send: {e}"))?;
        let mut status_line = String::new();
        reader
            .read_line(&mut status_line)
            .await
            .map_err(|e| format!("read: {e}"))?;
        let mut length = None;
        loop {
            let mut line = String::new();
            reader
                .read_line(&mut line)
                .await
                .map_err(|e| format!("read: {e}"))?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse::<usize>().ok();
                }
            }
        }
        let length = length.ok_or_else(|| format!("no Content-Length ({})", status_line.trim()))?;
        let mut body = vec![0u8; length];
        reader
            .read_exact(&mut body)
            .await
            .map_err(|e| format!("read body: {e}"))?;
        outcome.latencies.push(started.elapsed());
        let answer: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let right = status_line.contains(" 200 ")
            && answer["id"] == index
            && answer["result"]["structuredContent"]["result"] == a + b;
        if !right {
            outcome.wrong.push(format!(
                "call {index}: {} {}",
                status_line.trim(),
                String::from_utf8_lossy(&body)
            ));
        }
    }
}

fn percentile(sorted: &[Duration], percent: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((percent / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: http_load ENDPOINT TOKEN_FILE [CALLS] [CONNECTIONS]");
        std::process::exit(2);
    }
    let endpoint = args[1].trim_start_matches("http://").to_string();
    let (authority, path) = match endpoint.find('/') {
        Some(slash) => (endpoint[..slash].to_string(), endpoint[slash..].to_string()),
        None => (endpoint.clone(), "/mcp".to_string()),
    };
    let token = std::fs::read_to_string(&args[2])
        .unwrap_or_else(|e| panic!("read the token file {}: {e}", args[2]))
        .trim()
        .to_string();
    let calls: usize = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let connections: usize = args.get(4).and_then(|v| v.parse().ok()).unwrap_or(64);

    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            tokio::spawn(connection(
                authority.clone(),
                path.clone(),
                token.clone(),
                Arc::clone(&next),
                calls,
            ))
        })
        .collect();
    let mut latencies = Vec::with_capacity(calls);
    let mut wrong = Vec::new();
    let mut failed_connections = Vec::new();
    for task in tasks {
        match task.await {
            Ok(Ok(outcome)) => {
                latencies.extend(outcome.latencies);
                wrong.extend(outcome.wrong);
            }
            Ok(Err(error)) => failed_connections.push(error),
            Err(error) => failed_connections.push(error.to_string()),
        }
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    let answered = latencies.len();
    let lost = calls.saturating_sub(answered);
    println!(
        "calls: {calls} over {connections} connections in {:.3} s",
        elapsed.as_secs_f64()
    );
    println!(
        "answered: {answered}, right: {}, wrong: {}, lost: {lost}",
        answered - wrong.len(),
        wrong.len()
    );
    println!(
        "throughput: {:.0} req/s",
        answered as f64 / elapsed.as_secs_f64()
    );
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "latency µs: p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1}",
        us(percentile(&latencies, 50.0)),
        us(percentile(&latencies, 90.0)),
        us(percentile(&latencies, 99.0)),
        us(latencies.last().copied().unwrap_or_default())
    );
    for line in wrong.iter().take(5) {
        eprintln!("wrong answer: {line}");
    }
    for error in failed_connections.iter().take(5) {
        eprintln!("connection failed: {error}");
    }
    if lost > 0 || !wrong.is_empty() || !failed_connections.is_empty() {
        std::process::exit(1);
    }
}
