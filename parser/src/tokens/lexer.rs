//! The lexer: the preprocessed text as a token string, keywords told by a table lookup.

use super::keywords::{RESERVED, RESERVED_BASE, SOFT, SOFT_BASE};
use super::{Tokens, ASSIGN, BLOCK, CODE_WIDTH, DOTDOT, IDENT, NUMBER, OTHER, STRING};
use crate::scan::{self, TokKind};

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
    // Where the `begin`s inside a block that has no `end` end (filled only after a failure).
    let mut block_ends = scan::BlockEnds::new();
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
                    if let Ok(block_end) = scan::skip_block_noting(text, &t, Some(&mut block_ends))
                    {
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
