//! The rmcp adapter: an rmcp [`ServerHandler`] over any [`Dispatch`].
//!
//! rmcp handles both protocol eras: the `initialize` handshake (2024-11-05 to 2025-11-25) and the
//! stateless 2026-07-28 revision (`server/discover`, per-request `_meta`, cache hints on lists).
//! Transports that can see the raw request text attach the `arguments` text as a
//! [`RawArguments`] request extension, so the dispatcher sees duplicate keys and exact numbers;
//! without it, the already parsed arguments are re-serialised (duplicates are then lost).

use crate::dispatch::{CallControl, Dispatch, DispatchError, ToolOutcome};
use crate::features::FeatureError;
use crate::input_required::Round;
use crate::peer_link::PeerLink;
use delphi_mcp_manifest::CompletionTarget;
// Logging (`logging/setLevel`, log notifications) is deprecated by SEP-2577 for 2026-07-28 but
// part of the handshake eras this server serves.
#[allow(deprecated)]
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams,
    CompleteResult, ContentBlock, CustomRequest, CustomResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, Implementation, InputRequest, InputRequests, InputRequiredResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SetLevelRequestParams, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

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
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
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
    /// The tools as rmcp describes them, built when first needed ([`Self::prepare`]).
    tools: Arc<OnceLock<Vec<Tool>>>,
    /// Which clients watch which resources (handshake eras).
    subscriptions: Arc<crate::subscriptions::Subscriptions>,
    /// The lowest log level sent to the client (`logging/setLevel`), an index of
    /// [`crate::context::LOG_LEVELS`]; everything until the client sets one.
    min_level: Arc<AtomicUsize>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("identity", self.dispatch.identity())
            .field("tools", &self.tools.get().map(Vec::len))
            .finish()
    }
}

impl McpServer {
    /// Serves `dispatch`. Tools whose description rmcp cannot represent are logged and left out
    /// (when the tool list is first built: [`Self::prepare`]).
    pub fn new(dispatch: Arc<dyn Dispatch>) -> McpServer {
        McpServer {
            dispatch,
            tools: Arc::default(),
            min_level: Arc::new(AtomicUsize::new(0)),
            subscriptions: Arc::default(),
        }
    }

    /// Builds the tool list now instead of at the first `tools/list`. Building it is a good
    /// part of a start, and `initialize` does not need it: the stdio transport builds it
    /// after writing the first answer, while the client reads it.
    pub fn prepare(&self) {
        let _ = self.tool_list();
    }

    fn tool_list(&self) -> &[Tool] {
        self.tools.get_or_init(|| {
            self.dispatch
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
                .collect()
        })
    }

    /// The control of a request: its cancellation and its client (for the call context).
    fn control(&self, context: &RequestContext<RoleServer>) -> CallControl {
        self.control_with(context, None)
    }

    /// [`Self::control`] whose questions in the stateless era are answered from, or recorded
    /// in, `round`.
    /// A resource read's or a prompt's round of input-required answers (stateless era) and
    /// its call control.
    fn round_and_control(
        &self,
        context: &RequestContext<RoleServer>,
        state: Option<&str>,
        responses: Option<&crate::input_required::Responses>,
    ) -> Result<(Option<Arc<Round>>, CallControl), McpError> {
        let round = stateless_round(context, state, responses)?;
        let control = self.control_with(context, round.clone());
        Ok((round, control))
    }

    fn control_with(
        &self,
        context: &RequestContext<RoleServer>,
        round: Option<Arc<Round>>,
    ) -> CallControl {
        let stateless = is_stateless(context);
        // Read only in the stateless era (not on every call of the handshake eras).
        let meta = match stateless {
            true => serde_json::to_value(&context.meta).unwrap_or_default(),
            false => Value::Null,
        };
        // 2026-07-28 has no logging/setLevel: a request asks for logs with its `_meta` level,
        // and gets none without one.
        let min_level = match stateless {
            false => Arc::clone(&self.min_level),
            true => Arc::new(AtomicUsize::new(
                meta.get(LOG_LEVEL)
                    .and_then(Value::as_str)
                    .and_then(|level| crate::context::LOG_LEVELS.iter().position(|l| *l == level))
                    .unwrap_or(usize::MAX),
            )),
        };
        let mut link = PeerLink::new(
            context.peer.clone(),
            context.meta.get_progress_token(),
            min_level,
            stateless,
        )
        .with_subscriptions(Arc::clone(&self.subscriptions));
        if let Some(round) = round {
            link = link.with_round(
                round,
                meta.get(crate::jsonrpc::META_CLIENT_CAPABILITIES).cloned(),
            );
        }
        CallControl {
            cancelled: context.ct.clone(),
            client: Some(Arc::new(link)),
            caller_idle: false,
        }
    }

    /// The dispatcher.
    pub fn dispatch(&self) -> &Arc<dyn Dispatch> {
        &self.dispatch
    }
}

/// The `_meta` key of the log level a stateless request asks for.
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// Whether the request is of the stateless era (2026-07-28 and later).
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|version| version.as_str() >= "2026-07-28")
}

/// Converts an outcome to an MCP result: `structuredContent` plus the same JSON as text, or
/// the content blocks of a content result.
pub fn call_tool_result(outcome: ToolOutcome) -> CallToolResult {
    if let Some(blocks) = outcome.content {
        let blocks = blocks
            .into_iter()
            .filter_map(
                |block| match serde_json::from_value::<ContentBlock>(block) {
                    Ok(block) => Some(block),
                    Err(error) => {
                        tracing::error!(%error, "content block left out");
                        None
                    }
                },
            )
            .collect();
        return CallToolResult::success(blocks);
    }
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
    #[allow(deprecated)] // logging: see the imports
    fn get_info(&self) -> ServerConfig {
        let identity = self.dispatch.identity();
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        if let Some(features) = self.dispatch.features() {
            // Only a tool with a call context can log to the client.
            if features.logs() {
                capabilities.logging = Some(Default::default());
            }
            let resources =
                !features.resources().is_empty() || !features.resource_templates().is_empty();
            let prompts = !features.prompts().is_empty();
            if resources {
                let mut offered = rmcp::model::ResourcesCapability::default();
                offered.subscribe = Some(true);
                capabilities.resources = Some(offered);
            }
            if prompts {
                capabilities.prompts = Some(Default::default());
            }
            if resources || prompts {
                capabilities.completions = Some(Default::default());
            }
        }
        let mut info = ServerConfig::new(capabilities);
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
        Ok(ListToolsResult::with_all_items(self.tool_list().to_vec())
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
        // Removed in 2026-07-28 (SEP-2575): the lifecycle, logging/setLevel and the legacy
        // resource subscriptions (subscriptions/listen replaces them).
        let removed = matches!(
            request.method.as_str(),
            "initialize"
                | "ping"
                | "logging/setLevel"
                | "resources/subscribe"
                | "resources/unsubscribe"
        );
        if STANDARD_METHODS.contains(&request.method.as_str()) && !(stateless_era && removed) {
            return Err(McpError::invalid_params(
                format!(
                    "Invalid params for {}: they do not match the MCP schema (e.g. tools/call needs a string `name` and an object `arguments`, resources/read a string `uri`)",
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
        self.tool_list().iter().find(|t| t.name == name).cloned()
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
        let name = request.name.to_string();
        // Only a tool with a call context talks to its client: the others get a plain control.
        let takes_context = self
            .dispatch
            .features()
            .is_some_and(|f| f.takes_context(&name));
        if !takes_context {
            let control = CallControl {
                cancelled: context.ct.clone(),
                client: None,
                caller_idle: false,
            };
            return call_tool_response(
                run_call(Arc::clone(&self.dispatch), name, raw, control).await,
            );
        }
        if is_stateless(&context) {
            // The call may ask the client: input-required results (`crate::input_required`).
            let round = new_round(
                request.request_state.as_deref(),
                request.input_responses.as_ref(),
            )?;
            let control = self.control_with(&context, Some(Arc::clone(&round)));
            let outcome = run_call(Arc::clone(&self.dispatch), name, raw, control).await;
            return match input_required(Some(&round))? {
                Some(result) => Ok(CallToolResponse::InputRequired(result)),
                None => call_tool_response(outcome),
            };
        }
        let control = self.control(&context);
        call_tool_response(run_call(Arc::clone(&self.dispatch), name, raw, control).await)
    }

    #[allow(deprecated)] // logging: see the imports
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Removed in 2026-07-28: a request names its log level in `_meta` there.
        if is_stateless(&context) {
            return Err(McpError::new(
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found: logging/setLevel",
                None,
            ));
        }
        let level = serde_json::to_value(request.level).unwrap_or_default();
        let index = crate::context::LOG_LEVELS
            .iter()
            .position(|l| level.as_str() == Some(l))
            .unwrap_or(0);
        self.min_level.store(index, Ordering::Relaxed);
        Ok(())
    }

    #[allow(deprecated)] // resources/subscribe is of the handshake eras, which are served
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Only what exists can be watched (a resource, or a URI a template matches).
        let known = self
            .dispatch
            .features()
            .is_some_and(|f| f.has_resource(&request.uri));
        if !known {
            return Err(feature_error(
                FeatureError::ResourceNotFound(request.uri.clone()),
                false,
            ));
        }
        self.subscriptions
            .subscribe(&request.uri, context.peer.clone());
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        // The lists never change while the process runs: only resource updates are offered,
        // for the URIs that exist.
        let features = self.dispatch.features()?;
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| features.has_resource(uri))
            .cloned()
            .collect();
        let mut accepted = rmcp::model::SubscriptionFilter::default();
        accepted.resource_subscriptions = Some(uris);
        Some(accepted)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        self.subscriptions.listen(context.sink().clone());
        context.cancelled().await;
        self.subscriptions.closed(context.sink());
        Ok(())
    }

    #[allow(deprecated)] // as `subscribe`
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.unsubscribe(&request.uri, &context.peer);
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        list_result("resources", self.dispatch.features().map(|f| f.resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        list_result(
            "resourceTemplates",
            self.dispatch.features().map(|f| f.resource_templates()),
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let (round, control) = self.round_and_control(
            &context,
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
        )?;
        let uri = request.uri.to_string();
        let result = match self.dispatch.features() {
            Some(features) => features.read_resource(&uri, control).await,
            None => Err(FeatureError::ResourceNotFound(uri.clone())),
        };
        if let Some(asked) = input_required(round.as_ref())? {
            return Ok(ReadResourceResponse::InputRequired(asked));
        }
        match result {
            Ok(result) => from_json(result).map(ReadResourceResponse::Complete),
            Err(error) => Err(feature_error(error, is_stateless(&context))),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        list_result("prompts", self.dispatch.features().map(|f| f.prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let (round, control) = self.round_and_control(
            &context,
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
        )?;
        let arguments = request.arguments.clone();
        let result = match self.dispatch.features() {
            Some(features) => {
                features
                    .get_prompt(&request.name, arguments.as_ref(), control)
                    .await
            }
            None => Err(FeatureError::UnknownPrompt(request.name.to_string())),
        };
        if let Some(asked) = input_required(round.as_ref())? {
            return Ok(GetPromptResponse::InputRequired(asked));
        }
        match result {
            Ok(result) => from_json(result).map(GetPromptResponse::Complete),
            Err(error) => Err(feature_error(error, is_stateless(&context))),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let reference = serde_json::to_value(&request.r#ref).unwrap_or_default();
        let text = |key: &str| {
            reference
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let target = match text("type").as_str() {
            "ref/prompt" => CompletionTarget::Prompt { name: text("name") },
            "ref/resource" => CompletionTarget::ResourceTemplate { uri: text("uri") },
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown completion reference type `{other}`"),
                    None,
                ))
            }
        };
        let control = self.control(&context);
        let completion = match self.dispatch.features() {
            Some(features) => {
                features
                    .complete(
                        &target,
                        &request.argument.name,
                        &request.argument.value,
                        control,
                    )
                    .await
            }
            None => Ok(json!({"values": [], "total": 0, "hasMore": false})),
        };
        match completion {
            Ok(completion) => from_json(json!({ "completion": completion })),
            Err(error) => Err(feature_error(error, is_stateless(&context))),
        }
    }
}

/// The round of a request in the stateless era (none in the handshake eras, where questions
/// are requests to the client).
fn stateless_round(
    context: &RequestContext<RoleServer>,
    state: Option<&str>,
    responses: Option<&crate::input_required::Responses>,
) -> Result<Option<Arc<Round>>, McpError> {
    match is_stateless(context) {
        true => new_round(state, responses).map(Some),
        false => Ok(None),
    }
}

/// The round of a stateless request: the answers it and its `requestState` carry.
fn new_round(
    state: Option<&str>,
    responses: Option<&crate::input_required::Responses>,
) -> Result<Arc<Round>, McpError> {
    Round::new(state, responses)
        .map(Arc::new)
        .map_err(|error| McpError::invalid_params(error.to_string(), None))
}

/// The input-required result of a round whose call asked questions it had no answer to.
fn input_required(round: Option<&Arc<Round>>) -> Result<Option<InputRequiredResult>, McpError> {
    let Some((questions, state)) = round.and_then(|round| round.questions()) else {
        return Ok(None);
    };
    let mut requests = InputRequests::new();
    for question in questions {
        let asked = serde_json::from_value::<InputRequest>(
            json!({"method": question.request.method(), "params": question.params}),
        )
        .map_err(|error| {
            McpError::internal_error(format!("input request not built: {error}"), None)
        })?;
        requests.insert(question.key, asked);
    }
    Ok(Some(InputRequiredResult::new(Some(requests), Some(state))))
}

/// Runs a tool call (arguments over [`LARGE_ARGUMENTS`] validated on a blocking thread).
async fn run_call(
    dispatch: Arc<dyn Dispatch>,
    name: String,
    raw: Option<Arc<str>>,
    control: CallControl,
) -> Result<ToolOutcome, DispatchError> {
    if raw.as_ref().is_some_and(|r| r.len() > LARGE_ARGUMENTS) {
        // Validating megabytes of arguments takes milliseconds of CPU: not on the async
        // workers, which must keep serving other requests and enforcing deadlines.
        let runtime = tokio::runtime::Handle::current();
        return tokio::task::spawn_blocking(move || {
            runtime.block_on(dispatch.call_tool(&name, raw.as_deref(), control))
        })
        .await
        .unwrap_or_else(|error| Ok(ToolOutcome::error(format!("the call failed: {error}"))));
    }
    dispatch.call_tool(&name, raw.as_deref(), control).await
}

/// A list result (resources, templates, prompts) with the 2026-07-28 cache hints: the lists are
/// fixed for the life of the process, as the tool list is.
fn list_result<T: serde::de::DeserializeOwned>(
    key: &str,
    items: Option<Vec<Value>>,
) -> Result<T, McpError> {
    let mut result = serde_json::Map::new();
    result.insert(key.into(), Value::Array(items.unwrap_or_default()));
    result.insert("ttlMs".into(), json!(TOOLS_TTL_MS));
    result.insert("cacheScope".into(), json!("private"));
    from_json(Value::Object(result))
}

/// An rmcp result from the JSON built by [`crate::features`], marked complete (2026-07-28's
/// `resultType`; rmcp strips it for older peers).
fn from_json<T: serde::de::DeserializeOwned>(mut value: Value) -> Result<T, McpError> {
    if let Value::Object(map) = &mut value {
        map.entry("resultType").or_insert_with(|| json!("complete"));
    }
    serde_json::from_value(value).map_err(|error| {
        McpError::internal_error(format!("result not representable: {error}"), None)
    })
}

/// The protocol error of a failed resource, prompt or completion request. A missing resource is
/// -32002 before 2026-07-28 and -32602 with `data.uri` from then on.
fn feature_error(error: FeatureError, stateless: bool) -> McpError {
    let message = error.to_string();
    match error {
        FeatureError::ResourceNotFound(uri) if stateless => {
            McpError::invalid_params(message, Some(json!({ "uri": uri })))
        }
        FeatureError::ResourceNotFound(uri) => {
            McpError::resource_not_found(message, Some(json!({ "uri": uri })))
        }
        FeatureError::UnknownPrompt(_) | FeatureError::InvalidParams(_) => {
            McpError::invalid_params(message, None)
        }
        FeatureError::Failed(_) => McpError::internal_error(message, None),
    }
}
