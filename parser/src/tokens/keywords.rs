//! The keyword tables and the lookup of a word's code.
//!
//! Every keyword has a code fixed by its place in [`RESERVED`] or [`SOFT`]; the classes of
//! words the grammar and the readers ask for are ranges of those codes (see [`super::codes`]).

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

pub(super) const RESERVED_BASE: u32 = 0x200;
pub(super) const SOFT_BASE: u32 = 0x280;

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
