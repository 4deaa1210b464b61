//! An upper bound on how deep the grammar can recurse over a token string.

use super::word_code;
use super::{code_at, kw, Tokens, CODE_WIDTH, OTHER};

/// What a token does to the nesting the grammar recurses on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nesting {
    Open,
    Close,
    AngleOpen,
    AngleClose,
    Semicolon,
    /// `record`, `object`: a structured type that ends with `end`.
    Struct,
    /// `class`, `interface`, `dispinterface`: a structured type after `=` (else a section
    /// keyword, a forward declaration's start or a class method's prefix).
    StructAfterEquals,
    End,
    /// Prefixes the grammar recurses on until the next `;`: `array of`, `set of`,
    /// `class of`, `type`, `function:` result chains, ...
    Chain,
    /// `+`, `-`, `@`, `^`: recursion (unary operator, pointer type) only when no operand
    /// comes before; after one they are binary operators or a dereference, read in a loop.
    Prefix,
    Other,
}

fn nesting_of(c: char) -> Nesting {
    const STRUCT: [char; 2] = [kw("record"), kw("object")];
    const STRUCT_AFTER_EQUALS: [char; 3] = [kw("class"), kw("interface"), kw("dispinterface")];
    const CHAIN: [char; 13] = [
        kw("not"),
        kw("array"),
        kw("set"),
        kw("file"),
        kw("of"),
        kw("type"),
        kw("packed"),
        kw("bitpacked"),
        kw("specialize"),
        kw("reference"),
        kw("procedure"),
        kw("function"),
        kw("inherited"),
    ];
    match c as u32 {
        0x128 | 0x15B => Nesting::Open,
        0x129 | 0x15D => Nesting::Close,
        0x13C => Nesting::AngleOpen,
        0x13E => Nesting::AngleClose,
        0x13B => Nesting::Semicolon,
        0x12B | 0x12D | 0x140 | 0x15E => Nesting::Prefix,
        0x13A => Nesting::Chain,
        _ if STRUCT.contains(&c) => Nesting::Struct,
        _ if STRUCT_AFTER_EQUALS.contains(&c) => Nesting::StructAfterEquals,
        _ if c == kw("end") => Nesting::End,
        _ if CHAIN.contains(&c) => Nesting::Chain,
        _ => Nesting::Other,
    }
}

/// True for a token after which `+`, `-`, `@` or `^` cannot be a prefix: a name, a literal,
/// a closing bracket or a dereference.
fn ends_operand(c: char) -> bool {
    matches!(c as u32, 0x190..=0x192 | 0x129 | 0x15D | 0x15E | 0x280..=0x2FF)
}

/// An upper bound on how deep the grammar can recurse over these tokens (brackets, nested
/// structured types and prefix chains added up), used to keep pest's recursion within the
/// native stack. It may overestimate (comparisons look like generic brackets until the next
/// `;`), never underestimate.
pub(crate) fn nesting_bound(toks: &Tokens) -> usize {
    static TABLE: std::sync::OnceLock<Vec<Nesting>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0u32..0x300)
            .map(|c| char::from_u32(c).map_or(Nesting::Other, nesting_of))
            .collect()
    });
    let equals = char::from_u32(0x13D).unwrap_or(OTHER);
    let of = word_code("of");
    let object = word_code("object");
    let (packed, bitpacked) = (word_code("packed"), word_code("bitpacked"));
    let (mut angles, mut structs) = (0usize, 0usize);
    // Prefix chains per bracket level (a `,` or `;` ends the chain of its level only): their
    // sum and the bracket depth are what the grammar recurses on.
    let mut chains: Vec<usize> = vec![0];
    let mut chain_sum = 0usize;
    let comma = char::from_u32(0x12C).unwrap_or(OTHER);
    let mut worst = 0;
    let mut previous = OTHER;
    let mut previous_was_prefix = false;
    for offset in (0..toks.code.len()).step_by(CODE_WIDTH) {
        let code = code_at(&toks.code, offset);
        let c = char::from_u32(code).unwrap_or(OTHER);
        let kind = table.get(code as usize).copied().unwrap_or(Nesting::Other);
        let mut grow = 0;
        match kind {
            Nesting::Open => chains.push(0),
            Nesting::Close => {
                if chains.len() > 1 {
                    chain_sum -= chains.pop().unwrap_or(0);
                }
            }
            Nesting::AngleOpen => angles += 1,
            Nesting::AngleClose => angles = angles.saturating_sub(1),
            Nesting::Semicolon => {
                angles = 0;
                if let Some(top) = chains.last_mut() {
                    chain_sum -= *top;
                    *top = 0;
                }
            }
            Nesting::Struct if !(c == object && previous == of) => structs += 1,
            Nesting::StructAfterEquals
                if previous == equals || previous == packed || previous == bitpacked =>
            {
                structs += 1
            }
            Nesting::End => structs = structs.saturating_sub(1),
            // `^^T`: a `^` after a prefix `^` is a prefix too
            Nesting::Prefix if !ends_operand(previous) || previous_was_prefix => grow = 1,
            Nesting::Chain | Nesting::Struct | Nesting::StructAfterEquals => grow = 1,
            Nesting::Prefix | Nesting::Other => {
                if c == comma {
                    if let Some(top) = chains.last_mut() {
                        chain_sum -= *top;
                        *top = 0;
                    }
                }
            }
        }
        if grow > 0 {
            if let Some(top) = chains.last_mut() {
                *top += grow;
                chain_sum += grow;
            }
        }
        worst = worst.max(chains.len() - 1 + angles + structs + chain_sum);
        previous_was_prefix = kind == Nesting::Prefix && grow > 0;
        previous = c;
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::lex;

    #[test]
    fn nesting_bound_follows_recursion_not_length() {
        let bound = |text: &str| nesting_bound(&lex(text));
        // long but flat: a data table, a concatenation, a class with many members
        let table = format!(
            "const T: array[0..999] of Integer = ({}0);",
            "-1, ".repeat(999)
        );
        assert!(bound(&table) < 10, "{}", bound(&table));
        let concat = format!("const S = {}'x';", "'a' + ".repeat(999));
        assert!(bound(&concat) < 10);
        let class = format!(
            "type T = class {} end;",
            "class procedure P; class function F: Integer; ".repeat(500)
        );
        assert!(bound(&class) < 10, "{}", bound(&class));
        // deep: each of these recurses in the grammar
        assert!(bound(&format!("const X = {}1;", "- not ".repeat(300))) >= 600);
        assert!(
            bound(&format!(
                "type T = {}Byte;",
                "array[0..1, 2..3] of ".repeat(300)
            )) >= 600
        );
        assert!(bound(&format!("type T = {}Integer;", "^".repeat(300))) >= 300);
        assert!(bound(&"record A: ".repeat(300)) >= 300);
    }
}
