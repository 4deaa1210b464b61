//! A bare rmcp 3.11 server with the calc example's `calc_scale` tool (same schemas, same
//! answer: `structuredContent` `{"result": Value * Factor}` and the same JSON as text), to show
//! what rmcp itself costs next to delphi-mcp.
//!
//! usage: rmcp-bare stdio | stdio-pipes | http ADDR
//!
//! `stdio` serves over rmcp's `stdio()` (tokio's blocking-pool stdin/stdout), `stdio-pipes`
//! over its `stdio_pipes()` (non-blocking pipes on the IO reactor), `http` over rmcp's
//! Streamable HTTP service in an axum router at `/mcp`, stateless with JSON answers (the
//! configuration delphi-mcp gives a client that accepts JSON); it prints
//! `listening http://ADDR/mcp` on stderr once bound.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::sync::Arc;

#[derive(Clone)]
struct Calc {
    tools: Arc<Vec<Tool>>,
}

impl Calc {
    fn new() -> Calc {
        let number = |description: &str| json!({"type": "number", "description": description});
        let mut factor = number("The multiplier; 1 when not given.");
        factor["default"] = json!(1);
        let tool = json!({
            "name": "calc_scale",
            "title": "Scale a value",
            "description": "Multiply a value by a factor",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"Value": number("The number to scale."), "Factor": factor},
                "required": ["Value"],
                "additionalProperties": false
            },
            "outputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"result": {"type": "number"}},
                "required": ["result"],
                "additionalProperties": false
            },
            "annotations": {"title": "Scale a value", "readOnlyHint": true, "idempotentHint": true}
        });
        let tool: Tool = serde_json::from_value(tool).expect("the calc_scale tool");
        Calc {
            tools: Arc::new(vec![tool]),
        }
    }
}

/// `Value * Factor`, with the checks the schema asks for (no other keys, numbers only).
fn scale(arguments: Option<&Map<String, Value>>) -> Result<f64, String> {
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    if let Some(key) = arguments.keys().find(|k| *k != "Value" && *k != "Factor") {
        return Err(format!("unknown argument {key:?}"));
    }
    let value = arguments
        .get("Value")
        .and_then(Value::as_f64)
        .ok_or("Value: a number is required")?;
    let factor = match arguments.get("Factor") {
        None => 1.0,
        Some(factor) => factor.as_f64().ok_or("Factor: not a number")?,
    };
    Ok(value * factor)
}

impl ServerHandler for Calc {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("rmcp-bare", "3.11.0");
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(vec![
            ProtocolVersion::V_2024_11_05,
            ProtocolVersion::V_2025_03_26,
            ProtocolVersion::V_2025_06_18,
            ProtocolVersion::V_2025_11_25,
            ProtocolVersion::V_2026_07_28,
        ])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != "calc_scale" {
            return Err(McpError::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        let result = match scale(request.arguments.as_ref()) {
            Ok(product) => {
                let structured = json!({ "result": product });
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(structured.to_string())]);
                result.structured_content = Some(structured);
                result
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(CallToolResponse::Complete(result))
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let outcome = match args.get(1).map(String::as_str) {
        Some("stdio") => serve_stdio(rmcp::transport::stdio()).await,
        Some("stdio-pipes") => serve_stdio(rmcp::transport::stdio_pipes()).await,
        Some("http") => serve_http(args.get(2).map_or("127.0.0.1:0", String::as_str)).await,
        _ => Err("usage: rmcp-bare stdio | stdio-pipes | http ADDR".to_string()),
    };
    if let Err(error) = outcome {
        eprintln!("rmcp-bare: {error}");
        std::process::exit(1);
    }
}

async fn serve_stdio<R, W>(transport: (R, W)) -> Result<(), String>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let running = Calc::new()
        .serve(transport)
        .await
        .map_err(|e| e.to_string())?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}

async fn serve_http(address: &str) -> Result<(), String> {
    let calc = Calc::new();
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(calc.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("bind {address}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("listening http://{local}/mcp");
    axum::serve(listener, router)
        .await
        .map_err(|e| e.to_string())
}
