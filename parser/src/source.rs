//! Reading and decoding source files.
//!
//! PLACEHOLDER: reads UTF-8 only. The preprocessor work replaces this with BOM detection,
//! UTF-16 LE/BE, ANSI code pages through encoding_rs, CR/CRLF/LF line ends.

use crate::span::{FileId, SourceDb, SourceFile};
use std::path::Path;

/// Loads `path` into `db`, decoding it (`codepage` for ANSI files without BOM).
pub fn load(db: &SourceDb, path: &Path, codepage: u16) -> std::io::Result<FileId> {
    let _ = codepage;
    let bytes = std::fs::read(path)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok(add_text(db, path, text))
}

/// Adds in-memory text as a file named `path`.
pub fn add_text(db: &SourceDb, path: &Path, text: String) -> FileId {
    let mut line_starts = vec![0u32];
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            line_starts.push(i as u32 + 1);
        }
    }
    db.add(SourceFile {
        path: path.to_path_buf(),
        text,
        encoding: "UTF-8",
        line_starts,
    })
}
