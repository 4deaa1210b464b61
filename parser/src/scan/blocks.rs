//! Skipping by block structure: routine bodies, `asm` blocks, statements up to the `end` that
//! closes them, bracketed lists and local sections, on top of the token scanner of [`super`].

use super::*;

pub(crate) fn skip_asm(text: &str, mut i: usize) -> Option<usize> {
    let b = text.as_bytes();
    loop {
        i = skip_trivia(b, i);
        let t = token_mode(b, i, true);
        match t.kind {
            TokKind::Eof => return None,
            // `@@End:` and `JMP @End` are labels, not the block's end
            TokKind::Word if t.is(text, "end") && (t.start == 0 || b[t.start - 1] != b'@') => {
                return Some(t.end)
            }
            _ => i = t.end.max(i + 1),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Opener {
    Block,
    Record,
}

/// How a statement sequence ended.
pub(crate) enum StmtEnd {
    /// At this `end` (start offset) with no open block, or at `finalization`.
    Stop(Tok),
    /// Ran out of text.
    Eof,
}

/// Skips statements from `i` until an `end` or `finalization` that closes nothing opened
/// here (begin/case/try/asm/record are counted; `case` inside a `record` shares its `end`).
/// With `open_blocks = 1` this skips the rest of a `begin` block and returns its `end`.
pub(crate) fn skip_statements(text: &str, i: usize, open_blocks: usize) -> StmtEnd {
    skip_statements_noting::<false>(text, i, open_blocks, None)
}

/// Where the `begin` blocks met by a scan end: the start of each `begin` → its closing `end`, or
/// `None` when the block runs to the end of the text. A scan that fails is run once more noting
/// this, so that the `begin`s inside the failed block are answered from it rather than each
/// scanned to the end of the text again (many unclosed `begin`s were quadratic).
pub(crate) type BlockEnds = std::collections::HashMap<usize, Option<Tok>>;

/// Position of an opener that is not a `begin` in the stack of [`skip_statements_noting`].
const NOT_BEGIN: usize = usize::MAX;

/// [`skip_statements`]; with `NOTE`, also fills `ends` (a separate instance, so that the common
/// scan pays nothing for it).
fn skip_statements_noting<const NOTE: bool>(
    text: &str,
    mut i: usize,
    open_blocks: usize,
    mut ends: Option<&mut BlockEnds>,
) -> StmtEnd {
    let b = text.as_bytes();
    let mut stack: Vec<Opener> = vec![Opener::Block; open_blocks];
    // With NOTE: where each opener of `stack` starts (NOT_BEGIN for all but `begin`).
    let mut opened: Vec<usize> = if NOTE {
        vec![NOT_BEGIN; open_blocks]
    } else {
        Vec::new()
    };
    let mut after_dot = false;
    loop {
        // A plain ASCII name that cannot be a block keyword is passed over here, without the
        // general tokenizer.
        i = skip_blanks(b, i);
        match b.get(i) {
            Some(&c) if c.is_ascii_alphabetic() || c == b'_' => {
                let end = ident_end(b, i + 1);
                if !may_open_or_close(end - i, c) {
                    i = end;
                    after_dot = false;
                    continue;
                }
            }
            // punctuation that starts no comment, string or dotted name, taken one byte at a
            // time (`:=` as `:` and `=` makes no difference here)
            Some(
                b';' | b')' | b',' | b'=' | b'+' | b'-' | b'[' | b']' | b':' | b'<' | b'>' | b'*'
                | b'^' | b'@',
            ) => {
                i += 1;
                after_dot = false;
                continue;
            }
            // calls, member access, strings and numbers, as `token_at` would read them
            Some(b'(') if b.get(i + 1) != Some(&b'*') => {
                i += 1;
                after_dot = false;
                continue;
            }
            Some(b'.') => {
                after_dot = b.get(i + 1) != Some(&b'.');
                i += if after_dot { 1 } else { 2 };
                continue;
            }
            Some(b'\'') => {
                i = string_end(b, i).max(i + 1);
                after_dot = false;
                continue;
            }
            Some(b'0'..=b'9') => {
                i = number_end(b, i);
                after_dot = false;
                continue;
            }
            _ => {}
        }
        i = skip_trivia(b, i);
        let t = token_at(b, i);
        i = t.end.max(i + 1);
        match t.kind {
            TokKind::Eof => {
                if let (true, Some(ends)) = (NOTE, ends.as_deref_mut()) {
                    for &at in opened.iter().filter(|&&at| at != NOT_BEGIN) {
                        ends.insert(at, None);
                    }
                }
                return StmtEnd::Eof;
            }
            // Only words of these lengths open or close blocks: most names are passed over
            // without a comparison.
            TokKind::Word
                if !after_dot && b[t.start] != b'&' && matches!(t.end - t.start, 3..=6 | 12) =>
            {
                let w = t.text(text);
                if w.eq_ignore_ascii_case("end") {
                    if stack.pop().is_none() {
                        return StmtEnd::Stop(t);
                    }
                    if let (true, Some(at), Some(ends)) = (NOTE, opened.pop(), ends.as_deref_mut())
                    {
                        if at != NOT_BEGIN {
                            ends.insert(at, Some(t));
                        }
                    }
                    if stack.is_empty() && open_blocks > 0 {
                        return StmtEnd::Stop(t);
                    }
                } else if w.eq_ignore_ascii_case("begin") || w.eq_ignore_ascii_case("try") {
                    stack.push(Opener::Block);
                    if NOTE {
                        let begin = t.end - t.start == 5;
                        opened.push(if begin { t.start } else { NOT_BEGIN });
                    }
                } else if w.eq_ignore_ascii_case("case") {
                    if stack.last() != Some(&Opener::Record) {
                        stack.push(Opener::Block);
                        if NOTE {
                            opened.push(NOT_BEGIN);
                        }
                    }
                } else if w.eq_ignore_ascii_case("record") {
                    stack.push(Opener::Record);
                    if NOTE {
                        opened.push(NOT_BEGIN);
                    }
                } else if w.eq_ignore_ascii_case("asm") {
                    match skip_asm(text, t.end) {
                        Some(end) => i = end,
                        None => return StmtEnd::Eof,
                    }
                } else if stack.is_empty() && w.eq_ignore_ascii_case("finalization") {
                    return StmtEnd::Stop(t);
                }
            }
            _ => {}
        }
        after_dot = t.kind == TokKind::Punct && t.text(text) == ".";
    }
}

/// True when a word of `len` bytes starting with `first` could be one of the words that open or
/// close blocks in statements (`end`, `try`, `asm`, `case`, `begin`, `record`, `finalization`):
/// most names are passed over on their length and first letter alone.
fn may_open_or_close(len: usize, first: u8) -> bool {
    matches!(
        (len, first | 0x20),
        (3, b'e' | b't' | b'a') | (4, b'c') | (5, b'b') | (6, b'r') | (12, b'f')
    )
}

/// Skips balanced `[...]` groups from `i` (attribute lists) and returns the position after them.
pub(crate) fn skip_brackets(text: &str, mut i: usize) -> usize {
    let b = text.as_bytes();
    loop {
        i = skip_trivia(b, i);
        if b.get(i) != Some(&b'[') {
            return i;
        }
        let mut depth = 0usize;
        loop {
            let t = token_at(b, i);
            match t.kind {
                TokKind::Eof => return t.start,
                TokKind::Punct if t.text(text) == "[" => depth += 1,
                TokKind::Punct if t.text(text) == "]" => depth = depth.saturating_sub(1),
                _ => {}
            }
            i = skip_trivia(b, t.end.max(i + 1));
            if depth == 0 {
                break;
            }
        }
    }
}

/// Why skipping a body failed: position and message.
pub(crate) type SkipError = (usize, usize, String);

/// What a token starts in the part of a routine body before its block.
pub(crate) enum BodyPart {
    /// `begin` or `asm`: the statement block that ends the body.
    Block,
    /// `var`, `const`, `type`, `label`, ...: a local section.
    Section,
    /// A nested routine (`procedure`, `class function`, ...).
    Routine,
    /// `[`: attributes before a nested routine.
    Attributes,
    /// Anything else (including the end of the file): an error.
    Unexpected,
}

pub(crate) fn body_part(text: &str, t: &Tok) -> BodyPart {
    match t.kind {
        TokKind::Word => match code_of_word(t.text(text)) {
            K_BEGIN | K_ASM => BodyPart::Block,
            code if is_local_section(code) => BodyPart::Section,
            code if is_nested_routine_kind(code) => BodyPart::Routine,
            // `class function` and the like, not `class constructor`
            K_CLASS => {
                let next = next_token(text.as_bytes(), t.end);
                let kind = match next.kind {
                    TokKind::Word => code_of_word(next.text(text)),
                    _ => C_IDENT,
                };
                if matches!(kind, K_PROCEDURE | K_FUNCTION | K_OPERATOR) {
                    BodyPart::Routine
                } else {
                    BodyPart::Unexpected
                }
            }
            _ => BodyPart::Unexpected,
        },
        TokKind::Punct if t.is_punct(text, "[") => BodyPart::Attributes,
        _ => BodyPart::Unexpected,
    }
}

/// The error for a token that cannot start anything in a routine body.
pub(crate) fn unexpected_in_body(text: &str, t: &Tok) -> SkipError {
    if t.kind == TokKind::Eof {
        return (
            t.start,
            t.end,
            "unexpected end of file, expected a routine body".into(),
        );
    }
    (
        t.start,
        t.end,
        format!(
            "syntax error: unexpected `{}`, expected `begin` or a local declaration",
            t.text(text).lines().next().unwrap_or("")
        ),
    )
}

/// Skips the `begin ... end` or `asm ... end` block at `t` and the `;` after it.
pub(crate) fn skip_block(text: &str, t: &Tok) -> Result<usize, SkipError> {
    skip_block_noting(text, t, None)
}

/// [`skip_block`], answering from `ends` when an earlier failed scan passed over this `begin`,
/// and noting in it where the `begin`s of a block that fails end.
pub(crate) fn skip_block_noting(
    text: &str,
    t: &Tok,
    ends: Option<&mut BlockEnds>,
) -> Result<usize, SkipError> {
    if t.is(text, "asm") {
        return match skip_asm(text, t.end) {
            Some(end) => Ok(after_semicolon(text, end)),
            None => Err((t.start, t.end, "this `asm` has no matching `end`".into())),
        };
    }
    let known = ends
        .as_deref()
        .filter(|ends| !ends.is_empty())
        .and_then(|ends| ends.get(&t.start).copied());
    let outcome = match known {
        Some(Some(end)) => StmtEnd::Stop(end),
        Some(None) => StmtEnd::Eof,
        None => skip_statements(text, t.end, 1),
    };
    let result = block_outcome(text, t, outcome);
    if let (Err(_), None, Some(ends)) = (&result, known, ends) {
        // From the `begin` itself, so that it is noted with the blocks inside it.
        skip_statements_noting::<true>(text, t.start, 0, Some(ends));
    }
    result
}

fn block_outcome(text: &str, t: &Tok, outcome: StmtEnd) -> Result<usize, SkipError> {
    let b = text.as_bytes();
    match outcome {
        // the block swallowed the unit's final `end.`: an `end` is missing inside
        StmtEnd::Stop(end) if next_token(b, end.end).is_punct(text, ".") => Err((
            t.start,
            t.end,
            "this `begin` has no matching `end` (the block runs into the final `end.`)".into(),
        )),
        StmtEnd::Stop(end) => Ok(after_semicolon(text, end.end)),
        StmtEnd::Eof => Err((t.start, t.end, "this `begin` has no matching `end`".into())),
    }
}

fn after_semicolon(text: &str, end: usize) -> usize {
    let t = next_token(text.as_bytes(), end);
    if t.is_punct(text, ";") {
        t.end
    } else {
        end
    }
}

/// Skips the items of a local `var`/`const`/`type`/`label` section: up to the next token at
/// bracket depth 0 that starts a block, a section or a nested routine (`procedure` right
/// after a `;`; after `:` or `=` it is a procedural type).
pub(crate) fn skip_local_section(text: &str, mut pos: usize) -> usize {
    let b = text.as_bytes();
    let mut parens = 0usize;
    let mut records = 0usize;
    let mut prev_semicolon = true;
    loop {
        let t = next_token(b, pos);
        match t.kind {
            TokKind::Eof => return t.start,
            TokKind::Punct => match t.text(text) {
                "(" | "[" => parens += 1,
                ")" | "]" => parens = parens.saturating_sub(1),
                _ => {}
            },
            TokKind::Word if parens == 0 => {
                let w = t.text(text);
                if w.eq_ignore_ascii_case("record") || w.eq_ignore_ascii_case("object") {
                    if w.eq_ignore_ascii_case("record") || !prev_is_of(text, t.start) {
                        records += 1;
                    }
                } else if w.eq_ignore_ascii_case("end") {
                    records = records.saturating_sub(1);
                } else if records == 0 {
                    let code = code_of_word(w);
                    if matches!(code, K_BEGIN | K_ASM) || is_local_section(code) {
                        return t.start;
                    }
                    // `procedure` ... `class`
                    if prev_semicolon && (K_PROCEDURE..=K_CLASS).contains(&code) {
                        return t.start;
                    }
                }
            }
            _ => {}
        }
        prev_semicolon = t.is_punct(text, ";");
        pos = t.end.max(pos + 1);
    }
}

fn prev_is_of(text: &str, start: usize) -> bool {
    // Bytes, not `str` slices: the two bytes before may end inside a multi-byte character.
    let before = text[..start].trim_end().as_bytes();
    before.len() >= 2
        && before[before.len() - 2..].eq_ignore_ascii_case(b"of")
        && !before[..before.len() - 2]
            .last()
            .is_some_and(|&b| is_ident_char(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_before_a_token_is_read_as_bytes() {
        // Found by the parse_unit fuzz target: a multi-byte character just before the token
        // made the two-byte look-back slice a `str` inside that character.
        assert!(!prev_is_of("x\u{FFFD} y", "x\u{FFFD} ".len()));
        assert!(!prev_is_of("\u{E9} y", "\u{E9} ".len()));
        assert!(prev_is_of("set of y", "set of ".len()));
        assert!(!prev_is_of("setof y", "setof ".len()));
        let mut ends = BlockEnds::new();
        let src = "begin case x of \u{FFFD} record end";
        let t = token_at(src.as_bytes(), 0);
        let _ = skip_block_noting(src, &t, Some(&mut ends));
    }

    #[test]
    fn noted_block_ends_answer_as_a_fresh_scan_would() {
        // After one failed scan, every `begin` inside is answered from the notes; each answer
        // must be the one a scan from that `begin` gives.
        for src in [
            "begin begin begin x end; begin try y finally end; end",
            "begin begin end; case x of 1: begin end; end; begin record a: Integer; end end. ",
            "begin asm mov eax, 1 end; begin begin end end end.",
            "begin begin begin begin",
        ] {
            let b = src.as_bytes();
            let first = token_at(b, 0);
            let mut ends = BlockEnds::new();
            assert!(
                skip_block_noting(src, &first, Some(&mut ends)).is_err(),
                "{src}"
            );
            let mut at = 0;
            while let Some(found) = src[at..].find("begin") {
                let t = token_at(b, at + found);
                assert!(
                    ends.contains_key(&t.start),
                    "{src}: begin at {} not noted",
                    t.start
                );
                let noted = skip_block_noting(src, &t, Some(&mut ends));
                assert_eq!(noted, skip_block(src, &t), "{src}: begin at {}", t.start);
                at = t.end;
            }
        }
    }

    #[test]
    fn skips_nested_blocks_strings_and_comments() {
        let src = "begin case x of 1: ; end; s := 'end'; { end } try asm jmp @@end; mov eax, 1; @@End: end; finally end; end; X";
        match skip_statements(src, 5, 1) {
            StmtEnd::Stop(t) => assert_eq!(&src[t.end..], "; X"),
            StmtEnd::Eof => panic!("block not closed"),
        }
    }
}
