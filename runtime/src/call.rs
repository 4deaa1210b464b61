//! One tool call, from the raw JSON text of its arguments to its result: argument validation
//! ([`marshal::parse_arguments`]), the call on a library thread, and what the returned ABI status
//! means. The MCP dispatcher ([`crate::dispatch`]) and `bind!`'s [`crate::bind::BoundLibrary`]
//! both call through [`call_tool`], so a client and a Rust caller meet the same checks and the
//! same messages.

use crate::context::{CallContext, ContextArg};
use crate::host::{ArgValue, CallControl, CallError, ReturnValue, ToolHost};
use crate::{marshal, values};
use delphi_mcp_manifest::abi::status;
use delphi_mcp_manifest::{DelphiBinding, ToolEntry};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Why a call of a tool failed. The texts are those an MCP client reads (with `isError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// An argument was rejected before the call (missing, unknown, out of range, too long, not
    /// ISO 8601, not an enumeration member, ...).
    #[error("{0}")]
    InvalidArguments(String),
    /// The Pascal code raised `EMcpToolError` (ABI 3 status 4): its message, verbatim.
    #[error("{message}")]
    ToolFailed {
        /// The tool.
        tool: String,
        /// The exception's message.
        message: String,
    },
    /// The Pascal code raised an exception (ABI status 1).
    #[error("Tool \"{tool}\" raised {message}")]
    Raised {
        /// The tool.
        tool: String,
        /// `ExceptionClass: message`.
        message: String,
    },
    /// The stub rejected an argument (ABI status 2), e.g. one not representable in a code page.
    #[error("Invalid arguments for tool \"{tool}\": {message}")]
    Rejected {
        /// The tool.
        tool: String,
        /// The stub's message, naming the argument.
        message: String,
    },
    /// The library returned what the tool's result type does not allow (a non-finite number,
    /// an unknown ordinal, invalid UTF-8, another kind), or the caller cannot use it.
    #[error("Tool \"{tool}\" failed: {message}")]
    Failed {
        /// The tool.
        tool: String,
        /// What was wrong.
        message: String,
    },
    /// The stub refused the call itself (ABI status 3, or a status this runtime does not know):
    /// the runtime and the stubs disagree, a delphi-mcp bug.
    #[error("Tool \"{tool}\" could not be called (status {status}, a delphi-mcp bug): {message}")]
    BadCall {
        /// The tool.
        tool: String,
        /// The status returned.
        status: i32,
        /// The stub's message.
        message: String,
    },
    /// The library threads have stopped.
    #[error("the library is no longer running")]
    Stopped,
    /// The client cancelled the call; its answer is not sent.
    #[error("the call was cancelled by the client")]
    Cancelled,
    /// The host has no result: the deadline passed, the library process ended, the library is
    /// busy or unavailable, the result is too large.
    #[error(transparent)]
    Host(CallError),
}

/// Calls `tool`, the manifest's tool `index` in `host`, with the raw JSON text of its arguments
/// (`None` when absent). Returns `structuredContent`: `{"result": value}` for a function,
/// `{"success": true}` for a procedure, and beside either the tool's `var`/`out` parameters.
pub async fn call_tool(
    host: &dyn ToolHost,
    index: usize,
    tool: &ToolEntry,
    raw_arguments: Option<&str>,
    control: &CallControl,
) -> Result<Map<String, Value>, ToolError> {
    let result = call_binding(
        host,
        index,
        &tool.name,
        &tool.delphi,
        raw_arguments,
        control,
    )
    .await?;
    let mut structured = Map::new();
    let outputs = &tool.delphi.outputs;
    let result = match (result, outputs.is_empty()) {
        (Some(Value::Object(record)), false) => {
            // The out record: the result (functions), then each output.
            let mut fields = record.into_iter();
            if tool.delphi.result.is_some() {
                if let Some((_, value)) = fields.next() {
                    structured.insert("result".into(), value);
                }
            } else {
                structured.insert("success".into(), Value::Bool(true));
            }
            structured.extend(fields);
            return Ok(structured);
        }
        (result, _) => result,
    };
    match result {
        Some(value) => structured.insert("result".into(), value),
        None => structured.insert("success".into(), Value::Bool(true)),
    };
    Ok(structured)
}

/// Calls the entry `index` of `host` ([`delphi_mcp_manifest::Manifest::callables`]: a tool, a
/// resource, a prompt, a completion provider), named `name` in messages, with the raw JSON
/// text of its arguments. Returns the result (`None` for a procedure), or for a tool with
/// `var`/`out` parameters the out record as an object. A JSON handler's arguments must be
/// checked against its schema first ([`call_tool`] does).
pub async fn call_binding(
    host: &dyn ToolHost,
    index: usize,
    name: &str,
    binding: &DelphiBinding,
    raw_arguments: Option<&str>,
    control: &CallControl,
) -> Result<Option<Value>, ToolError> {
    let args = if binding.json_arguments {
        let schema = host
            .manifest()
            .tools
            .get(index)
            .map(|tool| tool.input_schema.value())
            .unwrap_or(&Value::Null);
        marshal::json_arguments(name, raw_arguments, schema)
    } else {
        marshal::parse_arguments(name, raw_arguments, &binding.params)
    }
    .map_err(|errors| ToolError::InvalidArguments(errors.to_string()))?;
    call_marshalled(host, index, name, binding, args, control).await
}

/// [`call_binding`] with arguments already marshalled (a context argument is filled in here).
pub async fn call_marshalled(
    host: &dyn ToolHost,
    index: usize,
    name: &str,
    binding: &DelphiBinding,
    mut args: Vec<ArgValue>,
    control: &CallControl,
) -> Result<Option<Value>, ToolError> {
    for arg in &mut args {
        if let ArgValue::Context(context) = arg {
            *context = ContextArg(Some(Arc::new(CallContext::new(
                name,
                control.cancelled.clone(),
                control.client.clone(),
            ))));
        }
    }
    let started = std::time::Instant::now();
    let returned = host
        .call(index, args, control)
        .await
        .map_err(|error| match error {
            CallError::Stopped => ToolError::Stopped,
            CallError::Cancelled => ToolError::Cancelled,
            other => ToolError::Host(other),
        })?;
    tracing::debug!(tool = %name, status = returned.status, elapsed_us = started.elapsed().as_micros() as u64, "called");
    let message = || match &returned.value {
        ReturnValue::String(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => format!("(no message; out value {other:?})"),
    };
    let tool_name = || name.to_string();
    let failed = |message| ToolError::Failed {
        tool: tool_name(),
        message,
    };
    match returned.status {
        status::TOOL_ERROR => Err(ToolError::ToolFailed {
            tool: tool_name(),
            message: message(),
        }),
        status::OK if !binding.outputs.is_empty() => {
            let ReturnValue::Block(block) = &returned.value else {
                return Err(failed(format!(
                    "the library returned {:?} where the out record of the var/out parameters belongs",
                    returned.value
                )));
            };
            let mut fields: Vec<(&str, &delphi_mcp_manifest::ValueType)> = Vec::new();
            if let Some(ty) = &binding.result {
                fields.push(("result", ty));
            }
            fields.extend(binding.outputs.iter().map(|o| (o.name.as_str(), &o.ty)));
            values::read_record(block, &fields)
                .map(|map| Some(Value::Object(map)))
                .map_err(failed)
        }
        status::OK => match &binding.result {
            None => Ok(None),
            Some(ty) => marshal::result_to_json(ty, &returned.value)
                .map(Some)
                .map_err(failed),
        },
        status::EXCEPTION => Err(ToolError::Raised {
            tool: tool_name(),
            message: message(),
        }),
        status::BAD_ARGUMENT => Err(ToolError::Rejected {
            tool: tool_name(),
            message: message(),
        }),
        other => Err(ToolError::BadCall {
            tool: tool_name(),
            status: other,
            message: message(),
        }),
    }
}
