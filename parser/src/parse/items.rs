//! The items of sections, structured types read member by member after a failure, routines
//! and their bodies, and where to resume after an error.

use super::driver::{Driver, MAX_NESTING};
use crate::ast::{self, Decl};
use crate::direct::Direct;
use crate::grammar::Rule;
use crate::lower::Lower;
use crate::scan::{self, TokKind};
use crate::tokens::codes::*;
use crate::tree::Members;
use pest::iterators::Pair;

impl<'a> Driver<'a> {
    /// Where to continue after an error in the item that starts at `item_start`: the next
    /// token first on its line that starts a declaration at the item's indentation or less.
    pub(super) fn recover(&self, item_start: usize, after: usize, in_section: bool) -> usize {
        let b = self.bytes();
        let (item_col, _) = scan::column(b, item_start);
        let mut i = after.max(item_start + 1).min(b.len());
        loop {
            let t = self.tok(i);
            if t.kind == TokKind::Eof {
                return b.len();
            }
            i = t.end.max(i + 1);
            if t.kind != TokKind::Word {
                continue;
            }
            let Some(col) = scan::column_if_first(b, t.start) else {
                continue;
            };
            let code = code_of_word(t.text(self.text));
            match code {
                _ if is_unit_part(code) => return t.start,
                K_END if self.tok(t.end).is_punct(self.text, ".") => return t.start,
                _ if is_recovery_point(code) && col <= item_col => return t.start,
                _ if in_section && col == item_col && !is_reserved(code) => {
                    let next = self.tok(t.end);
                    let nt = next.text(self.text);
                    if matches!(nt, "=" | ":" | "<" | ",") {
                        return t.start;
                    }
                }
                _ => {}
            }
        }
    }

    /// Items of a section started by the keyword at `kw_start..kw_end`.
    /// `fallback` gets a second chance at an item that failed as a whole (with the failure's
    /// diagnostics dropped when it takes the item).
    /// `direct` reads an item without the grammar when it can (adding to the items only then).
    fn section_items<T>(
        &mut self,
        kw_end: usize,
        rule: Rule,
        direct: fn(&mut Direct, &mut Vec<T>) -> Option<()>,
        mut lower: impl FnMut(&Lower<'a>, Pair<'a, Rule>, &mut Vec<T>),
        fallback: fn(&mut Self, usize) -> Option<(T, usize)>,
    ) -> (Vec<T>, usize, usize) {
        let mut items = Vec::new();
        let mut pos = kw_end;
        let mut last_end = kw_end;
        loop {
            pos = scan::skip_trivia(self.bytes(), pos);
            if !self.starts_item(pos) {
                break;
            }
            if let Some(((), end)) = self.direct(pos, |d| direct(d, &mut items)) {
                pos = end;
                last_end = end;
                continue;
            }
            let errors_before = self.diags.len();
            match self.item(rule, pos) {
                Ok((pair, base, end)) => {
                    let l = self.lower(base);
                    lower(&l, pair, &mut items);
                    pos = end;
                    last_end = end;
                }
                Err(()) => {
                    let whole_failure = self.diags.split_off(errors_before);
                    if let Some((item, end)) = fallback(self, pos) {
                        items.push(item);
                        pos = end;
                        last_end = end;
                        continue;
                    }
                    self.diags.extend(whole_failure);
                    let next = self.recover(pos, pos, true);
                    last_end = next;
                    pos = next;
                }
            }
        }
        (items, pos, last_end)
    }

    pub(super) fn const_section(
        &mut self,
        start: usize,
        kw_end: usize,
        rs: bool,
    ) -> (Option<Decl>, usize) {
        let (items, pos, last) = self.section_items(
            kw_end,
            Rule::const_decl,
            |d, out| d.const_decl(out),
            |l, p, out| out.push(l.const_decl(p)),
            |_, _| None,
        );
        let span = self.span(start, last);
        (
            Some(Decl::Const(ast::ConstSection {
                resourcestring: rs,
                items,
                span,
            })),
            pos,
        )
    }

    pub(super) fn type_section(&mut self, start: usize, kw_end: usize) -> (Option<Decl>, usize) {
        let (items, pos, last) = self.section_items(
            kw_end,
            Rule::type_decl,
            |d, out| d.type_decl().map(|t| out.push(t)),
            |l, p, out| out.push(l.type_decl(p)),
            Self::structured_by_members,
        );
        let span = self.span(start, last);
        (Some(Decl::Type(ast::TypeSection { items, span })), pos)
    }

    /// Reads a class, record, interface or helper declaration piece by piece after it failed
    /// as a whole: its head, then one member at a time (a bad member is reported and skipped),
    /// then its `end`. `None` when even the head does not parse.
    fn structured_by_members(&mut self, pos: usize) -> Option<(ast::TypeDecl, usize)> {
        let errors_before = self.diags.len();
        let Ok((head, base, mut at)) = self.item(Rule::struct_head, pos) else {
            self.diags.truncate(errors_before);
            return None;
        };
        let mut decl = self.lower(base).type_decl(head);
        let ast::TypeDef::Structured(st) = &mut decl.def else {
            return None;
        };
        let mut members = Members::after(std::mem::take(&mut st.sections));
        loop {
            let t = self.tok(at);
            if t.kind == TokKind::Eof {
                self.error_at(t.start, t.end, "unexpected end of file, expected `end`");
                break;
            }
            if t.is(self.text, "end") {
                at = match self.item(Rule::struct_tail, at) {
                    Ok((_, _, end)) => end,
                    Err(()) => self.recover(pos, t.end, true),
                };
                break;
            }
            match self.item(Rule::member_item, at) {
                Ok((pair, base, end)) => {
                    self.lower(base).members(pair.into_inner(), &mut members);
                    at = end.max(t.end);
                }
                Err(()) => at = self.skip_member(at),
            }
        }
        if let ast::TypeDef::Structured(st) = &mut decl.def {
            st.sections = members.finish();
        }
        decl.span = self.span(pos, at);
        Some((decl, at))
    }

    /// Where the member after a bad one at `pos` starts: after the next `;` outside brackets,
    /// or at a word that starts a line and can only start a member or end the type.
    fn skip_member(&self, pos: usize) -> usize {
        let b = self.bytes();
        let first = self.tok(pos);
        let mut depth = 0usize;
        let mut at = first.end;
        loop {
            let t = self.tok(at);
            if t.kind == TokKind::Eof {
                return t.start;
            }
            match t.text(self.text) {
                "(" | "[" => depth += 1,
                ")" | "]" => depth = depth.saturating_sub(1),
                ";" if depth == 0 => return t.end,
                w if t.kind == TokKind::Word
                    && scan::column_if_first(b, t.start).is_some()
                    && is_member_start(code_of_word(w)) =>
                {
                    return t.start
                }
                _ => {}
            }
            at = t.end.max(at + 1);
        }
    }

    pub(super) fn var_section(
        &mut self,
        start: usize,
        kw_end: usize,
        tv: bool,
    ) -> (Option<Decl>, usize) {
        let (items, pos, last) = self.section_items(
            kw_end,
            Rule::var_decl,
            |d, out| d.var_decl(out),
            |l, p, out| out.extend(l.var_decl(p)),
            |_, _| None,
        );
        let span = self.span(start, last);
        (
            Some(Decl::Var(ast::VarSection {
                threadvar: tv,
                items,
                span,
            })),
            pos,
        )
    }

    // -------------------------------------------------------------------- routines

    pub(super) fn routine(&mut self, with_body: bool, pos: usize) -> (Option<Decl>, usize) {
        let (mut r, end) = match self.direct(pos, |d| d.routine_decl()) {
            Some(read) => read,
            None => match self.item(Rule::routine_decl, pos) {
                Ok((pair, base, end)) => (self.lower(base).routine_decl(pair), end),
                Err(()) => return (None, self.recover(pos, pos, false)),
            },
        };
        let no_body = r.has_directive("forward") || r.has_directive("external");
        if !with_body || no_body {
            r.forward = true;
            return (Some(Decl::Routine(r)), end);
        }
        let body = self.body(end);
        r.nested = body.nested;
        match body.extent {
            Ok((body_start, body_end)) => {
                r.body_span = Some(self.span(body_start, body_end));
                (Some(Decl::Routine(r)), body_end)
            }
            Err(resume) => (Some(Decl::Routine(r)), resume.max(end)),
        }
    }

    /// Reads a routine body from `pos` (after the heading): local sections are skipped,
    /// nested routines are parsed like any routine, and the `begin`/`asm` block is skipped.
    fn body(&mut self, pos: usize) -> Body {
        let body_start = scan::skip_trivia(self.bytes(), pos);
        if self.nesting >= MAX_NESTING {
            self.error_at(body_start, body_start, "routines nested too deeply");
            return Body {
                extent: Err(self.text.len()),
                nested: Vec::new(),
            };
        }
        self.nesting += 1;
        let mut nested = Vec::new();
        let end = self.body_inner(body_start, &mut nested);
        self.nesting -= 1;
        Body {
            extent: end.map(|end| (body_start, end)),
            nested,
        }
    }

    fn body_inner(&mut self, start: usize, nested: &mut Vec<ast::Routine>) -> Result<usize, usize> {
        let mut pos = start;
        loop {
            let t = self.tok(pos);
            let failure = match scan::body_part(self.text, &t) {
                scan::BodyPart::Block => {
                    if let Some(end) = self
                        .index_starting_at(t.start)
                        .and_then(|i| self.toks.block_end(i))
                    {
                        return Ok(end);
                    }
                    match scan::skip_block(self.text, &t) {
                        Ok(end) => return Ok(end),
                        Err(e) => e,
                    }
                }
                scan::BodyPart::Section => {
                    pos = scan::skip_local_section(self.text, t.end);
                    continue;
                }
                scan::BodyPart::Attributes
                    if !is_routine_start(code_of_word(
                        self.tok(scan::skip_brackets(self.text, t.start))
                            .text(self.text),
                    )) =>
                {
                    pos = scan::skip_brackets(self.text, t.start);
                    continue;
                }
                scan::BodyPart::Routine | scan::BodyPart::Attributes => {
                    let (decl, end) = self.routine(true, t.start);
                    if let Some(Decl::Routine(r)) = decl {
                        nested.push(r);
                    }
                    pos = end.max(t.end);
                    continue;
                }
                scan::BodyPart::Unexpected => scan::unexpected_in_body(self.text, &t),
            };
            let (err_start, err_end, message) = failure;
            self.error_at(err_start, err_end, message);
            return Err(self.recover(start, err_end, false));
        }
    }
}

/// What reading a routine body found.
struct Body {
    /// Start and end of the body, or where to resume after an error.
    extent: Result<(usize, usize), usize>,
    /// Routines declared in the body.
    nested: Vec<ast::Routine>,
}
