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

use serde::{Deserialize, Serialize};
use std::ffi::c_void;

/// Version of the binary interface between generated stubs and the runtime (`docs/abi.md`).
pub const ABI_VERSION: u32 = 2;

/// Oldest ABI version the runtime still loads: version 1 libraries (scalars only) are served
/// unchanged, since version 2 only adds kinds.
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
