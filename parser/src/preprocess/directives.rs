//! The directives: conditionals, defines, switches and the ones only noted.

use super::env::EvalEnv;
use super::include::fpc_insert_literal;
use super::*;

/// Long names of switch directives and their letters.
const LONG_SWITCHES: &[(&str, u8)] = &[
    ("ALIGN", b'A'),
    ("BOOLEVAL", b'B'),
    ("ASSERTIONS", b'C'),
    ("DEBUGINFO", b'D'),
    ("IMPORTEDDATA", b'G'),
    ("LONGSTRINGS", b'H'),
    ("IOCHECKS", b'I'),
    ("WRITEABLECONST", b'J'),
    ("LOCALSYMBOLS", b'L'),
    ("TYPEINFO", b'M'),
    ("OPTIMIZATION", b'O'),
    ("OPENSTRINGS", b'P'),
    ("OVERFLOWCHECKS", b'Q'),
    ("RANGECHECKS", b'R'),
    ("TYPEDADDRESS", b'T'),
    ("SAFEDIVIDE", b'U'),
    ("VARSTRINGCHECKS", b'V'),
    ("STACKFRAMES", b'W'),
    ("EXTENDEDSYNTAX", b'X'),
    ("REFERENCEINFO", b'Y'),
];

impl Pp<'_> {
    /// Handles one directive of the current file.
    pub(super) fn directive(
        &mut self,
        cursor: &mut Cursor,
        conds: &mut Vec<Cond>,
        depth: usize,
        raw: RawDirective<'_>,
    ) {
        let RawDirective {
            b,
            start,
            end,
            body,
        } = raw;
        let active = conds.last().is_none_or(|c| c.active);
        self.emit(b, cursor.emitted, start, active);
        cursor.emitted = end;
        let span = Span {
            file: cursor.file,
            start: start as u32,
            end: end as u32,
        };
        let Some(body) = body else {
            blank(&mut self.out, &b[start..end]);
            self.diagnostics.push(
                Diagnostic::error("unterminated directive: no closing brace", Some(span))
                    .with_help("close the directive with `}` (or `*)` after `(*$`)"),
            );
            return;
        };
        let name_len = body
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        let name = body[..name_len].to_ascii_uppercase();
        let argument = &body[name_len..];

        // Include directives splice text instead of blanking; everything else is blanked.
        let is_include = (name == "I" || name == "INCLUDE")
            && active
            && !argument.starts_with(['+', '-'])
            && !argument.trim().is_empty();
        if is_include && self.include(cursor, depth, span, argument.trim()) {
            return;
        }
        if is_include {
            // Not spliced: `{$I %DATE%}` and friends become a string literal in place, other
            // failures (already reported) leave blanks.
            let written = self.out.len();
            blank(&mut self.out, &b[start..end]);
            if let Some(literal) = fpc_insert_literal(argument.trim(), end - start) {
                let place = &mut self.out[written..written + literal.len()];
                // Only over blanks, so line breaks inside the directive stay where they were.
                if place.iter().all(|&c| c == b' ') {
                    place.copy_from_slice(literal.as_bytes());
                }
            }
            return;
        }
        blank(&mut self.out, &b[start..end]);

        match name.as_str() {
            "IFDEF" | "IFNDEF" => {
                let opener = if name == "IFDEF" { "IFDEF" } else { "IFNDEF" };
                let value = active && {
                    match first_symbol(argument) {
                        Some(symbol) => self.is_defined(symbol) == (opener == "IFDEF"),
                        None => {
                            self.diagnostics.push(Diagnostic::error(
                                format!("expected a symbol name after `{{${opener}}}`"),
                                Some(span),
                            ));
                            false
                        }
                    }
                };
                conds.push(Cond::new(active, value, span, opener));
            }
            "IFOPT" => {
                let value = active && self.ifopt(argument, span);
                conds.push(Cond::new(active, value, span, "IFOPT"));
            }
            "IF" => {
                let value = active && self.evaluate(argument, span, "IF");
                conds.push(Cond::new(active, value, span, "IF"));
            }
            "ELSEIF" => {
                let Some(cond) = conds.last_mut() else {
                    return self.stray(span, "ELSEIF");
                };
                if cond.else_seen {
                    self.diagnostics.push(
                        Diagnostic::error("`{$ELSEIF}` after `{$ELSE}`", Some(span))
                            .with_label(cond.span, "in the block opened here"),
                    );
                }
                if cond.taken || !cond.parent_active {
                    cond.active = false;
                } else {
                    let value = self.evaluate(argument, span, "ELSEIF");
                    if let Some(cond) = conds.last_mut() {
                        cond.active = value;
                        cond.taken = value;
                    }
                }
            }
            "ELSE" => {
                let Some(cond) = conds.last_mut() else {
                    return self.stray(span, "ELSE");
                };
                if cond.else_seen {
                    let opened = cond.span;
                    self.diagnostics.push(
                        Diagnostic::error("second `{$ELSE}` in one block", Some(span))
                            .with_label(opened, "block opened here"),
                    );
                }
                cond.else_seen = true;
                cond.active = cond.parent_active && !cond.taken;
                cond.taken = true;
            }
            "ENDIF" | "IFEND" => {
                if conds.pop().is_none() {
                    self.stray(span, if name == "ENDIF" { "ENDIF" } else { "IFEND" });
                }
            }
            _ if !active => {}
            "DEFINE" => match first_symbol(argument) {
                Some(symbol) => {
                    self.defines.insert(symbol.to_ascii_uppercase());
                }
                None => self.diagnostics.push(Diagnostic::error(
                    "expected a symbol name after `{$DEFINE}`",
                    Some(span),
                )),
            },
            "UNDEF" => match first_symbol(argument) {
                Some(symbol) => {
                    self.defines.remove(&symbol.to_ascii_uppercase());
                }
                None => self.diagnostics.push(Diagnostic::error(
                    "expected a symbol name after `{$UNDEF}`",
                    Some(span),
                )),
            },
            _ => self.other_directive(name, argument, span),
        }
    }

    fn stray(&mut self, span: Span, name: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                format!("`{{${name}}}` without `{{$IF}}`"),
                Some(span),
            )
            .with_help("every `{$ELSE}`/`{$ELSEIF}`/`{$ENDIF}` needs an open `{$IF}`, `{$IFDEF}`, `{$IFNDEF}` or `{$IFOPT}` in the same file"),
        );
    }

    pub(super) fn is_defined(&self, symbol: &str) -> bool {
        if symbol.bytes().any(|c| c.is_ascii_lowercase()) {
            self.defines.contains(&symbol.to_ascii_uppercase())
        } else {
            self.defines.contains(symbol)
        }
    }

    /// `{$IFOPT X+}` / `{$IFOPT X-}`.
    fn ifopt(&mut self, argument: &str, span: Span) -> bool {
        let arg = argument.trim().as_bytes();
        match arg {
            [letter, sign, ..] if letter.is_ascii_alphabetic() && matches!(sign, b'+' | b'-') => {
                let index = (letter.to_ascii_uppercase() - b'A') as usize;
                self.switches[index] == (*sign == b'+')
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error("expected a switch like `R+` after `{$IFOPT}`", Some(span))
                        .with_help("`{$IFOPT}` tests one switch letter followed by `+` or `-`"),
                );
                false
            }
        }
    }

    fn evaluate(&mut self, argument: &str, span: Span, name: &str) -> bool {
        let mut env = EvalEnv { pp: self };
        match expr::evaluate_lenient(argument, &mut env) {
            Ok((value, None)) => value.truthy(),
            Ok((value, Some(message))) => {
                self.diagnostics.push(
                    Diagnostic::warning(
                        format!("`{{${name}}}` expression has extra text: {message}"),
                        Some(span),
                    )
                    .with_help("the compilers ignore it; the condition is evaluated without it"),
                );
                value.truthy()
            }
            Err(message) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        format!("malformed `{{${name}}}` expression: {message}"),
                        Some(span),
                    )
                    .with_help(
                        "conditions use Defined(X), Declared(X), constants, numbers, strings, \
                         comparisons, and/or/not and parentheses",
                    ),
                );
                false
            }
        }
    }

    /// A directive without effect on the text: switches are tracked for `{$IFOPT}`, FPC's
    /// `{$MODE}` defines its `FPC_<MODE>` symbol, and the directive is noted.
    fn other_directive(&mut self, name: String, argument: &str, span: Span) {
        let arg = argument.trim();
        if name.len() == 1 && arg.starts_with(['+', '-']) {
            // `{$R+}` or a list `{$R+,Q-}`: the name is the first letter.
            let list = format!("{name}{arg}");
            for item in list.split(',') {
                let item = item.trim().as_bytes();
                if let [letter, sign, ..] = item {
                    if letter.is_ascii_alphabetic() && matches!(sign, b'+' | b'-') {
                        self.switches[(letter.to_ascii_uppercase() - b'A') as usize] =
                            *sign == b'+';
                    }
                }
            }
        } else if let Some(&(_, letter)) = LONG_SWITCHES.iter().find(|(long, _)| *long == name) {
            let value = first_ident(arg).map(str::to_ascii_uppercase);
            match value.as_deref() {
                Some("ON") => self.switches[(letter - b'A') as usize] = true,
                Some("OFF") => self.switches[(letter - b'A') as usize] = false,
                _ => {}
            }
        } else if name == "MODE" && self.setup.target.compiler == Compiler::Fpc {
            if let Some(mode) = first_ident(arg) {
                let mode = mode.to_ascii_uppercase();
                self.nested_comments = matches!(mode.as_str(), "FPC" | "OBJFPC");
                if mode == "DELPHI" || mode == "DELPHIUNICODE" {
                    self.switches[(b'H' - b'A') as usize] = true;
                }
                self.defines.insert(format!("FPC_{mode}"));
            }
        }
        self.directives.push(Directive {
            name,
            argument: arg.to_string(),
            span,
        });
    }
}

impl Cond {
    fn new(parent_active: bool, value: bool, span: Span, opener: &'static str) -> Self {
        Self {
            parent_active,
            taken: value,
            active: value,
            else_seen: false,
            span,
            opener,
        }
    }
}
