//! The project's own dispatch trait: one engine below the transports (stdio here, HTTP later).
//!
//! A transport hands over a tool name and the raw JSON text of its `arguments`; the dispatcher
//! validates, calls and answers with a [`ToolOutcome`]. Protocol concerns (eras, ids, framing)
//! stay in the transport and the rmcp adapter ([`crate::mcp`]).

use crate::call::call_tool;
use crate::features::{self, FeatureError};
pub use crate::host::CallControl;
use crate::host::{HostState, ToolHost};
use crate::marshal;
use delphi_mcp_manifest::documents::HelpDocumentEntry;
use delphi_mcp_manifest::{CompletionTarget, ToolEntry, VERSION_TOOL};
use serde_json::{json, Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// The server's identity as announced to clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerIdentity {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// Instructions for the model, if any.
    pub instructions: Option<String>,
}

/// The answer to a tool call that reached a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// `structuredContent` (`{"result": v}` or `{"success": true}`); `None` for errors.
    pub structured: Option<Value>,
    /// The text block: the structured JSON, or the error message.
    pub text: String,
    /// True when the tool failed or the arguments were rejected (`isError`).
    pub is_error: bool,
    /// ABI 3: content blocks (MCP JSON) sent instead of the text block, for a tool returning
    /// a content record.
    pub content: Option<Vec<Value>>,
}

impl ToolOutcome {
    /// A successful outcome whose text is the JSON of `structured`.
    pub fn success(structured: Value) -> ToolOutcome {
        ToolOutcome {
            text: structured.to_string(),
            structured: Some(structured),
            is_error: false,
            content: None,
        }
    }

    /// A successful outcome of content blocks (no `structuredContent`).
    pub fn blocks(content: Vec<Value>) -> ToolOutcome {
        ToolOutcome {
            structured: None,
            text: String::new(),
            is_error: false,
            content: Some(content),
        }
    }

    /// A tool error (`isError: true`) with `message` as its text.
    pub fn error(message: impl Into<String>) -> ToolOutcome {
        ToolOutcome {
            structured: None,
            text: message.into(),
            is_error: true,
            content: None,
        }
    }
}

/// A call that did not reach a tool: a protocol error (JSON-RPC -32602).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DispatchError {
    /// No tool of that name.
    #[error("Unknown tool: {0}")]
    UnknownTool(String),
}

/// Boxed future returned by [`Dispatch::call_tool`].
pub type CallFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ToolOutcome, DispatchError>> + Send + 'a>>;

/// Boxed future of a resource, prompt or completion request: the result's JSON.
pub type FeatureFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, FeatureError>> + Send + 'a>>;

/// What every transport serves.
pub trait Dispatch: Send + Sync + 'static {
    /// Name, version and instructions.
    fn identity(&self) -> &ServerIdentity;
    /// The MCP Tool objects (`name`, `title`, `description`, `inputSchema`, `outputSchema`,
    /// `annotations`), in listing order.
    fn tools(&self) -> &[Map<String, Value>];
    /// Calls `name` with the raw JSON text of its `arguments` (`None` when absent). The text
    /// must be the client's own bytes so that duplicate keys and exact numbers are seen.
    /// `control` says when the client gives up on the call.
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        raw_arguments: Option<&'a str>,
        control: CallControl,
    ) -> CallFuture<'a>;
    /// The state of the library host behind the tools (running calls, workers, restarts),
    /// when there is one: shown on the status page.
    fn host_state(&self) -> Option<HostState> {
        None
    }
    /// What the server offers besides tools (resources, prompts, completions, logging), when
    /// anything.
    fn features(&self) -> Option<&dyn Features> {
        None
    }
    /// Whether the future of [`Self::call_tool`] may be polled on whichever thread wakes it
    /// (the library thread that completes the call, the timer thread, the canceller): true
    /// when nothing wakes it holding a lock the rest of the call needs
    /// ([`ToolHost::completes_unlocked`]).
    fn completes_unlocked(&self) -> bool {
        false
    }
    /// The longest a call of any tool waits for its answer, when every tool's call is
    /// answered by then ([`ToolHost::call_timeout`]); `None` when some call may take longer.
    fn call_timeout(&self) -> Option<Duration> {
        None
    }
    /// Gives the host's library thread work for when no call is queued
    /// ([`ToolHost::set_idle_work`]); false when there is no such thread.
    #[cfg(target_os = "linux")]
    fn set_idle_work(&self, work: Arc<dyn crate::host::idle::IdleWork>) -> bool {
        let _ = work;
        false
    }
}

/// Resources, prompts and completions, and whether tools may log to the client: what a
/// library serves besides tools ([`crate::features`]).
pub trait Features: Send + Sync {
    /// The `resources/list` entries.
    fn resources(&self) -> Vec<Value>;
    /// The `resources/templates/list` entries.
    fn resource_templates(&self) -> Vec<Value>;
    /// The `prompts/list` entries.
    fn prompts(&self) -> Vec<Value>;
    /// Whether a tool can log to the client (one has a call context).
    fn logs(&self) -> bool;
    /// Whether the tool `name` takes a call context (its calls need the client).
    fn takes_context(&self, name: &str) -> bool;
    /// Whether `uri` names a resource (or matches a template).
    fn has_resource(&self, uri: &str) -> bool;
    /// `resources/read` of `uri`.
    fn read_resource<'a>(&'a self, uri: &'a str, control: CallControl) -> FeatureFuture<'a>;
    /// `prompts/get` of `name`.
    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<&'a Map<String, Value>>,
        control: CallControl,
    ) -> FeatureFuture<'a>;
    /// `completion/complete`: the `completion` object.
    fn complete<'a>(
        &'a self,
        target: &'a CompletionTarget,
        argument: &'a str,
        value: &'a str,
        control: CallControl,
    ) -> FeatureFuture<'a>;
}

/// Serves a [`ToolHost`]'s tools plus the built-in `mcp_get_version`.
#[derive(Debug)]
pub struct LibraryDispatch {
    host: Arc<dyn ToolHost>,
    identity: ServerIdentity,
    /// The tools' MCP descriptions, built when first asked for (a start need not wait for them).
    tools: std::sync::OnceLock<Vec<Map<String, Value>>>,
    hide_exceptions: bool,
    /// The help documents: the manifest's and those given to `serve --help-docs`.
    help: Vec<HelpDocumentEntry>,
    /// Whether `help_list` and `help_read` are served (there are documents, and the library
    /// has no tools of those names).
    help_tools: bool,
}

impl LibraryDispatch {
    /// Wraps `host`; `name` overrides the server name (default: the manifest's name).
    pub fn new(host: Arc<dyn ToolHost>, name: Option<String>) -> LibraryDispatch {
        let manifest = host.manifest();
        let identity = ServerIdentity {
            name: name.unwrap_or_else(|| manifest.name.clone()),
            version: env!("CARGO_PKG_VERSION").to_string(),
            instructions: None,
        };
        let help = manifest.help_documents.clone();
        LibraryDispatch {
            host,
            identity,
            tools: std::sync::OnceLock::new(),
            hide_exceptions: false,
            help: Vec::new(),
            help_tools: false,
        }
        .with_help_documents(help)
    }

    /// Adds help documents (`serve --help-docs`; a document of the same name replaces the
    /// manifest's). With any, `help_list` and `help_read` are served beside the library's
    /// tools (unless it has tools of those names).
    pub fn with_help_documents(mut self, documents: Vec<HelpDocumentEntry>) -> LibraryDispatch {
        for document in documents {
            self.help.retain(|h| h.name != document.name);
            self.help.push(document);
        }
        self.help.sort_by(|a, b| a.name.cmp(&b.name));
        let taken = |name: &str| self.host.tool(name).is_some();
        self.help_tools = !self.help.is_empty() && !taken(HELP_LIST) && !taken(HELP_READ);
        self.tools = std::sync::OnceLock::new();
        self
    }

    /// `help_list` and `help_read`.
    fn call_help(&self, name: &str, raw_arguments: Option<&str>) -> Option<ToolOutcome> {
        if !self.help_tools || (name != HELP_LIST && name != HELP_READ) {
            return None;
        }
        let params = if name == HELP_READ {
            vec![help_name_param()]
        } else {
            Vec::new()
        };
        let args = match marshal::parse_arguments(name, raw_arguments, &params) {
            Ok(args) => args,
            Err(errors) => return Some(ToolOutcome::error(errors.to_string())),
        };
        if name == HELP_LIST {
            let list: Vec<Value> = self
                .help
                .iter()
                .map(|h| json!({"name": h.name, "title": h.title, "description": h.description, "uri": h.uri()}))
                .collect();
            return Some(ToolOutcome::success(json!({ "result": list })));
        }
        let wanted = match args.first() {
            Some(crate::host::ArgValue::String(name)) => name.as_str(),
            _ => "",
        };
        Some(match self.help.iter().find(|h| h.name == wanted) {
            Some(document) => ToolOutcome::success(json!({ "result": document.text })),
            None => {
                let names: Vec<&str> = self.help.iter().map(|h| h.name.as_str()).collect();
                ToolOutcome::error(format!(
                    "no help document named \"{wanted}\"; there are: {}",
                    names.join(", ")
                ))
            }
        })
    }

    /// Sends clients "internal error" instead of the class and message of exceptions other
    /// than `EMcpToolError` (logged on the server); `serve --hide-exceptions`.
    pub fn hide_exceptions(mut self, hide: bool) -> LibraryDispatch {
        self.hide_exceptions = hide;
        self
    }

    /// The host.
    pub fn host(&self) -> &Arc<dyn ToolHost> {
        &self.host
    }

    fn version_info(&self) -> Value {
        let state = self.host.state();
        json!({
            "server": "delphi-mcp",
            "version": env!("CARGO_PKG_VERSION"),
            "name": self.identity.name,
            "abiVersion": self.host.manifest().abi_version,
            "library": self.host.path().display().to_string(),
            "manifestSha256": self.host.manifest_sha256(),
            "tools": self.host.manifest().tools.len(),
            "threads": state.library_threads,
            "host": state,
        })
    }
}

impl Dispatch for LibraryDispatch {
    fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    fn tools(&self) -> &[Map<String, Value>] {
        self.tools.get_or_init(|| {
            let manifest = self.host.manifest();
            let mut tools: Vec<Map<String, Value>> = manifest.tools.iter().map(mcp_tool).collect();
            tools.push(version_tool());
            if self.help_tools {
                tools.extend(help_tool_entries());
            }
            tools
        })
    }

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        raw_arguments: Option<&'a str>,
        control: CallControl,
    ) -> CallFuture<'a> {
        Box::pin(async move {
            if let Some(outcome) = self.call_help(name, raw_arguments) {
                return Ok(outcome);
            }
            if name == VERSION_TOOL {
                return Ok(match marshal::parse_arguments(name, raw_arguments, &[]) {
                    Ok(_) => ToolOutcome::success(json!({ "result": self.version_info() })),
                    Err(errors) => ToolOutcome::error(errors.to_string()),
                });
            }
            let Some((index, tool)) = self.host.tool(name) else {
                return Err(DispatchError::UnknownTool(name.to_string()));
            };
            let called = call_tool(self.host.as_ref(), index, tool, raw_arguments, &control).await;
            Ok(match (called, tool.delphi.content) {
                (Ok(mut structured), Some(shape)) => {
                    let value = structured.remove("result").unwrap_or(Value::Null);
                    match crate::content::blocks(shape, &value) {
                        Ok(blocks) => ToolOutcome::blocks(blocks),
                        Err(why) => ToolOutcome::error(format!("Tool \"{name}\" failed: {why}")),
                    }
                }
                (Ok(structured), None) => ToolOutcome::success(Value::Object(structured)),
                (Err(crate::call::ToolError::Raised { tool, message }), _)
                    if self.hide_exceptions =>
                {
                    tracing::error!(%tool, %message, "tool raised (hidden from the client)");
                    ToolOutcome::error(format!(
                        "Tool \"{tool}\" failed with an internal error (details are in the server's log)"
                    ))
                }
                (Err(error), _) => ToolOutcome::error(error.to_string()),
            })
        })
    }

    fn host_state(&self) -> Option<HostState> {
        Some(self.host.state())
    }

    fn features(&self) -> Option<&dyn Features> {
        Some(self)
    }

    fn completes_unlocked(&self) -> bool {
        self.host.completes_unlocked()
    }

    /// The host's: the help tools answer at once.
    fn call_timeout(&self) -> Option<Duration> {
        self.host.call_timeout()
    }

    #[cfg(target_os = "linux")]
    fn set_idle_work(&self, work: Arc<dyn crate::host::idle::IdleWork>) -> bool {
        self.host.set_idle_work(work)
    }
}

impl Features for LibraryDispatch {
    fn resources(&self) -> Vec<Value> {
        features::list_resources(self.host.manifest(), &self.help)
    }

    fn resource_templates(&self) -> Vec<Value> {
        features::list_resource_templates(self.host.manifest())
    }

    fn prompts(&self) -> Vec<Value> {
        features::list_prompts(self.host.manifest())
    }

    fn logs(&self) -> bool {
        self.host.manifest().callables().any(|b| b.needs_context())
    }

    fn takes_context(&self, name: &str) -> bool {
        self.host
            .tool(name)
            .is_some_and(|(_, tool)| tool.delphi.needs_context())
    }

    fn has_resource(&self, uri: &str) -> bool {
        let manifest = self.host.manifest();
        features::help_document(&self.help, uri).is_some()
            || manifest.resources.iter().any(|r| r.uri == uri)
            || manifest
                .resource_templates
                .iter()
                .any(|t| features::match_template(&t.uri_template, uri).is_some())
    }

    fn read_resource<'a>(&'a self, uri: &'a str, control: CallControl) -> FeatureFuture<'a> {
        Box::pin(async move {
            match features::help_document(&self.help, uri) {
                Some(document) => Ok(features::read_help(document)),
                None => features::read_resource(self.host.as_ref(), uri, &control).await,
            }
        })
    }

    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<&'a Map<String, Value>>,
        control: CallControl,
    ) -> FeatureFuture<'a> {
        Box::pin(async move {
            features::get_prompt(self.host.as_ref(), name, arguments, &control).await
        })
    }

    fn complete<'a>(
        &'a self,
        target: &'a CompletionTarget,
        argument: &'a str,
        value: &'a str,
        control: CallControl,
    ) -> FeatureFuture<'a> {
        Box::pin(async move {
            features::complete(self.host.as_ref(), target, argument, value, &control).await
        })
    }
}

/// The MCP Tool object of a manifest entry (the manifest's `x-delphi` is not sent).
pub fn mcp_tool(entry: &ToolEntry) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert("name".into(), Value::String(entry.name.clone()));
    if let Some(title) = &entry.title {
        tool.insert("title".into(), Value::String(title.clone()));
    }
    tool.insert(
        "description".into(),
        Value::String(entry.description.clone()),
    );
    tool.insert("inputSchema".into(), entry.input_schema.to_value());
    if let Some(schema) = &entry.output_schema {
        tool.insert("outputSchema".into(), schema.to_value());
    }
    if let Some(annotations) = &entry.annotations {
        if let Ok(value) = serde_json::to_value(annotations) {
            tool.insert("annotations".into(), value);
        }
    }
    tool
}

/// The built-in tool listing the help documents.
pub const HELP_LIST: &str = "help_list";
/// The built-in tool reading a help document.
pub const HELP_READ: &str = "help_read";

fn help_name_param() -> delphi_mcp_manifest::ParamEntry {
    delphi_mcp_manifest::ParamEntry {
        name: "name".into(),
        delphi_type: "string".into(),
        ty: delphi_mcp_manifest::ValueType::String {
            repr: delphi_mcp_manifest::StringRepr::Utf8,
            max_length: None,
        },
        optional: false,
        default: None,
    }
}

fn help_tool_entries() -> Vec<Map<String, Value>> {
    let tools = json!([
        {
            "name": HELP_LIST,
            "title": "Help documents",
            "description": "Lists the help documents of this server (name, title, description); read one with help_read.",
            "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {}, "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": HELP_READ,
            "title": "Read a help document",
            "description": "Returns the Markdown text of the help document `name` (see help_list).",
            "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"name": {"type": "string", "description": "The document's name, from help_list"}}, "required": ["name"], "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        }
    ]);
    match tools {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|t| match t {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn version_tool() -> Map<String, Value> {
    let value = json!({
        "name": VERSION_TOOL,
        "title": "Server version",
        "description": "Returns the delphi-mcp server name and version, the ABI version, the library path, the SHA-256 of the tool manifest, and the state of the library host (running calls, worker processes, restarts).",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {},
            "additionalProperties": false
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "result": {
                    "type": "object",
                    "properties": {
                        "server": {"type": "string"},
                        "version": {"type": "string"},
                        "name": {"type": "string"},
                        "abiVersion": {"type": "integer"},
                        "library": {"type": "string"},
                        "manifestSha256": {"type": "string"},
                        "tools": {"type": "integer"},
                        "threads": {"type": "integer"},
                        "host": {"type": "object", "description": "Where the library runs and what it is doing: isolation, status, running calls, worker processes, restarts, last exit, unavailable until"}
                    },
                    "required": ["server", "version", "abiVersion", "library", "manifestSha256"]
                }
            },
            "required": ["result"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
