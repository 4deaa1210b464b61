//! The token string the grammar runs over.
//!
//! pest spends most of its time per character: trivia between every two tokens, identifier
//! characters, case-insensitive keywords with a word-boundary check. So the driver lexes the
//! preprocessed text once with the scanner of `scan.rs` and hands pest a string with one
//! character per token: a code for each keyword and punctuation mark, one for every other
//! identifier, number or string. Comments and blanks are gone, and a `begin ... end` or
//! `asm ... end` block is a single BLOCK token (the grammar never reads statements; the driver
//! takes the block's end from it). Every code is a two-byte UTF-8
//! character (U+0100 to U+02FF), so token `i` is at byte `2 * i` of the string, and a span of
//! the token string maps back to the source through the start and end of its tokens.
//!
//! The codes are fixed by the keyword tables of [`keywords`] and spelled out in `delphi.pest`;
//! the test `grammar_codes_match_the_lexer` keeps the two in step. [`codes`] names the codes
//! the readers compare tokens with, and the classes of words they ask for; [`nesting`] bounds
//! how deep the grammar can recurse over a token string.

pub(crate) mod codes;
pub(crate) mod keywords;
mod nesting;

use crate::scan::{self, TokKind};
pub(crate) use keywords::{is_reserved_word, keyword_text, kw};
use keywords::{word_code, word_code_in};
pub(crate) use nesting::nesting_bound;

/// Every code takes this many bytes in the token string.
pub(crate) const CODE_WIDTH: usize = 2;

/// Any other identifier (also `&`-escaped words).
pub(crate) const IDENT: char = '\u{0190}';
/// A number in any notation.
pub(crate) const NUMBER: char = '\u{0191}';
/// A quoted string piece, a `#13` character code or a multi-line string.
pub(crate) const STRING: char = '\u{0192}';
/// Punctuation the grammar has no use for (`?`, `!`, `"`, a lone `&`, ...).
pub(crate) const OTHER: char = '\u{0193}';
/// A whole `begin ... end` or `asm ... end` block, with the `;` after it.
pub(crate) const BLOCK: char = '\u{0194}';
/// `:=`
pub(crate) const ASSIGN: char = '\u{0180}';
/// `..`
pub(crate) const DOTDOT: char = '\u{0181}';

/// The preprocessed text as tokens.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    /// One code per token, UTF-8 encoded (two bytes each): the grammar's input, as
    /// [`Self::code_str`].
    pub code: Vec<u8>,
    /// Start and end of each token in the preprocessed text.
    pub spans: Vec<[u32; 2]>,
    /// Length of the preprocessed text (the position of the end of input).
    pub text_len: u32,
    /// Indexes of the tokens with a `///` comment among the comments before them, ascending:
    /// only these can have a documentation comment.
    pub documented: Vec<u32>,
}

impl Tokens {
    /// Whether a `///` comment stands among the comments before the token at `offset` of the
    /// token string (else it has no documentation comment).
    pub fn may_be_documented(&self, offset: usize) -> bool {
        self.documented
            .binary_search(&((offset / CODE_WIDTH) as u32))
            .is_ok()
    }

    /// The token string as text, for the grammar. Only the grammar needs it as `str`, and
    /// it reads few items, so the string is checked when it does rather than built from
    /// `char`s (it is valid UTF-8 by construction).
    pub fn code_str(&self) -> &str {
        std::str::from_utf8(&self.code).unwrap_or_default()
    }

    /// The code of token `index` (0 past the last token).
    pub fn code_of(&self, index: usize) -> u32 {
        code_at(&self.code, index * CODE_WIDTH)
    }

    /// Index of the first token that starts at or after `pos` of the preprocessed text.
    pub fn index_at(&self, pos: usize) -> usize {
        self.spans.partition_point(|&[s, _]| (s as usize) < pos)
    }

    /// [`Self::index_at`], checking `guess` first: readers move forward, so the index after
    /// the last token read is usually the answer, and checking it saves a search.
    pub fn index_near(&self, pos: usize, guess: usize) -> usize {
        let after_previous = guess == 0
            || self
                .spans
                .get(guess - 1)
                .is_some_and(|&[s, _]| (s as usize) < pos);
        let at_or_after = self
            .spans
            .get(guess)
            .map_or(guess == self.spans.len(), |&[s, _]| s as usize >= pos);
        if after_previous && at_or_after {
            guess
        } else {
            self.index_at(pos)
        }
    }

    /// Whether token `index` starts exactly at `pos` of the preprocessed text.
    pub fn starts_at(&self, index: usize, pos: usize) -> bool {
        self.spans
            .get(index)
            .is_some_and(|&[s, _]| s as usize == pos)
    }

    /// The end of the statement block (and its `;`) that is token `index`, when the lexer
    /// read one there as one BLOCK token.
    pub fn block_end(&self, index: usize) -> Option<usize> {
        let span = self.spans.get(index)?;
        (self.code_of(index) == BLOCK as u32).then_some(span[1] as usize)
    }

    /// Where the token at byte `offset` of the token string starts in the text (the end of
    /// the text for the end of the string).
    pub fn text_start(&self, offset: usize) -> usize {
        let i = offset / CODE_WIDTH;
        self.spans
            .get(i)
            .map_or(self.text_len as usize, |&[s, _]| s as usize)
    }

    /// The text range covered by the token string range `start..end` (empty at the start
    /// token when the range holds no token).
    pub fn text_range(&self, start: usize, end: usize) -> (usize, usize) {
        let first = start / CODE_WIDTH;
        let past = end / CODE_WIDTH;
        let from = self.text_start(start);
        if past <= first {
            return (from, from);
        }
        let to = self
            .spans
            .get(past - 1)
            .map_or(self.text_len as usize, |&[_, e]| e as usize);
        (from, to.max(from))
    }
}

/// The code of a one-character punctuation mark: U+0100 plus its ASCII value.
fn punct_code(c: u8) -> char {
    match c {
        b'(' | b')' | b'*' | b'+' | b',' | b'-' | b'.' | b'/' | b':' | b';' | b'<' | b'='
        | b'>' | b'@' | b'[' | b']' | b'^' | b'&' => {
            char::from_u32(0x100 + c as u32).unwrap_or(OTHER)
        }
        _ => OTHER,
    }
}

/// The punctuation a code in the grammar stands for (`None` for other codes), to name
/// expected tokens in diagnostics.
pub(crate) fn punct_text(code: &str) -> Option<String> {
    let mut chars = code.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    match c {
        ASSIGN => Some(":=".to_string()),
        DOTDOT => Some("..".to_string()),
        '\u{0100}'..='\u{017F}' => Some(char::from((c as u32 - 0x100) as u8).to_string()),
        _ => None,
    }
}

/// The code at byte `offset` of a token string (0 at its end): two bytes of UTF-8, decoded
/// without the general decoder.
pub(crate) fn code_at(code: &[u8], offset: usize) -> u32 {
    match code.get(offset..offset + CODE_WIDTH) {
        Some(&[a, b]) => (u32::from(a & 0x1F) << 6) | u32::from(b & 0x3F),
        _ => 0,
    }
}

/// The UTF-8 encoding of a token code: every code is in `U+0080..U+0800`, two bytes.
fn utf8(code: char) -> [u8; CODE_WIDTH] {
    let c = code as u32;
    debug_assert!((0x80..0x800).contains(&c));
    [0xC0 | (c >> 6) as u8, 0x80 | (c & 0x3F) as u8]
}

/// Lexes the whole preprocessed text.
pub(crate) fn lex(text: &str) -> Tokens {
    let b = text.as_bytes();
    let mut toks = Tokens {
        code: Vec::with_capacity(b.len() / 2),
        spans: Vec::with_capacity(b.len() / 5),
        text_len: b.len() as u32,
        documented: Vec::new(),
    };
    let (begin, asm) = (word_code("begin"), word_code("asm"));
    let push = |toks: &mut Tokens, code: char, start: usize, end: usize| {
        toks.code.extend_from_slice(&utf8(code));
        toks.spans.push([start as u32, end as u32]);
    };
    let mut pos = 0;
    loop {
        // The common case first: blanks, then a plain ASCII word that is not a block keyword
        // (a non-ASCII byte may start trivia: a BOM, a no-break space).
        pos = scan::skip_blanks(b, pos);
        if b.get(pos)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        {
            let end = scan::ident_end(b, pos + 1);
            let code = word_code_in(b, pos, end);
            if code != begin && code != asm {
                push(&mut toks, code, pos, end);
                pos = end;
                continue;
            }
        }
        // Punctuation that starts no comment, string or two-character token (`<=`, `>=` and
        // `<>` are two tokens anyway).
        let single = match b.get(pos) {
            Some(
                &c @ (b';' | b',' | b')' | b'=' | b'[' | b']' | b'^' | b'@' | b'+' | b'-' | b'<'
                | b'>' | b'*'),
            ) => Some(c),
            Some(b':') if b.get(pos + 1) != Some(&b'=') => Some(b':'),
            Some(b'.') if !matches!(b.get(pos + 1), Some(b'.' | b')')) => Some(b'.'),
            Some(b'(') if !matches!(b.get(pos + 1), Some(b'*' | b'.')) => Some(b'('),
            Some(b'/') if b.get(pos + 1) != Some(&b'/') => Some(b'/'),
            _ => None,
        };
        if let Some(c) = single {
            push(&mut toks, punct_code(c), pos, pos + 1);
            pos += 1;
            continue;
        }
        // Strings and numbers, the commonest tokens after names and punctuation (no trivia
        // before them: this is where `token_at` would start).
        let literal = match b.get(pos) {
            Some(b'\'') => Some((STRING, scan::string_end(b, pos))),
            Some(b'0'..=b'9') => Some((NUMBER, scan::number_end(b, pos))),
            _ => None,
        };
        if let Some((code, end)) = literal {
            let end = end.clamp(pos + 1, b.len());
            push(&mut toks, code, pos, end);
            pos = end;
            continue;
        }
        let start = scan::skip_trivia(b, pos);
        if start > pos && memchr::memmem::find(&b[pos..start], b"///").is_some() {
            // the next token pushed is the one after these comments
            toks.documented.push((toks.code.len() / CODE_WIDTH) as u32);
        }
        let t = scan::token_at(b, start);
        let (start, end) = (t.start, t.end);
        match t.kind {
            TokKind::Eof => break,
            TokKind::Word => {
                let code = if b[start] == b'&' {
                    IDENT
                } else {
                    word_code_in(b, start, end)
                };
                // `begin` and `asm` only ever open a statement block, which the grammar never
                // reads: one BLOCK token stands for the whole block (and its `;`), and the
                // driver takes the block's end from it instead of scanning the block again.
                if code == begin || code == asm {
                    if let Ok(block_end) = scan::skip_block(text, &t) {
                        push(&mut toks, BLOCK, start, block_end);
                        pos = block_end;
                        continue;
                    }
                }
                push(&mut toks, code, start, end);
            }
            TokKind::Num => push(&mut toks, NUMBER, start, end),
            TokKind::Str => push(&mut toks, STRING, start, end),
            TokKind::Punct => match &b[start..end] {
                b":=" => push(&mut toks, ASSIGN, start, end),
                b".." => push(&mut toks, DOTDOT, start, end),
                // `<=`, `>=` and `<>` are two tokens, so that `TFoo<T>=class` and
                // `TList<TPair<K, V>>` read as generics; expressions put them together again.
                [first, second] => {
                    push(&mut toks, punct_code(*first), start, start + 1);
                    push(&mut toks, punct_code(*second), start + 1, end);
                }
                // `(.` and `.)` are the old spellings of `[` and `]`.
                [b'('] if b.get(end) == Some(&b'.') && b.get(end + 1) != Some(&b'.') => {
                    push(&mut toks, punct_code(b'['), start, end + 1);
                    pos = end + 1;
                    continue;
                }
                [b'.'] if b.get(end) == Some(&b')') => {
                    push(&mut toks, punct_code(b']'), start, end + 1);
                    pos = end + 1;
                    continue;
                }
                // `%1010` and `&777`: binary and octal numbers.
                [b'%'] | [b'&'] if b.get(end).is_some_and(u8::is_ascii_digit) => {
                    let mut j = end;
                    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                        j += 1;
                    }
                    push(&mut toks, NUMBER, start, j);
                    pos = j;
                    continue;
                }
                [c] => push(&mut toks, punct_code(*c), start, end),
                _ => push(&mut toks, OTHER, start, end),
            },
        }
        pos = end.max(pos + 1);
    }
    toks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexing_keeps_positions_and_splits_comparisons() {
        let text = "TFoo<T>=class {c} (.1..2.) x:=$FF; &begin // t\n'a''b'#13";
        let toks = lex(text);
        let spelled: Vec<&str> = toks
            .spans
            .iter()
            .map(|&[s, e]| &text[s as usize..e as usize])
            .collect();
        assert_eq!(
            spelled,
            [
                "TFoo", "<", "T", ">", "=", "class", "(.", "1", "..", "2", ".)", "x", ":=", "$FF",
                ";", "&begin", "'a''b'", "#13"
            ]
        );
        let codes: Vec<char> = toks.code_str().chars().collect();
        assert_eq!(codes[0], IDENT);
        assert_eq!(codes[6], punct_code(b'['));
        assert_eq!(codes[10], punct_code(b']'));
        assert_eq!(codes[15], IDENT, "an escaped reserved word is a name");
        assert_eq!(codes[16], STRING);
    }
}
