//! Errors of loading a library and its manifest.

use std::path::PathBuf;

/// Why a library could not be served. Every variant names the library and what differs.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be loaded as a shared library.
    #[error("cannot load library {library}: {reason}")]
    Open {
        /// The library path.
        library: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// A required export is missing.
    #[error("library {library} does not export `{symbol}` ({why})")]
    MissingExport {
        /// The library path.
        library: PathBuf,
        /// The missing symbol.
        symbol: String,
        /// What needs it.
        why: String,
    },
    /// The library was built for another ABI version.
    #[error(
        "library {library} implements ABI version {found}, this delphi-mcp loads versions 1 to {expected}; regenerate the stubs with this delphi-mcp (`delphi-mcp gen`) and rebuild the library"
    )]
    AbiVersion {
        /// The library path.
        library: PathBuf,
        /// The version the library reports.
        found: i64,
        /// [`delphi_mcp_manifest::abi::ABI_VERSION`], the newest version loaded.
        expected: u32,
    },
    /// Neither an embedded manifest nor `--manifest` is available.
    #[error("library {library} has no embedded manifest (`mcp_manifest`) and no --manifest file was given")]
    NoManifest {
        /// The library path.
        library: PathBuf,
    },
    /// A manifest file could not be read.
    #[error("cannot read manifest file {file}: {source}")]
    ReadManifest {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A manifest is not valid.
    #[error("invalid manifest ({origin}) of library {library}: {reason}")]
    InvalidManifest {
        /// The library path.
        library: PathBuf,
        /// `embedded` or the file name.
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// The embedded manifest and the `--manifest` file differ.
    #[error(
        "the manifest embedded in library {library} differs from {file} at {path}: library has {embedded}, file has {given}"
    )]
    ManifestMismatch {
        /// The library path.
        library: PathBuf,
        /// The `--manifest` file.
        file: PathBuf,
        /// JSON path of the first difference.
        path: String,
        /// The value in the library (JSON, shortened).
        embedded: String,
        /// The value in the file (JSON, shortened).
        given: String,
    },
    /// `mcp_init` failed.
    #[error("initialising library {library} failed (status {status}): {message}")]
    Init {
        /// The library path.
        library: PathBuf,
        /// The status returned.
        status: i32,
        /// The library's message.
        message: String,
    },
    /// More than one library thread was asked for a library that does not declare thread safety.
    #[error(
        "library {library} does not declare itself thread-safe (export `mcp_thread_safe` returning 1), so it cannot be served with {threads} threads; use --threads 1"
    )]
    NotThreadSafe {
        /// The library path.
        library: PathBuf,
        /// The requested thread count.
        threads: usize,
    },
    /// The library thread could not be started or died during start-up.
    #[error("cannot start the library thread for {library}: {reason}")]
    Thread {
        /// The library path.
        library: PathBuf,
        /// Why.
        reason: String,
    },
    /// A worker process could not load the library (`serve --isolate`): the same message as
    /// loading it in process would give.
    #[error("{message}")]
    InWorker {
        /// The worker's load error.
        message: String,
    },
    /// A worker process could not be started, or ended before it loaded the library.
    #[error("cannot serve library {library} in a worker process: {reason}")]
    WorkerFailed {
        /// The library path.
        library: PathBuf,
        /// What happened (`the library process ended with exit code 7 ...`).
        reason: String,
    },
}
