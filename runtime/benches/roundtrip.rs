//! Measures the runtime's per-call cost on the ABI fixture (run: `cargo bench -p
//! delphi-mcp-runtime`): a direct library call through the host, a validated call through the
//! dispatcher, and a full JSON-RPC round trip through rmcp and the stdio transport over an
//! in-memory pipe, each in process and isolated (one worker process); then the start time of
//! an isolated host and the memory of a worker process. Prints figures; asserts nothing about
//! time.
//!
//! The bench binary is its own worker program: run as `roundtrip worker LIBRARY ...` it serves
//! as an isolated host's worker process (`WorkerCommand::current_exe(&["worker"])`).

use delphi_mcp_runtime::dispatch::{CallControl, Dispatch};
use delphi_mcp_runtime::host::{ArgValue, IsolationOptions};
use delphi_mcp_runtime::mcp::McpServer;
use delphi_mcp_runtime::{HostOptions, IsolatedHost, LibraryDispatch, LibraryHost, ToolHost};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Per-call latencies of one path.
struct Latencies(Vec<Duration>);

impl Latencies {
    fn report(mut self, label: &str, total: Duration) {
        self.0.sort_unstable();
        let at = |percent: usize| {
            let index = (self.0.len() * percent)
                .div_ceil(100)
                .clamp(1, self.0.len())
                - 1;
            self.0[index].as_secs_f64() * 1e6
        };
        let calls = self.0.len() as f64;
        println!(
            "{label:<52} {:>6} calls  mean {:>8.2} us  p50 {:>8.2} us  p99 {:>8.2} us  {:>8.0} calls/s",
            self.0.len(),
            total.as_secs_f64() * 1e6 / calls,
            at(50),
            at(99),
            calls / total.as_secs_f64()
        );
    }
}

async fn time_calls<F, Fut>(calls: u32, mut call: F) -> (Latencies, Duration)
where
    F: FnMut(u32) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut latencies = Vec::with_capacity(calls as usize);
    let started = Instant::now();
    for i in 0..calls {
        let one = Instant::now();
        call(i).await;
        latencies.push(one.elapsed());
    }
    (Latencies(latencies), started.elapsed())
}

/// A process's resident and private memory in KiB (Linux `/proc`), if readable.
fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let field = |name: &str| {
        rollup
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kib| kib.parse::<u64>().ok())
    };
    Some((
        field("Rss:")?,
        field("Private_Clean:")? + field("Private_Dirty:")?,
    ))
}

async fn round_trips(label: &str, host: Arc<dyn ToolHost>, calls: u32) {
    let (client, server_side) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_side);
    let server = McpServer::new(Arc::new(LibraryDispatch::new(host, None)));
    let serving = tokio::spawn(delphi_mcp_runtime::stdio::serve_io(
        server,
        server_read,
        server_write,
        true,
    ));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    client_write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .expect("write");
    lines
        .next_line()
        .await
        .expect("read")
        .expect("initialize answer");
    let mut latencies = Vec::with_capacity(calls as usize);
    let started = Instant::now();
    for i in 0..calls {
        let one = Instant::now();
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"A\":{i},\"B\":1}}}}}}\n");
        client_write
            .write_all(line.as_bytes())
            .await
            .expect("write");
        let answer = lines.next_line().await.expect("read").expect("answer");
        assert!(answer.contains("structuredContent"), "{answer}");
        latencies.push(one.elapsed());
    }
    Latencies(latencies).report(label, started.elapsed());
    drop(client_write);
    drop(lines);
    let _ = serving.await;
}

fn isolation(workers: usize) -> IsolationOptions {
    IsolationOptions::current_exe(workers, "worker").expect("current exe")
}

fn main() {
    delphi_mcp_runtime::host::isolated::run_worker_if_called("worker");
    let library = delphi_mcp_test_support::abi_lib::fixture_library(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
        &[],
    );
    let options = HostOptions::default();
    let in_process: Arc<dyn ToolHost> =
        Arc::new(LibraryHost::open(&library, &options).expect("load"));
    let isolated: Arc<dyn ToolHost> =
        Arc::new(IsolatedHost::start(&library, &options, &isolation(1)).expect("start"));
    let (add, _) = in_process.tool("add").expect("add");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let calls = 20_000;

    runtime.block_on(async {
        let control = CallControl::new();
        for (mode, host) in [("in process", &in_process), ("isolated", &isolated)] {
            let (latencies, total) = time_calls(calls, |i| {
                let call = host.call(
                    add,
                    vec![ArgValue::Int(i64::from(i)), ArgValue::Int(1)],
                    &control,
                );
                async move {
                    call.await.expect("call");
                }
            })
            .await;
            latencies.report(&format!("host.call, {mode}"), total);
        }
        for (mode, host) in [("in process", &in_process), ("isolated", &isolated)] {
            let dispatch = LibraryDispatch::new(Arc::clone(host), None);
            let (latencies, total) = time_calls(calls, |i| {
                let raw = format!("{{\"A\":{i},\"B\":1}}");
                let dispatch = &dispatch;
                async move {
                    let outcome = dispatch
                        .call_tool("add", Some(&raw), CallControl::new())
                        .await
                        .expect("tool");
                    assert!(!outcome.is_error, "{}", outcome.text);
                }
            })
            .await;
            latencies.report(&format!("dispatch (validate + call + JSON), {mode}"), total);
        }
        round_trips(
            "JSON-RPC round trip (rmcp + stdio), in process",
            Arc::clone(&in_process),
            calls,
        )
        .await;
        round_trips(
            "JSON-RPC round trip (rmcp + stdio), isolated",
            Arc::clone(&isolated),
            calls,
        )
        .await;
    });

    let state = isolated.state();
    let pid = state.workers.first().and_then(|w| w.pid);
    if let Some((rss, private)) = pid.and_then(memory_kib) {
        println!(
            "worker process after {} calls: RSS {rss} KiB, private {private} KiB",
            calls * 3
        );
    }
    if let Some((rss, private)) = memory_kib(std::process::id()) {
        println!("this process (server side, both hosts): RSS {rss} KiB, private {private} KiB");
    }
    drop(isolated);

    let mut starts: Vec<Duration> = (0..10)
        .map(|_| {
            let started = Instant::now();
            let host = IsolatedHost::start(&library, &options, &isolation(1)).expect("start");
            let elapsed = started.elapsed();
            drop(host);
            elapsed
        })
        .collect();
    starts.sort_unstable();
    println!(
        "isolated host start (spawn + load + mcp_init + hello), 1 worker: min {:.2} ms, median {:.2} ms, max {:.2} ms",
        starts[0].as_secs_f64() * 1e3,
        starts[starts.len() / 2].as_secs_f64() * 1e3,
        starts[starts.len() - 1].as_secs_f64() * 1e3
    );
    let started = Instant::now();
    let four = IsolatedHost::start(&library, &options, &isolation(4)).expect("start");
    println!(
        "isolated host start, 4 workers in parallel: {:.2} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    for pid in four.worker_pids() {
        if let Some((rss, private)) = memory_kib(pid) {
            println!("idle worker {pid}: RSS {rss} KiB, private {private} KiB");
        }
    }
}
