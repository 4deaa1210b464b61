//! The binary interface between generated Pascal stubs and the runtime, version
//! [`ABI_VERSION`]. `docs/abi.md` is the prose form of this module (and `McpRuntime.pas` in
//! `templates/pascal/` its Pascal side); keep them in step.
//!
//! Every tool export has the one signature [`ToolFn`]: an array of [`AbiValue`] in (one per
//! manifest parameter, in order), one [`AbiValue`] out, an `Int32` status. Strings cross as
//! UTF-8 pointer + length. Strings the library returns (results and error messages) are
//! allocated by the library and released with its `mcp_free` export.
//!
//! Version 2 adds composite values (records, arrays, sets, byte strings): a composite crosses
//! as a *block*, a contiguous array of [`AbiValue`] slots holding the value in pre-order (a
//! [`AbiKind::Record`] or [`AbiKind::Array`] slot is followed directly by its fields or items).
//! The slot in the argument array (or the out value) repeats the root's kind and count and
//! points at the block ([`AbiValue::ptr`], [`AbiValue::len`] = slots). The runtime writes
//! argument blocks after validating the whole value; the library writes result blocks. Each
//! side frees what it allocated: the runtime owns argument blocks and their strings, and
//! releases a result block's strings and the block itself through `mcp_free`.
//!
//! Version 3 adds the call context ([`AbiKind::Context`], [`ContextAbi`]: progress, logging,
//! cancellation and requests to the client through function pointers the runtime supplies),
//! the tool-error status ([`status::TOOL_ERROR`]) and the exports of resources, prompts and
//! completion providers (same signature as tools; `docs/abi.md`).

use serde::{Deserialize, Serialize};
use std::ffi::c_void;

/// Version of the binary interface between generated stubs and the runtime (`docs/abi.md`).
pub const ABI_VERSION: u32 = 3;

/// Oldest ABI version the runtime still loads: version 1 libraries (scalars only) and version 2
/// libraries (composite values) are served unchanged, since versions 2 and 3 only add kinds and
/// exports.
pub const MIN_ABI_VERSION: u32 = 1;

/// Whether the runtime loads libraries (and manifests) of ABI `version`.
pub fn is_supported(version: u32) -> bool {
    (MIN_ABI_VERSION..=ABI_VERSION).contains(&version)
}

/// Kind tags of ABI values (`docs/abi.md`); fixed by [`ABI_VERSION`]. A manifest value type's
/// kind is [`crate::ValueType::abi_kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[repr(i32)]
pub enum AbiKind {
    /// Argument absent (the stub uses the declared default); also "no value".
    Absent = 0,
    /// `bits` is 0 or 1.
    Bool = 1,
    /// `bits` is an Int64 (two's complement).
    Int = 2,
    /// `bits` is a UInt64.
    UInt = 3,
    /// `bits` holds the IEEE-754 bits of a Double.
    Double = 4,
    /// `ptr`/`len` hold UTF-8 bytes (not NUL-terminated).
    String = 5,
    /// Version 2. A record: `bits` is its field count; its fields follow in the block.
    Record = 6,
    /// Version 2. An array (also sets, as their members' ordinals, and `TStrings`): `bits` is
    /// its item count; its items follow in the block.
    Array = 7,
    /// Version 2. `ptr`/`len` hold raw bytes (`TBytes`).
    Bytes = 8,
    /// Version 3. The call context: `ptr` points at a [`ContextAbi`] valid during the call.
    Context = 9,
}

impl AbiKind {
    /// The kind of a tag, when it is one of this version's.
    pub fn from_tag(tag: i32) -> Option<AbiKind> {
        Some(match tag {
            0 => AbiKind::Absent,
            1 => AbiKind::Bool,
            2 => AbiKind::Int,
            3 => AbiKind::UInt,
            4 => AbiKind::Double,
            5 => AbiKind::String,
            6 => AbiKind::Record,
            7 => AbiKind::Array,
            8 => AbiKind::Bytes,
            9 => AbiKind::Context,
            _ => return None,
        })
    }

    /// The lower-case name `docs/abi.md` and `docs/types.md` use.
    pub fn name(self) -> &'static str {
        match self {
            AbiKind::Absent => "absent",
            AbiKind::Bool => "bool",
            AbiKind::Int => "int",
            AbiKind::UInt => "uint",
            AbiKind::Double => "double",
            AbiKind::String => "string",
            AbiKind::Record => "record",
            AbiKind::Array => "array",
            AbiKind::Bytes => "bytes",
            AbiKind::Context => "context",
        }
    }

    /// Whether values of this kind cross as a block of slots.
    pub fn is_composite(self) -> bool {
        matches!(self, AbiKind::Record | AbiKind::Array)
    }
}

/// A tagged value crossing the boundary. 32 bytes on 64-bit targets, 24 on 32-bit.
///
/// Pascal: `TMcpAbiValue = record Kind: Int32; Flags: Int32; Bits: UInt64; Ptr: Pointer;
/// Len: NativeInt; end;`
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AbiValue {
    /// An [`AbiKind`] as `i32`.
    pub kind: i32,
    /// Reserved, always 0.
    pub flags: i32,
    /// Bool (0/1), Int64, UInt64 or the IEEE-754 bits of a Double, by `kind`; the field or
    /// item count of a Record or Array.
    pub bits: u64,
    /// UTF-8 bytes of a String (not NUL-terminated), raw bytes of Bytes; for a Record or Array
    /// in an argument slot or the out value, its block (inside a block: null); null otherwise.
    pub ptr: *const u8,
    /// Byte length of a String or Bytes; slot count of a block (Record or Array outside a
    /// block) or of the slots after it that belong to it (inside a block); 0 otherwise.
    pub len: isize,
}

impl AbiValue {
    /// The absent value (argument not given: the stub uses the declared default).
    pub const ABSENT: AbiValue = AbiValue {
        kind: AbiKind::Absent as i32,
        flags: 0,
        bits: 0,
        ptr: std::ptr::null(),
        len: 0,
    };
}

/// Status returned by tool exports and `mcp_init`.
pub mod status {
    /// The call succeeded; the out value is the result (`Absent` for a procedure).
    pub const OK: i32 = 0;
    /// The Pascal code raised; the out value is a String `ExceptionClass: message`.
    pub const EXCEPTION: i32 = 1;
    /// An argument was rejected by the stub; the out value is a String naming it and why.
    pub const BAD_ARGUMENT: i32 = 2;
    /// The call itself was malformed (argument count or kinds); the out value is a String.
    pub const BAD_CALL: i32 = 3;
    /// Version 3. The Pascal code raised `EMcpToolError`: the out value is a String holding the
    /// message only, which reaches the client verbatim.
    pub const TOOL_ERROR: i32 = 4;
}

/// Status codes of the call context's functions ([`ContextAbi`]).
pub mod context_status {
    /// Done (a notification was sent, or the client answered).
    pub const OK: i32 = 0;
    /// Nothing was sent: the client gave no progress token, or the log level is below the
    /// client's `logging/setLevel`.
    pub const SKIPPED: i32 = 1;
    /// The client does not offer what was asked (no `elicitation`, `sampling` or `roots`
    /// capability, or a transport without server-to-client requests); the answer holds why.
    pub const UNSUPPORTED: i32 = 2;
    /// The request failed (the client answered with an error, or went away); the answer holds
    /// the message.
    pub const FAILED: i32 = 3;
    /// The context is no longer valid: its tool call has returned.
    pub const EXPIRED: i32 = 4;
    /// Elicitation: the user declined.
    pub const DECLINED: i32 = 5;
    /// Elicitation: the user cancelled (dismissed the request).
    pub const CANCELLED: i32 = 6;
    /// Protocol 2026-07-28: the answer is not known yet; the tool must end (`TMcpContext`
    /// raises `EMcpInputRequired`), the client is sent the question, and the call runs again
    /// with the answer (`docs/abi.md`).
    pub const INPUT_REQUIRED: i32 = 7;
}

/// Version 3: `Progress(Handle, Done, Total, Message, MessageLen)`; `Total` < 0: unknown.
pub type ContextProgressFn =
    unsafe extern "C" fn(handle: usize, done: f64, total: f64, msg: *const u8, len: isize) -> i32;
/// Version 3: `Log(Handle, Level, Message, MessageLen)`; levels 0 (debug) to 7 (emergency).
pub type ContextLogFn =
    unsafe extern "C" fn(handle: usize, level: i32, msg: *const u8, len: isize) -> i32;
/// Version 3: `Cancelled(Handle)`: 1 when the client cancelled the call (or the deadline passed).
pub type ContextCancelledFn = unsafe extern "C" fn(handle: usize) -> i32;
/// Version 3: `Request(Handle, Kind, Params, ParamsLen, Answer, AnswerLen)`: a request to the
/// client ([`request_kind`]) with JSON params; blocks until the client answers. `Answer`
/// receives UTF-8 text allocated by the runtime (released with `Free`): what [`request_kind`]
/// says for OK, a message for any other status.
pub type ContextRequestFn = unsafe extern "C" fn(
    handle: usize,
    kind: i32,
    params: *const u8,
    params_len: isize,
    answer: *mut *mut u8,
    answer_len: *mut isize,
) -> i32;
/// The requests a tool can make of the client through [`ContextRequestFn`].
pub mod request_kind {
    /// `elicitation/create`; params `{"message", "requestedSchema"}`. Status OK (accepted):
    /// the answer is the JSON text of `content`; [`super::context_status::DECLINED`] or
    /// [`super::context_status::CANCELLED`]: the user's choice, no answer text.
    pub const ELICIT: i32 = 1;
    /// `sampling/createMessage`; params as the spec says. Answer: the text of the reply when
    /// its content is text, else the result's JSON text.
    pub const SAMPLE: i32 = 2;
    /// `roots/list`; no params. Answer: the JSON text of the `roots` array.
    pub const ROOTS: i32 = 3;
}
/// Version 3: `Free(P)`: releases an answer of `Request`.
pub type ContextFreeFn = unsafe extern "C" fn(ptr: *mut u8);

/// Version 3: the call context the runtime hands a tool that declares a `TMcpContext`
/// parameter (kind [`AbiKind::Context`], `ptr` pointing at this record). Valid during the call;
/// the `handle` names the call, and its functions refuse a handle whose call has returned.
///
/// Pascal: `TMcpAbiContext = record Size: Int32; Flags: Int32; Handle: NativeUInt;
/// Progress, Log, Cancelled, Request, Free: Pointer; end;` (`McpAttributes.pas`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ContextAbi {
    /// `size_of::<ContextAbi>()`, so later versions can add functions at the end.
    pub size: i32,
    /// Reserved, 0.
    pub flags: i32,
    /// Names the call.
    pub handle: usize,
    /// [`ContextProgressFn`].
    pub progress: ContextProgressFn,
    /// [`ContextLogFn`].
    pub log: ContextLogFn,
    /// [`ContextCancelledFn`].
    pub cancelled: ContextCancelledFn,
    /// [`ContextRequestFn`].
    pub request: ContextRequestFn,
    /// [`ContextFreeFn`].
    pub free: ContextFreeFn,
}

/// `function mcp_abi_version: Int32; cdecl;`
pub type AbiVersionFn = unsafe extern "C" fn() -> i32;
/// `function mcp_manifest(Len: PNativeInt): PAnsiChar; cdecl;`: UTF-8 JSON owned by the library.
pub type ManifestFn = unsafe extern "C" fn(len: *mut isize) -> *const u8;
/// `function mcp_init(Error: PMcpAbiValue): Int32; cdecl;`: status, message in `Error` on failure.
pub type InitFn = unsafe extern "C" fn(error: *mut AbiValue) -> i32;
/// `procedure mcp_free(P: Pointer); cdecl;`: frees a string the library returned.
pub type FreeFn = unsafe extern "C" fn(ptr: *mut c_void);
/// `function mcp_tool_X(Args: PMcpAbiValue; Count: Int32; Result: PMcpAbiValue): Int32; cdecl;`
/// (also the exports of resources, prompts and completion providers, version 3).
pub type ToolFn =
    unsafe extern "C" fn(args: *const AbiValue, count: i32, out: *mut AbiValue) -> i32;

/// `function mcp_thread_safe: Int32; cdecl;` (optional): 1 when every tool may be called from
/// several threads at once; the runtime then allows `--threads N`.
pub type ThreadSafeFn = unsafe extern "C" fn() -> i32;

/// Export names fixed by the ABI.
pub mod symbols {
    /// [`super::AbiVersionFn`]
    pub const ABI_VERSION: &str = "mcp_abi_version";
    /// [`super::ManifestFn`]
    pub const MANIFEST: &str = "mcp_manifest";
    /// [`super::InitFn`]
    pub const INIT: &str = "mcp_init";
    /// [`super::FreeFn`]
    pub const FREE: &str = "mcp_free";
    /// [`super::ThreadSafeFn`] (optional export).
    pub const THREAD_SAFE: &str = "mcp_thread_safe";
}
