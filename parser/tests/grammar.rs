//! Syntax-tree snapshots of one fixture unit per construct family, snapshots of the rendered
//! diagnostics of broken units, and targeted checks of what the code generator relies on.

use delphi_mcp_parser::ast::{
    ConstValue, Decl, ExprKind, Member, ParamMode, RoutineKind, SectionKind, StructuredKind,
    TypeDef, TypeRefKind, UnitKind, Visibility,
};
use delphi_mcp_parser::{parse_file, parse_text, ConstEnv, ParseOptions, SourceDb};
use std::path::Path;

mod support;
use support::{compact_tree, fixture, parse_fixture};

macro_rules! tree_snapshot {
    ($test:ident, $file:literal) => {
        #[test]
        fn $test() {
            let (db, unit) = parse_fixture($file);
            insta::assert_yaml_snapshot!(compact_tree(&db, &unit));
        }
    };
}

tree_snapshot!(tree_lexical, "Lexical.pas");
tree_snapshot!(tree_declarations, "Declarations.pas");
tree_snapshot!(tree_classes, "Classes.pas");
tree_snapshot!(tree_records, "Records.pas");
tree_snapshot!(tree_routines, "Routines.pas");
tree_snapshot!(tree_attributes, "Attributes.pas");
tree_snapshot!(tree_program, "Program.dpr");
tree_snapshot!(tree_package, "Package.dpk");
tree_snapshot!(tree_library, "Library.dpr");
tree_snapshot!(tree_operator_names, "OperatorNames.pas");
tree_snapshot!(tree_array_bounds, "ArrayBounds.pas");
tree_snapshot!(tree_param_attributes, "ParamAttributes.pas");
tree_snapshot!(tree_generic_implements, "GenericImplements.pas");
tree_snapshot!(tree_conditional_arguments, "ConditionalArguments.pas");

fn rendered_diagnostics(name: &str) -> String {
    let db = SourceDb::new();
    let path = fixture("broken", name);
    let result = parse_file(&db, &path, &ParseOptions::default());
    assert!(result.unit.is_some(), "a unit is produced despite errors");
    let dir = path.parent().expect("fixture folder").display().to_string();
    result
        .diagnostics
        .iter()
        .map(|d| d.render(&db).replace(&dir, "<fixtures>"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn diagnostics_for_errors_in_several_declarations() {
    insta::assert_snapshot!(rendered_diagnostics("Errors.pas"));
}

#[test]
fn diagnostics_for_an_unbalanced_body() {
    insta::assert_snapshot!(rendered_diagnostics("Unterminated.pas"));
}

#[test]
fn diagnostics_for_a_missing_end() {
    insta::assert_snapshot!(rendered_diagnostics("NoEnd.pas"));
}

#[test]
fn recovery_keeps_the_declarations_around_errors() {
    let db = SourceDb::new();
    let result = parse_file(
        &db,
        &fixture("broken", "Errors.pas"),
        &ParseOptions::default(),
    );
    let unit = result.unit.expect("unit");
    let errors = result.diagnostics.iter().filter(|d| d.is_error()).count();
    assert_eq!(errors, 3, "one error per broken declaration");
    let types: Vec<&str> = unit.type_decls().iter().map(|t| t.name.as_str()).collect();
    // TBroken keeps its good members: only the bad one is dropped.
    assert_eq!(types, ["TGood", "TBroken", "TAlsoGood"]);
    let consts: Vec<&str> = unit.constants().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(consts, ["cGood"]);
    let routines: Vec<(&str, SectionKind)> = unit
        .sections
        .iter()
        .flat_map(|s| {
            s.decls.iter().filter_map(move |d| match d {
                Decl::Routine(r) => Some((r.name.as_str(), s.kind)),
                _ => None,
            })
        })
        .collect();
    assert_eq!(
        routines,
        [
            ("AfterBroken", SectionKind::Interface),
            ("Fine", SectionKind::Implementation),
            ("AfterBroken", SectionKind::Implementation)
        ]
    );
}

fn parse_src(src: &str) -> (SourceDb, delphi_mcp_parser::ParseResult) {
    let db = SourceDb::new();
    let r = parse_text(&db, Path::new("Test.pas"), src, &ParseOptions::default());
    (db, r)
}

fn unit_of(src: &str) -> delphi_mcp_parser::ast::Unit {
    let (db, r) = parse_src(src);
    let errors: Vec<String> = r.diagnostics.iter().map(|d| d.render(&db)).collect();
    assert!(
        errors.is_empty(),
        "unexpected diagnostics:\n{}",
        errors.join("\n")
    );
    r.unit.expect("unit")
}

#[test]
fn attribute_arguments_evaluate_with_the_units_constants() {
    let (_, unit) = parse_fixture("Attributes.pas");
    let env = ConstEnv::from_unit(&unit);
    let ty = unit.type_decls()[0];
    let TypeDef::Structured(st) = &ty.def else {
        panic!("TCalculator is a class")
    };
    let (_, add) = st.methods().next().expect("Add");
    let tool = &add.attributes[0];
    assert!(tool.is("McpTool"));
    assert_eq!(
        env.eval(&tool.args[0].value),
        Some(ConstValue::Str("calc_add".into()))
    );
    assert_eq!(
        env.eval(&tool.args[1].value),
        Some(ConstValue::Str(
            "Adds two numbers.\r\nReturns their sum.".into()
        ))
    );
    let (_, sub) = st.methods().nth(1).expect("Sub");
    let limit = sub
        .attributes
        .iter()
        .find(|a| a.is("Limit"))
        .expect("Limit");
    assert_eq!(env.eval(&limit.args[0].value), Some(ConstValue::Int(100)));
    assert_eq!(limit.args[1].name.as_deref(), Some("Strict"));
    assert_eq!(env.eval(&limit.args[1].value), Some(ConstValue::Bool(true)));
    assert_eq!(sub.params[0].attributes[0].name, "McpDescription");
    assert_eq!(sub.params[1].mode, ParamMode::Const);
    assert_eq!(
        sub.params[1].default.as_ref().and_then(|d| env.eval(d)),
        Some(ConstValue::Str(Default::default()))
    );
    let doc = add.doc.as_ref().expect("Add is documented");
    assert_eq!(
        doc.summary.as_deref(),
        Some("Adds A and B; see TCalculator.Sub.")
    );
    assert_eq!(doc.params[0].name, "A");
    assert_eq!(doc.params[0].text, "The first <number>.");
    assert_eq!(doc.returns.as_deref(), Some("The sum."));
    let (vis, hidden) = st.methods().last().expect("Hidden");
    assert_eq!(vis, Visibility::Published);
    assert_eq!(hidden.attributes[0].name, "Stored");
    let version = unit.routines().next().expect("Version");
    assert_eq!(version.attributes[0].name, "McpTool");
    assert_eq!(
        version.doc.as_ref().and_then(|d| d.summary.as_deref()),
        Some("Plain text documentation without tags.")
    );
}

#[test]
fn constant_expressions_evaluate() {
    let (_, unit) = parse_fixture("Lexical.pas");
    let env = ConstEnv::from_unit(&unit);
    let value = |name: &str| {
        let c = unit
            .constants()
            .into_iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("{name} is declared"));
        env.eval(&c.value)
    };
    assert_eq!(value("cQuote"), Some(ConstValue::Str("'".into())));
    assert_eq!(value("cLeadingQuote"), Some(ConstValue::Str("'abc".into())));
    assert_eq!(value("cEscaped"), Some(ConstValue::Str("it's".into())));
    assert_eq!(value("cCodes"), Some(ConstValue::Str("\r\n".into())));
    assert_eq!(value("cHexCodes"), Some(ConstValue::Str("AB".into())));
    assert_eq!(value("cMixed"), Some(ConstValue::Str("a\tb".into())));
    assert_eq!(
        value("cConcat"),
        Some(ConstValue::Str("Hello, world!".into()))
    );
    assert_eq!(
        value("cMultiLine"),
        Some(ConstValue::Str("first line\n  indented 'quoted'".into()))
    );
    assert_eq!(value("cHex"), Some(ConstValue::Int(255)));
    assert_eq!(value("cBin"), Some(ConstValue::Int(10)));
    assert_eq!(value("cOct"), Some(ConstValue::Int(15)));
    assert_eq!(value("cSeparated"), Some(ConstValue::Int(1000)));
    assert_eq!(value("cReal"), Some(ConstValue::Real(1500.0)));
    assert_eq!(value("cNeg"), Some(ConstValue::Int(-42)));
    assert_eq!(
        value("cExpr"),
        Some(ConstValue::Int(0)),
        "(255 + 1) * 2 div 3 mod 5"
    );
    assert_eq!(value("cShift"), Some(ConstValue::Int(17)));
    assert_eq!(value("cBool"), Some(ConstValue::Bool(true)));
    assert_eq!(
        value("Begin"),
        Some(ConstValue::Str("escaped identifier".into()))
    );
}

#[test]
fn eval_handles_references_cycles_and_unknowns() {
    let unit = unit_of(
        "unit U; interface const A = B + 1; B = 2; C = D; D = C; E = SizeOf(Integer); \
         F = Chr(65) + 'b'; G = Ord('a'); H = -(A * 3); I = 7 / 2; implementation end.",
    );
    let env = ConstEnv::from_unit(&unit);
    let get = |n: &str| {
        let c = unit
            .constants()
            .into_iter()
            .find(|c| c.name == n)
            .expect("declared");
        env.eval(&c.value)
    };
    assert_eq!(get("A"), Some(ConstValue::Int(3)));
    assert_eq!(get("C"), None, "a cycle does not evaluate");
    assert_eq!(get("E"), None, "SizeOf is unknown");
    assert_eq!(get("F"), Some(ConstValue::Str("Ab".into())));
    assert_eq!(get("G"), Some(ConstValue::Int(97)));
    assert_eq!(get("H"), Some(ConstValue::Int(-9)));
    assert_eq!(get("I"), Some(ConstValue::Real(3.5)));
}

#[test]
fn classes_have_members_in_visibility_sections() {
    let (_, unit) = parse_fixture("Classes.pas");
    let shape = unit
        .type_decls()
        .into_iter()
        .find(|t| t.name == "TShape")
        .expect("TShape");
    let TypeDef::Structured(st) = &shape.def else {
        panic!("class")
    };
    assert_eq!(st.kind, StructuredKind::Class);
    assert_eq!(st.modifiers, ["abstract"]);
    assert_eq!(st.ancestors.len(), 2);
    let visibilities: Vec<Visibility> = st.sections.iter().map(|s| s.visibility).collect();
    assert_eq!(
        visibilities,
        [
            Visibility::Private,
            Visibility::StrictPrivate,
            Visibility::Protected,
            Visibility::Public,
            Visibility::Published
        ]
    );
    assert!(st
        .fields()
        .any(|(_, f, is_class)| f.name == "FCount" && is_class));
    let clone = st
        .methods()
        .map(|(_, m)| m)
        .find(|m| m.name == "Clone")
        .expect("Clone");
    assert_eq!(
        clone.generic_params[0].constraints,
        ["TShape", "constructor"]
    );
    let items = st
        .properties()
        .map(|(_, p)| p)
        .find(|p| p.name == "Items")
        .expect("Items");
    assert_eq!(items.params.len(), 1);
    assert!(items
        .specifiers
        .iter()
        .any(|s| s.name == "default" && s.arg.is_none()));
    let first = st
        .properties()
        .map(|(_, p)| p)
        .find(|p| p.name == "First")
        .expect("First");
    assert_eq!(first.specifiers[0].arg.as_deref(), Some("FItems[0]"));
    // nested types are listed too
    let names: Vec<&str> = unit.type_decls().iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"TInner") && names.contains(&"TKind"));
    let soft = unit
        .type_decls()
        .into_iter()
        .find(|t| t.name == "TSoftKeywords")
        .expect("TSoftKeywords");
    let TypeDef::Structured(st) = &soft.def else {
        panic!("class")
    };
    assert_eq!(st.fields().count(), 5);
    assert_eq!(st.methods().count(), 2);
}

#[test]
fn routine_headings_and_bodies() {
    let (_, unit) = parse_fixture("Routines.pas");
    let interface: Vec<_> = unit
        .section(SectionKind::Interface)
        .expect("interface")
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Routine(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(interface.len(), 13);
    assert!(interface.iter().all(|r| r.forward && r.body_span.is_none()));
    let fill = interface[1];
    assert_eq!(fill.params[0].mode, ParamMode::Var);
    assert!(fill.params[0].ty.is_none(), "untyped var parameter");
    let print = interface[2];
    assert!(matches!(
        print.params[1].ty.as_ref().map(|t| &t.kind),
        Some(TypeRefKind::ArrayOf { element: None })
    ));
    let by_ref = interface[5];
    assert!(by_ref.params.iter().all(|p| p.mode == ParamMode::ConstRef));
    let message_box = interface[6];
    assert!(message_box.has_directive("stdcall"));
    let beep = interface[7];
    let external = beep
        .directives
        .iter()
        .find(|d| d.name == "external")
        .expect("external");
    assert_eq!(external.arg.as_deref(), Some("'kernel32.dll'"));
    let implementation = unit.section(SectionKind::Implementation).expect("impl");
    let bodies = implementation
        .decls
        .iter()
        .filter(|d| matches!(d, Decl::Routine(r) if r.body_span.is_some()))
        .count();
    assert_eq!(bodies, 9, "every implemented routine has a body extent");
    assert!(unit.init_span.is_some());
    assert_eq!(unit.routines().count(), 23);
    assert!(unit.routines().any(|r| r.kind == RoutineKind::Function
        && r.name == "Generic"
        && r.generic_params.len() == 1));
}

#[test]
fn file_kinds_and_uses_clauses() {
    let (_, program) = parse_fixture("Program.dpr");
    assert_eq!(program.kind, UnitKind::Program);
    let uses = &program.sections[0].uses[0];
    assert_eq!(uses.units[1].name, "Unit1");
    assert_eq!(uses.units[1].in_file.as_deref(), Some("src\\Unit1.pas"));
    assert!(program.init_span.is_some());
    let (_, package) = parse_fixture("Package.dpk");
    assert_eq!(package.kind, UnitKind::Package);
    let keywords: Vec<&str> = package.sections[0]
        .uses
        .iter()
        .map(|u| u.keyword.as_str())
        .collect();
    assert_eq!(keywords, ["requires", "contains"]);
    let (_, library) = parse_fixture("Library.dpr");
    assert_eq!(library.kind, UnitKind::Library);
    let (_, decls) = parse_fixture("Declarations.pas");
    assert_eq!(decls.name, "Demo.Declarations");
    assert_eq!(decls.hints[0].name, "deprecated");
}

#[test]
fn type_shapes() {
    let (_, unit) = parse_fixture("Declarations.pas");
    let find = |n: &str| {
        unit.type_decls()
            .into_iter()
            .find(|t| t.name == n)
            .unwrap_or_else(|| panic!("{n}"))
            .def
            .clone()
    };
    assert!(matches!(find("TColor"), TypeDef::Enum(e) if e.members.len() == 3));
    assert!(matches!(find("TDigit"), TypeDef::Subrange { .. }));
    assert!(matches!(find("TUpper"), TypeDef::Subrange { .. }));
    assert!(matches!(find("TRange"), TypeDef::Subrange { .. }));
    assert!(matches!(find("TColors"), TypeDef::Set { .. }));
    assert!(matches!(find("PInteger"), TypeDef::Pointer { .. }));
    assert!(matches!(
        find("TName"),
        TypeDef::Alias { distinct: true, .. }
    ));
    assert!(matches!(
        find("TShort"),
        TypeDef::Alias { target, .. } if matches!(target.kind, TypeRefKind::ShortString { .. })
    ));
    assert!(matches!(
        find("TAnsi"),
        TypeDef::Alias { target, .. } if matches!(target.kind, TypeRefKind::CodePageString { .. })
    ));
    assert!(matches!(
        find("TNested"),
        TypeDef::Alias { target, .. } if matches!(&target.kind,
            TypeRefKind::Named { name, generic_args } if name == "TDictionary" && generic_args.len() == 2)
    ));
    assert!(matches!(find("TNotify"), TypeDef::Procedural(p) if p.of_object));
    assert!(matches!(find("TFunc"), TypeDef::Procedural(p) if p.reference_to));
    assert!(
        matches!(find("TMatrix"), TypeDef::Other { target } if matches!(target.kind, TypeRefKind::StaticArray { .. }))
    );
}

#[test]
fn keywords_are_case_insensitive_and_soft_keywords_are_names() {
    let unit = unit_of(
        "UNIT Up; INTERFACE TYPE TFoo = CLASS PUBLIC PROCEDURE Run(Const Out: Integer); \
         Property Default: Integer READ FDefault; END; Function Message(Name: String): String; \
         IMPLEMENTATION Function Message(Name: String): String; Begin End; END.",
    );
    let foo = unit.type_decls()[0];
    let TypeDef::Structured(st) = &foo.def else {
        panic!("class")
    };
    let (_, run) = st.methods().next().expect("Run");
    assert_eq!(run.params[0].name, "Out");
    assert_eq!(
        st.properties().next().map(|(_, p)| p.name.as_str()),
        Some("Default")
    );
    assert_eq!(unit.routines().count(), 2);
}

#[test]
fn variant_records_and_members() {
    let (_, unit) = parse_fixture("Records.pas");
    let variant = unit
        .type_decls()
        .into_iter()
        .find(|t| t.name == "TVariant")
        .expect("TVariant");
    let TypeDef::Structured(st) = &variant.def else {
        panic!("record")
    };
    assert_eq!(st.kind, StructuredKind::Record);
    assert!(st.members().any(|m| matches!(m, Member::Variant { .. })));
    let vec = unit.type_decls()[0];
    let TypeDef::Structured(st) = &vec.def else {
        panic!("record")
    };
    let ops = st
        .methods()
        .filter(|(_, m)| m.kind == RoutineKind::Operator && m.is_class)
        .count();
    assert_eq!(ops, 3);
}

#[test]
fn unreadable_file_is_an_error_without_span() {
    let db = SourceDb::new();
    let r = parse_file(
        &db,
        Path::new("/nonexistent/Nope.pas"),
        &ParseOptions::default(),
    );
    assert!(r.unit.is_none());
    assert_eq!(r.diagnostics.len(), 1);
    assert!(r.diagnostics[0].span.is_none());
    assert!(r.diagnostics[0].message.contains("Nope.pas"));
}

#[test]
fn expression_shapes() {
    let unit = unit_of("unit U; interface const A = Pred(B.C) + [1..2, 3]; implementation end.");
    let c = unit.constants()[0];
    let ExprKind::Binary { op, lhs, rhs } = &c.value.kind else {
        panic!("binary")
    };
    assert_eq!(op, "+");
    assert!(matches!(&lhs.kind, ExprKind::Call { callee, .. }
        if matches!(&callee.kind, ExprKind::Ident { name } if name == "Pred")));
    assert!(matches!(&rhs.kind, ExprKind::Set { elements } if elements.len() == 2));
}

/// Every routine heading of a unit, methods included, as `Qualifier.Name`.
fn all_headings(unit: &delphi_mcp_parser::ast::Unit) -> Vec<String> {
    let mut out: Vec<String> = unit
        .routines()
        .map(|r| match &r.qualifier {
            Some(q) => format!("{q}.{}", r.name),
            None => r.name.to_string(),
        })
        .collect();
    for t in unit.type_decls() {
        if let TypeDef::Structured(st) = &t.def {
            out.extend(st.methods().map(|(_, m)| format!("{}::{}", t.name, m.name)));
        }
    }
    out
}

fn parse_clean(name: &str, target: &str) -> delphi_mcp_parser::ast::Unit {
    let db = SourceDb::new();
    let options = ParseOptions {
        target: target.into(),
        ..ParseOptions::default()
    };
    // `lenient/` holds what the compilers accept beyond the clean fixtures of `units/`
    // (some with warnings, some FPC-only).
    let result = parse_file(&db, &fixture("lenient", name), &options);
    let rendered: Vec<String> = result.diagnostics.iter().map(|d| d.render(&db)).collect();
    assert!(!result.has_errors(), "{name}:\n{}", rendered.join("\n"));
    result.unit.expect("unit")
}

#[test]
fn lenient_delphi_constructs_parse_and_keep_their_headings() {
    let unit = parse_clean("Leniency.pas", "delphi12-win64");
    let headings = all_headings(&unit);
    for expected in [
        "TStrings8Helper::Twice",
        "TNames::Count",
        "TNames::Clear",
        "TNames::Find",
        "TNames::Last",
        "LegacyCheck",
        "PlatformName",
        "TNames.Find",
        "TStrings8Helper.Twice",
        "AsmWithEndLabel",
        "OnlyWith64bitSymbol",
        "TPairHolder::GetEnumerator",
        "LinkedFromFramework",
        "LinkedWithDependency",
    ] {
        assert!(
            headings.iter().any(|h| h == expected),
            "{expected} missing from {headings:?}"
        );
    }
    let linked = unit
        .all_routines()
        .into_iter()
        .find(|r| r.name == "LinkedWithDependency")
        .expect("LinkedWithDependency");
    let directives: Vec<(&str, Option<&str>)> = linked
        .directives
        .iter()
        .map(|d| (d.name.as_str(), d.arg.as_deref()))
        .collect();
    assert_eq!(
        directives,
        [
            ("cdecl", None),
            ("external", Some("'libzmq.a'")),
            ("name", Some("'zmq_ctx_new'")),
            ("dependency", Some("'c++', 'z'")),
        ]
    );
    let helper = unit
        .type_decls()
        .into_iter()
        .find(|t| t.name == "TStrings8Helper")
        .expect("TStrings8Helper");
    let TypeDef::Structured(st) = &helper.def else {
        panic!("a helper is structured")
    };
    assert_eq!(
        st.helper_for.as_ref().map(|t| t.text.as_str()),
        Some("string")
    );
    let names = unit
        .type_decls()
        .into_iter()
        .find(|t| t.name == "TNames")
        .expect("TNames");
    let TypeDef::Structured(st) = &names.def else {
        panic!("TNames is a class")
    };
    let (_, field, _) = st.fields().next().expect("FItems");
    assert_eq!(field.name, "FItems");
    assert_eq!(
        serde_json::to_value(&field.ty).expect("json")["kind"]["generic_args"][0]["kind"]["name"],
        "System.string"
    );
}

#[test]
fn fpc_only_syntax_parses_with_an_fpc_target() {
    let unit = parse_clean("FpcSyntax.pas", "fpc-linux64");
    let headings = all_headings(&unit);
    for expected in [
        "TPair::=",
        "TPair.=",
        "TIntHelper::Doubled",
        "TIntHelper.Doubled",
        "GetLevel",
        "SetLevel",
        ":=",
        "+",
        "Exported_Routine",
    ] {
        assert!(
            headings.iter().any(|h| h == expected),
            "{expected} missing from {headings:?}"
        );
    }
    let types: Vec<&str> = unit.type_decls().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        types,
        ["TFlags", "TLevel", "TLineProc", "TPair", "TIntHelper"]
    );
}

#[test]
fn nested_routines_are_headings_of_their_parent() {
    let db = SourceDb::new();
    let text = "unit N;\ninterface\nprocedure Outer;\nimplementation\n\
                procedure Outer;\n  function Inner(X: Integer): Integer;\n    \
                procedure Deeper(const S: string); forward;\n    \
                procedure Deeper(const S: string); begin end;\n  \
                begin Result := X; end;\n  \
                class function Helper: Boolean; begin Result := True; end;\n\
                var Y: Integer;\nbegin\n  Y := Inner(1);\nend;\nend.\n";
    let result = parse_text(&db, Path::new("N.pas"), text, &ParseOptions::default());
    assert!(!result.has_errors(), "{:?}", result.diagnostics);
    let unit = result.unit.expect("unit");
    let names: Vec<&str> = unit
        .all_routines()
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["Outer", "Outer", "Inner", "Deeper", "Deeper", "Helper"]
    );
    let outer = unit.all_routines()[1];
    assert_eq!(outer.nested.len(), 2);
    let inner = &outer.nested[0];
    assert_eq!(inner.params[0].name, "X");
    assert!(inner.nested[0].forward);
    assert!(inner.nested[1].body_span.is_some());
    assert!(outer.nested[1].is_class);
}

#[test]
fn a_bad_member_costs_only_itself() {
    let db = SourceDb::new();
    let text =
        "unit M;\ninterface\ntype\n  TTools = class(TObject)\n  private\n    FCount: Integer;\n\
                \x20   FBroken: array of of Integer;\n  public\n    [McpTool('add')]\n\
                \x20   function Add(A, B: Integer): Integer;\n    procedure Wrong(: Integer);\n\
                \x20   property Count: Integer read FCount;\n  end;\n  TNext = Integer;\n\
                implementation\nend.\n";
    let result = parse_text(&db, Path::new("M.pas"), text, &ParseOptions::default());
    let errors: Vec<_> = result.diagnostics.iter().filter(|d| d.is_error()).collect();
    let lines: Vec<u32> = errors
        .iter()
        .map(|d| {
            let span = d.span.expect("span");
            db.get(span.file).line_col(span.start).line
        })
        .collect();
    assert_eq!(lines, [7, 11], "{errors:?}");
    let unit = result.unit.expect("unit");
    let types: Vec<&str> = unit.type_decls().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(types, ["TTools", "TNext"]);
    let TypeDef::Structured(st) = &unit.type_decls()[0].def else {
        panic!("TTools is a class")
    };
    let methods: Vec<(Visibility, &str)> =
        st.methods().map(|(v, m)| (v, m.name.as_str())).collect();
    assert_eq!(methods, [(Visibility::Public, "Add")]);
    let add = st.methods().next().expect("Add").1;
    assert_eq!(add.attributes[0].name, "McpTool");
    let fields: Vec<&str> = st.fields().map(|(_, f, _)| f.name.as_str()).collect();
    assert_eq!(fields, ["FCount"]);
    assert_eq!(st.properties().count(), 1);
    assert_eq!(st.ancestors[0].text, "TObject");
}

#[test]
fn five_quote_multiline_strings_hold_triple_quotes() {
    let db = SourceDb::new();
    let text = "unit Q;\ninterface\nconst\n  Sql = '''''\n    select ''' as q\n    ''''';\n  \
                After = 'x';\nimplementation\nend.\n";
    let result = parse_text(&db, Path::new("Q.pas"), text, &ParseOptions::default());
    assert!(!result.has_errors(), "{:?}", result.diagnostics);
    let unit = result.unit.expect("unit");
    let env = ConstEnv::from_unit(&unit);
    let values: Vec<Option<ConstValue>> = unit
        .constants()
        .iter()
        .map(|c| env.eval(&c.value))
        .collect();
    assert_eq!(
        values,
        [
            Some(ConstValue::Str("select ''' as q".into())),
            Some(ConstValue::Str("x".into()))
        ]
    );
}

/// Free Pascal nests `{ }` comments in its FPC and OBJFPC modes, not in Delphi mode.
#[test]
fn fpc_modes_nest_brace_comments() {
    let unit = |mode: &str| {
        format!(
            "unit N;\n{{$MODE {mode}}}\ninterface\n{{ outer {{ inner procedure Hidden; }} still \
             a comment }}\nprocedure Visible;\nimplementation\nprocedure Visible;\nbegin\n  \
             {{ a {{ b }} c }} Visible;\nend;\nend.\n"
        )
    };
    let parse = |text: String, target: &str| {
        let db = SourceDb::new();
        let options = ParseOptions {
            target: target.into(),
            ..ParseOptions::default()
        };
        let result = parse_text(&db, Path::new("N.pas"), &text, &options);
        let names: Vec<String> = result
            .unit
            .as_ref()
            .map(|u| {
                u.all_routines()
                    .iter()
                    .map(|r| r.name.to_string())
                    .collect()
            })
            .unwrap_or_default();
        (result.has_errors(), names)
    };
    for mode in ["OBJFPC", "FPC"] {
        let (errors, names) = parse(unit(mode), "fpc-linux64");
        assert!(!errors, "{mode}");
        assert_eq!(names, ["Visible", "Visible"], "{mode}");
    }
    // Delphi mode (and Delphi itself): the first `}` closes the comment
    assert!(parse(unit("DELPHI"), "fpc-linux64").0);
    assert!(parse(unit("OBJFPC"), "delphi12-win64").0);
}
