//! Builders of the syntax tree shared by the two readers of an item: the lowering of pest
//! pairs ([`crate::lower`]) and the direct reader ([`crate::direct`]). Both see an item through
//! an [`ItemSource`] and build its nodes with the functions here, so they cannot differ in how a
//! text is normalized, a span mapped or a group of names spread into nodes.

use crate::ast::*;
use crate::doc;
use crate::preprocess::Preprocessed;
use crate::span::Span;
use crate::tokens::codes::{K_AUTOMATED, K_PRIVATE, K_PROTECTED, K_PUBLIC, K_PUBLISHED};
use crate::tokens::{Tokens, CODE_WIDTH};

/// One item of the token string as a reader sees it: positions are byte offsets in the token
/// string from the item's first token (`base`), mapped back to the preprocessed text.
pub(crate) struct ItemSource<'a> {
    pub pp: &'a Preprocessed,
    /// The preprocessed text's tokens.
    pub toks: &'a Tokens,
    /// Byte offset in the token string where the item's input starts.
    pub base: usize,
}

impl<'a> ItemSource<'a> {
    /// The source span of the tokens at `start..end` of the item's input.
    pub(crate) fn span_of(&self, start: usize, end: usize) -> Span {
        let (from, to) = self.toks.text_range(self.base + start, self.base + end);
        self.pp.span(from, to)
    }

    /// The source text of the tokens at `start..end` of the item's input.
    pub(crate) fn text_of(&self, start: usize, end: usize) -> &'a str {
        let (from, to) = self.toks.text_range(self.base + start, self.base + end);
        self.pp.text.get(from..to).unwrap_or("")
    }

    /// The value of the string literal at `start..end` of the item's input.
    pub(crate) fn string_value_of(&self, start: usize, end: usize) -> Text {
        // the pieces are the string literal's tokens (one code each)
        let pieces = (start..end)
            .step_by(CODE_WIDTH)
            .map(|at| self.text_of(at, at + CODE_WIDTH));
        string_pieces_value(pieces)
    }

    /// The `///` comment before the token at `start` of the item's input.
    pub(crate) fn doc_at(&self, start: usize) -> Option<Box<DocComment>> {
        if !self.toks.may_be_documented(self.base + start) {
            return None;
        }
        doc::doc_before(self.pp, self.toks.text_start(self.base + start)).map(Box::new)
    }

    /// The names of the `ident_list` at `start..end` of the item's input (every other token),
    /// with their spans.
    pub(crate) fn names_at(
        &self,
        start: usize,
        end: usize,
    ) -> impl Iterator<Item = (Text, Span)> + '_ {
        (start..end).step_by(2 * CODE_WIDTH).map(|at| {
            (
                strip_amp(self.text_of(at, at + CODE_WIDTH)),
                self.span_of(at, at + CODE_WIDTH),
            )
        })
    }
}

/// The members of a structured type as they are lowered, part by part.
pub(crate) struct Members {
    /// Finished visibility sections.
    sections: Vec<MemberSection>,
    /// The section being filled.
    current: MemberSection,
    /// Attributes waiting for the member they belong to.
    pending: Vec<Attribute>,
    /// Where the latest attributes start, until the member part after them takes it (its doc
    /// comment is before them).
    attr_start: Option<usize>,
}

impl Default for Members {
    fn default() -> Self {
        Self {
            sections: Vec::new(),
            current: MemberSection {
                visibility: Visibility::Default,
                members: Vec::new(),
            },
            pending: Vec::new(),
            attr_start: None,
        }
    }
}

impl Members {
    /// Members that continue `sections`.
    pub(crate) fn after(sections: Vec<MemberSection>) -> Self {
        Self {
            sections,
            ..Self::default()
        }
    }

    /// The sections, the last one included when it has members or a visibility word.
    pub(crate) fn finish(mut self) -> Vec<MemberSection> {
        if !self.current.members.is_empty() || self.current.visibility != Visibility::Default {
            self.sections.push(self.current);
        }
        self.sections
    }

    /// Attributes at `start` of the item's input, waiting for the member after them.
    pub(crate) fn attributes(&mut self, start: usize, attributes: Vec<Attribute>) {
        self.attr_start = Some(start);
        self.pending.extend(attributes);
    }

    /// Where the member part at `start` begins: at its attributes, when it has some (its doc
    /// comment is before them).
    pub(crate) fn member_start(&mut self, start: usize) -> usize {
        self.attr_start.take().unwrap_or(start)
    }

    /// The attributes waiting for a member, for the member that takes them.
    pub(crate) fn take_pending(&mut self) -> Vec<Attribute> {
        std::mem::take(&mut self.pending)
    }

    /// Adds a member to the current section.
    pub(crate) fn push(&mut self, member: Member) {
        self.current.members.push(member);
    }

    /// Starts a section of visibility `vis` (a visibility word).
    pub(crate) fn visibility(&mut self, vis: Visibility) {
        let old = std::mem::replace(
            &mut self.current,
            MemberSection {
                visibility: vis,
                members: Vec::new(),
            },
        );
        if !old.members.is_empty() || old.visibility != Visibility::Default {
            self.sections.push(old);
        }
    }

    /// Adds the fields of one field declaration: the waiting attributes go to its first name,
    /// `doc` (the comment before the member's attributes) to the names that have none.
    pub(crate) fn fields(
        &mut self,
        fields: Vec<VarDecl>,
        doc: Option<Box<DocComment>>,
        is_class: bool,
    ) {
        for mut field in fields {
            if !self.pending.is_empty() {
                let mut attrs = std::mem::take(&mut self.pending);
                attrs.append(&mut field.attributes);
                field.attributes = attrs;
            }
            if field.doc.is_none() {
                field.doc = doc.clone();
            }
            self.push(Member::Field { field, is_class });
        }
    }
}

/// One variable (or field) per name of a declaration, each with the declaration's type, value,
/// attributes, doc comment and span.
pub(crate) fn var_decls(
    names: impl Iterator<Item = (Text, Span)>,
    ty: TypeRef,
    value: Option<Expr>,
    attributes: Vec<Attribute>,
    doc: Option<Box<DocComment>>,
    span: Span,
) -> impl Iterator<Item = VarDecl> {
    names.map(move |(name, name_span)| VarDecl {
        name,
        name_span,
        ty: ty.clone(),
        value: value.clone(),
        attributes: attributes.clone(),
        doc: doc.clone(),
        span,
    })
}

/// What the names of one parameter group (`const A, B: T = 0`) share.
pub(crate) struct ParamGroup {
    /// The passing mode.
    pub mode: ParamMode,
    /// The type, if written.
    pub ty: Option<TypeRef>,
    /// The default value, if written.
    pub default: Option<Expr>,
    /// The attributes before the group's names (every name has them).
    pub attributes: Vec<Attribute>,
    /// The group's extent.
    pub span: Span,
}

/// Adds one parameter per name of a group (`A, B: T`), sharing the group's mode, type, default
/// and attributes: clones for all names but the last, which takes them.
#[inline]
pub(crate) fn push_params(
    params: &mut Vec<Param>,
    names: impl Iterator<Item = (Text, Span)>,
    group: ParamGroup,
) {
    let ParamGroup {
        mode,
        ty,
        default,
        attributes,
        span,
    } = group;
    let mut names = names.peekable();
    while let Some((name, name_span)) = names.next() {
        if names.peek().is_some() {
            params.push(Param {
                name,
                name_span,
                mode,
                ty: ty.clone(),
                default: default.clone(),
                attributes: attributes.clone(),
                span,
            });
        } else {
            params.push(Param {
                name,
                name_span,
                mode,
                ty,
                default,
                attributes,
                span,
            });
            break;
        }
    }
}

/// [`push_params`] for a group with attributes before some of its names after the first
/// (`[Arg('a')] A, [Arg('b')] B: Integer`): `own` holds the index of each such name in the
/// group and its attributes, which follow the group's on that parameter alone.
pub(crate) fn push_params_with_own(
    params: &mut Vec<Param>,
    names: Vec<(Text, Span)>,
    own: Vec<(usize, Vec<Attribute>)>,
    group: ParamGroup,
) {
    let first = params.len();
    push_params(params, names.into_iter(), group);
    for (index, attributes) in own {
        if let Some(param) = params.get_mut(first + index) {
            param.attributes.extend(attributes);
        }
    }
}

/// The visibility a visibility word's code stands for (`strict` before it or not).
pub(crate) fn visibility_of(word: u32, strict: bool) -> Visibility {
    match word {
        K_PRIVATE if strict => Visibility::StrictPrivate,
        K_PRIVATE => Visibility::Private,
        K_PROTECTED if strict => Visibility::StrictProtected,
        K_PROTECTED => Visibility::Protected,
        K_PUBLIC => Visibility::Public,
        K_PUBLISHED => Visibility::Published,
        K_AUTOMATED => Visibility::Automated,
        _ => Visibility::Default,
    }
}

/// Collapses runs of whitespace to one space and trims.
pub(crate) fn normalize(text: &str) -> Text {
    // Most texts are one token or have single blanks only: copy those as they are.
    if !needs_normalizing(text) {
        return Text::from(text);
    }
    let mut out = Text::with_capacity(text.len());
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// True when `text` has blanks other than single spaces between words (or non-ASCII
/// characters, which may be Unicode blanks).
fn needs_normalizing(text: &str) -> bool {
    let b = text.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    if first.is_ascii_whitespace() || last.is_ascii_whitespace() {
        return true;
    }
    // one pass: a blank other than a single space, or a non-ASCII byte
    let mut after_space = false;
    for &c in b {
        if c >= 0x80 || (c.is_ascii_whitespace() && (c != b' ' || after_space)) {
            return true;
        }
        after_space = c == b' ';
    }
    false
}

pub(crate) fn strip_amp(name: &str) -> Text {
    Text::from(name.strip_prefix('&').unwrap_or(name))
}

/// A name with inner whitespace removed (`System . SysUtils` → `System.SysUtils`).
pub(crate) fn compact(text: &str) -> Text {
    if !text.bytes().any(|c| c >= 0x80 || c.is_ascii_whitespace()) {
        return Text::from(text);
    }
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

pub(crate) fn empty_routine(span: Span) -> Routine {
    Routine {
        kind: RoutineKind::Procedure,
        is_class: false,
        name: Text::default(),
        qualifier: None,
        name_span: span,
        generic_params: Vec::new(),
        params: Vec::new(),
        result: None,
        directives: Vec::new(),
        attributes: Vec::new(),
        doc: None,
        forward: false,
        body_span: None,
        nested: Vec::new(),
        span,
    }
}

/// Value of a numeric literal.
pub(crate) fn number_kind(text: &str) -> ExprKind {
    // digit separators (`1_000`) are rare: copy only then
    let without_separators: String;
    let clean = if text.contains('_') {
        without_separators = text.chars().filter(|&c| c != '_').collect();
        without_separators.as_str()
    } else {
        text
    };
    let parsed = if let Some(hex) = clean.strip_prefix('$') {
        i128::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = clean.strip_prefix('%') {
        i128::from_str_radix(bin, 2).ok()
    } else if let Some(oct) = clean.strip_prefix('&') {
        i128::from_str_radix(oct, 8).ok()
    } else if clean.contains(['.', 'e', 'E']) {
        return match clean.parse::<f64>() {
            Ok(value) => ExprKind::Real { value },
            Err(_) => ExprKind::Other,
        };
    } else {
        clean.parse::<i128>().ok()
    };
    match parsed {
        Some(value) => ExprKind::Int { value },
        None => ExprKind::Other,
    }
}

/// `text` in ASCII lower case.
pub(crate) fn lowercase(text: &str) -> Text {
    let mut t = Text::from(text);
    t.make_ascii_lowercase();
    t
}

/// The value of a string literal: quoted pieces with `''` escapes, `#13`/`#$0D` character
/// codes and Delphi 12 multi-line strings, concatenated.
pub(crate) fn string_pieces_value<'t>(pieces: impl Iterator<Item = &'t str>) -> Text {
    let mut out = Text::default();
    for s in pieces {
        if let Some(digits) = s.strip_prefix('#') {
            let code = match digits.strip_prefix('$') {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => digits.parse::<u32>().ok(),
            };
            out.push(code.and_then(char::from_u32).unwrap_or('\u{FFFD}'));
        } else if s.starts_with("'''") && s.contains(['\n', '\r']) {
            out.push_str(&multiline_value(s));
        } else {
            let inner = s.get(1..s.len().saturating_sub(1)).unwrap_or("");
            // a quote inside a piece is always doubled
            if inner.contains('\'') {
                out.push_str(&inner.replace("''", "'"));
            } else {
                out.push_str(inner);
            }
        }
    }
    out
}

/// Content of a Delphi 12 multi-line string: the lines between the opening and closing quote
/// runs, with the closing line's indentation removed, joined by line feeds.
fn multiline_value(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    if lines.len() < 2 {
        return String::new();
    }
    let last = lines[lines.len() - 1];
    let indent = last.len() - last.trim_start_matches([' ', '\t']).len();
    let content: Vec<&str> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            let strip = l.len() - l.trim_start_matches([' ', '\t']).len();
            &l[strip.min(indent)..]
        })
        .collect();
    content.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert!(matches!(number_kind("$FF"), ExprKind::Int { value: 255 }));
        assert!(matches!(number_kind("%1010"), ExprKind::Int { value: 10 }));
        assert!(matches!(number_kind("&17"), ExprKind::Int { value: 15 }));
        assert!(matches!(
            number_kind("1_000"),
            ExprKind::Int { value: 1000 }
        ));
        assert!(matches!(number_kind("1.5e3"), ExprKind::Real { value } if value == 1500.0));
    }

    #[test]
    fn normalize_and_compact_skip_work_only_when_the_result_is_the_same() {
        // the general rule: trim, and every run of blanks becomes one space
        let reference = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        for text in [
            "Integer",
            "array of Byte",
            "  padded ",
            "two  spaces",
            "tab\there",
            "line\r\nbreak",
            "non\u{00A0}breaking",
            "Ünïcode Näme",
            "",
        ] {
            assert_eq!(normalize(text), reference(text), "{text:?}");
            let compacted: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            assert_eq!(compact(text), compacted, "{text:?}");
        }
    }

    #[test]
    fn multiline() {
        assert_eq!(multiline_value("'''\n    a\n      b\n    '''"), "a\n  b");
    }
}
