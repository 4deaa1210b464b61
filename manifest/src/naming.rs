//! Names made from other names: a tool name from a Pascal routine (`ScaleValue` →
//! `scale_value`), a Rust method, parameter or module name from a tool, parameter or library
//! name (`bind!`), a crate name from a folder name (`delphi-mcp new`).
//!
//! One rule splits words and lowers letters ([`snake_case`]); the wrappers only add what their
//! target requires: [`rust_identifier`] keeps ASCII letters and digits and escapes keywords,
//! [`crate_name`] also trims and joins words with `-`.

/// Whether `name` is a valid MCP name of a tool, prompt, resource or completion provider:
/// 1 to 128 characters of `A-Za-z0-9_-.` (also valid in every export symbol format).
pub fn is_valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Words of `name` in snake case. A word starts at an upper-case letter that follows a
/// lower-case letter or a digit, and at the last capital of an acronym that a lower-case letter
/// follows; letters are lowered (Unicode), every other character is kept as it is:
/// `ScaleValue` → `scale_value`, `HTTPGet` → `http_get`, `GetURLFor2` → `get_url_for2`,
/// `Add2Numbers` → `add2_numbers`, `already_snake` → `already_snake`, `ÄpfelZählen` →
/// `äpfel_zählen`.
///
/// Tool names of routines without an explicit name are `snake_case` of the routine name.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary =
                prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower);
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// `camelCase` of `name`: the words of [`snake_case`], the first as it is, each later one with
/// its first letter upper-cased: `Query` → `query`, `AllowZero` → `allowZero`, `HTTPGet` →
/// `httpGet`, `first_name` → `firstName`.
pub fn camel_case(name: &str) -> String {
    let snake = snake_case(name);
    let mut out = String::with_capacity(snake.len());
    for (i, word) in snake.split('_').filter(|w| !w.is_empty()).enumerate() {
        if i == 0 {
            out.push_str(word);
        } else {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        }
    }
    if out.is_empty() {
        snake
    } else {
        out
    }
}

/// How argument names (parameters, record fields, `var`/`out` outputs) are made from Pascal
/// names, unless `[McpName]` gives one: `[McpNaming('camelCase')]` on a routine, class or
/// record, or `--naming` for the whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArgumentNaming {
    /// Exactly as declared (`AllowZero`).
    #[default]
    AsDeclared,
    /// [`camel_case`] (`allowZero`).
    CamelCase,
    /// [`snake_case`] (`allow_zero`).
    SnakeCase,
}

impl ArgumentNaming {
    /// The policies by the names attributes and `--naming` take.
    pub const NAMES: [(&'static str, ArgumentNaming); 3] = [
        ("asDeclared", ArgumentNaming::AsDeclared),
        ("camelCase", ArgumentNaming::CamelCase),
        ("snake_case", ArgumentNaming::SnakeCase),
    ];

    /// The policy called `name` (`asDeclared`, `camelCase`, `snake_case`; `as-declared`,
    /// `camel-case` and `snake-case` too, for the command line).
    pub fn parse(name: &str) -> Option<ArgumentNaming> {
        let key: String = name
            .chars()
            .filter(|c| !matches!(c, '-' | '_'))
            .collect::<String>()
            .to_ascii_lowercase();
        Self::NAMES
            .iter()
            .find(|(n, _)| n.replace('_', "").eq_ignore_ascii_case(&key))
            .map(|(_, policy)| *policy)
    }

    /// The argument name of Pascal name `name`.
    pub fn apply(self, name: &str) -> String {
        match self {
            ArgumentNaming::AsDeclared => name.to_string(),
            ArgumentNaming::CamelCase => camel_case(name),
            ArgumentNaming::SnakeCase => snake_case(name),
        }
    }
}

/// Keywords (strict, reserved and edition-dependent) that need `r#` to be used as a name.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// A Rust identifier (ASCII, snake case) for a tool, parameter or library name: every run of
/// characters other than ASCII letters and digits becomes one `_`, then [`snake_case`] splits
/// the words. A leading digit gets `_` before it, keywords become raw identifiers (`type` →
/// `r#type`), and the names that cannot be raw (`self`, `super`, `crate`, `_`) get `_` after
/// them. An empty name gives `_tool`.
///
/// `AllowZero` → `allow_zero`, `add-numbers.v2` → `add_numbers_v2`, `Größe` → `gr_e`.
pub fn rust_identifier(name: &str) -> String {
    let mut name = snake_case(&ascii_words(name));
    if name.is_empty() {
        return "_tool".to_string();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if matches!(name.as_str(), "self" | "super" | "crate" | "_") {
        name.push('_');
    } else if KEYWORDS.contains(&name.as_str()) {
        name.insert_str(0, "r#");
    }
    name
}

/// A Rust type or variant name (ASCII, upper camel case) for a Pascal type or enumeration
/// member name (`bind!`): [`camel_case`] of the ASCII words (as [`rust_identifier`] takes
/// them) with its first letter upper-cased. A name that would be empty or start with a digit gets `V` before it; `Self`
/// gets `_` after it.
///
/// `TPoint` → `TPoint`, `rmUp` → `RmUp`, `set of TColor` → `SetOfTColor`, `HTTPGet` →
/// `HttpGet`.
pub fn rust_type_identifier(name: &str) -> String {
    let camel = camel_case(&ascii_words(name));
    let mut chars = camel.trim_matches('_').chars();
    let mut out: String = chars
        .next()
        .into_iter()
        .flat_map(char::to_uppercase)
        .collect();
    out.push_str(chars.as_str());
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if out == "Self" {
        out.push('_');
    }
    out
}

/// A Cargo package name for a folder or library name: the words of [`rust_identifier`]
/// without `_` at either end, joined by `-`; `lib-` goes before a name that would be empty or
/// start with a digit. `CalcServer` → `calc-server`, `my server 2` → `my-server-2`, `9lives` →
/// `lib-9lives`.
pub fn crate_name(name: &str) -> String {
    let words = snake_case(&ascii_words(name));
    let words = words.trim_matches('_');
    let name = if words.is_empty() || words.starts_with(|c: char| c.is_ascii_digit()) {
        format!("lib_{words}")
    } else {
        words.to_string()
    };
    name.replace('_', "-")
}

/// `name` with every run of characters other than ASCII letters and digits replaced by one `_`.
fn ascii_words(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_mcp_rules() {
        assert!(is_valid_name("calc_scale"));
        assert!(is_valid_name("a.b-c"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("has space"));
        assert!(!is_valid_name(&"x".repeat(129)));
        assert!(!is_valid_name("é"));
    }

    #[test]
    fn rust_type_identifiers() {
        assert_eq!(rust_type_identifier("TPoint"), "TPoint");
        assert_eq!(rust_type_identifier("rmUp"), "RmUp");
        assert_eq!(rust_type_identifier("set of TColor"), "SetOfTColor");
        assert_eq!(rust_type_identifier("HTTPGet"), "HttpGet");
        assert_eq!(rust_type_identifier("2D"), "V2D");
        assert_eq!(rust_type_identifier(""), "V");
        assert_eq!(rust_type_identifier("self"), "Self_");
    }

    #[test]
    fn argument_naming_policies() {
        assert_eq!(camel_case("Query"), "query");
        assert_eq!(camel_case("AllowZero"), "allowZero");
        assert_eq!(camel_case("HTTPGet"), "httpGet");
        assert_eq!(camel_case("first_name"), "firstName");
        assert_eq!(
            ArgumentNaming::parse("snake-case"),
            Some(ArgumentNaming::SnakeCase)
        );
        assert_eq!(
            ArgumentNaming::parse("camelCase"),
            Some(ArgumentNaming::CamelCase)
        );
        assert_eq!(
            ArgumentNaming::parse("as_declared"),
            Some(ArgumentNaming::AsDeclared)
        );
        assert_eq!(ArgumentNaming::parse("kebab"), None);
        assert_eq!(ArgumentNaming::SnakeCase.apply("AllowZero"), "allow_zero");
    }

    #[test]
    fn snake_case_splits_words() {
        assert_eq!(snake_case("Scale"), "scale");
        assert_eq!(snake_case("ScaleValue"), "scale_value");
        assert_eq!(snake_case("HTTPGet"), "http_get");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("GetURLFor2"), "get_url_for2");
        assert_eq!(snake_case("Add2Numbers"), "add2_numbers");
        assert_eq!(snake_case("HTTP2Server"), "http2_server");
        assert_eq!(snake_case("already_snake"), "already_snake");
        assert_eq!(snake_case("ABC"), "abc");
        assert_eq!(snake_case(""), "");
    }

    #[test]
    fn snake_case_keeps_underscores_and_other_characters() {
        assert_eq!(snake_case("_Private"), "_private");
        assert_eq!(snake_case("Get__Value"), "get__value");
        assert_eq!(snake_case("Get_Value"), "get_value");
        assert_eq!(snake_case("Value_"), "value_");
        assert_eq!(snake_case("add-numbers.v2"), "add-numbers.v2");
    }

    #[test]
    fn snake_case_reads_unicode_letters() {
        assert_eq!(snake_case("ÄpfelZählen"), "äpfel_zählen");
        assert_eq!(snake_case("GrößeÄndern"), "größe_ändern");
        assert_eq!(snake_case("ÜBERGröße"), "über_größe");
    }

    #[test]
    fn rust_identifiers_are_ascii_snake_case() {
        assert_eq!(rust_identifier("AllowZero"), "allow_zero");
        assert_eq!(rust_identifier("HTTPServer"), "http_server");
        assert_eq!(rust_identifier("add-numbers.v2"), "add_numbers_v2");
        assert_eq!(rust_identifier("calc_add_integers"), "calc_add_integers");
        assert_eq!(rust_identifier("Get__Value"), "get_value");
        assert_eq!(rust_identifier("_Private"), "_private");
        assert_eq!(rust_identifier("Größe"), "gr_e");
        assert_eq!(rust_identifier("äB"), "_b");
        assert_eq!(rust_identifier("my server 2"), "my_server_2");
    }

    #[test]
    fn rust_identifiers_escape_what_is_not_a_name() {
        assert_eq!(rust_identifier("type"), "r#type");
        assert_eq!(rust_identifier("Type"), "r#type");
        assert_eq!(rust_identifier("gen"), "r#gen");
        assert_eq!(rust_identifier("self"), "self_");
        assert_eq!(rust_identifier("Crate"), "crate_");
        assert_eq!(rust_identifier("_"), "__");
        assert_eq!(rust_identifier("-"), "__");
        assert_eq!(rust_identifier("1st"), "_1st");
        assert_eq!(rust_identifier("2D"), "_2_d");
        assert_eq!(rust_identifier(""), "_tool");
    }

    #[test]
    fn crate_names_are_trimmed_and_hyphenated() {
        assert_eq!(crate_name("CalcServer"), "calc-server");
        assert_eq!(crate_name("calc-server"), "calc-server");
        assert_eq!(crate_name("my-server 2"), "my-server-2");
        assert_eq!(crate_name("HTTPServer"), "http-server");
        assert_eq!(crate_name("_tools_"), "tools");
        assert_eq!(crate_name("9lives"), "lib-9lives");
        assert_eq!(crate_name("Größe"), "gr-e");
    }
}
