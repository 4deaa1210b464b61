//! Options shared by the commands that read Pascal sources.

use std::path::PathBuf;

/// How to read the units: symbols, include folders, compiler target, code page.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// Define a conditional symbol (repeatable).
    #[arg(short = 'D', long = "define", value_name = "SYM")]
    pub defines: Vec<String>,
    /// Undefine a conditional symbol, also a predefined one (repeatable).
    #[arg(short = 'U', long = "undefine", value_name = "SYM")]
    pub undefines: Vec<String>,
    /// Folder searched for `{$I file}` includes (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Compiler whose predefined symbols apply: delphi12-win64 (default), delphi12-win32,
    /// delphi12-linux64, fpc-linux64, ...
    #[arg(long, value_name = "TARGET", default_value = "delphi12-win64")]
    pub target: String,
    /// Code page of files without a BOM that are not valid UTF-8 (default 1252).
    #[arg(long, value_name = "N")]
    pub codepage: Option<u16>,
}
