//! Reading and decoding source files.
//!
//! Delphi source comes in several encodings: UTF-8 with or without a byte-order mark, UTF-16
//! (little or big endian, always with a BOM when Delphi writes it) and, for older code, an ANSI
//! Windows code page. [`decode`] picks the encoding in this order:
//!
//! 1. a BOM (`EF BB BF` UTF-8, `FF FE` UTF-16LE, `FE FF` UTF-16BE) decides, and is removed;
//! 2. otherwise UTF-16 without BOM is recognised by the zero bytes of its leading ASCII;
//! 3. otherwise bytes that are valid UTF-8 are UTF-8;
//! 4. otherwise the Windows code page given by the caller (1252 unless `--codepage` says else).
//!
//! Line breaks are kept exactly as they are (CRLF, LF or a lone CR), so byte offsets into the
//! decoded text stay meaningful; [`line_starts`] treats all three as line ends, so the line and
//! column of a span are those an editor shows for the original file.

use crate::span::{FileId, SourceDb, SourceFile};
use encoding_rs::Encoding;
use std::io;
use std::path::Path;

/// Loads `path` into `db`, decoding it (`codepage` for ANSI files without BOM).
///
/// Fails when the file cannot be read, or when it needs a code page that `codepage` does not
/// name (see [`encoding_for_codepage`]).
pub fn load(db: &SourceDb, path: &Path, codepage: u16) -> io::Result<FileId> {
    Ok(db.add(read(path, codepage)?))
}

/// Adds in-memory text as a file named `path`.
pub fn add_text(db: &SourceDb, path: &Path, text: String) -> FileId {
    add_decoded(db, path, text, "UTF-8")
}

/// Reads and decodes `path` without adding it to a database (see [`load`]).
pub fn read(path: &Path, codepage: u16) -> io::Result<SourceFile> {
    let bytes = std::fs::read(path)?;
    let decoded = decode(&bytes, codepage)?;
    Ok(SourceFile::new(
        path.to_path_buf(),
        decoded.text,
        decoded.encoding,
    ))
}

fn add_decoded(db: &SourceDb, path: &Path, text: String, encoding: &'static str) -> FileId {
    db.add(SourceFile::new(path.to_path_buf(), text, encoding))
}

/// Text decoded from the bytes of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text, without byte-order mark, line breaks unchanged.
    pub text: String,
    /// Name of the encoding the bytes were in (`"UTF-8"`, `"UTF-16LE"`, `"UTF-16BE"`,
    /// `"windows-1252"`, ...).
    pub encoding: &'static str,
}

/// Decodes the bytes of a source file (see the module documentation for the rules).
///
/// Malformed sequences inside a file whose encoding is known (a BOM, or the code page) become
/// U+FFFD rather than an error: one bad byte in a comment must not stop the parse.
pub fn decode(bytes: &[u8], codepage: u16) -> io::Result<Decoded> {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return Ok(Decoded {
            text: text.into_owned(),
            encoding: encoding.name(),
        });
    }
    if let Some(encoding) = bomless_utf16(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(bytes);
        return Ok(Decoded {
            text: text.into_owned(),
            encoding: encoding.name(),
        });
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Ok(Decoded {
            text: text.to_owned(),
            encoding: encoding_rs::UTF_8.name(),
        });
    }
    let encoding = encoding_for_codepage(codepage).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("unknown code page {codepage} (the file is not UTF-8 and has no BOM)"),
        )
    })?;
    let (text, _) = encoding.decode_without_bom_handling(bytes);
    Ok(Decoded {
        text: text.into_owned(),
        encoding: encoding.name(),
    })
}

/// UTF-16 written without a BOM: Pascal source starts with ASCII (a keyword, a comment or a
/// blank), so an ASCII byte next to a zero byte in each of the first two code units gives the
/// byte order away. UTF-8 and ANSI source never contain zero bytes.
fn bomless_utf16(bytes: &[u8]) -> Option<&'static Encoding> {
    let [a, b, c, d, ..] = *bytes else {
        return None;
    };
    let ascii = |x: u8| x != 0 && x.is_ascii();
    if ascii(a) && b == 0 && ascii(c) && d == 0 {
        Some(encoding_rs::UTF_16LE)
    } else if a == 0 && ascii(b) && c == 0 && ascii(d) {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

/// The encoding of a Windows code page number, for the code pages Delphi source is written in.
///
/// Covers the ANSI code pages 874 and 1250–1258, the DBCS pages 932 (Shift_JIS), 936 (GBK),
/// 949 (EUC-KR), 950 (Big5), OEM 866, KOI8 (20866, 21866), ISO-8859-x (28591–28606), 54936
/// (GB18030) and 65001 (UTF-8). `None` for anything else.
pub fn encoding_for_codepage(codepage: u16) -> Option<&'static Encoding> {
    use encoding_rs as e;
    Some(match codepage {
        874 => e::WINDOWS_874,
        932 => e::SHIFT_JIS,
        936 => e::GBK,
        949 => e::EUC_KR,
        950 => e::BIG5,
        866 => e::IBM866,
        1250 => e::WINDOWS_1250,
        1251 => e::WINDOWS_1251,
        1252 => e::WINDOWS_1252,
        1253 => e::WINDOWS_1253,
        1254 => e::WINDOWS_1254,
        1255 => e::WINDOWS_1255,
        1256 => e::WINDOWS_1256,
        1257 => e::WINDOWS_1257,
        1258 => e::WINDOWS_1258,
        20866 => e::KOI8_R,
        21866 => e::KOI8_U,
        // ISO-8859-1 is decoded as windows-1252, as browsers (and encoding_rs) do.
        28591 => e::WINDOWS_1252,
        28592 => e::ISO_8859_2,
        28593 => e::ISO_8859_3,
        28594 => e::ISO_8859_4,
        28595 => e::ISO_8859_5,
        28596 => e::ISO_8859_6,
        28597 => e::ISO_8859_7,
        28598 => e::ISO_8859_8,
        28599 => e::WINDOWS_1254,
        28603 => e::ISO_8859_13,
        28605 => e::ISO_8859_15,
        54936 => e::GB18030,
        65001 => e::UTF_8,
        _ => return None,
    })
}

/// Byte offsets of the start of every line of `text`: 0, then the offset after each line end,
/// where a line end is CRLF, LF or a lone CR.
pub fn line_starts(text: &str) -> Vec<u32> {
    let bytes = text.as_bytes();
    let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
    starts.push(0);
    // Almost every file ends its lines with LF or CRLF: find the LFs alone, and take the
    // slower path below only when some CR is not followed by an LF.
    let mut crlf = 0;
    for i in memchr::memchr_iter(b'\n', bytes) {
        if i > 0 && bytes[i - 1] == b'\r' {
            crlf += 1;
        }
        starts.push(i as u32 + 1);
    }
    if memchr::memchr_iter(b'\r', bytes).count() == crlf {
        return starts;
    }
    starts.truncate(1);
    for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        // CRLF is one line end: its CR starts nothing, its LF does.
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            continue;
        }
        starts.push(i as u32 + 1);
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::line_starts;

    #[test]
    fn lf_crlf_and_bare_cr_all_end_lines() {
        assert_eq!(line_starts("a\nb\nc"), [0, 2, 4]);
        assert_eq!(line_starts("a\r\nb\r\n"), [0, 3, 6]);
        // a bare CR among CRLFs takes the general path
        assert_eq!(line_starts("a\r\nb\rc\nd"), [0, 3, 5, 7]);
        assert_eq!(line_starts("a\rb\r"), [0, 2, 4]);
        assert_eq!(line_starts(""), [0]);
    }
}
