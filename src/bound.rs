//! What the code that [`crate::bind!`] expands to runs on: a library loaded through the
//! runtime's [`LibraryHost`] (one library thread), checked against the manifest compiled into
//! the Rust program, and called with typed arguments.
//!
//! Arguments go through the same validation as MCP calls ([`marshal::parse_arguments`]): a
//! string too long for a `String[8]`, a date that is not ISO 8601 or an unknown enumeration
//! member is a [`ToolError::InvalidArguments`], exactly as a client would see it.

use delphi_mcp_codegen::manifest::{Manifest, ToolEntry};
use delphi_mcp_runtime::abi::status;
use delphi_mcp_runtime::host::{CallError, ReturnValue};
use delphi_mcp_runtime::{marshal, HostOptions, LibraryHost, LoadError};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a bound library could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// The runtime refused the library (not loadable, wrong ABI version, missing export, ...).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The compiled-in manifest is not valid JSON of a manifest (a delphi-mcp bug).
    #[error("the manifest compiled into this program is invalid: {0}")]
    CompiledManifest(String),
    /// The library embeds another manifest than the one compiled into the program.
    #[error("{0}")]
    ManifestMismatch(Box<ManifestDifference>),
}

/// How a library's manifest differs from the compiled-in one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "library {} was built from other units than this program: its manifest (sha256 {library_sha256}) differs from the compiled-in one (sha256 {compiled_sha256}) at {at}: library has {library_value}, program has {compiled_value}; rebuild the library from the units `bind!` reads, with the same name and target",
    library.display()
)]
pub struct ManifestDifference {
    /// The library.
    pub library: PathBuf,
    /// [`manifest_sha256`] of the library's manifest.
    pub library_sha256: String,
    /// [`manifest_sha256`] of the compiled-in manifest.
    pub compiled_sha256: String,
    /// JSON path of the first difference.
    pub at: String,
    /// The library's value there (JSON, shortened).
    pub library_value: String,
    /// The program's value there (JSON, shortened).
    pub compiled_value: String,
}

/// Why a tool call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// An argument was rejected before the call (range, length, format, ...).
    #[error("{0}")]
    InvalidArguments(String),
    /// The Pascal code raised an exception.
    #[error("tool `{tool}` raised {message}")]
    Raised {
        /// The tool.
        tool: String,
        /// The exception class and message.
        message: String,
    },
    /// The library rejected an argument itself (ABI status `BAD_ARGUMENT`).
    #[error("tool `{tool}` rejected its arguments: {message}")]
    Rejected {
        /// The tool.
        tool: String,
        /// The library's message.
        message: String,
    },
    /// The call returned something this program cannot use (non-finite number, wrong kind).
    #[error("tool `{tool}` failed: {message}")]
    Failed {
        /// The tool.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// The library thread has stopped.
    #[error("the library is no longer running")]
    Stopped,
}

/// SHA-256 (hex) of a manifest's canonical form (compact JSON of the parsed manifest), so the
/// hash does not depend on how the text was laid out.
pub fn manifest_sha256(manifest: &Manifest) -> String {
    let text = serde_json::to_string(manifest).unwrap_or_default();
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A loaded library whose manifest equals the compiled-in one.
#[derive(Debug, Clone)]
pub struct BoundLibrary {
    host: Arc<LibraryHost>,
}

impl BoundLibrary {
    /// Loads `path` (checking the ABI version) and checks that its embedded manifest equals
    /// `compiled_manifest`.
    pub fn load(path: &Path, compiled_manifest: &str) -> Result<BoundLibrary, BindError> {
        let compiled: Manifest = serde_json::from_str(compiled_manifest)
            .map_err(|e| BindError::CompiledManifest(e.to_string()))?;
        let host = LibraryHost::open(path, &HostOptions::default())?;
        let library_sha256 = manifest_sha256(host.manifest());
        let compiled_sha256 = manifest_sha256(&compiled);
        if library_sha256 != compiled_sha256 {
            let a = serde_json::to_value(host.manifest()).unwrap_or_default();
            let b = serde_json::to_value(&compiled).unwrap_or_default();
            let (at, library_value, compiled_value) = first_difference(&a, &b, "$".into())
                .unwrap_or_else(|| ("$".into(), "?".into(), "?".into()));
            return Err(BindError::ManifestMismatch(Box::new(ManifestDifference {
                library: host.path().to_path_buf(),
                library_sha256,
                compiled_sha256,
                at,
                library_value,
                compiled_value,
            })));
        }
        Ok(BoundLibrary {
            host: Arc::new(host),
        })
    }

    /// The runtime host (to serve the library over MCP too, e.g. with
    /// [`delphi_mcp_runtime::LibraryDispatch`]).
    pub fn host(&self) -> &Arc<LibraryHost> {
        &self.host
    }

    /// The manifest (equal to the compiled-in one).
    pub fn manifest(&self) -> &Manifest {
        self.host.manifest()
    }

    /// Calls the tool `name` with `arguments` (JSON keys are the Pascal parameter names).
    /// Returns the result value (`Value::Null` for a procedure). Blocks until the library
    /// thread has run the call.
    pub fn call(&self, name: &str, arguments: Map<String, Value>) -> Result<Value, ToolError> {
        let Some((index, tool)) = self.host.tool(name) else {
            return Err(ToolError::Failed {
                tool: name.to_string(),
                message: "the library has no such tool".into(),
            });
        };
        let raw = Value::Object(arguments).to_string();
        let args = marshal::parse_arguments(&tool.name, Some(&raw), &tool.delphi.params)
            .map_err(|e| ToolError::InvalidArguments(e.to_string()))?;
        let returned = block_on(self.host.call(index, args)).map_err(|e| match e {
            CallError::Stopped => ToolError::Stopped,
            other => ToolError::Failed {
                tool: name.to_string(),
                message: other.to_string(),
            },
        })?;
        result_value(tool, returned.status, &returned.value)
    }
}

fn result_value(tool: &ToolEntry, code: i32, value: &ReturnValue) -> Result<Value, ToolError> {
    let message = || match value {
        ReturnValue::String(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => format!("(no message; out value {other:?})"),
    };
    let name = || tool.name.clone();
    match code {
        status::OK => match &tool.delphi.result {
            None => Ok(Value::Null),
            Some(ty) => marshal::result_to_json(ty, value).map_err(|message| ToolError::Failed {
                tool: name(),
                message,
            }),
        },
        status::EXCEPTION => Err(ToolError::Raised {
            tool: name(),
            message: message(),
        }),
        status::BAD_ARGUMENT => Err(ToolError::Rejected {
            tool: name(),
            message: message(),
        }),
        other => Err(ToolError::Failed {
            tool: name(),
            message: format!("status {other}: {}", message()),
        }),
    }
}

/// A result value converted to the Rust type of a bound method.
pub trait FromResult: Sized {
    /// Converts `value`, the result of `tool`.
    fn from_result(tool: &str, value: Value) -> Result<Self, ToolError>;
}

fn wrong(tool: &str, value: &Value, expected: &str) -> ToolError {
    let mut shown = value.to_string();
    shown.truncate(80);
    ToolError::Failed {
        tool: tool.to_string(),
        message: format!("returned {shown}, expected {expected}"),
    }
}

macro_rules! integer_results {
    ($($t:ty),*) => {$(
        impl FromResult for $t {
            fn from_result(tool: &str, value: Value) -> Result<Self, ToolError> {
                let converted = match &value {
                    Value::Number(n) => n
                        .as_i64()
                        .and_then(|i| <$t>::try_from(i).ok())
                        .or_else(|| n.as_u64().and_then(|u| <$t>::try_from(u).ok())),
                    _ => None,
                };
                converted.ok_or_else(|| wrong(tool, &value, stringify!($t)))
            }
        }
    )*};
}
integer_results!(i8, u8, i16, u16, i32, u32, i64, u64);

impl FromResult for f64 {
    fn from_result(tool: &str, value: Value) -> Result<Self, ToolError> {
        value
            .as_f64()
            .ok_or_else(|| wrong(tool, &value, "a number"))
    }
}

impl FromResult for f32 {
    fn from_result(tool: &str, value: Value) -> Result<Self, ToolError> {
        // Single results are exact in f32: the library computed them as Single.
        value
            .as_f64()
            .map(|v| v as f32)
            .ok_or_else(|| wrong(tool, &value, "a number"))
    }
}

impl FromResult for bool {
    fn from_result(tool: &str, value: Value) -> Result<Self, ToolError> {
        value
            .as_bool()
            .ok_or_else(|| wrong(tool, &value, "a boolean"))
    }
}

impl FromResult for String {
    fn from_result(tool: &str, value: Value) -> Result<Self, ToolError> {
        match value {
            Value::String(text) => Ok(text),
            other => Err(wrong(tool, &other, "a string")),
        }
    }
}

impl FromResult for () {
    fn from_result(tool: &str, value: Value) -> Result<Self, ToolError> {
        match value {
            Value::Null => Ok(()),
            other => Err(wrong(tool, &other, "no value")),
        }
    }
}

/// Runs `future` on the current thread (the host's futures only wait for the library thread's
/// answer, so no async runtime is needed).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct ThreadWaker(std::thread::Thread);
    impl Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut context) {
            Poll::Ready(output) => return output,
            Poll::Pending => std::thread::park(),
        }
    }
}

/// First path where `a` and `b` differ, with both values (shortened).
fn first_difference(a: &Value, b: &Value, path: String) -> Option<(String, String, String)> {
    let short = |v: &Value| {
        let mut text = v.to_string();
        if text.len() > 120 {
            let mut cut = 117;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("...");
        }
        text
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => {
                        if let Some(found) = first_difference(value, other, format!("{path}.{key}"))
                        {
                            return Some(found);
                        }
                    }
                    None => return Some((format!("{path}.{key}"), short(value), "nothing".into())),
                }
            }
            y.iter()
                .find(|(key, _)| !x.contains_key(*key))
                .map(|(key, value)| (format!("{path}.{key}"), "nothing".into(), short(value)))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (index, (p, q)) in x.iter().zip(y).enumerate() {
                if let Some(found) = first_difference(p, q, format!("{path}[{index}]")) {
                    return Some(found);
                }
            }
            (x.len() != y.len()).then(|| {
                (
                    format!("{path} (length)"),
                    x.len().to_string(),
                    y.len().to_string(),
                )
            })
        }
        _ => (a != b).then(|| (path, short(a), short(b))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_results_check_their_range() {
        assert_eq!(u8::from_result("t", json!(200)), Ok(200));
        assert!(u8::from_result("t", json!(300)).is_err());
        assert_eq!(u64::from_result("t", json!(u64::MAX)), Ok(u64::MAX));
        assert!(i64::from_result("t", json!(u64::MAX)).is_err());
        assert!(i32::from_result("t", json!("1")).is_err());
    }

    #[test]
    fn first_difference_names_the_path() {
        let a = json!({"tools": [{"name": "a"}, {"name": "b"}]});
        let b = json!({"tools": [{"name": "a"}, {"name": "c"}]});
        let (at, x, y) = first_difference(&a, &b, "$".into()).expect("differs");
        assert_eq!(at, "$.tools[1].name");
        assert_eq!((x.as_str(), y.as_str()), ("\"b\"", "\"c\""));
        assert!(first_difference(&a, &a, "$".into()).is_none());
    }
}
