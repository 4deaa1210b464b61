//! Loading a library into this process: its symbols (`dlopen` with `RTLD_NODELETE`, never
//! unloaded) and its manifest (embedded, given as a file, or both, which must agree).

use super::HostOptions;
use crate::error::LoadError;
use delphi_mcp_manifest::abi::{self, FreeFn, InitFn, ToolFn};
use delphi_mcp_manifest::{first_difference, Manifest};
use std::path::Path;

// The RTLD_NODELETE flag is not exported by libloading; values from the platform headers.
#[cfg(target_os = "linux")]
const RTLD_NODELETE: std::os::raw::c_int = 0x1000;
#[cfg(all(unix, not(target_os = "linux")))]
const RTLD_NODELETE: std::os::raw::c_int = 0x80;

/// Looks up a tool export by name.
type ToolLookup = Box<dyn Fn(&str) -> Option<ToolFn> + Send>;

/// The symbols of a library, which stays loaded for the life of the process.
pub(super) struct Symbols {
    pub abi_version: Option<abi::AbiVersionFn>,
    pub manifest: Option<abi::ManifestFn>,
    pub init: Option<InitFn>,
    pub free: Option<FreeFn>,
    pub thread_safe: Option<abi::ThreadSafeFn>,
    pub lookup: ToolLookup,
}

/// The loader's message. On Windows libloading's own text is only "LoadLibraryExW failed": the
/// system's reason is its source, and a library of the other architecture (a 32-bit DLL in a
/// 64-bit server) gets a hint.
fn open_reason(error: &libloading::Error) -> String {
    use std::error::Error as _;
    let Some(source) = error.source().map(ToString::to_string) else {
        return error.to_string();
    };
    // ERROR_BAD_EXE_FORMAT, compared as the text the source displays.
    if cfg!(windows) && source == std::io::Error::from_raw_os_error(193).to_string() {
        return format!(
            "{source}: the library is not built for this delphi-mcp's architecture ({}); a \
             32-bit DLL is served by the 32-bit delphi-mcp.exe",
            std::env::consts::ARCH
        );
    }
    format!("{error}: {source}")
}

/// Opens the library at `path` and looks up its ABI symbols.
pub(super) fn open_library(path: &Path) -> Result<Symbols, LoadError> {
    let open_error = |e: libloading::Error| LoadError::Open {
        library: path.to_path_buf(),
        reason: open_reason(&e),
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

/// The manifest embedded in the library and/or given as a file (both must agree).
pub(super) fn read_manifest(
    path: &Path,
    embedded_fn: Option<abi::ManifestFn>,
    options: &HostOptions,
) -> Result<Manifest, LoadError> {
    let embedded = match embedded_fn {
        Some(manifest_fn) => {
            let mut len: isize = 0;
            // SAFETY: signature fixed by the ABI; the text is owned by the library.
            let ptr = unsafe { manifest_fn(&mut len) };
            if ptr.is_null() || len < 0 {
                None
            } else {
                // SAFETY: the library promises `len` readable bytes at `ptr`, which it keeps
                // while it is loaded (generated libraries return their constant); it is never
                // unloaded, and the text is read before this function returns.
                Some(unsafe { std::slice::from_raw_parts(ptr, len as usize) })
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
    match (embedded, given) {
        (None, None) => Err(LoadError::NoManifest {
            library: path.to_path_buf(),
        }),
        (Some(bytes), None) => parse_manifest(path, "embedded", bytes),
        (None, Some(bytes)) => {
            let origin = options
                .manifest_file
                .as_ref()
                .map(|f| f.display().to_string())
                .unwrap_or_default();
            parse_manifest(path, &origin, &bytes)
        }
        (Some(embedded), Some(given)) => {
            let file = options.manifest_file.clone().unwrap_or_default();
            let from_library = parse_manifest(path, "embedded", embedded)?;
            let from_file = parse_manifest(path, &file.display().to_string(), &given)?;
            if let Some(difference) = first_difference(&from_library, &from_file) {
                return Err(LoadError::ManifestMismatch {
                    library: path.to_path_buf(),
                    file,
                    path: difference.path,
                    embedded: difference.left,
                    given: difference.right,
                });
            }
            Ok(from_library)
        }
    }
}

fn parse_manifest(library: &Path, origin: &str, bytes: &[u8]) -> Result<Manifest, LoadError> {
    Manifest::from_json(bytes).map_err(|e| LoadError::InvalidManifest {
        library: library.to_path_buf(),
        origin: origin.to_string(),
        reason: e.to_string(),
    })
}
