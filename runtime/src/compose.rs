//! Rust tools served next to a library's Delphi tools: [`WithRustTools`] wraps any
//! [`Dispatch`] and adds tools whose handlers are Rust closures.
//!
//! ```no_run
//! # use delphi_mcp_runtime::compose::WithRustTools;
//! # use delphi_mcp_runtime::{Dispatch, LibraryDispatch};
//! # fn wrap(library: LibraryDispatch) -> Result<(), delphi_mcp_runtime::compose::ComposeError> {
//! let dispatch = WithRustTools::new(library).tool(
//!     "rust_echo",
//!     "Returns its text.",
//!     serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
//!     serde_json::json!({"type": "string"}),
//!     |args| Ok(args["text"].clone()),
//! )?;
//! # let _ = dispatch.tools();
//! # Ok(())
//! # }
//! ```

use crate::dispatch::{
    CallControl, CallFuture, Dispatch, DispatchError, ServerIdentity, ToolOutcome,
};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// A Rust tool's handler: the arguments object in, the result value (sent as
/// `{"result": value}`) or an error message (sent with `isError: true`) out.
pub type RustHandler = Box<dyn Fn(Map<String, Value>) -> Result<Value, String> + Send + Sync>;

/// Why a Rust tool could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    /// A tool of that name is already served.
    #[error("a tool named `{0}` is already served")]
    DuplicateName(String),
    /// The input schema is not a JSON object.
    #[error("the input schema of tool `{0}` is not a JSON object")]
    InputSchema(String),
}

/// A dispatcher serving `inner`'s tools plus Rust tools.
pub struct WithRustTools<D> {
    inner: D,
    tools: Vec<Map<String, Value>>,
    handlers: HashMap<String, RustHandler>,
}

impl<D: Dispatch> std::fmt::Debug for WithRustTools<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithRustTools")
            .field("identity", self.inner.identity())
            .field("rust_tools", &self.handlers.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<D: Dispatch> WithRustTools<D> {
    /// Wraps `inner` (its tools keep their order; Rust tools follow).
    pub fn new(inner: D) -> WithRustTools<D> {
        WithRustTools {
            tools: inner.tools().to_vec(),
            inner,
            handlers: HashMap::new(),
        }
    }

    /// Adds a tool: `input_schema` is the JSON Schema of its arguments object, `result_schema`
    /// the schema of the value `handler` returns. The handler runs on the server's async
    /// threads: keep it short, or hand long work to a thread of your own.
    pub fn tool(
        mut self,
        name: &str,
        description: &str,
        input_schema: Value,
        result_schema: Value,
        handler: impl Fn(Map<String, Value>) -> Result<Value, String> + Send + Sync + 'static,
    ) -> Result<WithRustTools<D>, ComposeError> {
        if self
            .tools
            .iter()
            .any(|t| t.get("name") == Some(&json!(name)))
        {
            return Err(ComposeError::DuplicateName(name.to_string()));
        }
        if !input_schema.is_object() {
            return Err(ComposeError::InputSchema(name.to_string()));
        }
        let definition = json!({
            "name": name,
            "description": description,
            "inputSchema": input_schema,
            "outputSchema": {
                "type": "object",
                "properties": {"result": result_schema},
                "required": ["result"],
                "additionalProperties": false
            }
        });
        if let Value::Object(map) = definition {
            self.tools.push(map);
        }
        self.handlers.insert(name.to_string(), Box::new(handler));
        Ok(self)
    }

    /// The wrapped dispatcher.
    pub fn inner(&self) -> &D {
        &self.inner
    }
}

impl<D: Dispatch> Dispatch for WithRustTools<D> {
    fn identity(&self) -> &ServerIdentity {
        self.inner.identity()
    }

    fn tools(&self) -> &[Map<String, Value>] {
        &self.tools
    }

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        raw_arguments: Option<&'a str>,
        control: CallControl,
    ) -> CallFuture<'a> {
        let Some(handler) = self.handlers.get(name) else {
            return self.inner.call_tool(name, raw_arguments, control);
        };
        Box::pin(async move {
            let arguments = match raw_arguments.map(serde_json::from_str::<Value>) {
                None => Map::new(),
                Some(Ok(Value::Object(map))) => map,
                Some(Ok(_)) => {
                    return Ok(ToolOutcome::error(format!(
                        "Invalid arguments for tool \"{name}\": expected a JSON object"
                    )))
                }
                Some(Err(e)) => {
                    return Ok(ToolOutcome::error(format!(
                        "Invalid arguments for tool \"{name}\": {e}"
                    )))
                }
            };
            Ok::<ToolOutcome, DispatchError>(match handler(arguments) {
                Ok(value) => ToolOutcome::success(json!({ "result": value })),
                Err(message) => ToolOutcome::error(message),
            })
        })
    }

    fn host_state(&self) -> Option<crate::host::HostState> {
        self.inner.host_state()
    }

    fn manifest(&self) -> Option<&delphi_mcp_manifest::Manifest> {
        self.inner.manifest()
    }

    fn read_resource<'a>(
        &'a self,
        uri: &'a str,
        control: CallControl,
    ) -> crate::dispatch::FeatureFuture<'a> {
        self.inner.read_resource(uri, control)
    }

    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<&'a Map<String, Value>>,
        control: CallControl,
    ) -> crate::dispatch::FeatureFuture<'a> {
        self.inner.get_prompt(name, arguments, control)
    }

    fn complete<'a>(
        &'a self,
        target: &'a delphi_mcp_manifest::CompletionTarget,
        argument: &'a str,
        value: &'a str,
        control: CallControl,
    ) -> crate::dispatch::FeatureFuture<'a> {
        self.inner.complete(target, argument, value, control)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Empty(ServerIdentity, Vec<Map<String, Value>>);

    impl Dispatch for Empty {
        fn identity(&self) -> &ServerIdentity {
            &self.0
        }
        fn tools(&self) -> &[Map<String, Value>] {
            &self.1
        }
        fn call_tool<'a>(
            &'a self,
            name: &'a str,
            _: Option<&'a str>,
            _: CallControl,
        ) -> CallFuture<'a> {
            Box::pin(async move { Err(DispatchError::UnknownTool(name.to_string())) })
        }
    }

    fn base() -> Empty {
        let mut existing = Map::new();
        existing.insert("name".into(), json!("library_tool"));
        Empty(
            ServerIdentity {
                name: "test".into(),
                version: "0".into(),
                instructions: None,
            },
            vec![existing],
        )
    }

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(future)
    }

    #[test]
    fn rust_tools_are_listed_and_called() {
        let composed = WithRustTools::new(base())
            .tool(
                "double",
                "Doubles.",
                json!({"type": "object"}),
                json!({"type": "integer"}),
                |args| {
                    args.get("n")
                        .and_then(Value::as_i64)
                        .map(|n| json!(n * 2))
                        .ok_or_else(|| "n is missing".to_string())
                },
            )
            .expect("added");
        let names: Vec<_> = composed.tools().iter().map(|t| t["name"].clone()).collect();
        assert_eq!(names, vec![json!("library_tool"), json!("double")]);
        let outcome =
            block_on(composed.call_tool("double", Some(r#"{"n": 21}"#), CallControl::new()))
                .expect("called");
        assert_eq!(outcome.structured, Some(json!({"result": 42})));
        let missing =
            block_on(composed.call_tool("double", None, CallControl::new())).expect("called");
        assert!(missing.is_error && missing.text == "n is missing");
        let not_object = block_on(composed.call_tool("double", Some("[1]"), CallControl::new()))
            .expect("called");
        assert!(not_object.is_error);
        let unknown = block_on(composed.call_tool("other", None, CallControl::new()));
        assert_eq!(unknown, Err(DispatchError::UnknownTool("other".into())));
    }

    #[test]
    fn duplicate_names_are_refused() {
        let refused = WithRustTools::new(base()).tool(
            "library_tool",
            "",
            json!({"type": "object"}),
            json!({}),
            |_| Ok(Value::Null),
        );
        assert_eq!(
            refused.map(|_| ()),
            Err(ComposeError::DuplicateName("library_tool".into()))
        );
    }
}
