//! The token codes the readers compare with, and the classes of words they ask for.
//!
//! The driver, the direct reader and the lowering of pest pairs tell tokens apart by their
//! codes (a keyword's code is fixed by its place in the tables of [`super::keywords`]); every
//! set of keywords any of them asks about is defined here, over those codes, so the tables stay
//! the one list of words.

use super::{kw, ASSIGN, BLOCK, DOTDOT, IDENT, NUMBER, STRING};

/// The code of a punctuation mark (`tokens::punct_code`).
const fn punct(c: u8) -> u32 {
    0x100 + c as u32
}

/// The code of a keyword.
const fn word(w: &str) -> u32 {
    kw(w) as u32
}

pub(crate) const LP: u32 = punct(b'(');
pub(crate) const RP: u32 = punct(b')');
pub(crate) const STAR: u32 = punct(b'*');
pub(crate) const PLUS: u32 = punct(b'+');
pub(crate) const COMMA: u32 = punct(b',');
pub(crate) const MINUS: u32 = punct(b'-');
pub(crate) const DOT: u32 = punct(b'.');
pub(crate) const SLASH: u32 = punct(b'/');
pub(crate) const COLON: u32 = punct(b':');
pub(crate) const SEMI: u32 = punct(b';');
pub(crate) const LT: u32 = punct(b'<');
pub(crate) const EQ: u32 = punct(b'=');
pub(crate) const GT: u32 = punct(b'>');
pub(crate) const AT: u32 = punct(b'@');
pub(crate) const LB: u32 = punct(b'[');
pub(crate) const RB: u32 = punct(b']');
pub(crate) const CARET: u32 = punct(b'^');
pub(crate) const C_IDENT: u32 = IDENT as u32;
pub(crate) const C_NUMBER: u32 = NUMBER as u32;
pub(crate) const C_STRING: u32 = STRING as u32;
pub(crate) const C_ASSIGN: u32 = ASSIGN as u32;
pub(crate) const C_DOTDOT: u32 = DOTDOT as u32;
pub(crate) const C_BLOCK: u32 = BLOCK as u32;

pub(crate) const K_ABSOLUTE: u32 = word("absolute");
pub(crate) const K_ABSTRACT: u32 = word("abstract");
pub(crate) const K_ALIAS: u32 = word("alias");
pub(crate) const K_ALIGN: u32 = word("align");
pub(crate) const K_AND: u32 = word("and");
pub(crate) const K_ARRAY: u32 = word("array");
pub(crate) const K_ASM: u32 = word("asm");
pub(crate) const K_AS: u32 = word("as");
pub(crate) const K_AUTOMATED: u32 = word("automated");
pub(crate) const K_BEGIN: u32 = word("begin");
pub(crate) const K_BITPACKED: u32 = word("bitpacked");
pub(crate) const K_CASE: u32 = word("case");
pub(crate) const K_CLASS: u32 = word("class");
pub(crate) const K_CONST: u32 = word("const");
pub(crate) const K_CONSTREF: u32 = word("constref");
pub(crate) const K_CONSTRUCTOR: u32 = word("constructor");
pub(crate) const K_CONTAINS: u32 = word("contains");
pub(crate) const K_CVAR: u32 = word("cvar");
pub(crate) const K_DEFAULT: u32 = word("default");
pub(crate) const K_DEPENDENCY: u32 = word("dependency");
pub(crate) const K_DESTRUCTOR: u32 = word("destructor");
pub(crate) const K_DISPINTERFACE: u32 = word("dispinterface");
pub(crate) const K_DIV: u32 = word("div");
pub(crate) const K_END: u32 = word("end");
pub(crate) const K_EXPORT: u32 = word("export");
pub(crate) const K_EXPORTS: u32 = word("exports");
pub(crate) const K_EXTERNAL: u32 = word("external");
pub(crate) const K_FILE: u32 = word("file");
pub(crate) const K_FINALIZATION: u32 = word("finalization");
pub(crate) const K_FOR: u32 = word("for");
pub(crate) const K_FRAMEWORK: u32 = word("framework");
pub(crate) const K_FUNCTION: u32 = word("function");
pub(crate) const K_GENERIC: u32 = word("generic");
pub(crate) const K_HELPER: u32 = word("helper");
pub(crate) const K_IMPLEMENTATION: u32 = word("implementation");
pub(crate) const K_IMPLEMENTS: u32 = word("implements");
pub(crate) const K_IN: u32 = word("in");
pub(crate) const K_INHERITED: u32 = word("inherited");
pub(crate) const K_INITIALIZATION: u32 = word("initialization");
pub(crate) const K_INTERFACE: u32 = word("interface");
pub(crate) const K_IS: u32 = word("is");
pub(crate) const K_LABEL: u32 = word("label");
pub(crate) const K_LIBRARY: u32 = word("library");
pub(crate) const K_MOD: u32 = word("mod");
pub(crate) const K_NAME: u32 = word("name");
pub(crate) const K_NESTED: u32 = word("nested");
pub(crate) const K_NIL: u32 = word("nil");
pub(crate) const K_NOT: u32 = word("not");
pub(crate) const K_OBJECT: u32 = word("object");
pub(crate) const K_OF: u32 = word("of");
pub(crate) const K_OPERATOR: u32 = word("operator");
pub(crate) const K_OR: u32 = word("or");
pub(crate) const K_OUT: u32 = word("out");
pub(crate) const K_PACKAGE: u32 = word("package");
pub(crate) const K_PACKED: u32 = word("packed");
pub(crate) const K_PRIVATE: u32 = word("private");
pub(crate) const K_PROCEDURE: u32 = word("procedure");
pub(crate) const K_PROGRAM: u32 = word("program");
pub(crate) const K_PROPERTY: u32 = word("property");
pub(crate) const K_PROTECTED: u32 = word("protected");
pub(crate) const K_PUBLIC: u32 = word("public");
pub(crate) const K_PUBLISHED: u32 = word("published");
pub(crate) const K_RECORD: u32 = word("record");
pub(crate) const K_REFERENCE: u32 = word("reference");
pub(crate) const K_REQUIRES: u32 = word("requires");
pub(crate) const K_RESOURCESTRING: u32 = word("resourcestring");
pub(crate) const K_SEALED: u32 = word("sealed");
pub(crate) const K_SET: u32 = word("set");
pub(crate) const K_SHL: u32 = word("shl");
pub(crate) const K_SHR: u32 = word("shr");
pub(crate) const K_SPECIALIZE: u32 = word("specialize");
pub(crate) const K_STRICT: u32 = word("strict");
pub(crate) const K_STRING: u32 = word("string");
pub(crate) const K_THREADVAR: u32 = word("threadvar");
pub(crate) const K_TO: u32 = word("to");
pub(crate) const K_TYPE: u32 = word("type");
pub(crate) const K_UNIT: u32 = word("unit");
pub(crate) const K_USES: u32 = word("uses");
pub(crate) const K_VAR: u32 = word("var");
pub(crate) const K_XOR: u32 = word("xor");

/// `ident`, `list_name`: a plain name (also `&`-escaped) or a soft keyword.
pub(crate) fn is_name(c: u32) -> bool {
    c == C_IDENT || (0x280..=0x2FF).contains(&c)
}

/// A reserved word: never a name unless written with `&` (which makes it [`C_IDENT`]).
pub(crate) fn is_reserved(c: u32) -> bool {
    (0x200..0x280).contains(&c)
}

/// `dot_name`: after a dot reserved words are names too.
pub(crate) fn is_dot_name(c: u32) -> bool {
    c == C_IDENT || (0x200..=0x2FF).contains(&c)
}

// The word classes are ranges of codes (see SOFT in keywords.rs).
const DIRECTIVE_NAMES: (u32, u32) = (word("dispid"), word("platform"));
const HINT_NAMES: (u32, u32) = (word("deprecated"), word("platform"));
const PROP_SPEC_NAMES: (u32, u32) = (word("add"), word("index"));
const VIS_WORDS: (u32, u32) = (word("private"), word("automated"));
const CALL_CONVS: (u32, u32) = (word("cdecl"), word("winapi"));

/// `directive_name`.
pub(crate) fn is_directive_name(c: u32) -> bool {
    (DIRECTIVE_NAMES.0..=DIRECTIVE_NAMES.1).contains(&c) || c == K_LIBRARY
}

/// `directive_start`.
pub(crate) fn is_directive_start(c: u32) -> bool {
    is_directive_name(c) || c == K_PUBLIC || is_linker_word(c)
}

/// `linker_word`.
pub(crate) fn is_linker_word(c: u32) -> bool {
    c == K_DEPENDENCY || c == K_FRAMEWORK
}

/// `hint_start`, `hint_name`.
pub(crate) fn is_hint_name(c: u32) -> bool {
    (HINT_NAMES.0..=HINT_NAMES.1).contains(&c) || c == K_LIBRARY
}

/// `prop_spec_name`.
pub(crate) fn is_prop_spec_name(c: u32) -> bool {
    (PROP_SPEC_NAMES.0..=PROP_SPEC_NAMES.1).contains(&c)
}

/// `call_conv`.
pub(crate) fn is_call_conv(c: u32) -> bool {
    (CALL_CONVS.0..=CALL_CONVS.1).contains(&c)
}

/// `vis_word`.
pub(crate) fn is_vis_word(c: u32) -> bool {
    (VIS_WORDS.0..=VIS_WORDS.1).contains(&c)
}

/// `struct_start`: class, record, interface, dispinterface, object, packed, type; bitpacked.
pub(crate) fn is_struct_start(c: u32) -> bool {
    (K_CLASS..=K_TYPE).contains(&c) || c == K_BITPACKED
}

/// The code of `word` as the lexer would give it (any case; an `&`-escaped word or any other
/// name is [`C_IDENT`]), for readers that look at the text rather than the token string.
pub(crate) fn code_of_word(word: &str) -> u32 {
    super::word_code(word) as u32
}

/// Words that start a routine heading at section level: a kind keyword, or `class` before one.
pub(crate) fn is_routine_start(c: u32) -> bool {
    (K_PROCEDURE..=K_CLASS).contains(&c) || c == K_OPERATOR
}

/// The kind keywords of routines that may be nested in a routine body, or follow `class` there.
pub(crate) fn is_nested_routine_kind(c: u32) -> bool {
    matches!(
        c,
        K_PROCEDURE | K_FUNCTION | K_CONSTRUCTOR | K_DESTRUCTOR | K_OPERATOR
    )
}

/// Words that open a section of local declarations in a routine body.
pub(crate) fn is_local_section(c: u32) -> bool {
    matches!(
        c,
        K_VAR | K_THREADVAR | K_CONST | K_RESOURCESTRING | K_TYPE | K_LABEL
    )
}

/// Words that end a unit's declaration parts: `implementation`, `initialization`,
/// `finalization`.
pub(crate) fn is_unit_part(c: u32) -> bool {
    matches!(c, K_IMPLEMENTATION | K_INITIALIZATION | K_FINALIZATION)
}

/// Words that start a declaration at section level where recovery after an error resumes:
/// section keywords, routine headings, `label`, `exports` and `uses`.
pub(crate) fn is_recovery_point(c: u32) -> bool {
    matches!(
        c,
        K_TYPE
            | K_CONST
            | K_VAR
            | K_THREADVAR
            | K_RESOURCESTRING
            | K_PROCEDURE
            | K_FUNCTION
            | K_CONSTRUCTOR
            | K_DESTRUCTOR
            | K_CLASS
            | K_LABEL
            | K_EXPORTS
            | K_USES
    )
}

/// Words that can only start a member of a structured type or end it, where reading a type
/// member by member resumes after a bad member.
pub(crate) fn is_member_start(c: u32) -> bool {
    matches!(
        c,
        K_PRIVATE | K_PROTECTED | K_PUBLIC | K_PUBLISHED | K_STRICT
    ) || matches!(
        c,
        K_END
            | K_PROCEDURE
            | K_FUNCTION
            | K_CONSTRUCTOR
            | K_DESTRUCTOR
            | K_PROPERTY
            | K_CLASS
            | K_VAR
            | K_CONST
            | K_TYPE
    )
}

/// The words that start a file: `unit`, `program`, `library`, `package`.
pub(crate) fn is_unit_kind(c: u32) -> bool {
    matches!(c, K_UNIT | K_PROGRAM | K_LIBRARY | K_PACKAGE)
}

/// The operator words (`and`, `as`, `div`, `mod`, `shl`, `shr`, `or`, `xor`, `in`, `is`, `not`).
pub(crate) fn is_operator_word(c: u32) -> bool {
    (K_AND..=K_IS).contains(&c) || c == K_NOT
}
