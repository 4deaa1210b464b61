//! An HTTP server measured: `tools/call` requests over keep-alive HTTP/1.1 connections at
//! several connection counts; requests per second and latency percentiles per count.

use crate::calls::{self, Expect};
use crate::stats;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// What a server accepts.
#[derive(Debug, Clone)]
pub enum Style {
    /// Stateless 2026-07-28: `_meta` in the body, `MCP-Protocol-Version`, `Mcp-Method` and
    /// `Mcp-Name` headers, and a Bearer token when given (delphi-mcp, bare rmcp).
    Stateless2026 {
        /// The Bearer token.
        token: Option<String>,
    },
    /// A 2025-06-18 request without a session (servers in their stateless mode).
    Stateless2025,
}

/// A server to load.
#[derive(Debug, Clone)]
pub struct Target {
    /// `127.0.0.1:PORT`.
    pub authority: String,
    /// The request style.
    pub style: Style,
    /// What the answers are checked against.
    pub expect: Expect,
}

/// The figures at one connection count.
#[derive(Debug, Clone, Default)]
pub struct Level {
    /// Requests per second.
    pub per_s: f64,
    /// Latency p50, µs.
    pub p50_us: f64,
    /// Latency p99, µs.
    pub p99_us: f64,
}

/// One HTTP server's round: the figures per connection count and its RSS after the calls.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Per connection count, in the order asked for.
    pub levels: Vec<Level>,
    /// RSS after the calls, MB.
    pub rss_mb: f64,
}

/// Loads `target` with `calls` requests at each connection count (after `warm_up` requests on
/// one connection); `Err` on any wrong or missing answer.
pub fn measure(
    target: &Target,
    connections: &[usize],
    calls: u64,
    warm_up: u64,
) -> Result<Vec<Level>, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let next = Arc::new(AtomicU64::new(1));
        run_level(target, 1, warm_up, &next).await?;
        let mut levels = Vec::new();
        for &count in connections {
            levels.push(run_level(target, count, calls, &next).await?);
        }
        Ok(levels)
    })
}

async fn run_level(
    target: &Target,
    connections: usize,
    calls: u64,
    next: &Arc<AtomicU64>,
) -> Result<Level, String> {
    let first = next.load(Ordering::Relaxed);
    let last = first + calls;
    let started = Instant::now();
    let tasks: Vec<_> = (0..connections)
        .map(|_| tokio::spawn(connection(target.clone(), Arc::clone(next), last)))
        .collect();
    let mut latencies = Vec::with_capacity(calls as usize);
    for task in tasks {
        latencies.extend(task.await.map_err(|e| e.to_string())??);
    }
    let elapsed = started.elapsed().as_secs_f64();
    next.store(last, Ordering::Relaxed);
    if latencies.len() as u64 != calls {
        return Err(format!("{} answers to {calls} calls", latencies.len()));
    }
    latencies.sort_by(f64::total_cmp);
    Ok(Level {
        per_s: calls as f64 / elapsed,
        p50_us: stats::percentile(&latencies, 50.0),
        p99_us: stats::percentile(&latencies, 99.0),
    })
}

/// One keep-alive connection making calls until the shared counter reaches `last`.
async fn connection(target: Target, next: Arc<AtomicU64>, last: u64) -> Result<Vec<f64>, String> {
    let stream = TcpStream::connect(&target.authority)
        .await
        .map_err(|e| format!("connect to {}: {e}", target.authority))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (reader, mut writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    let mut latencies = Vec::new();
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= last {
            return Ok(latencies);
        }
        let request = request(&target, index);
        let started = Instant::now();
        writer
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("send: {e}"))?;
        let (status, body) = response(&mut reader).await?;
        latencies.push(started.elapsed().as_secs_f64() * 1e6);
        if status != 200 {
            return Err(format!("call {index}: status {status}: {body}"));
        }
        calls::check(target.expect, index, &body)?;
    }
}

fn request(target: &Target, index: u64) -> String {
    let authority = &target.authority;
    let (body, headers) = match &target.style {
        Style::Stateless2026 { token } => {
            let auth = token
                .as_ref()
                .map(|t| format!("Authorization: Bearer {t}\r\n"))
                .unwrap_or_default();
            (
                calls::tools_call(index, Some(calls::META_2026)),
                format!("{auth}MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: calc_scale\r\n"),
            )
        }
        Style::Stateless2025 => (
            calls::tools_call(index, None),
            format!("MCP-Protocol-Version: {}\r\n", calls::HANDSHAKE_VERSION),
        ),
    };
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Reads one response: its status and body (the JSON of the `data:` line of an SSE body).
async fn response(
    reader: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
) -> Result<(u16, String), String> {
    let read_error = |e: std::io::Error| format!("read: {e}");
    let mut line = String::new();
    if reader.read_line(&mut line).await.map_err(read_error)? == 0 {
        return Err("the server closed the connection".to_string());
    }
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {line:?}"))?;
    let (mut length, mut chunked, mut sse) = (None, false, false);
    loop {
        line.clear();
        reader.read_line(&mut line).await.map_err(read_error)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse::<usize>().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.contains("chunked");
        } else if name.eq_ignore_ascii_case("content-type") {
            sse = value.starts_with("text/event-stream");
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line).await.map_err(read_error)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| format!("bad chunk size {line:?}"))?;
            let mut chunk = vec![0u8; size + 2];
            reader.read_exact(&mut chunk).await.map_err(read_error)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        let length = length.ok_or("a response without Content-Length or chunks")?;
        body.resize(length, 0);
        reader.read_exact(&mut body).await.map_err(read_error)?;
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    if !sse {
        return Ok((status, text));
    }
    let data = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string();
    Ok((status, data))
}
