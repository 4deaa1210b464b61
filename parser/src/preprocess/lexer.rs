//! Lexical skipping shared by the preprocessor scans: comments and directive ends (strings are
//! read by [`crate::scan::string_end`], as everywhere in the crate).
//!
//! Every function takes the bytes of a file and a start index and returns the index just past
//! the construct, never beyond `b.len()`, so no input can make a scan loop or panic.

/// Index of the line break ending the line that contains `i` (or the end of the text).
pub(crate) fn line_end(b: &[u8], i: usize) -> usize {
    b[i.min(b.len())..]
        .iter()
        .position(|&c| c == b'\r' || c == b'\n')
        .map_or(b.len(), |p| i + p)
}

/// Index just past the first `}` at or after `i`, if any.
pub(crate) fn brace_end(b: &[u8], i: usize) -> Option<usize> {
    b.get(i..)?
        .iter()
        .position(|&c| c == b'}')
        .map(|p| i + p + 1)
}

/// Index just past the first `*)` at or after `i`, if any.
pub(crate) fn paren_star_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j + 1 < b.len() {
        if b[j] == b'*' && b[j + 1] == b')' {
            return Some(j + 2);
        }
        j += 1;
    }
    None
}

/// True for bytes that may continue a Pascal identifier (non-ASCII bytes count, so Unicode
/// identifiers stay whole).
pub(crate) fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// True for bytes that may start a Pascal identifier.
pub(crate) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// The identifier at the start of `s` after leading blanks (`&` escape allowed), or `None`.
/// The conditional symbol at the start of a directive's argument. Unlike identifiers, symbols
/// may start with a digit: the compilers accept `{$DEFINE 64bit}` and `{$IFDEF 64bit}`.
pub(crate) fn first_symbol(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let s = s.strip_prefix('&').unwrap_or(s);
    let len = s.bytes().take_while(|&c| is_ident_byte(c)).count();
    s.get(..len).filter(|symbol| !symbol.is_empty())
}

pub(crate) fn first_ident(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let s = s.strip_prefix('&').unwrap_or(s);
    let b = s.as_bytes();
    if b.is_empty() || !is_ident_start(b[0]) {
        return None;
    }
    let len = b.iter().take_while(|&&c| is_ident_byte(c)).count();
    s.get(..len)
}
