//! The direct path of `tools/call` writes what rmcp writes.

use super::serve_lines;
use crate::dispatch::{
    CallControl, CallFuture, Dispatch, DispatchError, ServerIdentity, ToolOutcome,
};
use crate::mcp::McpServer;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// Answers `echo` with its arguments' text, `fail` with a tool error; counts calls.
struct Echo {
    identity: ServerIdentity,
    tools: Vec<Map<String, Value>>,
    calls: AtomicUsize,
}

impl Echo {
    fn new() -> Echo {
        let tool = |name: &str| match json!({
            "name": name,
            "description": "test",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}
        }) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Echo {
            identity: ServerIdentity {
                name: "echo".into(),
                version: "1".into(),
                instructions: None,
            },
            tools: vec![tool("echo"), tool("fail")],
            calls: AtomicUsize::new(0),
        }
    }
}

impl Dispatch for Echo {
    fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    fn tools(&self) -> &[Map<String, Value>] {
        &self.tools
    }

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        raw_arguments: Option<&'a str>,
        _control: CallControl,
    ) -> CallFuture<'a> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            // An answer that comes later than the first poll, as a library call's does.
            tokio::task::yield_now().await;
            match name {
                "echo" => Ok(ToolOutcome::success(
                    json!({"result": raw_arguments.unwrap_or("none")}),
                )),
                "fail" => Ok(ToolOutcome::error("it failed")),
                other => Err(DispatchError::UnknownTool(other.to_string())),
            }
        })
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}"#;

fn calls(meta: &str) -> Vec<String> {
    let meta = if meta.is_empty() {
        String::new()
    } else {
        format!(",{meta}")
    };
    vec![
        format!(
            r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"echo","arguments":{{"b":1,"b":2.50}}{meta}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{{"name":"fail","arguments":{{}}{meta}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{{"name":"nope"{meta}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{{"name":"echo"{meta}}}}}"#
        ),
    ]
}

/// The output of `lines` without and with the direct path; the first `opening` lines are sent
/// (and the first answered) before the rest.
async fn both_ways(lines: &[String], opening: usize) -> (String, String) {
    let mut outputs = Vec::new();
    for direct in [false, true] {
        let echo = Arc::new(Echo::new());
        let server = McpServer::new(Arc::clone(&echo) as Arc<dyn Dispatch>);
        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_side);
        let serving = tokio::spawn(serve_lines(
            server,
            super::Reading::Stream(server_read),
            server_write,
            None,
            true,
            direct,
        ));
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut client_read = tokio::io::BufReader::new(client_read);
        // The opening request, answered before the calls are sent: rmcp's service then runs
        // and the calls can take the direct path.
        let (opening, calls) = lines.split_at(opening);
        let mut output = String::new();
        for (index, line) in opening.iter().enumerate() {
            client_write
                .write_all(format!("{line}\n").as_bytes())
                .await
                .expect("write");
            if index == 0 {
                client_read.read_line(&mut output).await.expect("read");
            }
        }
        let mut input = calls.join("\n");
        input.push('\n');
        client_write
            .write_all(input.as_bytes())
            .await
            .expect("write");
        // End of input (the read half keeps the stream itself open).
        client_write.shutdown().await.expect("shutdown");
        client_read.read_to_string(&mut output).await.expect("read");
        serving.await.expect("join").expect("serve");
        assert_eq!(echo.calls.load(Ordering::SeqCst), 4, "{output}");
        outputs.push(output);
    }
    let direct = outputs.pop().unwrap_or_default();
    (outputs.pop().unwrap_or_default(), direct)
}

#[tokio::test(flavor = "current_thread")]
async fn direct_calls_are_answered_as_rmcp_answers_them_in_both_eras() {
    let mut handshake = vec![
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
    ];
    handshake.extend(calls(""));
    let (through_rmcp, direct) = both_ways(&handshake, 2).await;
    assert_eq!(direct, through_rmcp);
    assert!(direct.contains(r#"{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"{\"result\":\"{\\\"b\\\":1,\\\"b\\\":2.50}\"}"}],"structuredContent":{"result":"{\"b\":1,\"b\":2.50}"},"isError":false}}"#), "{direct}");
    assert!(
        direct.contains(r#""id":12,"error":{"code":-32602,"message":"Unknown tool: nope"}"#),
        "{direct}"
    );

    let mut stateless = vec![format!(
        r#"{{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{{{META}}}}}"#
    )];
    stateless.extend(calls(META));
    let (through_rmcp, direct) = both_ways(&stateless, 1).await;
    assert_eq!(direct, through_rmcp);
    assert!(direct.contains(r#""id":"s","result":{"#), "{direct}");
}
