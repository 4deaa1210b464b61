//! Constructs of public Delphi code the parser once rejected, one fixture unit each: every unit
//! is read without a diagnostic by the direct path and by the grammar alone, into the same tree,
//! and the tree holds what the code declares.

use delphi_mcp_parser::ast::{
    Decl, ExprKind, ParamMode, RoutineKind, SectionKind, StructuredType, TypeDef, TypeRefKind, Unit,
};
use delphi_mcp_parser::{parse_text, parse_text_grammar_only, ParseOptions, SourceDb};

mod support;
use support::fixture;

/// The fixture unit `name`, read both ways: no diagnostic either way, the same tree.
fn read_both_ways(name: &str) -> Unit {
    let path = fixture("units", name);
    let text = std::fs::read_to_string(&path).expect("the fixture is UTF-8 text");
    let opts = ParseOptions::default();
    let direct = parse_text(&SourceDb::new(), &path, &text, &opts);
    let grammar = parse_text_grammar_only(&SourceDb::new(), &path, &text, &opts);
    for (how, result) in [("direct path", &direct), ("grammar", &grammar)] {
        let messages: Vec<&str> = result
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert!(messages.is_empty(), "{name}, {how}: {messages:?}");
    }
    assert_eq!(
        format!("{:?}", direct.unit),
        format!("{:?}", grammar.unit),
        "{name}: the two paths build different trees"
    );
    direct.unit.expect("a unit")
}

fn structured<'u>(unit: &'u Unit, name: &str) -> &'u StructuredType {
    let decl = unit.type_decls().into_iter().find(|t| t.name == name);
    match decl.map(|t| &t.def) {
        Some(TypeDef::Structured(st)) => st,
        other => panic!("{name} is not a structured type: {other:?}"),
    }
}

#[test]
fn operator_methods_named_with_a_double_ampersand() {
    let unit = read_both_ways("OperatorNames.pas");
    let money = structured(&unit, "TMoney");
    let methods: Vec<(&str, bool, RoutineKind)> = money
        .methods()
        .map(|(_, m)| (m.name.as_str(), m.is_class, m.kind))
        .collect();
    assert_eq!(
        methods,
        [
            ("&op_Equality", true, RoutineKind::Function),
            ("&op_Inequality", true, RoutineKind::Function),
            ("&op_Implicit", true, RoutineKind::Function),
            ("&op_Addition", false, RoutineKind::Function),
        ]
    );
    let (_, equality) = money.methods().next().expect("op_Equality");
    assert_eq!(equality.params.len(), 2);
    assert!(equality.has_directive("static"));
    let bodies: Vec<(Option<&str>, &str)> = unit
        .routines()
        .map(|r| (r.qualifier.as_deref(), r.name.as_str()))
        .collect();
    assert_eq!(
        bodies,
        [
            (Some("TMoney"), "&op_Equality"),
            (Some("TMoney"), "&op_Inequality"),
            (Some("TMoney"), "&op_Implicit"),
            (Some("TMoney"), "&op_Addition"),
        ]
    );
    assert!(unit.routines().all(|r| r.body_span.is_some()));
}

#[test]
fn array_bounds_and_subranges_that_start_with_a_name_or_a_call() {
    let unit = read_both_ways("ArrayBounds.pas");
    let def = |name: &str| {
        &unit
            .type_decls()
            .into_iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} is declared"))
            .def
    };
    for name in ["TTail", "TShifted", "TScaled"] {
        let TypeDef::Other { target } = def(name) else {
            panic!("{name} is an array type: {:?}", def(name))
        };
        assert!(
            matches!(&target.kind, TypeRefKind::StaticArray { element } if !element.text.is_empty()),
            "{name}: {:?}",
            target.kind
        );
    }
    let TypeDef::Other { target } = def("TTail") else {
        unreachable!()
    };
    assert_eq!(
        target.text,
        "array[SizeOf(Integer) + SizeOf(Word) .. SizeOf(Int64) - 1] of Byte"
    );
    // subranges keep their bounds as expressions
    let TypeDef::Subrange { low, high } = def("TRange") else {
        panic!("TRange is a subrange: {:?}", def("TRange"))
    };
    assert_eq!(
        (low.text.as_str(), high.text.as_str()),
        ("Base - 1", "Base + 10")
    );
    assert!(matches!(&low.kind, ExprKind::Binary { op, .. } if op == "-"));
    let TypeDef::Subrange { low, .. } = def("TFromCall") else {
        panic!("TFromCall is a subrange: {:?}", def("TFromCall"))
    };
    assert!(matches!(&low.kind, ExprKind::Binary { op, lhs, .. }
        if op == "div" && matches!(lhs.kind, ExprKind::Call { .. })));
    // a field, a variable and a local variable of such types
    let (_, pad, _) = structured(&unit, "THeader")
        .fields()
        .nth(1)
        .expect("the Pad field");
    assert_eq!(pad.name, "Pad");
    assert!(matches!(pad.ty.kind, TypeRefKind::StaticArray { .. }));
    let scratch = unit.sections[0]
        .decls
        .iter()
        .find_map(|d| match d {
            Decl::Var(v) => v.items.first(),
            _ => None,
        })
        .expect("the Scratch variable");
    assert!(matches!(scratch.ty.kind, TypeRefKind::StaticArray { .. }));
    let fill = unit.routines().last().expect("Fill");
    assert!(fill.body_span.is_some(), "its local section is skipped");
}

#[test]
fn attributes_on_each_name_of_a_parameter_group() {
    let unit = read_both_ways("ParamAttributes.pas");
    let attributes = |params: &[delphi_mcp_parser::ast::Param]| -> Vec<(String, Vec<String>)> {
        params
            .iter()
            .map(|p| {
                let names = p
                    .attributes
                    .iter()
                    .map(|a| match a.args.first().map(|x| &x.value.kind) {
                        Some(ExprKind::Str { value }) => format!("{}({value})", a.name),
                        _ => a.name.to_string(),
                    })
                    .collect();
                (p.name.to_string(), names)
            })
            .collect()
    };
    let owned = |list: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        list.iter()
            .map(|(n, a)| (n.to_string(), a.iter().map(|s| s.to_string()).collect()))
            .collect()
    };
    let math = structured(&unit, "TMath");
    let mut methods = math.methods().map(|(_, m)| m);
    let sum = methods.next().expect("Sum");
    assert_eq!(
        attributes(&sum.params),
        owned(&[("A", &["Arg(a)"]), ("B", &["Arg(a)", "Arg(b)"])])
    );
    assert_eq!(sum.attributes[0].name, "McpTool");
    let blend = methods.next().expect("Blend");
    assert_eq!(
        attributes(&blend.params),
        owned(&[
            ("Left", &["Shared"]),
            ("Right", &["Shared", "Arg(right)"]),
            ("Mode", &["Ref", "Arg(m)"]),
            ("Other", &["Ref", "Arg(m)"]),
        ])
    );
    let modes: Vec<ParamMode> = blend.params.iter().map(|p| p.mode).collect();
    assert_eq!(
        modes,
        [
            ParamMode::Const,
            ParamMode::Const,
            ParamMode::ConstRef,
            ParamMode::ConstRef
        ]
    );
    let (_, item) = math.properties().next().expect("Item");
    assert_eq!(
        attributes(&item.params),
        owned(&[("I", &["Arg(i)"]), ("J", &["Arg(i)", "Arg(j)"])])
    );
    // the unit-level function and every implementation read the same
    for r in unit.all_routines().into_iter().filter(|r| r.name == "Sum") {
        assert_eq!(
            attributes(&r.params),
            owned(&[("A", &["Arg(a)"]), ("B", &["Arg(a)", "Arg(b)"])])
        );
    }
}

#[test]
fn generic_types_after_implements() {
    let unit = read_both_ways("GenericImplements.pas");
    // each property as `Name: specifier argument; ...`
    let properties: Vec<String> = structured(&unit, "TFooBox")
        .properties()
        .map(|(_, p)| {
            let specs: Vec<String> = p
                .specifiers
                .iter()
                .map(|s| match &s.arg {
                    Some(arg) => format!("{} {arg}", s.name),
                    None => s.name.to_string(),
                })
                .collect();
            format!("{}: {}", p.name, specs.join("; "))
        })
        .collect();
    assert_eq!(
        properties,
        [
            "Foo: read FFoo; implements IFoo<T>",
            "Bar: read FBar; implements IBar",
            "Both: read FBoth; implements IFoo<T>, IBar",
            "Pairs: read FFoo; implements IFoo<TPair<string, T>>; deprecated",
        ]
    );
}

#[test]
fn conditionals_inside_call_arguments_end_their_bodies_where_they_end() {
    let path = fixture("units", "ConditionalArguments.pas");
    let text = std::fs::read_to_string(&path).expect("the fixture is UTF-8 text");
    let unit = read_both_ways("ConditionalArguments.pas");
    let implementation = unit
        .sections
        .iter()
        .find(|s| s.kind == SectionKind::Implementation)
        .expect("implementation");
    let routines: Vec<&str> = implementation
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Routine(r) => Some(r.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(routines, ["Report", "Count", "Log", "Pick"]);
    for d in &implementation.decls {
        let Decl::Routine(r) = d else { continue };
        // the body ends at the routine's own `end;`: the next declaration (or the
        // initialization) follows it
        let span = r.body_span.expect("a body");
        let (body, after) = (
            &text[span.start as usize..span.end as usize],
            text[span.end as usize..].trim_start(),
        );
        assert!(body.ends_with("end;"), "{}: {body:?}", r.name);
        assert!(
            ["procedure", "function", "initialization"]
                .iter()
                .any(|k| after.starts_with(k)),
            "{}: the body ends before {:?}",
            r.name,
            after.lines().next()
        );
    }
    let log = unit.routines().find(|r| r.name == "Log").expect("Log");
    assert_eq!(log.params[1].name, "Text");
    assert_eq!(
        log.params[1].ty.as_ref().map(|t| t.text.as_str()),
        Some("string"),
        "the Windows branch of the heading"
    );
    let init = unit.init_span.expect("initialization");
    assert!(text[init.start as usize..init.end as usize].starts_with("initialization"));
    assert!(matches!(
        implementation.decls.last(),
        Some(Decl::Routine(r)) if r.name == "Pick"
    ));
}
