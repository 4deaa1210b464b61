//! The faults example (`examples/faults`, tools that raise, fault, end the process and hang) and
//! reading the tool results the fault-containment tests of `stdio` and `http` check.

use serde_json::Value;
use std::path::PathBuf;

/// The faults example, built (once per test process).
pub fn library() -> PathBuf {
    super::fpc::build_example("faults")
}

/// The text block of a tool result.
pub fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Whether a tool result is a tool error.
pub fn is_error(result: &Value) -> bool {
    result["isError"] == true
}

/// `structuredContent.result` of a successful tool result.
pub fn value(result: &Value) -> Value {
    assert!(!is_error(result), "tool error: {}", text(result));
    result["structuredContent"]["result"].clone()
}

/// Asserts a tool error without `structuredContent` whose text contains every part.
pub fn assert_error(result: &Value, parts: &[&str]) {
    let message = text(result);
    assert!(is_error(result), "expected a tool error, got {result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    for part in parts {
        assert!(message.contains(part), "{message:?} lacks {part:?}");
    }
}
