//! The rmcp adapter: an rmcp [`ServerHandler`] over any [`Dispatch`].
//!
//! rmcp handles both protocol eras: the `initialize` handshake (2024-11-05 to 2025-11-25) and the
//! stateless 2026-07-28 revision (`server/discover`, per-request `_meta`, cache hints on lists).
//! Transports that can see the raw request text attach the `arguments` text as a
//! [`RawArguments`] request extension, so the dispatcher sees duplicate keys and exact numbers;
//! without it, the already parsed arguments are re-serialised (duplicates are then lost).

use crate::dispatch::{CallControl, Dispatch, DispatchError, ToolOutcome};
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    CustomRequest, CustomResult, ErrorCode, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use std::borrow::Cow;
use std::sync::Arc;

/// The raw JSON text of a `tools/call` request's `arguments`, attached by the transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawArguments(pub Arc<str>);

/// Arguments longer than this (bytes) are validated on a blocking thread.
pub const LARGE_ARGUMENTS: usize = 64 * 1024;

/// How long clients may cache the tool list (2026-07-28 `ttlMs`): the list is fixed for the
/// life of the server process.
pub const TOOLS_TTL_MS: u64 = 300_000;

/// Methods of the MCP spec this server implements (for telling bad params from unknown methods).
const STANDARD_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
];

/// The protocol versions served, oldest first.
pub fn supported_versions() -> Vec<ProtocolVersion> {
    vec![
        ProtocolVersion::V_2024_11_05,
        ProtocolVersion::V_2025_03_26,
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ]
}

/// An rmcp server handler serving a [`Dispatch`].
#[derive(Clone)]
pub struct McpServer {
    dispatch: Arc<dyn Dispatch>,
    tools: Arc<Vec<Tool>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("identity", self.dispatch.identity())
            .field("tools", &self.tools.len())
            .finish()
    }
}

impl McpServer {
    /// Serves `dispatch`. Tools whose description rmcp cannot represent are logged and left out.
    pub fn new(dispatch: Arc<dyn Dispatch>) -> McpServer {
        let tools = dispatch
            .tools()
            .iter()
            .filter_map(|tool| {
                match serde_json::from_value::<Tool>(serde_json::Value::Object(tool.clone())) {
                    Ok(tool) => Some(tool),
                    Err(error) => {
                        tracing::error!(tool = ?tool.get("name"), %error, "tool left out of the list");
                        None
                    }
                }
            })
            .collect();
        McpServer {
            dispatch,
            tools: Arc::new(tools),
        }
    }

    /// The dispatcher.
    pub fn dispatch(&self) -> &Arc<dyn Dispatch> {
        &self.dispatch
    }
}

/// Converts an outcome to an MCP result: `structuredContent` plus the same JSON as text.
pub fn call_tool_result(outcome: ToolOutcome) -> CallToolResult {
    let mut result = if outcome.is_error {
        CallToolResult::error(vec![ContentBlock::text(outcome.text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(outcome.text)])
    };
    result.structured_content = outcome.structured;
    result
}

/// The handler's answer to a `tools/call`: the outcome as a result, or an unknown tool as
/// invalid params (JSON-RPC -32602).
pub fn call_tool_response(
    outcome: Result<ToolOutcome, DispatchError>,
) -> Result<CallToolResponse, McpError> {
    match outcome {
        Ok(outcome) => Ok(CallToolResponse::Complete(call_tool_result(outcome))),
        Err(DispatchError::UnknownTool(name)) => Err(McpError::invalid_params(
            format!("Unknown tool: {name}"),
            None,
        )),
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let identity = self.dispatch.identity();
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new(identity.name.clone(), identity.version.clone());
        info.instructions = identity.instructions.clone();
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(supported_versions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone())
            .with_ttl_ms(TOOLS_TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        // rmcp reads a standard method whose params do not fit its schema as a custom request
        // (e.g. `tools/call` with array `arguments`): that is invalid params, not an unknown method.
        // `initialize` and `ping` do not exist in the stateless era: a request carrying the
        // 2026-07-28 `_meta` gets "method not found" (HTTP 404 from rmcp), as the spec says.
        let stateless_era = [
            rmcp::model::GetMeta::get_meta(&request).protocol_version(),
            context.meta.protocol_version(),
        ]
        .into_iter()
        .flatten()
        .any(|version| version.as_str() >= "2026-07-28");
        let removed = matches!(request.method.as_str(), "initialize" | "ping");
        if STANDARD_METHODS.contains(&request.method.as_str()) && !(stateless_era && removed) {
            return Err(McpError::invalid_params(
                format!(
                    "Invalid params for {}: they do not match the MCP schema (tools/call needs a string `name` and an object `arguments`)",
                    request.method
                ),
                None,
            ));
        }
        Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {}", request.method),
            None,
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Over HTTP, rmcp attaches the HTTP request parts; the transport put the raw text there.
        let from_http = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<RawArguments>());
        let raw: Option<Arc<str>> = match context.extensions.get::<RawArguments>().or(from_http) {
            Some(RawArguments(text)) => Some(Arc::clone(text)),
            None => request
                .arguments
                .as_ref()
                .map(|map| Arc::from(serde_json::Value::Object(map.clone()).to_string())),
        };
        let control = CallControl {
            cancelled: context.ct.clone(),
        };
        let name = request.name.to_string();
        let outcome = if raw.as_ref().is_some_and(|r| r.len() > LARGE_ARGUMENTS) {
            // Validating megabytes of arguments takes milliseconds of CPU: not on the async
            // workers, which must keep serving other requests and enforcing deadlines.
            let dispatch = Arc::clone(&self.dispatch);
            let runtime = tokio::runtime::Handle::current();
            tokio::task::spawn_blocking(move || {
                runtime.block_on(dispatch.call_tool(&name, raw.as_deref(), control))
            })
            .await
            .map_err(|error| McpError::internal_error(format!("the call failed: {error}"), None))?
        } else {
            self.dispatch
                .call_tool(&name, raw.as_deref(), control)
                .await
        };
        call_tool_response(outcome)
    }
}
