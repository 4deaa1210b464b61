//! The keyword tables and the lookup of a word's code.
//!
//! Every keyword has a code fixed by its place in [`RESERVED`] or [`SOFT`]; the classes of
//! words the grammar and the readers ask for are ranges of those codes (see [`super::codes`]).

use super::IDENT;

/// Reserved words: never identifiers (unless written with `&`). Code U+0200 + index.
pub(crate) const RESERVED: &[&str] = &[
    // Routine and structured-type starts (U+0200..=U+020A), so that the grammar's first-token
    // checks are ranges: `routine_start` takes procedure..class, `struct_start` class..type.
    "procedure",
    "function",
    "constructor",
    "destructor",
    "class",
    "record",
    "interface",
    "dispinterface",
    "object",
    "packed",
    "type",
    // Multiplicative operators (U+020B..=U+0210).
    "and",
    "as",
    "div",
    "mod",
    "shl",
    "shr",
    // Additive operators (U+0211..=U+0212).
    "or",
    "xor",
    // Relational operators (U+0213..=U+0214).
    "in",
    "is",
    // Parameter modes (U+0215..=U+0216).
    "const",
    "var",
    // Everything else.
    "array",
    "asm",
    "begin",
    "case",
    "do",
    "downto",
    "else",
    "end",
    "except",
    "exports",
    "file",
    "finalization",
    "finally",
    "for",
    "goto",
    "if",
    "implementation",
    "inherited",
    "initialization",
    "label",
    "library",
    "nil",
    "not",
    "of",
    "program",
    "property",
    "raise",
    "repeat",
    "resourcestring",
    "set",
    "string",
    "then",
    "threadvar",
    "to",
    "try",
    "unit",
    "until",
    "uses",
    "while",
    "with",
];

/// Words the grammar gives a meaning in some places (directives, visibility, property
/// specifiers, ...) that are identifiers everywhere else. Code U+0280 + index.
///
/// The order matters: each class of words the grammar asks for is one range of codes, so
/// `prop_spec_name`, `directive_name`, `call_conv` and `hint_name` in `delphi.pest` are one
/// range check each instead of a choice of dozens of rules (`word_classes_are_code_ranges`
/// checks the ranges).
pub(crate) const SOFT: &[&str] = &[
    // Property specifiers only. (U+0280..=U+0289)
    "add",
    "default",
    "implements",
    "nodefault",
    "read",
    "readonly",
    "remove",
    "stored",
    "write",
    "writeonly",
    // Property specifiers and routine directives. (U+028A..=U+028B)
    "dispid",
    "index",
    // Routine directives only. (U+028C..=U+02AE)
    "abstract",
    "alias",
    "assembler",
    "compilerproc",
    "cppdecl",
    "delayed",
    "dynamic",
    "enumerator",
    "external",
    "final",
    "forward",
    "hardfloat",
    "inline",
    "internproc",
    "interrupt",
    "iocheck",
    "local",
    "message",
    "mwpascal",
    "name",
    "noinline",
    "noreturn",
    "nostackframe",
    "overload",
    "override",
    "reintroduce",
    "resident",
    "saveregisters",
    "softfloat",
    "static",
    "syscall",
    "unsafe",
    "vectorcall",
    "virtual",
    "weakexternal",
    // Routine directives and calling conventions. (U+02AF..=U+02B8)
    "cdecl",
    "export",
    "far",
    "near",
    "pascal",
    "register",
    "safecall",
    "stdcall",
    "varargs",
    "winapi",
    // Routine directives and hints. (U+02B9..=U+02BB)
    "deprecated",
    "experimental",
    "platform",
    // Visibility words (U+02BC..=U+02C1).
    "strict",
    "private",
    "protected",
    "public",
    "published",
    "automated",
    // Soft routine starts (U+02C2..=U+02C3).
    "generic",
    "operator",
    // Soft parameter modes (U+02C4..=U+02C5).
    "out",
    "constref",
    // Everything else (U+02C6..).
    "absolute",
    "align",
    "bitpacked",
    "contains",
    "cvar",
    "helper",
    "nested",
    "package",
    "reference",
    "requires",
    "sealed",
    "specialize",
    // linker clauses after `external` (Delphi for iOS, macOS, Android)
    "dependency",
    "framework",
];

const RESERVED_BASE: u32 = 0x200;
const SOFT_BASE: u32 = 0x280;

/// The code of the keyword `word` (lower case), for use in constants: `kw("class")`. The
/// grammar's keyword rules are silent, so lowering tells keywords apart by these codes.
///
/// # Panics
/// When `word` is no keyword (at compile time when used in a constant).
pub(crate) const fn kw(word: &str) -> char {
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    const fn code(base: u32, index: usize) -> char {
        match char::from_u32(base + index as u32) {
            Some(c) => c,
            None => panic!("keyword code out of range"),
        }
    }
    let mut i = 0;
    while i < RESERVED.len() {
        if same(RESERVED[i], word) {
            return code(RESERVED_BASE, i);
        }
        i += 1;
    }
    let mut i = 0;
    while i < SOFT.len() {
        if same(SOFT[i], word) {
            return code(SOFT_BASE, i);
        }
        i += 1;
    }
    panic!("not a keyword")
}

/// The keyword a grammar code stands for (`None` for other codes), to name expected keywords
/// in diagnostics.
pub(crate) fn keyword_text(code: &str) -> Option<&'static str> {
    let mut chars = code.chars();
    let c = chars.next()? as u32;
    if chars.next().is_some() {
        return None;
    }
    let index = |base: u32| c.checked_sub(base).map(|i| i as usize);
    index(SOFT_BASE)
        .and_then(|i| SOFT.get(i))
        .or_else(|| index(RESERVED_BASE).and_then(|i| RESERVED.get(i)))
        .copied()
}

/// Whether `word` is a reserved word (in any case; not with `&`).
pub(crate) fn is_reserved_word(word: &str) -> bool {
    (RESERVED_BASE..SOFT_BASE).contains(&(word_code(word) as u32))
}

pub(crate) fn word_code(word: &str) -> char {
    word_code_in(word.as_bytes(), 0, word.len())
}

/// The code of the word at `start..end` of `b` (already known not to be `&`-escaped).
pub(super) fn word_code_in(b: &[u8], start: usize, end: usize) -> char {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::{DelphiParser, Rule};
    use crate::tokens::lex;
    use pest::Parser as _;

    /// The grammar's first-token checks (`routine_start`, `vis_start`, ...) are ranges of
    /// codes written by hand: each must hold exactly its words, so a keyword added inside a
    /// group of the tables fails here instead of changing what the grammar accepts.
    #[test]
    fn grouped_keyword_ranges_hold_their_words() {
        let grammar = include_str!("../delphi.pest");
        let groups: &[(&str, &str, &[&str])] = &[
            (
                "procedure",
                "class",
                &[
                    "procedure",
                    "function",
                    "constructor",
                    "destructor",
                    "class",
                ],
            ),
            (
                "class",
                "type",
                &[
                    "class",
                    "record",
                    "interface",
                    "dispinterface",
                    "object",
                    "packed",
                    "type",
                ],
            ),
            ("and", "shr", &["and", "as", "div", "mod", "shl", "shr"]),
            ("or", "xor", &["or", "xor"]),
            ("in", "is", &["in", "is"]),
            ("const", "var", &["const", "var"]),
            (
                "strict",
                "automated",
                &[
                    "strict",
                    "private",
                    "protected",
                    "public",
                    "published",
                    "automated",
                ],
            ),
            ("generic", "operator", &["generic", "operator"]),
            ("out", "constref", &["out", "constref"]),
        ];
        let all: Vec<&str> = RESERVED.iter().chain(SOFT).copied().collect();
        for (first, last, words) in groups {
            let (from, to) = (kw(first), kw(last));
            let range = format!("'\\u{{{:04X}}}'..'\\u{{{:04X}}}'", from as u32, to as u32);
            assert!(
                grammar.contains(&range),
                "the grammar checks {first}..{last} as {range}"
            );
            let mut inside: Vec<&str> = all
                .iter()
                .copied()
                .filter(|w| (from..=to).contains(&kw(w)))
                .collect();
            let mut expected = words.to_vec();
            inside.sort_unstable();
            expected.sort_unstable();
            assert_eq!(inside, expected, "codes {first}..{last}");
        }
    }

    /// The keyword rules at the end of `delphi.pest` must spell the codes the lexer gives
    /// (`scripts/gen-keyword-rules.py` writes them from the tables here).
    #[test]
    fn grammar_codes_match_the_lexer() {
        let words: Vec<&str> = RESERVED.iter().chain(SOFT).copied().collect();
        for word in &words {
            let toks = lex(word);
            assert_eq!(toks.code_str().chars().count(), 1, "{word} is one token");
            let rule = Rule::all_rules()
                .iter()
                .copied()
                .find(|r| format!("{r:?}") == format!("kw_{word}"))
                .unwrap_or_else(|| panic!("delphi.pest has no rule kw_{word}"));
            let parsed = DelphiParser::parse(rule, toks.code_str());
            assert!(
                parsed.is_ok(),
                "kw_{word} does not match the code of {word:?}"
            );
            // and no other keyword rule matches it
            for other in &words {
                if other == word {
                    continue;
                }
                let other_rule = Rule::all_rules()
                    .iter()
                    .copied()
                    .find(|r| format!("{r:?}") == format!("kw_{other}"));
                if let Some(other_rule) = other_rule {
                    assert!(
                        DelphiParser::parse(other_rule, toks.code_str()).is_err(),
                        "kw_{other} also matches {word:?}"
                    );
                }
            }
        }
        let rules = Rule::all_rules()
            .iter()
            .filter(|r| format!("{r:?}").starts_with("kw_"))
            .count();
        assert_eq!(rules, words.len(), "one kw_ rule per word of the tables");
    }

    /// `prop_spec_name`, `directive_name`, `call_conv` and `hint_name` are code ranges in
    /// `delphi.pest`: each must accept exactly its words.
    #[test]
    fn word_classes_are_code_ranges() {
        // the classes as SOFT groups them, by their first and last word
        let span = |first: &str, last: &str| -> Vec<&str> {
            let at = |w: &str| SOFT.iter().position(|s| *s == w).expect("in SOFT");
            SOFT[at(first)..=at(last)].to_vec()
        };
        let prop_specs = span("add", "index");
        let call_convs = span("cdecl", "winapi");
        let mut hints = span("deprecated", "platform");
        hints.push("library");
        let mut directives = span("dispid", "platform");
        directives.push("library");
        for word in [
            "read",
            "stored",
            "overload",
            "virtual",
            "cdecl",
            "deprecated",
            "name",
        ] {
            assert!(
                prop_specs.contains(&word) || directives.contains(&word),
                "{word}"
            );
        }
        let all: Vec<&str> = RESERVED.iter().chain(SOFT).copied().collect();
        for (rule, class) in [
            (Rule::prop_spec_name, &prop_specs[..]),
            (Rule::call_conv, &call_convs[..]),
            (Rule::hint_name, &hints[..]),
            (Rule::directive_name, &directives[..]),
        ] {
            for word in &all {
                let code = lex(word).code_str().to_string();
                let accepted = DelphiParser::parse(rule, &code).is_ok();
                assert_eq!(accepted, class.contains(word), "{rule:?} and {word:?}");
            }
        }
    }
}
