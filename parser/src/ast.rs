//! Declaration-level syntax tree of a Delphi unit.
//!
//! Only what a tool generator needs is modelled in detail (routine headings, types, constants,
//! attributes, doc comments); bodies are kept as their extent. Every node carries the [`Span`] of
//! its source text.

// Declarations differ a lot in size. Parts that are large and often absent (doc comments, the
// expressions of rare type shapes) are boxed, so the nodes that are moved and collected most
// (routines, parameters, types) stay small; the declarations themselves are not.
#![allow(clippy::large_enum_variant)]

mod queries;

use crate::span::Span;
use serde::Serialize;

/// The text of a name, type, expression or comment in the tree. Most are short names, which
/// this keeps inline (up to 24 bytes) instead of in an allocation of their own; it derefs to
/// `str` and serializes as a string.
pub type Text = compact_str::CompactString;

/// What kind of file this is, from its first keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    /// `unit X;`
    Unit,
    /// `program X;`
    Program,
    /// `library X;`
    Library,
    /// `package X;`
    Package,
}

/// One parsed file (with its include files spliced in).
#[derive(Debug, Clone, Serialize)]
pub struct Unit {
    /// unit / program / library / package.
    pub kind: UnitKind,
    /// The (possibly dotted) name, e.g. `Vcl.Forms`.
    pub name: Text,
    /// Span of the name.
    pub name_span: Span,
    /// Hint directives on the unit heading (`deprecated`, `platform`, ...).
    pub hints: Vec<Directive>,
    /// `interface` / `implementation` sections, or one [`SectionKind::Main`] section for
    /// programs, libraries and packages.
    pub sections: Vec<Section>,
    /// `initialization`/`finalization` or the main `begin ... end.` block, when present.
    pub init_span: Option<Span>,
    /// Span of the whole file text.
    pub span: Span,
}

/// Which part of the file a section is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    /// `interface`
    Interface,
    /// `implementation`
    Implementation,
    /// The declarations of a program, library or package (no interface/implementation split).
    Main,
}

/// An interface, implementation or main section.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Which section.
    pub kind: SectionKind,
    /// Its `uses` clause (or `contains`/`requires` of a package), if any.
    pub uses: Vec<UsesClause>,
    /// Declarations in source order.
    pub decls: Vec<Decl>,
    /// Span of the section.
    pub span: Span,
}

/// A `uses`, `requires` or `contains` clause.
#[derive(Debug, Clone, Serialize)]
pub struct UsesClause {
    /// `uses`, `requires` or `contains`.
    pub keyword: Text,
    /// The listed units.
    pub units: Vec<UsedUnit>,
    /// Span of the clause.
    pub span: Span,
}

/// One entry of a uses clause: `Name in 'path' {Form1}`.
#[derive(Debug, Clone, Serialize)]
pub struct UsedUnit {
    /// Dotted unit name.
    pub name: Text,
    /// The `in 'file'` path, if given.
    pub in_file: Option<Text>,
    /// Span of the entry.
    pub span: Span,
}

/// A declaration at section level.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "decl", rename_all = "snake_case")]
pub enum Decl {
    /// A `const` or `resourcestring` section.
    Const(ConstSection),
    /// A `type` section.
    Type(TypeSection),
    /// A `var` or `threadvar` section.
    Var(VarSection),
    /// A routine heading, with its body extent when it has one (implementation / program).
    Routine(Routine),
    /// `label`, `exports` and other declarations kept only as their extent.
    Other(OtherDecl),
}

/// A `const` / `resourcestring` section.
#[derive(Debug, Clone, Serialize)]
pub struct ConstSection {
    /// True for `resourcestring`.
    pub resourcestring: bool,
    /// The constants in source order.
    pub items: Vec<ConstDecl>,
    /// Span of the section.
    pub span: Span,
}

/// `Name [: Type] = Value;`
#[derive(Debug, Clone, Serialize)]
pub struct ConstDecl {
    /// Constant name.
    pub name: Text,
    /// Span of the name.
    pub name_span: Span,
    /// Declared type of a typed constant.
    pub ty: Option<TypeRef>,
    /// The value expression (for typed array/record constants only its text is meaningful).
    pub value: Expr,
    /// Attributes before the constant.
    pub attributes: Vec<Attribute>,
    /// `///` documentation before the constant.
    pub doc: Option<Box<DocComment>>,
    /// Hint directives (`deprecated`, ...).
    pub hints: Vec<Directive>,
    /// Span of the declaration.
    pub span: Span,
}

/// A `var` / `threadvar` section (also used for `class var` blocks and fields).
#[derive(Debug, Clone, Serialize)]
pub struct VarSection {
    /// True for `threadvar`.
    pub threadvar: bool,
    /// The variables (one entry per name; `A, B: Integer` gives two).
    pub items: Vec<VarDecl>,
    /// Span of the section.
    pub span: Span,
}

/// One variable or field: `Name: Type [= Value]`.
#[derive(Debug, Clone, Serialize)]
pub struct VarDecl {
    /// Variable name.
    pub name: Text,
    /// Span of the name.
    pub name_span: Span,
    /// Its type.
    pub ty: TypeRef,
    /// Initial value or `absolute` target text.
    pub value: Option<Expr>,
    /// Attributes before the declaration.
    pub attributes: Vec<Attribute>,
    /// `///` documentation before the declaration.
    pub doc: Option<Box<DocComment>>,
    /// Span of the declaration.
    pub span: Span,
}

/// A `type` section.
#[derive(Debug, Clone, Serialize)]
pub struct TypeSection {
    /// The type declarations in source order.
    pub items: Vec<TypeDecl>,
    /// Span of the section.
    pub span: Span,
}

/// `Name<T> = Definition;`
#[derive(Debug, Clone, Serialize)]
pub struct TypeDecl {
    /// Type name (without generic parameters).
    pub name: Text,
    /// Span of the name.
    pub name_span: Span,
    /// Generic parameters with constraints.
    pub generic_params: Vec<GenericParam>,
    /// The definition.
    pub def: TypeDef,
    /// Attributes before the declaration.
    pub attributes: Vec<Attribute>,
    /// `///` documentation before the declaration.
    pub doc: Option<Box<DocComment>>,
    /// Hint directives after the definition (`deprecated 'x'`, `platform`, ...).
    pub hints: Vec<Directive>,
    /// Span of the declaration.
    pub span: Span,
}

/// A generic parameter `T: class, constructor`.
#[derive(Debug, Clone, Serialize)]
pub struct GenericParam {
    /// Parameter name.
    pub name: Text,
    /// Constraints as written (`class`, `record`, `constructor`, type names).
    pub constraints: Vec<Text>,
    /// Span of the parameter.
    pub span: Span,
}

/// The right-hand side of a type declaration.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TypeDef {
    /// class, object, interface, dispinterface, record or helper.
    Structured(StructuredType),
    /// `(A, B = 5, C)`.
    Enum(EnumType),
    /// `Low..High`.
    Subrange {
        /// Lower bound.
        low: Expr,
        /// Upper bound.
        high: Expr,
    },
    /// `set of T`.
    Set {
        /// Element type.
        element: TypeRef,
    },
    /// `class of T`.
    ClassRef {
        /// The class.
        class: TypeRef,
    },
    /// `^T`.
    Pointer {
        /// Target type.
        target: TypeRef,
    },
    /// `procedure(...) of object`, `function(...): T`, `reference to ...`.
    Procedural(ProceduralType),
    /// `X = Y` or `X = type Y` (a named, possibly generic or `string[N]`, type).
    Alias {
        /// The aliased type.
        target: TypeRef,
        /// True for `type Y` (a distinct type).
        distinct: bool,
    },
    /// Arrays, files and anything else, kept as the type expression.
    Other {
        /// The type expression.
        target: TypeRef,
    },
}

/// What kind of structured type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredKind {
    /// `class`
    Class,
    /// `object` (old-style)
    Object,
    /// `interface`
    Interface,
    /// `dispinterface`
    DispInterface,
    /// `record`
    Record,
    /// `class helper for X`
    ClassHelper,
    /// `record helper for X`
    RecordHelper,
}

/// A class, object, interface, record or helper.
#[derive(Debug, Clone, Serialize)]
pub struct StructuredType {
    /// Which kind.
    pub kind: StructuredKind,
    /// `packed`, `bitpacked`, `sealed`, `abstract` and similar modifiers.
    pub modifiers: Vec<Text>,
    /// Ancestor class and implemented interfaces, in order.
    pub ancestors: Vec<TypeRef>,
    /// The type a helper extends.
    pub helper_for: Option<TypeRef>,
    /// A forward declaration (`TFoo = class;`).
    pub forward: bool,
    /// Members grouped by visibility section, in source order. Members before the first
    /// visibility keyword are in a section with [`Visibility::Default`].
    pub sections: Vec<MemberSection>,
    /// GUID of an interface (`['{...}']`).
    pub guid: Option<Text>,
}

/// Visibility of a member section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Before any visibility keyword (published for `{$M+}` classes, public in records).
    Default,
    /// `private`
    Private,
    /// `strict private`
    StrictPrivate,
    /// `protected`
    Protected,
    /// `strict protected`
    StrictProtected,
    /// `public`
    Public,
    /// `published`
    Published,
    /// `automated`
    Automated,
}

/// One visibility section of a structured type.
#[derive(Debug, Clone, Serialize)]
pub struct MemberSection {
    /// The visibility.
    pub visibility: Visibility,
    /// Members in source order.
    pub members: Vec<Member>,
}

/// A member of a structured type.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "member", rename_all = "snake_case")]
pub enum Member {
    /// A field (`class var` fields have `is_class`).
    Field {
        /// The field.
        field: VarDecl,
        /// Declared in a `class var` block.
        is_class: bool,
    },
    /// A method heading.
    Method(Routine),
    /// A property.
    Property(Property),
    /// A nested `const` section.
    Const(ConstSection),
    /// A nested `type` section.
    Type(TypeSection),
    /// A record's variant part (`case Tag: T of ...`), kept as its extent.
    Variant {
        /// Span of the variant part.
        span: Span,
    },
}

/// `property Name[Index: T]: Type read X write Y default Z;`
#[derive(Debug, Clone, Serialize)]
pub struct Property {
    /// Property name.
    pub name: Text,
    /// Span of the name.
    pub name_span: Span,
    /// `class property`.
    pub is_class: bool,
    /// Array property indexes.
    pub params: Vec<Param>,
    /// Its type (absent for a redeclared inherited property).
    pub ty: Option<TypeRef>,
    /// Specifiers as written: `read FX`, `write SetX`, `default 0`, `stored False`, `index 3`, ...
    pub specifiers: Vec<Directive>,
    /// Attributes before the property.
    pub attributes: Vec<Attribute>,
    /// `///` documentation before the property.
    pub doc: Option<Box<DocComment>>,
    /// Span of the declaration.
    pub span: Span,
}

/// An enumeration type.
#[derive(Debug, Clone, Serialize)]
pub struct EnumType {
    /// Members in declaration order.
    pub members: Vec<EnumMember>,
}

/// One enumeration member, with its explicit value if given.
#[derive(Debug, Clone, Serialize)]
pub struct EnumMember {
    /// Member name.
    pub name: Text,
    /// `= value` when given.
    pub value: Option<Expr>,
    /// Span of the member.
    pub span: Span,
}

/// A procedural type.
#[derive(Debug, Clone, Serialize)]
pub struct ProceduralType {
    /// `reference to`.
    pub reference_to: bool,
    /// `of object`.
    pub of_object: bool,
    /// The heading (name is empty).
    pub heading: Routine,
}

/// Kind of routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutineKind {
    /// `procedure`
    Procedure,
    /// `function`
    Function,
    /// `constructor`
    Constructor,
    /// `destructor`
    Destructor,
    /// `operator` (class operator in records, or FPC global operator)
    Operator,
}

/// A routine or method heading (and, for implementations, its body's extent).
#[derive(Debug, Clone, Serialize)]
pub struct Routine {
    /// procedure / function / constructor / destructor / operator.
    pub kind: RoutineKind,
    /// `class procedure`, `class function`, `class operator`, ...
    pub is_class: bool,
    /// Routine name. For method implementations `TFoo.Bar`, the name is `Bar`.
    pub name: Text,
    /// `TFoo` (or `TFoo<T>.TInner`) for a method implemented outside its class.
    pub qualifier: Option<Text>,
    /// Span of the name.
    pub name_span: Span,
    /// Generic parameters of the routine.
    pub generic_params: Vec<GenericParam>,
    /// Parameters; `A, B: Integer` gives two entries.
    pub params: Vec<Param>,
    /// Result type of a function / operator.
    pub result: Option<TypeRef>,
    /// Directives: `overload`, `virtual`, `static`, `cdecl`, `deprecated 'x'`, `external 'lib'
    /// name 'x'`, `message WM_X`, `dispid 3`, ...
    pub directives: Vec<Directive>,
    /// Attributes before the heading (including ones written inside `{$IFNDEF FPC}` blocks
    /// when the target makes them active).
    pub attributes: Vec<Attribute>,
    /// `///` documentation before the heading.
    pub doc: Option<Box<DocComment>>,
    /// A `forward` declaration or a heading inside a type (no body here).
    pub forward: bool,
    /// Extent of the body (local declarations and `begin ... end`, or `asm ... end`).
    pub body_span: Option<Span>,
    /// Routines declared inside the body, before its `begin`, in source order.
    pub nested: Vec<Routine>,
    /// Span of the heading.
    pub span: Span,
}

/// Parameter passing mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamMode {
    /// By value (no modifier).
    Value,
    /// `const`
    Const,
    /// `var`
    Var,
    /// `out`
    Out,
    /// `constref` or `const [ref]`
    ConstRef,
}

/// One routine parameter.
#[derive(Debug, Clone, Serialize)]
pub struct Param {
    /// Parameter name.
    pub name: Text,
    /// Span of the name.
    pub name_span: Span,
    /// Passing mode.
    pub mode: ParamMode,
    /// The type; `None` for untyped `const X` / `var X`.
    pub ty: Option<TypeRef>,
    /// `= default` value.
    pub default: Option<Expr>,
    /// Parameter attributes (`[Ref]`, `[McpNil]`, ...): those before the group, which apply to
    /// each of its names, then those written before this name after the first
    /// (`[Arg('a')] A, [Arg('b')] B: Integer` gives `B` both).
    pub attributes: Vec<Attribute>,
    /// Span of the whole parameter declaration (shared by grouped names).
    pub span: Span,
}

/// A type as used in a declaration.
#[derive(Debug, Clone, Serialize)]
pub struct TypeRef {
    /// The shape of the type expression.
    pub kind: TypeRefKind,
    /// The source text, with whitespace normalised to single spaces.
    pub text: Text,
    /// Span of the type expression.
    pub span: Span,
}

/// Shapes of a type expression.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeRefKind {
    /// `Name`, `System.Integer`, `TList<Integer>`.
    Named {
        /// Dotted name without generic arguments.
        name: Text,
        /// Generic arguments.
        generic_args: Vec<TypeRef>,
    },
    /// `string[N]` (a ShortString of at most N bytes).
    ShortString {
        /// The length expression.
        length: Box<Expr>,
    },
    /// `AnsiString(1252)`: a string type with a code page.
    CodePageString {
        /// `AnsiString` or the like.
        name: Text,
        /// The code page expression.
        code_page: Box<Expr>,
    },
    /// `array of T` in a parameter (open array) or dynamic array.
    ArrayOf {
        /// Element type; `None` for `array of const`.
        element: Option<Box<TypeRef>>,
    },
    /// `array[...] of T` (static array).
    StaticArray {
        /// Element type.
        element: Box<TypeRef>,
    },
    /// `^T`.
    Pointer {
        /// Target type.
        target: Box<TypeRef>,
    },
    /// Anything else (inline records, enumerations, subranges, procedural types, `file of`).
    Other,
}

/// An attribute `[Name(arg, Named = value)]`.
#[derive(Debug, Clone, Serialize)]
pub struct Attribute {
    /// The attribute name as written (`McpTool`, `Mcp.McpTool`, `McpToolAttribute`).
    pub name: Text,
    /// Arguments in order.
    pub args: Vec<AttributeArg>,
    /// Span of this attribute (inside its brackets).
    pub span: Span,
}

/// One attribute argument.
#[derive(Debug, Clone, Serialize)]
pub struct AttributeArg {
    /// For `Name = value` arguments.
    pub name: Option<Text>,
    /// The value expression.
    pub value: Expr,
}

/// `///` XML documentation attached to a declaration.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DocComment {
    /// The comment text with the `///` markers removed, lines joined by `\n`.
    pub raw: Text,
    /// `<summary>` text (tags removed, whitespace collapsed); the whole text when there are no tags.
    pub summary: Option<Text>,
    /// `<param name="X">` texts, in order.
    pub params: Vec<ParamDoc>,
    /// `<returns>` text.
    pub returns: Option<Text>,
    /// `<remarks>` text.
    pub remarks: Option<Text>,
    /// Span of the comment lines.
    pub span: Option<Span>,
}

/// One `<param name="...">` entry.
#[derive(Debug, Clone, Serialize)]
pub struct ParamDoc {
    /// Parameter name as written in the `name` attribute.
    pub name: Text,
    /// Its text.
    pub text: Text,
}

/// A directive or specifier with its optional argument: `deprecated 'use X'`, `read FValue`,
/// `external 'lib.dll' name 'f'`, `message WM_PAINT`, `overload`.
#[derive(Debug, Clone, Serialize)]
pub struct Directive {
    /// Lower-case directive name (`overload`, `deprecated`, `read`, `external`, ...).
    pub name: Text,
    /// The argument text as written, if any.
    pub arg: Option<Text>,
    /// Span of the directive.
    pub span: Span,
}

/// An expression as written, with a small tree for constant evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Expr {
    /// The source text.
    pub text: Text,
    /// The parsed shape.
    pub kind: ExprKind,
    /// Span of the expression.
    pub span: Span,
}

/// Shapes of expressions (enough to evaluate attribute arguments and constants).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "expr", rename_all = "snake_case")]
pub enum ExprKind {
    /// A string literal (quotes, `''`, `#13`, `#$0D` and multi-line strings already decoded).
    Str {
        /// The decoded value.
        value: Text,
    },
    /// An integer literal (`42`, `$FF`, `%1010`, `&17`).
    Int {
        /// The value.
        value: i128,
    },
    /// A real literal (`1.5e3`).
    Real {
        /// The value.
        value: f64,
    },
    /// An identifier or dotted name (`True`, `nil`, `cName`, `Unit.Const`).
    Ident {
        /// The name as written.
        name: Text,
    },
    /// `-x`, `not x`, `+x`, `@x`.
    Unary {
        /// Lower-case operator.
        op: Text,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a + b`, `a * b`, `a and b`, `a = b`, ...
    Binary {
        /// Lower-case operator.
        op: Text,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `f(x, y)`, also type casts `Integer(x)` and `SizeOf(T)`.
    Call {
        /// The callee expression.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `[a, b..c]` set constructor.
    Set {
        /// Elements (ranges as `Binary` with op `..`).
        elements: Vec<Expr>,
    },
    /// Anything else (typed array/record constants `(...)`, anonymous methods): text only.
    Other,
}

/// The value of a constant expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ConstValue {
    /// A string (Char constants are one-character strings).
    Str(Text),
    /// An integer.
    Int(i128),
    /// A real number.
    Real(f64),
    /// `True` / `False`.
    Bool(bool),
}

/// A declaration kept only as its extent (`label`, `exports`, ...).
#[derive(Debug, Clone, Serialize)]
pub struct OtherDecl {
    /// The keyword that starts it.
    pub keyword: Text,
    /// Its extent.
    pub span: Span,
}
