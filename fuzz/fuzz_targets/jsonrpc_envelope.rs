//! Any bytes as a JSON-RPC line or body: reading the envelope never panics, every request keeps
//! its exact id, what is handed to rmcp is one JSON object, and the one-pass reading of a plain
//! `tools/call` reads what the general reading does (or leaves the text to it).

#![no_main]

use delphi_mcp_runtime::direct::PlainCall;
use delphi_mcp_runtime::jsonrpc::{self, Incoming, Kind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some((id, call)) = PlainCall::read_text(text) {
        let Incoming::Single(Ok(message)) = jsonrpc::parse(text) else {
            panic!("read in one pass, refused by the general reading");
        };
        assert_eq!(message.kind, Kind::Request(id));
        assert_eq!(PlainCall::read(&message), Some(call));
    }
    let messages = match jsonrpc::parse(text) {
        Incoming::Single(message) => vec![message],
        Incoming::Batch(messages) => messages,
    };
    for message in messages {
        match message {
            Ok(request) => {
                let _ = request.tool_arguments();
                let for_rmcp = request.for_rmcp(Some(1), None);
                assert!(for_rmcp.starts_with('{') && for_rmcp.ends_with('}'));
                if let Kind::Request(id) | Kind::Response(id) = &request.kind {
                    let answer = jsonrpc::with_id(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, id);
                    assert!(answer.contains(id.as_json()));
                }
            }
            Err(error) => {
                let answer = error.to_json();
                assert!(
                    serde_json::from_str::<serde_json::Value>(&answer).is_ok()
                        || answer.contains(error.id.as_json())
                );
            }
        }
    }
});
