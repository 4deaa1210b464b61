//! The grammar's errors as diagnostics: where the parse got stuck, what was found and what
//! was expected there, in the words of the grammar's rules and word classes.

use super::driver::{Driver, GRAMMAR};
use crate::diagnostic::Diagnostic;
use crate::grammar::{DelphiParser, Rule};
use crate::scan::{self, TokKind};
use crate::tokens;
use crate::tokens::codes::{code_of_word, is_operator_word};
use pest::Parser as _;
use std::sync::PoisonError;

impl Driver<'_> {
    pub(super) fn syntax_error(
        &mut self,
        rule: Rule,
        base: usize,
        input: &str,
        err: pest::error::Error<Rule>,
    ) {
        // Re-run with detailed attempts to name the expected tokens (only on this error path).
        let detailed = {
            let _alone = GRAMMAR.write().unwrap_or_else(PoisonError::into_inner);
            pest::set_error_detail(true);
            let detailed = DelphiParser::parse(rule, input).err();
            pest::set_error_detail(false);
            detailed
        };
        let err = detailed.unwrap_or(err);
        let attempts = err.parse_attempts();
        // pest places the error at the farthest failed rule; keywords (silent rules) and the
        // tokens behind look-aheads are only among the token attempts, which can reach
        // farther: the error is where the parse got stuck, at the farther of the two.
        let rule_at = match err.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((s, _)) => s,
        };
        let token_at = attempts.as_ref().map_or(0, |a| a.max_position);
        let at = rule_at.max(token_at);
        let pos = self.toks.text_start(base + at);
        let found = scan::token_at(self.bytes(), scan::skip_trivia(self.bytes(), pos));
        let found_text = found.text(self.text);
        let mut expected: Vec<String> = Vec::new();
        let message = match &err.variant {
            pest::error::ErrorVariant::CustomError { message } => {
                format!("syntax error: {message}")
            }
            pest::error::ErrorVariant::ParsingError { positives, .. } => {
                // The rule labels name what was expected at `rule_at`.
                let rules_named = rule_at >= token_at;
                if rules_named {
                    expected.extend(positives.iter().filter_map(|r| rule_label(*r)));
                }
                if let Some(attempts) = &attempts {
                    // Structural punctuation is worth naming; keywords and character classes
                    // are covered by the rule labels when those are about the same place.
                    const PUNCT: &[&str] =
                        &[";", ":", "=", ",", "(", ")", "[", "]", ".", "..", "<", ">"];
                    for t in attempts.expected_tokens() {
                        let t = t.to_string();
                        if let Some(label) = range_label(&t) {
                            expected.push(label.to_string());
                        }
                        // Operators could follow almost any operand: naming them is noise.
                        if let Some(word) = tokens::keyword_text(&t)
                            .filter(|w| !rules_named && !is_operator_word(code_of_word(w)))
                        {
                            expected.push(format!("`{word}`"));
                        }
                        let Some(t) = tokens::punct_text(&t) else {
                            continue;
                        };
                        if PUNCT.contains(&t.as_str()) {
                            expected.push(format!("`{t}`"));
                        }
                    }
                }
                if found.kind == TokKind::Eof {
                    "syntax error: unexpected end of file".to_string()
                } else {
                    format!("syntax error: unexpected `{}`", shorten(found_text))
                }
            }
        };
        // Reserved words that can start a directive (`library` also a hint) are covered by
        // those labels.
        let covered: &[&str] = if expected.iter().any(|e| e == "directive") {
            &["`dependency`", "`framework`", "`library`", "`public`"]
        } else if expected.iter().any(|e| e == "hint directive") {
            &["`library`"]
        } else {
            &[]
        };
        expected.retain(|e| !covered.contains(&e.as_str()));
        // A member declaration covers the ways one can start.
        if expected.iter().any(|e| e == "member declaration") {
            expected.retain(|e| e != "routine heading" && e != "visibility");
        }
        expected.sort();
        expected.dedup();
        expected.truncate(16);
        let start = found.start.min(self.text.len());
        let mut d = Diagnostic::error(
            message,
            Some(self.span(start, found.end.max(start).min(self.text.len()))),
        );
        d.expected = expected;
        self.diags.push(d);
    }
}

/// First line of a token, at most 40 characters.
pub(super) fn shorten(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > 40 {
        let cut: String = line.chars().take(40).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// The label of a word class the grammar matches as a range of codes (`U+028A..U+02BB`), by
/// its first and last word (see SOFT in tokens/keywords.rs); the grammar looks ahead for these before
/// trying the rules, so the rules' own labels are not among the attempts.
fn range_label(token: &str) -> Option<&'static str> {
    let (first, last) = token.split_once("..")?;
    let range = (first.chars().next()?, last.chars().next()?);
    let class = |from: &str, to: &str| range == (tokens::kw(from), tokens::kw(to));
    if class("dispid", "platform") {
        Some("directive")
    } else if class("deprecated", "platform") {
        Some("hint directive")
    } else if class("cdecl", "winapi") {
        Some("calling convention")
    } else if class("add", "index") {
        Some("property specifier")
    } else if class("procedure", "class") || class("generic", "operator") {
        Some("routine heading")
    } else if class("strict", "automated") {
        Some("visibility")
    } else {
        None
    }
}

/// A readable name for a grammar rule in "expected" lists (`None` for internal rules).
fn rule_label(rule: Rule) -> Option<String> {
    let name = format!("{rule:?}");
    if let Some(kw) = name.strip_prefix("kw_") {
        return Some(format!("`{kw}`"));
    }
    let label = match rule {
        Rule::ident | Rule::ident_list | Rule::qualified_ident | Rule::dot_name => "identifier",
        Rule::string_lit | Rule::string_piece => "string",
        Rule::number => "number",
        Rule::expr | Rule::simple_expr | Rule::primary => "expression",
        Rule::type_ref | Rule::named_type | Rule::type_def => "type",
        Rule::directive | Rule::directive_name => "directive",
        Rule::attributes | Rule::attr_list => "attribute",
        Rule::hint | Rule::hint_name => "hint directive",
        Rule::member_item => "member declaration",
        Rule::visibility => "visibility",
        Rule::generic_params => "generic parameters",
        Rule::prop_spec_name => "property specifier",
        Rule::call_conv => "calling convention",
        Rule::param_group => "parameter",
        Rule::const_value => "value",
        Rule::generic_args => "generic arguments",
        Rule::type_decl => "type declaration",
        Rule::const_decl => "constant declaration",
        Rule::var_decl | Rule::field_decl => "field or variable declaration",
        Rule::routine_heading | Rule::routine_decl => "routine heading",
        Rule::property_decl => "property",
        Rule::uses_clause | Rule::used_unit => "unit name",
        Rule::enum_member => "enumeration member",
        Rule::heritage => "ancestor list",
        Rule::result_type => "result type",
        _ => return None,
    };
    Some(label.to_string())
}
