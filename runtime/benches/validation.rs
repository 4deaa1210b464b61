//! Measures argument validation on hostile inputs (run: `cargo bench -p delphi-mcp-runtime
//! --bench validation`) on the ABI fixture's `add`:
//!
//! 1. `marshal::parse_arguments` on `arguments` objects of 100,000 and 200,000 repeated keys and
//!    of 100,000 distinct unknown keys (time and the size of the error text);
//! 2. `marshal::json_arguments` (a JSON handler's arguments) on repeated keys one level down and
//!    on 100 nested objects of 1,000 keys each (duplicates are looked for at every depth);
//! 3. the HTTP transport (in process, `--timeout 10`, 2 async worker threads as `serve --http`
//!    has on this machine): two 1.2 MB `tools/call` requests of 100,000 repeated keys sent at
//!    once, while another client sends a small stateless `tools/list` every 50 ms; prints how
//!    long the big requests took, their status, and the longest wait for a small answer.
//!
//! Prints figures; asserts nothing about time.

use delphi_mcp_runtime::host::ToolHost;
use delphi_mcp_runtime::http::{bind, AuthMode, HttpOptions};
use delphi_mcp_runtime::{marshal, HostOptions, LibraryDispatch, LibraryHost};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}"#;

fn repeated_keys(count: usize) -> String {
    let mut text = String::with_capacity(count * 13 + 2);
    text.push('{');
    for i in 0..count {
        if i > 0 {
            text.push(',');
        }
        text.push_str("\"A\":1234567");
    }
    text.push('}');
    text
}

fn distinct_keys(count: usize) -> String {
    let members: Vec<String> = (0..count).map(|i| format!("\"k{i}\":1")).collect();
    format!("{{{}}}", members.join(","))
}

fn post(addr: SocketAddr, method: &str, name: Option<&str>, body: &str) -> (u16, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .expect("timeout");
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n"
    );
    if let Some(name) = name {
        head.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let status = String::from_utf8_lossy(&answer)
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, started.elapsed())
}

fn main() {
    let library = delphi_mcp_test_support::abi_lib::fixture_library(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
        &[],
    );
    let host: Arc<dyn ToolHost> =
        Arc::new(LibraryHost::open(&library, &HostOptions::default()).expect("load"));
    let add = host
        .manifest()
        .tools
        .iter()
        .find(|t| t.name == "add")
        .expect("add")
        .clone();

    for (label, raw) in [
        ("100,000 repeated keys", repeated_keys(100_000)),
        ("200,000 repeated keys", repeated_keys(200_000)),
        ("100,000 distinct unknown keys", distinct_keys(100_000)),
    ] {
        let started = Instant::now();
        let outcome = marshal::parse_arguments("add", Some(&raw), &add.delphi.params);
        let elapsed = started.elapsed();
        let message = outcome.err().map(|e| e.to_string()).unwrap_or_default();
        println!(
            "parse_arguments, {label:<31} {:>8.1} KB  {:>9.3} s  error text {} bytes",
            raw.len() as f64 / 1000.0,
            elapsed.as_secs_f64(),
            message.len()
        );
    }

    let schema = serde_json::json!({"type": "object"});
    let nested = {
        let level: Vec<String> = (0..999).map(|i| format!("\"k{i}\":1")).collect();
        let level = level.join(",");
        let mut text = String::new();
        for _ in 0..100 {
            text.push_str(&format!("{{{level},\"next\":"));
        }
        text.push('1');
        text.push_str(&"}".repeat(100));
        text
    };
    for (label, raw) in [
        (
            "100,000 repeated keys nested",
            format!("{{\"a\":{}}}", repeated_keys(100_000)),
        ),
        (
            "200,000 repeated keys nested",
            format!("{{\"a\":{}}}", repeated_keys(200_000)),
        ),
        ("100 levels of 1,000 keys", nested),
    ] {
        let started = Instant::now();
        let outcome = marshal::json_arguments("handler", Some(&raw), &schema);
        let elapsed = started.elapsed();
        let message = outcome.err().map(|e| e.to_string()).unwrap_or_default();
        println!(
            "json_arguments, {label:<32} {:>8.1} KB  {:>9.3} s  error text {} bytes",
            raw.len() as f64 / 1000.0,
            elapsed.as_secs_f64(),
            message.len()
        );
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dispatch = Arc::new(LibraryDispatch::new(Arc::clone(&host), None));
    let options = HttpOptions {
        addr: "127.0.0.1:0".parse().expect("address"),
        auth: AuthMode::None,
        timeout: Some(Duration::from_secs(10)),
        ..HttpOptions::default()
    };
    let server = runtime
        .block_on(bind(dispatch, None, options))
        .expect("bind");
    let addr = server.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    runtime.spawn(server.run(async {
        let _ = stopped.await;
    }));

    let list =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{META}}}}}"#);
    let (status, _) = post(addr, "tools/list", None, &list);
    assert_eq!(status, 200, "the server answers tools/list");
    let big = Arc::new(format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"add","arguments":{},"_meta":{META}}}}}"#,
        repeated_keys(100_000)
    ));
    let done = Arc::new(AtomicBool::new(false));
    let probe = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut longest = Duration::ZERO;
            let mut answered = 0;
            while !done.load(Ordering::SeqCst) {
                let (status, took) = post(addr, "tools/list", None, &list);
                if status == 200 {
                    answered += 1;
                }
                longest = longest.max(took);
                std::thread::sleep(Duration::from_millis(50));
            }
            (answered, longest)
        })
    };
    let started = Instant::now();
    let senders: Vec<_> = (0..2)
        .map(|_| {
            let big = Arc::clone(&big);
            std::thread::spawn(move || post(addr, "tools/call", Some("add"), &big))
        })
        .collect();
    let outcomes: Vec<(u16, Duration)> = senders
        .into_iter()
        .map(|s| s.join().expect("sender"))
        .collect();
    let all = started.elapsed();
    done.store(true, Ordering::SeqCst);
    let (answered, longest) = probe.join().expect("probe");
    println!(
        "HTTP, two {:.1} MB requests at once (--timeout 10): statuses {:?} after {:.2} s / {:.2} s (both done after {:.2} s)",
        big.len() as f64 / 1e6,
        outcomes.iter().map(|o| o.0).collect::<Vec<_>>(),
        outcomes[0].1.as_secs_f64(),
        outcomes[1].1.as_secs_f64(),
        all.as_secs_f64()
    );
    println!(
        "HTTP, small tools/list meanwhile: {answered} answered, longest wait {:.3} s",
        longest.as_secs_f64()
    );
    let _ = stop.send(());
    runtime.shutdown_timeout(Duration::from_secs(1));
}
