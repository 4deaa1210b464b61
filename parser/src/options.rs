//! Options that decide how a file is read: compiler target, symbols, include folders, code page.

use std::path::PathBuf;

/// How to read units.
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// Compiler target whose predefined symbols and constants apply (`delphi12-win64` by
    /// default, so `FPC` is not defined and `{$IFNDEF FPC}[McpTool]{$ENDIF}` is seen).
    pub target: String,
    /// Symbols defined on top of the target's (`-D`).
    pub defines: Vec<String>,
    /// Symbols undefined, also predefined ones (`-U`).
    pub undefines: Vec<String>,
    /// Folders searched for `{$I file}` after the including file's own folder.
    pub include_dirs: Vec<PathBuf>,
    /// Windows code page for files that have no BOM and are not valid UTF-8 (1252 by default).
    pub codepage: u16,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            target: "delphi12-win64".to_string(),
            defines: Vec::new(),
            undefines: Vec::new(),
            include_dirs: Vec::new(),
            codepage: 1252,
        }
    }
}
