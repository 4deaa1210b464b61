//! Measures the runtime's per-call cost on the ABI fixture (run: `cargo bench -p
//! delphi-mcp-runtime`): a direct library call through the host, a validated call through the
//! dispatcher, and a full JSON-RPC round trip through rmcp and the stdio transport over an
//! in-memory pipe. Prints figures; asserts nothing about time.

use delphi_mcp_runtime::dispatch::{CallControl, Dispatch};
use delphi_mcp_runtime::host::ArgValue;
use delphi_mcp_runtime::mcp::McpServer;
use delphi_mcp_runtime::{HostOptions, LibraryDispatch, LibraryHost};
use std::sync::Arc;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn report(label: &str, calls: u32, started: Instant) {
    let elapsed = started.elapsed();
    println!(
        "{label:<44} {calls:>7} calls  {:>9.2} us/call  {:>10.0} calls/s",
        elapsed.as_secs_f64() * 1e6 / f64::from(calls),
        f64::from(calls) / elapsed.as_secs_f64()
    );
}

fn main() {
    let library = delphi_mcp_test_support::abi_lib::fixture_library(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
        &[],
    );
    let host = Arc::new(LibraryHost::open(&library, &HostOptions::default()).expect("load"));
    let add = host
        .manifest()
        .tools
        .iter()
        .position(|t| t.name == "add")
        .expect("add");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let calls = 20_000;

    runtime.block_on(async {
        let started = Instant::now();
        for i in 0..calls {
            host.call(add, vec![ArgValue::Int(i64::from(i)), ArgValue::Int(1)])
                .await
                .expect("call");
        }
        report("host.call (library thread hop + FFI)", calls, started);

        let dispatch = LibraryDispatch::new(Arc::clone(&host), None);
        let started = Instant::now();
        for i in 0..calls {
            let raw = format!("{{\"A\":{i},\"B\":1}}");
            dispatch.call_tool("add", Some(&raw), CallControl::new()).await.expect("tool");
        }
        report("dispatch (validate + call + result JSON)", calls, started);

        let (client, server_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        let server = McpServer::new(Arc::new(LibraryDispatch::new(Arc::clone(&host), None)));
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
        lines.next_line().await.expect("read").expect("initialize answer");
        let started = Instant::now();
        for i in 0..calls {
            let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"A\":{i},\"B\":1}}}}}}\n");
            client_write.write_all(line.as_bytes()).await.expect("write");
            let answer = lines.next_line().await.expect("read").expect("answer");
            assert!(answer.contains("structuredContent"), "{answer}");
        }
        report("JSON-RPC round trip (rmcp + line transport)", calls, started);
        drop(client_write);
        drop(lines);
        let _ = serving.await;
    });
}
