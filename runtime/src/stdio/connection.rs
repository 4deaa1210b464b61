//! The state of the stdio connection, shared by the line reader, rmcp and the writer: which
//! requests rmcp is handling (under internal ids), the protocol era, the answers in the order
//! they are written, and (with one library thread) the tool calls waiting for their turn.
//!
//! Rules (see `docs/runtime.md`, "stdio"):
//! - every request is handed to rmcp under an internal integer id; its answer gets the client's
//!   exact id back;
//! - in order mode (one library thread) answers are written in request order, but an answer
//!   that is ready waits behind an earlier unanswered request for at most [`HOLD`]; tool calls
//!   reach the library one at a time, in request order, while everything else is handled at
//!   once; without order mode (several library threads) answers are written as they come;
//! - `notifications/cancelled` for a request not yet answered means its answer is never
//!   written (a call waiting for its turn is dropped; a running one is cancelled in rmcp, which
//!   passes it on to the call);
//! - a batch (2025-03-26 only) is answered with one array once all its requests are answered;
//! - a plain `tools/call` may skip rmcp ([`super::direct`]): it is then started by the reader,
//!   and its answer takes its place in the order like any other.

use super::direct::DirectCall;
use super::lines::KEPT_PREFIX;
use crate::direct::PlainCall;
use crate::dispatch::CallControl;
use crate::jsonrpc::{self, code, EnvelopeError, IdKey, Incoming, Kind, RawId, Request};
use crate::lifecycle::{negotiated_version, Era};
use crate::mcp::{supported_versions, RawArguments};
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions, GetMeta,
    ProtocolVersion, RequestId,
};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest time a ready answer waits behind an earlier unanswered request (order mode).
pub const HOLD: Duration = Duration::from_millis(500);

/// A line read and checked, ready to be applied to the connection. Built without the
/// connection's lock (a large line is read on a blocking thread).
#[derive(Debug)]
pub enum Prepared {
    /// Nothing to do (an empty line).
    Nothing,
    /// The answer to send instead of handling the line.
    Answer(EnvelopeError),
    /// One message.
    Single(Box<Item>),
    /// A batch: its messages, or the errors answering them.
    Batch(Vec<Result<Item, EnvelopeError>>),
}

/// One readable message.
#[derive(Debug)]
pub struct Item {
    kind: Kind,
    method: String,
    meta_version: Option<String>,
    cancelled: Option<RawId>,
    message: Reading,
}

/// How a message was read.
#[derive(Debug)]
enum Reading {
    /// A plain `tools/call`, read without rmcp's types: rmcp's reading is built only when the
    /// call does not take the direct path.
    Plain(Box<PlainCall>),
    /// The message as rmcp reads it (id and `requestId` still placeholders), or why rmcp cannot
    /// read it (a value `serde_json::Value` cannot hold outside the arguments, params that fit
    /// no MCP type).
    Rmcp(Box<Result<ClientJsonRpcMessage, String>>),
}

impl Reading {
    /// The message as rmcp reads it, or why rmcp cannot.
    fn into_rmcp(self) -> Result<ClientJsonRpcMessage, String> {
        match self {
            Reading::Plain(call) => Ok(call.into_rmcp(RequestId::Number(0))),
            Reading::Rmcp(read) => *read,
        }
    }
}

/// Reads a line: UTF-8, envelope, batch, and the message rmcp will get.
pub fn prepare(line: &[u8]) -> Prepared {
    let Ok(text) = std::str::from_utf8(line) else {
        return Prepared::Answer(jsonrpc::not_utf8());
    };
    if text
        .trim_matches(|c: char| c.is_ascii_whitespace() || c == '\u{feff}')
        .is_empty()
    {
        return Prepared::Nothing;
    }
    if let Some((id, call)) = PlainCall::read_text(text) {
        return Prepared::Single(Box::new(Item {
            kind: Kind::Request(id),
            method: "tools/call".into(),
            meta_version: call.meta_version().map(str::to_string),
            cancelled: None,
            message: Reading::Plain(Box::new(call)),
        }));
    }
    match jsonrpc::parse(text) {
        Incoming::Single(Err(error)) => Prepared::Answer(error),
        Incoming::Single(Ok(request)) => Prepared::Single(Box::new(item(&request))),
        Incoming::Batch(items) => {
            Prepared::Batch(items.into_iter().map(|r| r.map(|r| item(&r))).collect())
        }
    }
}

/// The answer to a line longer than the limit, under its id when its start shows it.
pub fn too_long(prefix: &[u8]) -> Prepared {
    let id = jsonrpc::id_from_prefix(&prefix[..prefix.len().min(KEPT_PREFIX)])
        .unwrap_or_else(RawId::null);
    Prepared::Answer(EnvelopeError::invalid(
        id,
        format!(
            "the message is longer than {} bytes (the stdio line limit)",
            super::lines::MAX_LINE
        ),
    ))
}

fn item(request: &Request<'_>) -> Item {
    let cancelled = request.cancelled_request();
    let (meta_version, message) = match PlainCall::read(request) {
        Some(call) => (
            call.meta_version().map(str::to_string),
            Reading::Plain(Box::new(call)),
        ),
        None => (
            request.meta_protocol_version(),
            Reading::Rmcp(Box::new(rmcp_reading(request, cancelled.is_some()))),
        ),
    };
    Item {
        kind: request.kind.clone(),
        method: request.method().to_string(),
        meta_version,
        cancelled,
        message,
    }
}

/// `request` as rmcp reads it (`cancels`: a `notifications/cancelled` naming a valid id), its
/// arguments attached ([`RawArguments`]).
fn rmcp_reading(request: &Request<'_>, cancels: bool) -> Result<ClientJsonRpcMessage, String> {
    let internal = matches!(request.kind, Kind::Request(_)).then_some(0);
    let text = request.for_rmcp(internal, cancels.then_some(0));
    match crate::direct::read_client_message(&text, request.method()) {
        Ok(mut message) => {
            if let (ClientJsonRpcMessage::Request(call), Some(arguments)) =
                (&mut message, request.tool_arguments())
            {
                call.request
                    .extensions_mut()
                    .insert(RawArguments(Arc::from(arguments)));
            }
            Ok(message)
        }
        Err(error) => Err(error.to_string()),
    }
}

/// Where an answer goes.
#[derive(Debug)]
enum Entry {
    /// Handed to rmcp; no answer yet.
    Waiting,
    /// The answer's text.
    Done(String),
    /// Cancelled by the client: nothing is written.
    Cancelled,
}

/// One answer (or one batch's array) in writing order.
#[derive(Debug)]
struct Slot {
    number: u64,
    batch: bool,
    entries: Vec<(Option<IdKey>, Entry)>,
    ready_since: Option<Instant>,
}

impl Slot {
    fn ready(&self) -> bool {
        !self
            .entries
            .iter()
            .any(|(_, e)| matches!(e, Entry::Waiting))
    }

    /// The line to write (`None`: nothing, e.g. every request was cancelled).
    fn render(&self) -> Option<String> {
        let done = self.entries.iter().filter_map(|(_, e)| match e {
            Entry::Done(text) => Some(text.as_str()),
            _ => None,
        });
        if self.batch {
            let answers: Vec<&str> = done.collect();
            (!answers.is_empty()).then(|| jsonrpc::batch_json(answers))
        } else {
            done.map(str::to_string).next()
        }
    }
}

/// Whether the tool of a name takes a call context.
type TakesContext = Box<dyn Fn(&str) -> bool + Send>;

/// Which tools take a call context, as the dispatcher says (none by default).
#[derive(Default)]
pub struct ContextTools(Option<TakesContext>);

impl ContextTools {
    /// Asks `takes_context` for each tool called.
    pub fn new(takes_context: impl Fn(&str) -> bool + Send + 'static) -> ContextTools {
        ContextTools(Some(Box::new(takes_context)))
    }

    /// Whether the tool `name` takes a call context.
    pub fn contains(&self, name: &str) -> bool {
        self.0.as_ref().is_some_and(|takes| takes(name))
    }
}

impl std::fmt::Debug for ContextTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ContextTools")
            .field(&self.0.is_some())
            .finish()
    }
}

/// A request rmcp (or the direct path) is handling.
#[derive(Debug)]
struct Pending {
    client: RawId,
    slot: u64,
    index: usize,
    call: bool,
    /// A direct call's control (cancelled by `notifications/cancelled`).
    direct: Option<CallControl>,
}

/// The connection (see the module documentation).
#[derive(Debug)]
pub struct Connection {
    ordered: bool,
    next_internal: i64,
    next_slot: u64,
    era: Era,
    pending: HashMap<i64, Pending>,
    slots: VecDeque<Slot>,
    /// Order mode: the tool call rmcp is handling, and the calls waiting for their turn.
    running_call: Option<i64>,
    waiting_calls: VecDeque<(i64, ClientJsonRpcMessage)>,
    /// Messages for rmcp, in order.
    to_rmcp: VecDeque<ClientJsonRpcMessage>,
    /// Server messages that answer no request (written at once).
    unordered: Vec<String>,
    /// Whether plain tool calls may skip rmcp ([`super::direct`]).
    pub direct: bool,
    /// Which tools take a call context (ABI 3): they need rmcp's peer, never the direct path.
    pub context_tools: ContextTools,
    /// rmcp has answered a request: its service runs.
    rmcp_serving: bool,
    /// `notifications/initialized` was received.
    initialized: bool,
    /// Direct calls for the reader to start, in order.
    to_start: Vec<DirectCall>,
    /// Direct calls the client cancelled, for the reader to cancel once it has released the
    /// lock (a cancelled call may end at once, on the reader's thread, and answer).
    to_cancel: Vec<CallControl>,
    /// The writer task has lines in hand: nobody else writes until it is done.
    pub writing: bool,
    /// Bytes a write from another thread left unwritten (a full pipe): written first.
    pub unwritten: Vec<u8>,
    /// End of input was read.
    pub eof: bool,
    /// Writing has stopped (stdout failed or rmcp ended): nothing more will be written.
    pub closed: bool,
}

impl Connection {
    /// A connection; `ordered` is order mode (one library thread).
    pub fn new(ordered: bool) -> Connection {
        Connection {
            ordered,
            next_internal: 1,
            next_slot: 0,
            era: Era::Unknown,
            pending: HashMap::new(),
            slots: VecDeque::new(),
            running_call: None,
            waiting_calls: VecDeque::new(),
            to_rmcp: VecDeque::new(),
            unordered: Vec::new(),
            direct: true,
            context_tools: ContextTools::default(),
            rmcp_serving: false,
            initialized: false,
            to_start: Vec::new(),
            to_cancel: Vec::new(),
            writing: false,
            unwritten: Vec::new(),
            eof: false,
            closed: false,
        }
    }

    /// The next message for rmcp.
    pub fn next_for_rmcp(&mut self) -> Option<ClientJsonRpcMessage> {
        self.to_rmcp.pop_front()
    }

    /// Whether messages wait for rmcp.
    pub fn has_for_rmcp(&self) -> bool {
        !self.to_rmcp.is_empty()
    }

    /// The direct calls to start now, in request order.
    pub fn take_direct_calls(&mut self) -> Vec<DirectCall> {
        std::mem::take(&mut self.to_start)
    }

    /// Answers in request order with one tool call at a time (one library thread).
    #[cfg(target_os = "linux")]
    pub fn ordered(&self) -> bool {
        self.ordered
    }

    /// End of input was read, or writing stopped.
    #[cfg(target_os = "linux")]
    pub fn input_done(&self) -> bool {
        self.eof || self.closed
    }

    /// Requests not answered yet.
    pub fn awaiting(&self) -> usize {
        self.pending.len()
    }

    /// The direct calls to cancel now.
    pub fn take_cancellations(&mut self) -> Vec<CallControl> {
        std::mem::take(&mut self.to_cancel)
    }

    /// Messages waiting for rmcp, and answers waiting to be written: the reader pauses while
    /// these are many (rmcp or the client is not keeping up).
    pub fn backlog(&self) -> usize {
        self.to_rmcp.len() + self.slots.len() / 64
    }

    /// rmcp has nothing more to do: end of input, every request answered, nothing to deliver.
    pub fn input_finished(&self) -> bool {
        (self.eof || self.closed)
            && self.pending.is_empty()
            && self.waiting_calls.is_empty()
            && self.to_rmcp.is_empty()
            && self.to_start.is_empty()
    }

    /// Everything is written (or writing has stopped).
    pub fn finished(&self) -> bool {
        self.closed
            || (self.input_finished()
                && self.slots.is_empty()
                && self.unordered.is_empty()
                && self.unwritten.is_empty())
    }

    /// Applies a prepared line.
    pub fn accept(&mut self, prepared: Prepared, now: Instant) {
        match prepared {
            Prepared::Nothing => {}
            Prepared::Answer(error) => {
                tracing::warn!(code = error.code, message = %error.message, "message refused");
                let slot = self.open_slot(false);
                self.add_entry(slot, None, Entry::Done(error.to_json()), now);
            }
            Prepared::Single(item) => {
                let slot = self.open_slot(false);
                self.route(slot, *item, now);
            }
            Prepared::Batch(items) => {
                let slot = self.open_slot(true);
                if let Err(error) = self.era.check_batch() {
                    tracing::warn!(message = %error.message, "batch refused");
                    if let Some(target) = self.slot_mut(slot) {
                        target.batch = false;
                    }
                    self.add_entry(slot, None, Entry::Done(error.to_json()), now);
                } else {
                    for item in items {
                        match item {
                            Ok(item) => self.route(slot, item, now),
                            Err(error) => {
                                let key = Some(error.id.key());
                                self.add_entry(slot, key, Entry::Done(error.to_json()), now);
                            }
                        }
                    }
                }
            }
        }
        // A slot that got no entry (notifications only) writes nothing. Only the slot just
        // opened can be empty: earlier ones were checked when their lines were applied (a scan
        // of every slot here cost a few per cent of a pipelined call).
        if self.slots.back().is_some_and(|s| s.entries.is_empty()) {
            self.slots.pop_back();
        }
    }

    fn open_slot(&mut self, batch: bool) -> u64 {
        let number = self.next_slot;
        self.next_slot += 1;
        self.slots.push_back(Slot {
            number,
            batch,
            entries: Vec::new(),
            ready_since: None,
        });
        number
    }

    fn slot_mut(&mut self, number: u64) -> Option<&mut Slot> {
        // Numbers increase along the queue, with gaps where slots were written or dropped.
        let index = self
            .slots
            .binary_search_by_key(&number, |s| s.number)
            .ok()?;
        self.slots.get_mut(index)
    }

    fn add_entry(&mut self, slot: u64, key: Option<IdKey>, entry: Entry, now: Instant) -> usize {
        let Some(target) = self.slot_mut(slot) else {
            return 0;
        };
        target.entries.push((key, entry));
        let index = target.entries.len() - 1;
        Self::mark_ready(target, now);
        index
    }

    fn mark_ready(slot: &mut Slot, now: Instant) {
        if slot.ready_since.is_none() && slot.ready() {
            slot.ready_since = Some(now);
        } else if !slot.ready() {
            slot.ready_since = None;
        }
    }

    fn set_entry(&mut self, slot: u64, index: usize, entry: Entry, now: Instant) {
        if let Some(target) = self.slot_mut(slot) {
            if let Some(place) = target.entries.get_mut(index) {
                place.1 = entry;
            }
            Self::mark_ready(target, now);
        }
    }

    fn route(&mut self, slot: u64, item: Item, now: Instant) {
        let Item {
            kind,
            method,
            meta_version,
            cancelled,
            message,
        } = item;
        match kind {
            // The answer to a request the server sent (a tool's call context asking the client:
            // elicitation, sampling, roots): rmcp matches it to the request by id.
            Kind::Response(id) => match message.into_rmcp() {
                // rmcp ends the service on a message before any lifecycle (and the server has
                // asked nothing then).
                Ok(_) if self.era == Era::Unknown => {
                    tracing::debug!(%id, "answer before any session ignored");
                }
                Ok(message) => self.to_rmcp.push_back(message),
                Err(error) => {
                    tracing::warn!(%id, %error, "unreadable answer from the client ignored")
                }
            },
            Kind::Notification => {
                // rmcp ends the service on a notification before any lifecycle.
                if self.era == Era::Unknown {
                    tracing::debug!(%method, "notification before any session ignored");
                    return;
                }
                let message = match message.into_rmcp() {
                    Ok(message) => message,
                    Err(error) => {
                        tracing::warn!(%method, %error, "unreadable notification ignored");
                        return;
                    }
                };
                if method == "notifications/initialized" {
                    self.initialized = true;
                }
                match cancelled {
                    Some(target) => self.cancel(&target, message, now),
                    None => self.to_rmcp.push_back(message),
                }
            }
            Kind::Request(id) => {
                let key = Some(id.key());
                if let Err(error) = self.era.check(&method, meta_version.as_deref(), &id) {
                    tracing::warn!(%method, message = %error.message, "request refused");
                    self.add_entry(slot, key, Entry::Done(error.to_json()), now);
                    return;
                }
                let message = match message {
                    Reading::Plain(call)
                        if call.admitted(&self.era) && self.direct_admits(slot, &call.name) =>
                    {
                        let PlainCall {
                            name, arguments, ..
                        } = *call;
                        self.start_direct(id, slot, key, now, name, arguments);
                        return;
                    }
                    other => other.into_rmcp(),
                };
                let mut message = match message {
                    Ok(ClientJsonRpcMessage::Request(request)) => request,
                    Ok(_) | Err(_) => {
                        let why = message.err().unwrap_or_default();
                        tracing::warn!(%method, %why, "request rmcp cannot read");
                        let text = jsonrpc::error_json(
                            &id,
                            code::INVALID_PARAMS,
                            &format!("Invalid params for {method}: {why}"),
                        );
                        self.add_entry(slot, key, Entry::Done(text), now);
                        return;
                    }
                };
                self.update_era(&message.request);
                if let Some((name, arguments)) =
                    self.direct_call(slot, &message.request, meta_version.as_deref())
                {
                    self.start_direct(id, slot, key, now, name, arguments);
                    return;
                }
                let call = self.ordered && method == "tools/call";
                let internal = self.await_answer(id, slot, key, now, call, None);
                message.id = RequestId::Number(internal);
                let message = ClientJsonRpcMessage::Request(message);
                if call && self.running_call.is_some() {
                    self.waiting_calls.push_back((internal, message));
                } else {
                    if call {
                        self.running_call = Some(internal);
                    }
                    self.to_rmcp.push_back(message);
                }
            }
        }
    }

    /// The tool and arguments of a request that takes the direct path ([`super::direct`]).
    fn direct_call(
        &mut self,
        slot: u64,
        request: &ClientRequest,
        meta_version: Option<&str>,
    ) -> Option<(String, Option<Arc<str>>)> {
        crate::direct::direct_call(request, &self.era, meta_version)
            .filter(|(name, _)| self.direct_admits(slot, name))
    }

    /// Whether a call of tool `name` in `slot` may take the direct path, the request itself
    /// permitting ([`crate::direct::direct_call`], [`PlainCall::admitted`]).
    fn direct_admits(&mut self, slot: u64, name: &str) -> bool {
        self.direct
            && self.rmcp_serving
            && (self.initialized || self.era == Era::Stateless)
            && !(self.ordered && (self.running_call.is_some() || !self.waiting_calls.is_empty()))
            && self.slot_mut(slot).is_some_and(|s| !s.batch)
            && !self.context_tools.contains(name)
    }

    /// Request `id` (answer key `key` in `slot`) awaits its answer: its place in the answer
    /// order, and the internal id it goes by (returned). `call`: a `tools/call` rmcp runs in
    /// request order; `direct`: the control of a direct call.
    fn await_answer(
        &mut self,
        id: RawId,
        slot: u64,
        key: Option<IdKey>,
        now: Instant,
        call: bool,
        direct: Option<CallControl>,
    ) -> i64 {
        let internal = self.next_internal;
        self.next_internal += 1;
        let index = self.add_entry(slot, key, Entry::Waiting, now);
        self.pending.insert(
            internal,
            Pending {
                client: id,
                slot,
                index,
                call,
                direct,
            },
        );
        internal
    }

    /// Queues the direct call of request `id` (answer key `key` in `slot`) to be started.
    fn start_direct(
        &mut self,
        id: RawId,
        slot: u64,
        key: Option<IdKey>,
        now: Instant,
        name: String,
        arguments: Option<Arc<str>>,
    ) {
        let control = CallControl::new();
        let internal = self.await_answer(id, slot, key, now, false, Some(control.clone()));
        self.to_start.push(DirectCall {
            internal,
            name,
            arguments,
            control,
            stateless: self.era == Era::Stateless,
        });
    }

    /// Fixes the era on the first lifecycle request, as rmcp selects its lifecycle.
    fn update_era(&mut self, request: &ClientRequest) {
        if self.era != Era::Unknown {
            return;
        }
        match request {
            ClientRequest::InitializeRequest(init) => {
                self.era = Era::Handshake(negotiated_version(Some(
                    init.params.protocol_version.as_str(),
                )));
            }
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {}
            other => {
                let meta = other.get_meta();
                let complete = meta
                    .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty();
                let supported = meta
                    .protocol_version()
                    .is_some_and(|v| supported_versions().contains(&v));
                if complete && supported {
                    self.era = Era::Stateless;
                }
            }
        }
        if self.era != Era::Unknown {
            tracing::debug!(era = ?self.era, "protocol era fixed");
        }
    }

    /// `notifications/cancelled` for `target`: requests not answered yet never get an answer.
    fn cancel(&mut self, target: &RawId, notification: ClientJsonRpcMessage, now: Instant) {
        let key = target.key();
        let mut found = false;
        let internals: Vec<i64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.client.key() == key)
            .map(|(internal, _)| *internal)
            .collect();
        for internal in internals {
            let Some(pending) = self.pending.remove(&internal) else {
                continue;
            };
            found = true;
            self.set_entry(pending.slot, pending.index, Entry::Cancelled, now);
            if let Some(control) = pending.direct {
                self.to_cancel.push(control);
                continue;
            }
            if let Some(place) = self.waiting_calls.iter().position(|(i, _)| *i == internal) {
                self.waiting_calls.remove(place);
                continue;
            }
            let mut notification = notification.clone();
            if let ClientJsonRpcMessage::Notification(n) = &mut notification {
                if let ClientNotification::CancelledNotification(c) = &mut n.notification {
                    c.params.request_id = Some(RequestId::Number(internal));
                }
            }
            self.to_rmcp.push_back(notification);
            if self.running_call == Some(internal) {
                self.next_call();
            }
        }
        // An answer ready but not written yet is not written either.
        for slot in &mut self.slots {
            for (entry_key, entry) in &mut slot.entries {
                if entry_key.as_ref() == Some(&key) && matches!(entry, Entry::Done(_)) {
                    *entry = Entry::Cancelled;
                    found = true;
                }
            }
        }
        if found {
            tracing::info!(id = %target, "request cancelled by the client; no answer will be sent");
        } else {
            tracing::debug!(id = %target, "cancellation of no pending request ignored");
        }
    }

    fn next_call(&mut self) {
        self.running_call = None;
        if let Some((internal, message)) = self.waiting_calls.pop_front() {
            self.running_call = Some(internal);
            self.to_rmcp.push_back(message);
        }
    }

    /// An answer rmcp sends: `text` answers internal id `internal`.
    pub fn answered_by_rmcp(&mut self, internal: i64, text: &str, now: Instant) {
        self.rmcp_serving = true;
        self.answered(internal, text, now);
    }

    /// An answer (from rmcp or a direct call): `text` answers internal id `internal`.
    pub fn answered(&mut self, internal: i64, text: &str, now: Instant) {
        let Some(pending) = self.pending.remove(&internal) else {
            tracing::debug!(internal, "answer to a cancelled request dropped");
            return;
        };
        if pending.call && self.running_call == Some(internal) {
            self.next_call();
        }
        let text = jsonrpc::with_id(text, &pending.client);
        self.set_entry(pending.slot, pending.index, Entry::Done(text), now);
    }

    /// A server message that answers no request: written at once.
    pub fn unordered(&mut self, text: String) {
        self.unordered.push(text);
    }

    /// The lines to write now, and when to look again (an answer held behind an earlier one).
    /// Held answers keep their order among themselves: once one is due, the ready ones before
    /// it go first.
    pub fn writable(&mut self, now: Instant) -> (Vec<String>, Option<Instant>) {
        let mut out = std::mem::take(&mut self.unordered);
        let hold = self.ordered && !self.closed;
        let due = |slot: &Slot| slot.ready_since.map(|since| since + HOLD);
        // The last ready slot behind an unanswered one whose hold is over.
        let mut blocked = false;
        let mut release_to = None;
        for (index, slot) in self.slots.iter().enumerate() {
            if !slot.ready() {
                blocked = true;
            } else if !hold || !blocked || due(slot).is_some_and(|d| d <= now) {
                release_to = Some(index);
            }
        }
        let mut wake: Option<Instant> = None;
        let mut blocked = false;
        let mut index = 0;
        while index < self.slots.len() {
            let slot = &self.slots[index];
            if !slot.ready() {
                blocked = true;
                index += 1;
            } else if !hold || !blocked || release_to.is_some_and(|last| index <= last) {
                release_to = release_to.and_then(|last| last.checked_sub(1));
                if let Some(slot) = self.slots.remove(index) {
                    out.extend(slot.render());
                }
            } else {
                if let Some(d) = due(slot) {
                    wake = Some(wake.map_or(d, |w| w.min(d)));
                }
                index += 1;
            }
        }
        (out, wake)
    }
}

#[cfg(test)]
mod tests;
