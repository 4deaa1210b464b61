//! A fast byte-level token scanner for the parts of a unit the grammar does not need to see.
//!
//! The driver ([`crate::parse`]) uses it to look at the next keyword, to skip routine bodies,
//! `initialization` sections and `asm` blocks by their block structure, and to find where to
//! resume after a syntax error. It knows comments and strings (including Delphi 12 multi-line
//! strings), so an `end` inside either never counts.

mod blocks;
pub(crate) use blocks::*;

use crate::tokens::codes::{
    code_of_word, is_local_section, is_nested_routine_kind, C_IDENT, K_ASM, K_BEGIN, K_CLASS,
    K_FUNCTION, K_OPERATOR, K_PROCEDURE,
};

/// What kind of token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokKind {
    /// An identifier or keyword (also `&`-escaped).
    Word,
    /// A string piece or `#13` character code.
    Str,
    /// A number.
    Num,
    /// Punctuation (one or two characters).
    Punct,
    /// End of the text.
    Eof,
}

/// A token: kind and byte range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok {
    pub kind: TokKind,
    pub start: usize,
    pub end: usize,
}

impl Tok {
    /// The token's text.
    #[inline]
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.end).unwrap_or("")
    }

    /// True when the token is the word `kw` (ASCII case-insensitive, not `&`-escaped).
    #[inline]
    pub fn is(&self, text: &str, kw: &str) -> bool {
        self.kind == TokKind::Word && self.text(text).eq_ignore_ascii_case(kw)
    }

    /// True for the punctuation `p`.
    #[inline]
    pub fn is_punct(&self, text: &str, p: &str) -> bool {
        self.kind == TokKind::Punct && self.text(text) == p
    }
}

/// What a byte can be, looked up in [`BYTE_CLASS`]: these run once or twice per byte of
/// every file.
const IDENT_START: u8 = 1;
const IDENT_CHAR: u8 = 2;
/// A blank that is never anything else.
const BLANK: u8 = 4;
/// May start trivia that needs a closer look (`{`, `(*`, `//`, a BOM, a no-break space).
const MAYBE_TRIVIA: u8 = 8;

static BYTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut class = 0;
        if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 {
            class |= IDENT_START | IDENT_CHAR;
        }
        if b.is_ascii_digit() {
            class |= IDENT_CHAR;
        }
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0c | 0x1a) {
            class |= BLANK;
        }
        if matches!(b, b'{' | b'(' | b'/' | 0xEF | 0xC2) {
            class |= MAYBE_TRIVIA;
        }
        table[c] = class;
        c += 1;
    }
    table
};

fn is_ident_start(b: u8) -> bool {
    BYTE_CLASS[b as usize] & IDENT_START != 0
}

/// The end of the identifier characters from `i`.
pub(crate) fn ident_end(b: &[u8], mut i: usize) -> usize {
    // Eight bytes at a time where the text has them: most names end within the first eight,
    // and finding the end arithmetically saves a byte loop whose exit is hard to predict.
    while let Some(chunk) = b.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let stops = !name_bytes(word) & BYTE_HIGH_BITS;
        if stops != 0 {
            return i + (stops.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && is_ident_char(b[i]) {
        i += 1;
    }
    i
}

const BYTE_HIGH_BITS: u64 = 0x8080_8080_8080_8080;
const BYTE_ONES: u64 = 0x0101_0101_0101_0101;

/// Bit 7 of each byte of `word` set when that byte is a name character: an ASCII letter,
/// digit or `_`, or any byte of a UTF-8 sequence (as [`BYTE_CLASS`] has it).
fn name_bytes(word: u64) -> u64 {
    let ascii = word & !BYTE_HIGH_BITS;
    // For 7-bit bytes, adding `0x80 - lo` sets bit 7 exactly when the byte is >= `lo`, and no
    // sum carries into the next byte.
    let at_least = |x: u64, lo: u8| x + BYTE_ONES * u64::from(0x80 - lo);
    let in_range = |x: u64, lo: u8, hi: u8| at_least(x, lo) & !at_least(x, hi + 1);
    // bit 5 lower-cases letters (and moves no other byte into `a..=z`)
    let letters = in_range(ascii | (BYTE_ONES * 0x20), b'a', b'z');
    let digits = in_range(ascii, b'0', b'9');
    let underscores = in_range(ascii, b'_', b'_');
    ((letters | digits | underscores) & BYTE_HIGH_BITS) | (word & BYTE_HIGH_BITS)
}

/// The first position from `i` that is not a plain blank (comments are not skipped).
pub(crate) fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && BYTE_CLASS[b[i] as usize] & BLANK != 0 {
        i += 1;
    }
    i
}

fn is_ident_char(b: u8) -> bool {
    BYTE_CLASS[b as usize] & IDENT_CHAR != 0
}

/// Skips blanks and comments (`{ }`, `(* *)`, `//`) from `i`.
pub(crate) fn skip_trivia(b: &[u8], mut i: usize) -> usize {
    loop {
        // the common cases: a blank, and a byte that cannot start trivia
        while let Some(&c) = b.get(i) {
            match BYTE_CLASS[c as usize] & (BLANK | MAYBE_TRIVIA) {
                BLANK => i += 1,
                0 => return i,
                _ => break,
            }
        }
        match b.get(i) {
            Some(b' ' | b'\t' | b'\r' | b'\n' | 0x0c | 0x1a) => i += 1,
            Some(0xEF) if b.get(i + 1..i + 3) == Some(&[0xBB, 0xBF]) => i += 3,
            Some(0xC2) if b.get(i + 1) == Some(&0xA0) => i += 2,
            Some(b'{') => {
                i = match find_byte(b, i + 1, b'}') {
                    Some(p) => p + 1,
                    None => b.len(),
                }
            }
            Some(b'(') if b.get(i + 1) == Some(&b'*') => {
                let mut j = i + 2;
                i = loop {
                    match find_byte(b, j, b'*') {
                        Some(p) if b.get(p + 1) == Some(&b')') => break p + 2,
                        Some(p) => j = p + 1,
                        None => break b.len(),
                    }
                };
            }
            Some(b'/') if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr2(b'\n', b'\r', &b[i..]).map_or(b.len(), |p| i + p);
            }
            _ => return i,
        }
    }
}

fn find_byte(b: &[u8], from: usize, needle: u8) -> Option<usize> {
    memchr::memchr(needle, b.get(from..)?).map(|p| p + from)
}

/// The token starting at `i` (which must be past trivia).
pub(crate) fn token_at(b: &[u8], i: usize) -> Tok {
    token_mode(b, i, false)
}

/// The token after trivia from `i`.
pub(crate) fn next_token(b: &[u8], i: usize) -> Tok {
    token_at(b, skip_trivia(b, i))
}

fn token_mode(b: &[u8], i: usize, asm: bool) -> Tok {
    let tok = |kind, end: usize| Tok {
        kind,
        start: i,
        end: end.min(b.len()).max(i + 1).min(b.len().max(i)),
    };
    let Some(&c) = b.get(i) else {
        return Tok {
            kind: TokKind::Eof,
            start: b.len(),
            end: b.len(),
        };
    };
    // a name, `&`-escaped or not; `&&op_Equality` is the escaped name `&op_Equality`
    let name_at = match c {
        b'&' if b.get(i + 1) == Some(&b'&') => i + 2,
        b'&' => i + 1,
        _ => i,
    };
    if b.get(name_at).is_some_and(|&n| is_ident_start(n)) {
        let mut j = name_at + 1;
        while j < b.len() && is_ident_char(b[j]) {
            j += 1;
        }
        return tok(TokKind::Word, j);
    }
    match c {
        b'\'' => tok(TokKind::Str, string_end(b, i)),
        b'"' if asm => {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' && b[j] != b'\n' {
                j += 1;
            }
            tok(TokKind::Str, j + 1)
        }
        b'#' => {
            let mut j = i + 1;
            if b.get(j) == Some(&b'$') {
                j += 1;
                while j < b.len() && b[j].is_ascii_hexdigit() {
                    j += 1;
                }
            } else {
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            tok(TokKind::Str, j)
        }
        b'$' => {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_hexdigit() || b[j] == b'_') {
                j += 1;
            }
            tok(TokKind::Num, j)
        }
        b'0'..=b'9' => tok(TokKind::Num, number_end(b, i)),
        _ => {
            let two = b.get(i..i + 2);
            let len = match two {
                Some(b"..") | Some(b":=") | Some(b"<=") | Some(b">=") | Some(b"<>") => 2,
                _ => 1,
            };
            tok(TokKind::Punct, i + len)
        }
    }
}

/// End of the decimal number starting with the digit at `i` (digits and `_`, a fraction,
/// an exponent).
pub(crate) fn number_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'_') {
        j += 1;
    }
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(|c| c.is_ascii_digit()) {
        j += 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
    }
    if matches!(b.get(j), Some(b'e' | b'E'))
        && (b.get(j + 1).is_some_and(|c| c.is_ascii_digit())
            || (matches!(b.get(j + 1), Some(b'+' | b'-'))
                && b.get(j + 2).is_some_and(|c| c.is_ascii_digit())))
    {
        j += 2;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
    }
    j
}

/// End of the string literal that starts with the quote at `i`: the one reading of string
/// literals in this crate (the preprocessor, the token scanner and the lexer all call it, so they
/// agree on where every string ends and what is code).
///
/// Delphi 12: an odd run of three or more quotes followed by nothing but blanks up to a line
/// break opens a multi-line string, which a run of as many quotes closes, standing first on a
/// later line after its indentation (a longer run closes it with its first quotes; a run after
/// other text on a line is content). Anything else is an ordinary literal with `''` escapes
/// (`''''` is one quote, `'''abc'` is `'abc`), which ends at its closing quote or, unterminated,
/// at the end of its line, so a stray quote cannot swallow the rest of the file; a multi-line
/// string without its closing line is read that way too.
pub(crate) fn string_end(b: &[u8], i: usize) -> usize {
    let quotes = quote_run(b, i);
    if quotes >= 3 && quotes % 2 == 1 {
        if let Some(end) = multiline_end(b, i + quotes, quotes) {
            return end;
        }
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\'' if b.get(j + 1) == Some(&b'\'') => j += 2,
            b'\'' => return j + 1,
            b'\n' | b'\r' => return j,
            _ => j += 1,
        }
    }
    b.len()
}

/// The number of quotes from `i` on.
fn quote_run(b: &[u8], i: usize) -> usize {
    b.get(i..)
        .map_or(0, |rest| rest.iter().take_while(|&&c| c == b'\'').count())
}

/// The end of a multi-line string whose opening run of `quotes` quotes ends at `j`: `None`
/// when the run is not followed by a line break (after blanks) or no later line closes it.
fn multiline_end(b: &[u8], mut j: usize, quotes: usize) -> Option<usize> {
    while matches!(b.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    if !matches!(b.get(j), Some(b'\r' | b'\n')) {
        return None;
    }
    // `j` is at a line break: look at the line after it
    loop {
        let mut k = j + 1;
        while matches!(b.get(k), Some(b' ' | b'\t')) {
            k += 1;
        }
        if quote_run(b, k) >= quotes {
            return Some(k + quotes);
        }
        j = k + memchr::memchr2(b'\n', b'\r', b.get(k..)?)?;
    }
}

/// Skips an `asm` block whose `asm` keyword ends at `i`; returns the position after its `end`,
/// or `None` at the end of the text.
/// 1-based column (in bytes) of `pos` and whether only blanks precede it on its line.
pub(crate) fn column(b: &[u8], pos: usize) -> (usize, bool) {
    let mut s = pos.min(b.len());
    while s > 0 && b[s - 1] != b'\n' && b[s - 1] != b'\r' {
        s -= 1;
    }
    let first = b[s..pos.min(b.len())]
        .iter()
        .all(|&c| c == b' ' || c == b'\t' || c == 0x0c);
    (pos - s + 1, first)
}

/// The column of `pos` when only blanks stand before it on its line, else `None`. Unlike
/// [`column`] it looks back over the blanks only, so a scan that asks at every token of a long
/// line stays linear.
pub(crate) fn column_if_first(b: &[u8], pos: usize) -> Option<usize> {
    let pos = pos.min(b.len());
    let mut s = pos;
    while s > 0 && matches!(b[s - 1], b' ' | b'\t' | 0x0c) {
        s -= 1;
    }
    (s == 0 || matches!(b[s - 1], b'\n' | b'\r')).then_some(pos - s + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_end_where_the_byte_classes_say() {
        let text = "abc_DEF09 xyzzy\u{e9}t\u{a0}q Z[ a; b_c.d@e`f{g}h~ abcdefghijklmnopqrstu|v";
        let b = text.as_bytes();
        for start in 0..b.len() {
            let mut byte_loop = start;
            while byte_loop < b.len() && is_ident_char(b[byte_loop]) {
                byte_loop += 1;
            }
            assert_eq!(ident_end(b, start), byte_loop, "from {start}");
        }
        for c in 0..=255u8 {
            let word = u64::from_le_bytes([c; 8]);
            let expected = if is_ident_char(c) { BYTE_HIGH_BITS } else { 0 };
            assert_eq!(name_bytes(word), expected, "byte {c:#x}");
        }
    }

    /// Where each kind of literal ends, the cases the preprocessor and the token scanner once
    /// read differently (each had its own copy) among them.
    #[test]
    fn string_ends() {
        let cases: &[(&str, &str)] = &[
            // ordinary literals, escaped quotes first
            ("''''", " x"),
            ("'''abc'", " x"),
            ("''", ";"),
            ("'a''b'", ";"),
            ("'''x", "\n'''"),
            ("'unterminated", "\nX := 1;"),
            // multi-line strings
            ("'''\n  end\n  '''", ";"),
            ("''' \t\r\n  a\r\n  '''", ";"),
            ("'''''\n  holds ''' inside\n  '''''", ";"),
            // a run after text on a line is content: the string ends on the line of its own
            ("'''\n  it''s ''' here\n  '''", "; x"),
            // a longer run closes it with its first quotes
            ("'''\n  a\n  '''", "';"),
            // no closing line: an unterminated literal that ends with its line
            ("'''", "\n  never closed\nX := 1;"),
        ];
        for (literal, after) in cases {
            let text = format!("{literal}{after}");
            assert_eq!(string_end(text.as_bytes(), 0), literal.len(), "{text:?}");
            let t = token_at(text.as_bytes(), 0);
            assert_eq!((t.kind, t.end), (TokKind::Str, literal.len()), "{text:?}");
        }
        // never past the end
        for text in ["'", "'''", "'''\n", "'''\n'", "'''\n''"] {
            assert!(string_end(text.as_bytes(), 0) <= text.len(), "{text:?}");
        }
    }
}
