//! Snapshots of what the generator makes of small units (through the real parser): one per
//! row of the type table (schema, manifest binding and Pascal stub), and one per diagnostic.
//! `cargo insta review` after an intended change.

use delphi_mcp_codegen::types::BUILTINS;
use delphi_mcp_codegen::UnitInput;
use delphi_mcp_parser::{parse_text, ParseOptions, SourceDb};
use std::path::Path;

/// `insta::assert_snapshot!` with the file named by the snapshot alone
/// (`tests/cli/snapshots/row_Integer.snap`), not prefixed by this module's path in the binary.
macro_rules! snapshot {
    ($($arg:tt)*) => {
        insta::with_settings!({prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!($($arg)*)
        })
    };
}

/// Parses `text` as `Fixture.pas` and generates; returns the rendered diagnostics and, when
/// there was no error, the generated files.
fn run(text: &str) -> (String, Option<delphi_mcp_codegen::Generated>) {
    let db = SourceDb::new();
    let parsed = parse_text(
        &db,
        Path::new("Fixture.pas"),
        text,
        &ParseOptions::default(),
    );
    let mut rendered = String::new();
    for d in &parsed.diagnostics {
        rendered.push_str(&d.render(&db));
    }
    let Some(unit) = parsed.unit else {
        return (rendered, None);
    };
    let inputs = [UnitInput {
        unit: &unit,
        path: "Fixture.pas",
    }];
    let outcome = delphi_mcp_codegen::generate(&db, &inputs, &Default::default(), "Fixture")
        .expect("templates render");
    for d in &outcome.diagnostics {
        rendered.push_str(&d.render(&db));
    }
    (rendered, outcome.output)
}

fn unit(types: &str, decls: &str) -> String {
    format!(
        "unit Fixture;\n\ninterface\n\ntype\n  TDummy = Integer;\n{types}\n{decls}\nimplementation\n\nend.\n"
    )
}

/// The manifest entry and the stub of the only tool of a run.
fn tool_snapshot(generated: &delphi_mcp_codegen::Generated) -> String {
    let entry = &generated.manifest.tools[0];
    let json = serde_json::to_string_pretty(entry).unwrap_or_default();
    let stubs = &generated.files["McpExports.pas"];
    let start = stubs
        .find("{ ")
        .and_then(|_| stubs.rfind("\n{ "))
        .unwrap_or(0);
    format!("{json}\n\n{}", stubs[start..].trim())
}

#[test]
fn every_built_in_row() {
    for row in BUILTINS {
        let ty = row.names[0];
        let text = unit(
            "",
            &format!("/// Echoes a {ty}.\n[McpTool]\nfunction Echo(Value: {ty}): {ty};\n"),
        );
        let (diagnostics, generated) = run(&text);
        assert!(diagnostics.is_empty(), "{ty}: {diagnostics}");
        let generated = generated.expect("generated");
        snapshot!(format!("row_{ty}"), tool_snapshot(&generated));
    }
}

#[test]
fn unit_declared_types() {
    let cases = [
        ("enum", "  TColor = (Red, Green, Blue = 5);", "TColor"),
        ("subrange", "  TPercent = 0..100;", "TPercent"),
        ("alias", "  TAge = type Integer;", "TAge"),
        ("short_string_n", "  TCode = String[8];", "TCode"),
        (
            "ansi_code_page",
            "  TLatin = type AnsiString(1252);",
            "TLatin",
        ),
        ("utf8_code_page", "  TRaw = type AnsiString(65001);", "TRaw"),
    ];
    for (name, decl, ty) in cases {
        let text = unit(
            decl,
            &format!("/// Echoes a {ty}.\n[McpTool]\nfunction Echo(Value: {ty}): {ty};\n"),
        );
        let (diagnostics, generated) = run(&text);
        assert!(diagnostics.is_empty(), "{name}: {diagnostics}");
        snapshot!(
            format!("declared_{name}"),
            tool_snapshot(&generated.expect("generated"))
        );
    }
}

/// The composite rows (ABI 2): the manifest entry and the stub of a tool of each.
#[test]
fn composite_rows() {
    let types = "  TColor = (Red, Green);\n  TColors = set of TColor;\n\
        /// A point.\n  TPoint2 = packed record\n    /// Across.\n    X: Integer;\n    [McpName('down')]\n    Y: Double;\n  end;\n\
        TPoints = array of TPoint2;\n  TTriple = array[1..3] of Byte;\n";
    let cases = [
        ("record", "function Echo(Value: TPoint2): TPoint2;"),
        ("dynamic_array", "function Echo(Value: TPoints): TPoints;"),
        (
            "open_array",
            "function Echo(const Value: array of string): Integer;",
        ),
        (
            "generic_array",
            "function Echo(Value: TArray<TArray<Int64>>): TArray<TArray<Int64>>;",
        ),
        ("static_array", "function Echo(Value: TTriple): TTriple;"),
        ("set", "function Echo(Value: TColors): TColors;"),
        ("bytes", "function Echo(Value: TBytes): TBytes;"),
        ("strings", "function Echo(Value: TStrings): TStringList;"),
        (
            "var_out",
            "function Echo(var Value: TPoint2; out Count: Integer): Boolean;",
        ),
        ("out_procedure", "procedure Echo(out Value: string);"),
    ];
    for (name, heading) in cases {
        let text = unit(types, &format!("/// Echoes.\n[McpTool]\n{heading}\n"));
        let (diagnostics, generated) = run(&text);
        assert!(diagnostics.is_empty(), "{name}: {diagnostics}");
        let generated = generated.expect("generated");
        assert_eq!(
            generated.manifest.abi_version,
            delphi_mcp_manifest::abi::ABI_VERSION
        );
        snapshot!(format!("composite_{name}"), tool_snapshot(&generated));
    }
}

#[test]
fn argument_names_follow_mcp_name_and_the_naming_policy() {
    let text = unit(
        "",
        "/// A.\n[McpTool]\n[McpNaming('camelCase')]\nprocedure A(AllowZero: Boolean; [McpName('q')] Query: string);\n\
         /// B.\n[McpTool]\n[McpNaming('snake_case')]\nprocedure B(AllowZero: Boolean; out HTTPCode: Integer);\n",
    );
    let (diagnostics, generated) = run(&text);
    assert!(diagnostics.is_empty(), "{diagnostics}");
    let generated = generated.expect("generated");
    let keys = |tool: usize, schema: &str| -> Vec<String> {
        generated.manifest.tools[tool]
            .delphi
            .params
            .iter()
            .map(|p| p.name.clone())
            .chain(if schema == "out" {
                generated.manifest.tools[tool]
                    .delphi
                    .outputs
                    .iter()
                    .map(|o| o.name.clone())
                    .collect::<Vec<_>>()
            } else {
                Vec::new()
            })
            .collect()
    };
    assert_eq!(keys(0, "in"), ["allowZero", "q"]);
    assert_eq!(keys(1, "out"), ["allow_zero", "http_code"]);
    let stub = &generated.files["McpExports.pas"];
    assert!(stub.contains("'allowZero'"), "messages name the argument");
}

#[test]
fn defaults_descriptions_annotations_and_nil() {
    let text = unit(
        "  TMode = (mFast, mSafe);",
        "/// <summary>Scales a value.</summary>\n\
         /// <param name=\"Value\">The number.</param>\n\
         /// <param name=\"Factor\">The multiplier.</param>\n\
         [McpTool('scale_it')]\n[McpTitle('Scale')]\n[McpReadOnly]\n[McpDestructive(False)]\n[McpNil('Sender')]\n\
         function Scale(Value: Double; Sender: TObject; Factor: Double = 1.5; Mode: TMode = mSafe; Name: string = 'x'; Flag: Boolean = True): Double;\n",
    );
    let (diagnostics, generated) = run(&text);
    assert!(diagnostics.is_empty(), "{diagnostics}");
    snapshot!(tool_snapshot(&generated.expect("generated")));
}

#[test]
fn instance_and_class_tools() {
    let text = "unit Fixture;\n\ninterface\n\ntype\n\
        TBase = class\n  public\n    /// Describes.\n    [McpTool]\n    function Describe: string;\n  end;\n\n\
        [McpInstance('CurrentModule', 'calc_')]\n\
        TModule = class(TBase)\n  public\n    /// Scales.\n    [McpTool('scale')]\n    function Scale(Value: Double): Double;\n\
        /// The version.\n    [McpTool]\n    class function Version: string;\n  end;\n\n\
        function CurrentModule: TModule;\n\nimplementation\n\nend.\n";
    let (diagnostics, generated) = run(text);
    assert!(diagnostics.is_empty(), "{diagnostics}");
    let generated = generated.expect("generated");
    let names: Vec<&str> = generated
        .manifest
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["calc_describe", "calc_scale", "calc_version"]);
    snapshot!(generated.files["McpExports.pas"]
        .split("implementation")
        .nth(1)
        .map(|s| s.split("\n{ ").skip(1).collect::<Vec<_>>().join("\n{ "))
        .unwrap_or_default());
}

/// Each error case: a unit and the diagnostics it must give.
#[test]
fn every_diagnostic() {
    let cases: &[(&str, &str, &str)] = &[
        ("nil_on_var_param", "", "[McpTool]\n[McpNil('X')]\nprocedure P(var X: TObject);\n"),
        ("out_param_named_result", "", "[McpTool]\nfunction P([McpName('result')] out X: Integer): Boolean;\n"),
        ("duplicate_argument_name", "", "[McpTool]\nprocedure P(A: Integer; [McpName('A')] B: Integer);\n"),
        ("naming_collision", "", "[McpTool]\n[McpNaming('snake_case')]\nprocedure P(AllowZero: Boolean; allow_zero: Integer);\n"),
        ("unknown_naming_policy", "", "[McpTool]\n[McpNaming('kebab')]\nprocedure P;\n"),
        ("variant_record", "  TRec = record\n    case Tag: Integer of\n      0: (A: Integer);\n      1: (B: Double);\n  end;", "[McpTool]\nprocedure P(X: TRec);\n"),
        ("record_field_pointer", "  TRec = record A: Integer; Next: Pointer; end;", "[McpTool]\nprocedure P(X: TRec);\n"),
        ("array_of_const", "", "[McpTool]\nprocedure P(X: array of const);\n"),
        ("nested_strings", "  TRec = record Lines: TStrings; end;", "[McpTool]\nprocedure P(X: TRec);\n"),
        ("untyped_param", "", "[McpTool]\nprocedure P(const X);\n"),
        ("set_param", "  TSet = set of Byte;", "[McpTool]\nprocedure P(X: TSet);\n"),
        ("pointer_param", "", "[McpTool]\nprocedure P(X: Pointer);\n"),
        ("class_param", "", "[McpTool]\nprocedure P(X: TObject);\n"),
        ("interface_param", "  IThing = interface end;", "[McpTool]\nprocedure P(X: IThing);\n"),
        ("procedural_param", "  TCallback = procedure(A: Integer);", "[McpTool]\nprocedure P(X: TCallback);\n"),
        ("unknown_type", "", "[McpTool]\nprocedure P(X: TNowhere);\n"),
        ("class_result", "", "[McpTool]\nfunction F: TObject;\n"),
        ("invalid_name", "", "[McpTool('has space')]\nprocedure P;\n"),
        ("duplicate_name", "", "/// A.\n[McpTool('same')]\nprocedure A;\n/// B.\n[McpTool('same')]\nprocedure B;\n"),
        ("nil_on_value_type", "", "[McpTool]\n[McpNil('X')]\nprocedure P(X: Integer);\n"),
        ("nil_unknown_param", "", "/// P.\n[McpTool]\n[McpNil('Y')]\nprocedure P(X: TObject);\n"),
        ("unknown_attribute", "", "/// P.\n[McpTool]\n[McpReadonlyy]\nprocedure P;\n"),
        ("named_attribute_arg", "", "/// P.\n[McpTool(Name = 'x')]\nprocedure P;\n"),
        ("no_description", "", "[McpTool]\nprocedure P;\n"),
        ("instance_without_resolver", "  TThing = class\n  public\n    /// M.\n    [McpTool]\n    procedure M;\n  end;", ""),
        ("private_method", "  [McpInstance('Cur')]\n  TThing = class\n  private\n    /// M.\n    [McpTool]\n    procedure M;\n  end;", ""),
        // ABI 3: resources, templates, prompts, completions and the call context.
        ("resource_with_argument", "", "[McpResource('x://a')]\nfunction R(Id: string): string;\n"),
        ("resource_result", "", "[McpResource('x://a')]\nfunction R: Integer;\n"),
        ("template_variable_mismatch", "", "[McpResourceTemplate('x://{id}/{part}')]\nfunction R(const id, other: string): string;\n"),
        ("template_bad_variable", "", "[McpResourceTemplate('x://{+id}')]\nfunction R(const id: string): string;\n"),
        ("prompt_argument_type", "", "[McpPrompt('p')]\nfunction P(Count: Integer): string;\n"),
        ("prompt_image", "", "[McpPrompt('p')]\nfunction P: TMcpImage;\n"),
        ("completion_result", "", "[McpCompletion('p', 'arg')]\nfunction C(const Value: string): string;\n"),
        ("completion_arguments", "", "[McpCompletion('p')]\nfunction C(const Value: string): TArray<string>;\n"),
        ("context_var", "", "/// T.\n[McpTool]\nprocedure T(var Ctx: TMcpContext);\n"),
    ];
    for (name, types, decls) in cases {
        let (diagnostics, generated) = run(&unit(types, decls));
        assert!(!diagnostics.is_empty(), "{name}: no diagnostic");
        if *name == "no_description" {
            assert!(generated.is_some(), "a warning does not stop generation");
        } else {
            assert!(generated.is_none(), "{name}: generated despite errors");
        }
        snapshot!(format!("diag_{name}"), diagnostics);
    }
}

#[test]
fn all_errors_of_a_run_are_reported_together() {
    let text = unit(
        "",
        "[McpTool]\nprocedure A(X: array of const);\n[McpTool]\nprocedure B(X: Pointer);\n[McpTool('bad name')]\nprocedure C;\n",
    );
    let (diagnostics, generated) = run(&text);
    assert!(generated.is_none());
    assert_eq!(diagnostics.matches("error:").count(), 3, "{diagnostics}");
}

#[test]
fn the_manifest_is_deterministic() {
    let text = unit(
        "",
        "/// Z.\n[McpTool]\nprocedure Zed;\n/// A.\n[McpTool]\nprocedure Alpha(X: Integer; Y: string);\n",
    );
    let first = run(&text).1.expect("generated");
    let second = run(&text).1.expect("generated");
    assert_eq!(first.files, second.files);
    let names: Vec<&str> = first
        .manifest
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["alpha", "zed"]);
}

#[test]
fn parameter_level_nil_leaves_the_schema_and_the_abi() {
    let text = unit(
        "",
        "/// Logs.\n[McpTool]\nprocedure Log(Text: string; [McpNil] Sender: TObject; Count: Integer = 1);\n",
    );
    let (diagnostics, generated) = run(&text);
    assert!(diagnostics.is_empty(), "{diagnostics}");
    let generated = generated.expect("generated");
    let tool = &generated.manifest.tools[0];
    let params: Vec<&str> = tool.delphi.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["Text", "Count"]);
    assert!(tool.input_schema.value()["properties"]
        .get("Sender")
        .is_none());
    assert!(generated.files["McpExports.pas"].contains("Fixture.Log(__McpA0, nil, __McpA2)"));
}

#[test]
fn an_inherited_tool_is_exposed_by_every_instance_class() {
    let text = "unit Fixture;\n\ninterface\n\ntype\n\
        TBase = class\n  public\n    /// Pings.\n    [McpTool]\n    function Ping: string;\n  end;\n\
        [McpInstance('FirstObject', 'first_')]\n  TFirst = class(TBase)\n  end;\n\
        [McpInstance('SecondObject', 'second_')]\n  TSecond = class(TFirst)\n  end;\n\n\
        function FirstObject: TFirst;\nfunction SecondObject: TSecond;\n\nimplementation\n\nend.\n";
    let (diagnostics, generated) = run(text);
    assert!(diagnostics.is_empty(), "{diagnostics}");
    let generated = generated.expect("generated");
    let names: Vec<&str> = generated
        .manifest
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["first_ping", "second_ping"]);
    let stubs = &generated.files["McpExports.pas"];
    assert!(stubs.contains("__McpObj: Fixture.TSecond;"), "{stubs}");
    assert!(stubs.contains("__McpObj := SecondObject;"));
}
