//! What the side-by-side bench's binaries share: the canned reply of the limit servers.

/// The one answer the limit servers (`canned stdio`, `canned http`) give to every request: a
/// `tools/call` answer of the size delphi-mcp sends for `calc_scale`. The driver checks that
/// each answer is exactly this text.
pub const CANNED_REPLY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"result\":6}"}],"structuredContent":{"result":6},"isError":false}}"#;
