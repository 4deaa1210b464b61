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
//! the test `grammar_codes_match_the_lexer` keeps the two in step. [`lexer`] builds the token
//! string; [`codes`] names the codes the readers compare tokens with, and the classes of words
//! they ask for; [`nesting`] bounds how deep the grammar can recurse over a token string.

pub(crate) mod codes;
pub(crate) mod keywords;
mod lexer;
mod nesting;

pub(crate) use keywords::{keyword_text, kw};
pub(crate) use lexer::{lex, word_code};
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
