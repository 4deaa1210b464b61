//! What the code that `bind!` expands to runs on: a library loaded through one of the runtime's
//! hosts ([`ToolHost`]: in process with one library thread by default, or isolated in worker
//! processes), checked against the manifest compiled into the Rust program, and called with
//! typed arguments.
//!
//! Calls go through [`call_tool`], as MCP calls do: a string too long for a `String[8]`, a date
//! that is not ISO 8601 or an unknown enumeration member is a [`ToolError::InvalidArguments`],
//! exactly as a client would see it.
//!
//! `bind!` (feature `macros`, or `bind-units` for the mode that reads units) is re-exported at
//! the crate root; its expansions name only [`__private`].

use crate::call::{call_tool, ToolError};
use crate::host::{CallControl, HostOptions, LibraryHost, ToolHost};
use crate::LoadError;
use delphi_mcp_manifest::{first_difference, InvalidManifest, Manifest};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod wire;

/// What `bind!` expansions use; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use super::wire::{
        base64_wire, from_base64_result, from_json_result, to_argument, FromBase64Wire,
        ToBase64Wire,
    };
    pub use super::{BindError, BoundLibrary, FromResult};
    pub use crate::call::ToolError;
    pub use serde;
    pub use serde_json::{Map, Value};
    pub use std::collections::BTreeSet;
}

/// Why a bound library could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// The runtime refused the library (not loadable, wrong ABI version, missing export, ...).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The compiled-in manifest is not a valid manifest (`bind!` checks it, so a delphi-mcp bug).
    #[error("the manifest compiled into this program is invalid: {0}")]
    CompiledManifest(#[from] InvalidManifest),
    /// The library embeds another manifest than the one compiled into the program.
    #[error("{0}")]
    ManifestMismatch(Box<ManifestDifference>),
}

/// How a library's manifest differs from the compiled-in one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "library {} was built from other units than this program: its manifest (sha256 {library_sha256}) differs from the compiled-in one (sha256 {compiled_sha256}) at {at}: library has {library_value}, program has {compiled_value}; rebuild the library from the units, name and target of the manifest `bind!` compiled in",
    library.display()
)]
pub struct ManifestDifference {
    /// The library.
    pub library: PathBuf,
    /// [`Manifest::canonical_sha256`] of the library's manifest.
    pub library_sha256: String,
    /// [`Manifest::canonical_sha256`] of the compiled-in manifest.
    pub compiled_sha256: String,
    /// JSON path of the first difference.
    pub at: String,
    /// The library's value there (JSON, shortened).
    pub library_value: String,
    /// The program's value there (JSON, shortened).
    pub compiled_value: String,
}

/// A loaded library whose manifest equals the compiled-in one.
#[derive(Debug, Clone)]
pub struct BoundLibrary {
    host: Arc<dyn ToolHost>,
}

impl BoundLibrary {
    /// Loads `path` in process (checking the ABI version) and checks that its embedded
    /// manifest equals `compiled_manifest`.
    pub fn load(path: &Path, compiled_manifest: &str) -> Result<BoundLibrary, BindError> {
        let host = LibraryHost::open(path, &HostOptions::default())?;
        BoundLibrary::from_host(Arc::new(host), compiled_manifest)
    }

    /// Binds a library already opened by a host (e.g. an [`crate::host::IsolatedHost`]),
    /// checking that its manifest equals `compiled_manifest`.
    pub fn from_host(
        host: Arc<dyn ToolHost>,
        compiled_manifest: &str,
    ) -> Result<BoundLibrary, BindError> {
        let compiled = Manifest::from_json(compiled_manifest.as_bytes())?;
        let library_sha256 = host.manifest_sha256().to_string();
        let compiled_sha256 = compiled.canonical_sha256();
        if library_sha256 != compiled_sha256 {
            // Equal values with object keys in another order still differ canonically.
            let difference = first_difference(host.manifest(), &compiled).unwrap_or_else(|| {
                delphi_mcp_manifest::Difference {
                    path: "$".into(),
                    left: "the same values".into(),
                    right: "their keys in another order".into(),
                }
            });
            return Err(BindError::ManifestMismatch(Box::new(ManifestDifference {
                library: host.path().to_path_buf(),
                library_sha256,
                compiled_sha256,
                at: difference.path,
                library_value: difference.left,
                compiled_value: difference.right,
            })));
        }
        Ok(BoundLibrary { host })
    }

    /// The runtime host (to serve the library over MCP too, e.g. with
    /// [`crate::LibraryDispatch`]).
    pub fn host(&self) -> &Arc<dyn ToolHost> {
        &self.host
    }

    /// The manifest (equal to the compiled-in one).
    pub fn manifest(&self) -> &Manifest {
        self.host.manifest()
    }

    /// Calls the tool `name` with `arguments` (JSON keys are the argument names of the
    /// manifest). Returns the result value (`Value::Null` for a procedure); for a tool with
    /// `var`/`out` parameters, the whole `structuredContent` object (`result` and each of
    /// them). Blocks until the library thread has run the call.
    pub fn call(&self, name: &str, arguments: Map<String, Value>) -> Result<Value, ToolError> {
        let Some((index, tool)) = self.host.tool(name) else {
            return Err(ToolError::Failed {
                tool: name.to_string(),
                message: "the library has no such tool".into(),
            });
        };
        let raw = Value::Object(arguments).to_string();
        let result = block_on(call_tool(
            self.host.as_ref(),
            index,
            tool,
            Some(&raw),
            &CallControl::new(),
        ))?;
        if !tool.delphi.outputs.is_empty() {
            return Ok(Value::Object(result));
        }
        Ok(result.get("result").cloned().unwrap_or(Value::Null))
    }

    /// Reads the resource `uri` (a resource's URI, or one a resource template matches): the
    /// `resources/read` result (`{"contents": [...]}`). Blocks like [`Self::call`].
    pub fn read_resource(&self, uri: &str) -> Result<Value, crate::features::FeatureError> {
        block_on(crate::features::read_resource(
            self.host.as_ref(),
            uri,
            &CallControl::new(),
        ))
    }

    /// Gets the prompt `name` (a Pascal or Markdown prompt) with its string `arguments`: the
    /// `prompts/get` result (`{"messages": [...]}`). Blocks like [`Self::call`].
    pub fn get_prompt(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, crate::features::FeatureError> {
        block_on(crate::features::get_prompt(
            self.host.as_ref(),
            name,
            Some(arguments),
            &CallControl::new(),
        ))
    }
}

/// A result value converted to the Rust type of a bound method.
pub trait FromResult: Sized {
    /// Converts `value`, the result of `tool`.
    fn from_result(tool: &str, value: Value) -> Result<Self, ToolError>;
}

fn wrong(tool: &str, value: &Value, expected: &str) -> ToolError {
    ToolError::Failed {
        tool: tool.to_string(),
        message: format!("returned {}, expected {expected}", wire::shown(value)),
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

/// The result of a JSON handler (composite values have Rust types of their own, read through
/// [`__private::from_json_result`] and [`__private::from_base64_result`]).
impl FromResult for Value {
    fn from_result(_tool: &str, value: Value) -> Result<Self, ToolError> {
        Ok(value)
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
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
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
}
