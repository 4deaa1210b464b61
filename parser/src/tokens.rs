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
pub(crate) use keywords::{keyword_text, kw};
use keywords::{RESERVED, RESERVED_BASE, SOFT, SOFT_BASE};
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

/// The code of `word` (any case) as the lexer gives it; [`IDENT`] for any other word.
pub(crate) fn word_code(word: &str) -> char {
    word_code_in(word.as_bytes(), 0, word.len())
}

/// The code of the word at `start..end` of `b` (already known not to be `&`-escaped).
#[inline]
fn word_code_in(b: &[u8], start: usize, end: usize) -> char {
    // Keywords are ASCII letters only, 2 to 14 of them: pack the lower-cased word into an
    // integer and look that up.
    let len = end.saturating_sub(start);
    if !(2..=14).contains(&len) {
        return IDENT;
    }
    // Most words are names: no keyword has their length and first letter.
    let first = b.get(start).map_or(0, |c| c | 0x20);
    if !first.is_ascii_lowercase() || KEYWORD_SHAPES[len] & (1 << (first - b'a')) == 0 {
        return IDENT;
    }
    // The word's bytes in the low end of a little-endian integer, each with bit 5 set: that
    // lower-cases letters, and leaves every other byte of a name (digits, `_`, UTF-8) outside
    // the letters, so a word that is not all letters matches no keyword. Sixteen bytes are
    // read at once where the text has them (a copy of a few bytes is a call).
    let word = match b.get(start..start + 16) {
        Some(chunk) => u128::from_le_bytes(chunk.try_into().unwrap_or([0; 16])),
        None => {
            let mut buf = [0u8; 16];
            if let Some(bytes) = b.get(start..end) {
                buf[..len].copy_from_slice(bytes);
            }
            u128::from_le_bytes(buf)
        }
    };
    keyword_code((word | u128::from_le_bytes([0x20; 16])) & WORD_MASKS[len])
}

/// For each word length, the low bytes of an integer that a word of that length fills.
static WORD_MASKS: [u128; 17] = {
    let mut masks = [0u128; 17];
    let mut len = 1;
    while len < 17 {
        masks[len] = u128::MAX >> (8 * (16 - len));
        len += 1;
    }
    masks
};

/// For each word length, a bit per first letter (`a` = bit 0) that some keyword of that
/// length starts with.
static KEYWORD_SHAPES: [u32; 16] = {
    let mut shapes = [0u32; 16];
    let lists = [RESERVED, SOFT];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let w = lists[l][i].as_bytes();
            if w.len() < 16 {
                shapes[w.len()] |= 1 << (w[0] - b'a');
            }
            i += 1;
        }
        l += 1;
    }
    shapes
};

/// Slots of the keyword table: a power of two a few times the number of keywords, so that
/// most lookups of a name end at an empty slot right away, and small enough (9 KiB with the
/// codes) to stay in the first-level cache beside the text.
const KEYWORD_SLOTS: usize = 512;

/// The slot a packed key is looked up from (a multiplicative hash of its two halves).
const fn keyword_slot(key: u128) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - KEYWORD_SLOTS.trailing_zeros())) as usize
}

/// Every keyword, packed as [`word_code`] packs words, in an open-addressed table built at
/// compile time (key 0, which no word packs to, marks an empty slot); its code is at the same
/// slot of [`KEYWORD_CODES`].
static KEYWORD_KEYS: [u128; KEYWORD_SLOTS] = keyword_table().0;
static KEYWORD_CODES: [u16; KEYWORD_SLOTS] = keyword_table().1;

const fn keyword_table() -> ([u128; KEYWORD_SLOTS], [u16; KEYWORD_SLOTS]) {
    let mut keys = [0u128; KEYWORD_SLOTS];
    let mut codes = [0u16; KEYWORD_SLOTS];
    let lists = [(RESERVED, RESERVED_BASE), (SOFT, SOFT_BASE)];
    let mut l = 0;
    while l < lists.len() {
        let (words, base) = lists[l];
        let mut i = 0;
        while i < words.len() {
            let w = words[i].as_bytes();
            let mut key = 0u128;
            let mut j = w.len();
            while j > 0 {
                j -= 1;
                key = key << 8 | w[j] as u128;
            }
            let mut at = keyword_slot(key);
            while keys[at] != 0 && keys[at] != key {
                at = (at + 1) % KEYWORD_SLOTS;
            }
            keys[at] = key;
            codes[at] = (base + i as u32) as u16;
            i += 1;
        }
        l += 1;
    }
    (keys, codes)
}

/// The code of the keyword packed as `key`, or [`IDENT`].
fn keyword_code(key: u128) -> char {
    let mut at = keyword_slot(key);
    loop {
        match KEYWORD_KEYS.get(at) {
            Some(&k) if k == key => {
                return KEYWORD_CODES
                    .get(at)
                    .and_then(|&c| char::from_u32(c.into()))
                    .unwrap_or(IDENT)
            }
            Some(0) | None => return IDENT,
            Some(_) => at = (at + 1) % KEYWORD_SLOTS,
        }
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
