//! Loading a built library into the test process and calling its tools through the ABI
//! (`delphi_mcp_manifest::abi`), for tests that prove the generated stubs from Rust directly.
//! The dynamic loader maps a library file once per process: the tests of a binary that load the
//! same file share its global state.

use delphi_mcp_manifest::abi::{
    status, symbols, AbiKind, AbiValue, AbiVersionFn, FreeFn, InitFn, ManifestFn, ToolFn,
    ABI_VERSION,
};
use delphi_mcp_manifest::Manifest;
use libloading::Library;
use std::path::Path;

/// A loaded library with its embedded manifest.
pub struct Loaded {
    /// The library (never unloaded while the test process runs).
    pub library: Library,
    /// The manifest read through `mcp_manifest`.
    pub manifest: Manifest,
}

/// A decoded result value.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    None,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(String),
}

/// An argument.
pub enum Arg<'a> {
    Absent,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(&'a str),
}

/// Loads `path`, checks the ABI version, calls `mcp_init` and reads the manifest.
pub fn load(path: &Path) -> Loaded {
    // SAFETY: the library was just built from this repository; its initialization only sets
    // up the Pascal RTL. Callers keep it alive for the whole process.
    let library = unsafe { Library::new(path) }.expect("load the library");
    // SAFETY: the symbols have the signatures of delphi_mcp_manifest::abi.
    let manifest = unsafe {
        let version: libloading::Symbol<AbiVersionFn> = library
            .get(symbols::ABI_VERSION.as_bytes())
            .expect("mcp_abi_version");
        assert_eq!(version() as u32, ABI_VERSION);
        let init: libloading::Symbol<InitFn> =
            library.get(symbols::INIT.as_bytes()).expect("mcp_init");
        let mut error = AbiValue::ABSENT;
        assert_eq!(init(&mut error), status::OK);
        let manifest: libloading::Symbol<ManifestFn> = library
            .get(symbols::MANIFEST.as_bytes())
            .expect("mcp_manifest");
        let mut len = 0isize;
        let ptr = manifest(&mut len);
        assert!(!ptr.is_null() && len > 0);
        let bytes = std::slice::from_raw_parts(ptr, len as usize);
        serde_json::from_slice::<Manifest>(bytes).expect("the embedded manifest parses")
    };
    Loaded { library, manifest }
}

fn abi_value(arg: &Arg<'_>) -> AbiValue {
    let mut value = AbiValue::ABSENT;
    match arg {
        Arg::Absent => {}
        Arg::Bool(b) => {
            value.kind = AbiKind::Bool as i32;
            value.bits = u64::from(*b);
        }
        Arg::Int(i) => {
            value.kind = AbiKind::Int as i32;
            value.bits = *i as u64;
        }
        Arg::UInt(u) => {
            value.kind = AbiKind::UInt as i32;
            value.bits = *u;
        }
        Arg::Double(d) => {
            value.kind = AbiKind::Double as i32;
            value.bits = d.to_bits();
        }
        Arg::Str(s) => {
            value.kind = AbiKind::String as i32;
            value.ptr = s.as_ptr();
            value.len = s.len() as isize;
        }
    }
    value
}

impl Loaded {
    /// Calls tool `name`; returns the status and the decoded out value.
    pub fn call(&self, name: &str, args: &[Arg<'_>]) -> (i32, Out) {
        let entry = self
            .manifest
            .tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no tool {name} in the manifest"));
        let values: Vec<AbiValue> = args.iter().map(abi_value).collect();
        let mut out = AbiValue::ABSENT;
        // SAFETY: the export has the ToolFn signature; the argument strings outlive the call;
        // the returned string is freed once through mcp_free.
        unsafe {
            let tool: libloading::Symbol<ToolFn> = self
                .library
                .get(entry.delphi.export.as_bytes())
                .expect("tool export");
            let free: libloading::Symbol<FreeFn> = self
                .library
                .get(symbols::FREE.as_bytes())
                .expect("mcp_free");
            let code = tool(values.as_ptr(), values.len() as i32, &mut out);
            let decoded = match out.kind {
                k if k == AbiKind::Absent as i32 => Out::None,
                k if k == AbiKind::Bool as i32 => Out::Bool(out.bits == 1),
                k if k == AbiKind::Int as i32 => Out::Int(out.bits as i64),
                k if k == AbiKind::UInt as i32 => Out::UInt(out.bits),
                k if k == AbiKind::Double as i32 => Out::Double(f64::from_bits(out.bits)),
                k if k == AbiKind::String as i32 => {
                    assert!(!out.ptr.is_null(), "strings are never null");
                    let bytes = std::slice::from_raw_parts(out.ptr, out.len as usize);
                    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8 out");
                    free(out.ptr as *mut _);
                    Out::Str(text)
                }
                other => panic!("unknown out kind {other}"),
            };
            (code, decoded)
        }
    }
}
