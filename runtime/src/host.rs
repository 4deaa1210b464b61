//! The library host: loads a library built with the generated stubs, checks its ABI version and
//! manifest, initialises it and runs every call on dedicated library threads.
//!
//! Delphi code is rarely thread-safe, so by default one library thread runs `mcp_init` and then
//! every tool call, in arrival order; concurrent requests queue. A library that exports
//! `mcp_thread_safe` returning 1 may be served by several threads (`--threads N`).
//! The library is never unloaded (FPC libraries must not be unloaded while threads that called
//! them live), and every string it returns is copied and released through `mcp_free` on the
//! library thread before the call is reported back.

use crate::error::LoadError;
use delphi_mcp_manifest::abi::{self, AbiKind, AbiValue, FreeFn, InitFn, ToolFn, ABI_VERSION};
use delphi_mcp_manifest::{first_difference, Manifest, ToolEntry};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};

/// How to open a library.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// A manifest file to use instead of (or to check against) the embedded one.
    pub manifest_file: Option<PathBuf>,
    /// Number of library threads (1 unless the library declares itself thread-safe).
    pub threads: usize,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            manifest_file: None,
            threads: 1,
        }
    }
}

/// An argument as marshalled for the ABI (owned by the runtime until the call returns).
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// Not given: the stub uses the declared default.
    Absent,
    /// A Boolean.
    Bool(bool),
    /// A signed integer (also enumeration ordinals).
    Int(i64),
    /// An unsigned integer above `High(Int64)`'s range type.
    UInt(u64),
    /// A Double (also TDateTime).
    Double(f64),
    /// A string, UTF-8.
    String(String),
}

/// A value the library returned, already copied out of library memory.
#[derive(Debug, Clone, PartialEq)]
pub enum ReturnValue {
    /// No value (procedures).
    Absent,
    /// A Boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A Double.
    Double(f64),
    /// String bytes (expected UTF-8, not yet checked).
    String(Vec<u8>),
    /// A kind tag this runtime does not know.
    Unknown(i32),
}

/// What a tool export returned.
#[derive(Debug, Clone, PartialEq)]
pub struct CallReturn {
    /// The ABI status ([`delphi_mcp_manifest::abi::status`]).
    pub status: i32,
    /// The out value.
    pub value: ReturnValue,
}

/// Why a call could not be made at all.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    /// The library threads have stopped (a previous call took the process down).
    #[error("the library thread has stopped")]
    Stopped,
    /// No tool with that index.
    #[error("no tool with index {0}")]
    NoSuchTool(usize),
}

struct Job {
    export: ToolFn,
    args: Vec<ArgValue>,
    reply: tokio::sync::oneshot::Sender<CallReturn>,
}

/// A loaded, initialised library.
pub struct LibraryHost {
    path: PathBuf,
    manifest: Manifest,
    manifest_sha256: String,
    exports: Vec<ToolFn>,
    /// Tool name → index in `manifest.tools`, so a call does not scan the list.
    tool_index: HashMap<String, usize>,
    threads: usize,
    jobs: Mutex<mpsc::Sender<Job>>,
}

impl std::fmt::Debug for LibraryHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LibraryHost")
            .field("path", &self.path)
            .field("tools", &self.manifest.tools.len())
            .field("threads", &self.threads)
            .finish()
    }
}

// The RTLD_NODELETE flag is not exported by libloading; values from the platform headers.
#[cfg(target_os = "linux")]
const RTLD_NODELETE: std::os::raw::c_int = 0x1000;
#[cfg(all(unix, not(target_os = "linux")))]
const RTLD_NODELETE: std::os::raw::c_int = 0x80;

/// Looks up a tool export by name.
type ToolLookup = Box<dyn Fn(&str) -> Option<ToolFn> + Send>;

/// The symbols of a library, which stays loaded for the life of the process.
struct Symbols {
    abi_version: Option<abi::AbiVersionFn>,
    manifest: Option<abi::ManifestFn>,
    init: Option<InitFn>,
    free: Option<FreeFn>,
    thread_safe: Option<abi::ThreadSafeFn>,
    lookup: ToolLookup,
}

fn open_library(path: &Path) -> Result<Symbols, LoadError> {
    let open_error = |e: libloading::Error| LoadError::Open {
        library: path.to_path_buf(),
        reason: e.to_string(),
    };
    #[cfg(unix)]
    let library: &'static libloading::os::unix::Library = {
        use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
        // SAFETY: loading runs the library's initialisation sections; that is the point.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) }
            .map_err(open_error)?;
        // Never unloaded: leak it so the symbols stay valid for the process lifetime.
        Box::leak(Box::new(lib))
    };
    #[cfg(windows)]
    let library: &'static libloading::Library = {
        // SAFETY: as above.
        let lib = unsafe { libloading::Library::new(path) }.map_err(open_error)?;
        Box::leak(Box::new(lib))
    };
    fn get<T: Copy>(library: &'static impl SymbolSource, name: &str) -> Option<T> {
        library.symbol::<T>(name)
    }
    Ok(Symbols {
        abi_version: get(library, abi::symbols::ABI_VERSION),
        manifest: get(library, abi::symbols::MANIFEST),
        init: get(library, abi::symbols::INIT),
        free: get(library, abi::symbols::FREE),
        thread_safe: get(library, abi::symbols::THREAD_SAFE),
        lookup: Box::new(move |name| get::<ToolFn>(library, name)),
    })
}

/// Symbol lookup over the platform library types.
trait SymbolSource: Sync {
    fn symbol<T: Copy>(&self, name: &str) -> Option<T>;
}

#[cfg(unix)]
impl SymbolSource for libloading::os::unix::Library {
    fn symbol<T: Copy>(&self, name: &str) -> Option<T> {
        // SAFETY: the caller names the type the ABI fixes for this symbol.
        unsafe { self.get::<T>(name.as_bytes()) }.ok().map(|s| *s)
    }
}

#[cfg(windows)]
impl SymbolSource for libloading::Library {
    fn symbol<T: Copy>(&self, name: &str) -> Option<T> {
        // SAFETY: as above.
        unsafe { self.get::<T>(name.as_bytes()) }.ok().map(|s| *s)
    }
}

impl LibraryHost {
    /// Loads `path`, checks it and initialises it on the library thread.
    pub fn open(path: &Path, options: &HostOptions) -> Result<LibraryHost, LoadError> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let symbols = open_library(&path)?;
        let missing = |symbol: &str, why: &str| LoadError::MissingExport {
            library: path.clone(),
            symbol: symbol.to_string(),
            why: why.to_string(),
        };
        let abi_version = symbols
            .abi_version
            .ok_or_else(|| missing(abi::symbols::ABI_VERSION, "every delphi-mcp library has it"))?;
        // SAFETY: signature fixed by the ABI.
        let found = unsafe { abi_version() };
        if found < 0 || found as u32 != ABI_VERSION {
            return Err(LoadError::AbiVersion {
                library: path,
                found: found.into(),
                expected: ABI_VERSION,
            });
        }
        let free = symbols.free.ok_or_else(|| {
            missing(
                abi::symbols::FREE,
                "strings returned by the library are released with it",
            )
        })?;
        let init = symbols
            .init
            .ok_or_else(|| missing(abi::symbols::INIT, "the library is initialised with it"))?;

        let embedded = match symbols.manifest {
            Some(manifest_fn) => {
                let mut len: isize = 0;
                // SAFETY: signature fixed by the ABI; the text is owned by the library.
                let ptr = unsafe { manifest_fn(&mut len) };
                if ptr.is_null() || len < 0 {
                    None
                } else {
                    // SAFETY: the library promises `len` readable bytes at `ptr`.
                    Some(unsafe { std::slice::from_raw_parts(ptr, len as usize) }.to_vec())
                }
            }
            None => None,
        };
        let given = match &options.manifest_file {
            Some(file) => Some(
                std::fs::read(file).map_err(|source| LoadError::ReadManifest {
                    file: file.clone(),
                    source,
                })?,
            ),
            None => None,
        };
        let manifest = match (embedded, given) {
            (None, None) => return Err(LoadError::NoManifest { library: path }),
            (Some(bytes), None) => parse_manifest(&path, "embedded", &bytes)?,
            (None, Some(bytes)) => {
                let origin = options
                    .manifest_file
                    .as_ref()
                    .map(|f| f.display().to_string())
                    .unwrap_or_default();
                parse_manifest(&path, &origin, &bytes)?
            }
            (Some(embedded), Some(given)) => {
                let file = options.manifest_file.clone().unwrap_or_default();
                let from_library = parse_manifest(&path, "embedded", &embedded)?;
                let from_file = parse_manifest(&path, &file.display().to_string(), &given)?;
                if let Some(difference) = first_difference(&from_library, &from_file) {
                    return Err(LoadError::ManifestMismatch {
                        library: path,
                        file,
                        path: difference.path,
                        embedded: difference.left,
                        given: difference.right,
                    });
                }
                from_library
            }
        };
        let manifest_sha256 = manifest.canonical_sha256();

        let mut exports = Vec::with_capacity(manifest.tools.len());
        for tool in &manifest.tools {
            let export = (symbols.lookup)(&tool.delphi.export).ok_or_else(|| {
                missing(
                    &tool.delphi.export,
                    &format!("the manifest's tool `{}` calls it", tool.name),
                )
            })?;
            exports.push(export);
        }

        let threads = options.threads.max(1);
        if threads > 1 {
            // SAFETY: signature fixed by the ABI extension (`mcp_thread_safe`).
            let declared = symbols
                .thread_safe
                .map(|f| unsafe { f() } == 1)
                .unwrap_or(false);
            if !declared {
                return Err(LoadError::NotThreadSafe {
                    library: path,
                    threads,
                });
            }
        }

        let (jobs, receiver) = mpsc::channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        let (init_tx, init_rx) = mpsc::channel::<Result<(), (i32, String)>>();
        for index in 0..threads {
            let receiver = Arc::clone(&receiver);
            let init_tx = (index == 0).then(|| init_tx.clone());
            std::thread::Builder::new()
                .name(format!("delphi-lib-{index}"))
                .spawn(move || {
                    if let Some(init_tx) = init_tx {
                        let mut error = AbiValue::ABSENT;
                        // SAFETY: signature fixed by the ABI; runs on the library thread.
                        let status = unsafe { init(&mut error) };
                        let message = take_value(&error, free);
                        let outcome = if status == abi::status::OK {
                            Ok(())
                        } else {
                            Err((status, describe_message(&message)))
                        };
                        let failed = outcome.is_err();
                        let _ = init_tx.send(outcome);
                        if failed {
                            return;
                        }
                    }
                    library_thread(&receiver, free);
                })
                .map_err(|e| LoadError::Thread {
                    library: path.clone(),
                    reason: e.to_string(),
                })?;
        }
        drop(init_tx);
        match init_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err((status, message))) => {
                return Err(LoadError::Init {
                    library: path,
                    status,
                    message,
                })
            }
            Err(_) => {
                return Err(LoadError::Thread {
                    library: path,
                    reason: "the library thread ended during mcp_init".into(),
                })
            }
        }
        tracing::info!(library = %path.display(), tools = manifest.tools.len(), threads, "library loaded");
        let tool_index = manifest
            .tools
            .iter()
            .enumerate()
            .map(|(index, tool)| (tool.name.clone(), index))
            .collect();
        Ok(LibraryHost {
            path,
            manifest,
            manifest_sha256,
            exports,
            tool_index,
            threads,
            jobs: Mutex::new(jobs),
        })
    }

    /// The absolute library path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The manifest in use.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The tool called `name` and its index in the manifest (the index [`Self::call`] takes).
    pub fn tool(&self, name: &str) -> Option<(usize, &ToolEntry)> {
        let index = *self.tool_index.get(name)?;
        Some((index, &self.manifest.tools[index]))
    }

    /// [`Manifest::canonical_sha256`] of the manifest in use.
    pub fn manifest_sha256(&self) -> &str {
        &self.manifest_sha256
    }

    /// Number of library threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues a call of the manifest's tool `index` with marshalled `args`; resolves when a
    /// library thread has run it.
    pub async fn call(&self, index: usize, args: Vec<ArgValue>) -> Result<CallReturn, CallError> {
        let export = *self
            .exports
            .get(index)
            .ok_or(CallError::NoSuchTool(index))?;
        let (reply, answer) = tokio::sync::oneshot::channel();
        {
            let jobs = self.jobs.lock().map_err(|_| CallError::Stopped)?;
            jobs.send(Job {
                export,
                args,
                reply,
            })
            .map_err(|_| CallError::Stopped)?;
        }
        answer.await.map_err(|_| CallError::Stopped)
    }
}

fn library_thread(receiver: &Mutex<mpsc::Receiver<Job>>, free: FreeFn) {
    loop {
        let job = {
            let Ok(receiver) = receiver.lock() else {
                return;
            };
            match receiver.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        let outcome = run_job(&job, free);
        let _ = job.reply.send(outcome);
    }
}

fn run_job(job: &Job, free: FreeFn) -> CallReturn {
    // The argument strings live in `job.args` until this function returns.
    let values: Vec<AbiValue> = job.args.iter().map(to_abi).collect();
    let mut out = AbiValue::ABSENT;
    let count = values.len() as i32;
    // SAFETY: signature fixed by the ABI; `values` outlives the call.
    let status = unsafe { (job.export)(values.as_ptr(), count, &mut out) };
    let value = take_value(&out, free);
    CallReturn { status, value }
}

fn to_abi(arg: &ArgValue) -> AbiValue {
    let mut value = AbiValue::ABSENT;
    match arg {
        ArgValue::Absent => {}
        ArgValue::Bool(b) => {
            value.kind = AbiKind::Bool as i32;
            value.bits = u64::from(*b);
        }
        ArgValue::Int(i) => {
            value.kind = AbiKind::Int as i32;
            value.bits = *i as u64;
        }
        ArgValue::UInt(u) => {
            value.kind = AbiKind::UInt as i32;
            value.bits = *u;
        }
        ArgValue::Double(d) => {
            value.kind = AbiKind::Double as i32;
            value.bits = d.to_bits();
        }
        ArgValue::String(s) => {
            value.kind = AbiKind::String as i32;
            value.ptr = s.as_ptr();
            value.len = s.len() as isize;
        }
    }
    value
}

/// Copies an out value out of library memory and releases its string through `mcp_free`.
fn take_value(value: &AbiValue, free: FreeFn) -> ReturnValue {
    let result = match value.kind {
        k if k == AbiKind::Absent as i32 => ReturnValue::Absent,
        k if k == AbiKind::Bool as i32 => ReturnValue::Bool(value.bits != 0),
        k if k == AbiKind::Int as i32 => ReturnValue::Int(value.bits as i64),
        k if k == AbiKind::UInt as i32 => ReturnValue::UInt(value.bits),
        k if k == AbiKind::Double as i32 => ReturnValue::Double(f64::from_bits(value.bits)),
        k if k == AbiKind::String as i32 => {
            if value.ptr.is_null() || value.len <= 0 {
                ReturnValue::String(Vec::new())
            } else {
                // SAFETY: the library promises `len` bytes at `ptr` until `mcp_free`.
                ReturnValue::String(
                    unsafe { std::slice::from_raw_parts(value.ptr, value.len as usize) }.to_vec(),
                )
            }
        }
        other => ReturnValue::Unknown(other),
    };
    if !value.ptr.is_null() {
        // SAFETY: the pointer was allocated by the library and is released exactly once.
        unsafe { free(value.ptr as *mut std::ffi::c_void) };
    }
    result
}

fn describe_message(value: &ReturnValue) -> String {
    match value {
        ReturnValue::String(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => format!("(no message; out value {other:?})"),
    }
}

fn parse_manifest(library: &Path, origin: &str, bytes: &[u8]) -> Result<Manifest, LoadError> {
    Manifest::from_json(bytes).map_err(|e| LoadError::InvalidManifest {
        library: library.to_path_buf(),
        origin: origin.to_string(),
        reason: e.to_string(),
    })
}
