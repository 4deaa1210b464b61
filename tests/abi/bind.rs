//! `bind!` against the calc example: the library is built with Free Pascal (through the same
//! code as `delphi-mcp build`) and called through the typed module the macro generates, from
//! the units (feature `bind-units`) and from the manifest file `gen` wrote.

use crate::support;
use delphi_mcp_runtime::bind::BindError;
use delphi_mcp_runtime::call::ToolError;

delphi_mcp_runtime::bind!("examples/calc/CalcModule.pas", name = "Calc");

// The manifest `delphi-mcp gen` keeps in the example (checked by `gen --check`).
delphi_mcp_runtime::bind!(
    manifest = "examples/calc/generated/tools.json",
    module = calc_from_file
);

// Read for another library name: its manifest cannot match the calc library's.
delphi_mcp_runtime::bind!(
    "examples/calc/CalcModule.pas",
    name = "Renamed",
    module = renamed
);

#[test]
fn compiled_in_manifest_is_what_the_build_script_api_generates() {
    let out = tempfile::tempdir().expect("temp dir");
    let built = delphi_mcp_codegen::Builder::new()
        .unit(support::repo().join("examples/calc/CalcModule.pas"))
        .name("Calc")
        .out_dir(out.path())
        .cargo_directives(false)
        .generate()
        .expect("the calc units generate");
    let written = std::fs::read_to_string(out.path().join(delphi_mcp_codegen::MANIFEST_FILE))
        .expect("the written manifest");
    assert_eq!(calc::MANIFEST, written);
    assert_eq!(calc_from_file::MANIFEST, written);
    assert_eq!(built.generated.manifest.tools.len(), 28);
    assert!(renamed::MANIFEST.contains("\"name\": \"Renamed\""));
}

#[test]
fn calls_every_kind_of_tool() {
    let library = support::fpc::build_example("calc");
    let calc = calc::Library::load(&library).expect("the calc library loads");
    assert_eq!(calc.bound().manifest().name, "Calc");

    assert!(calc.calc_version().expect("version").contains('.'));
    calc.calc_open_module().expect("open the module");

    assert_eq!(calc.calc_add_integers(i64::MAX - 1, 1), Ok(i64::MAX));
    assert_eq!(calc.calc_add_numbers(0.25, 0.5), Ok(0.75));
    assert_eq!(calc.calc_scale(2.5, None), Ok(2.5));
    assert_eq!(calc.calc_scale(2.5, Some(4.0)), Ok(10.0));
    assert_eq!(calc.calc_max_unsigned(u64::MAX, 7), Ok(u64::MAX));
    assert_eq!(calc.calc_negate(-5), Ok(5));
    let sum: i64 = calc
        .calc_sum_integers(
            -128i8,
            255u8,
            -1i16,
            65535u16,
            1i32,
            4_000_000_000u32,
            2i32,
            3u32,
            4i32,
            5u32,
        )
        .expect("sum");
    assert_eq!(
        sum,
        -128 + 255 - 1 + 65535 + 1 + 4_000_000_000 + 2 + 3 + 4 + 5
    );
    assert_eq!(calc.calc_average(1.0f32, 2.0, 3.0, 6.0), Ok(3.0));
    assert_eq!(calc.calc_percent_of(200.0, 50u8), Ok(100.0));
    assert_eq!(calc.calc_is_positive(0.0, None), Ok(false));
    assert_eq!(calc.calc_is_positive(0.0, Some(true)), Ok(true));
    assert_eq!(calc.calc_repeat_text("ab", 3), Ok("ababab".to_string()));
    assert_eq!(calc.calc_first_char("żółw"), Ok("ż".to_string()));
    assert_eq!(calc.calc_join_with("a", "b", None), Ok("a,b".to_string()));
    assert_eq!(
        calc.calc_join_with("a", "b", Some(";")),
        Ok("a;b".to_string())
    );
    assert_eq!(
        calc.calc_add_days("2024-02-28", 1),
        Ok("2024-02-29".to_string())
    );
    assert_eq!(calc.calc_round_value(2.4, Some("rmUp")), Ok(3.0));
    assert_eq!(calc.calc_round_value(2.6, Some("rmDown")), Ok(2.0));
    calc.calc_store_memory(12.34).expect("store");
    assert_eq!(calc.calc_recall_memory(), Ok(12.34));

    // The module bound from the manifest file: the same manifest, the same methods. (Here,
    // while the module is open: the tests of this file run in parallel on one library.)
    let from_file = calc_from_file::Library::load(&library).expect("the calc library loads");
    assert_eq!(from_file.bound().manifest(), calc.bound().manifest());
    assert_eq!(from_file.calc_add_integers(40, 2), Ok(42));
    assert_eq!(from_file.calc_scale(2.5, Some(4.0)), Ok(10.0));
    assert_eq!(from_file.calc_recall_memory(), Ok(12.34));

    // Rejected before the call, exactly as for an MCP client.
    let too_long = calc.calc_product_code("ABCDEFGHIJ", 1);
    assert!(
        matches!(&too_long, Err(ToolError::InvalidArguments(text)) if text.contains("Prefix")),
        "{too_long:?}"
    );
    let unknown_member = calc.calc_round_value(1.0, Some("rmSideways"));
    assert!(
        matches!(&unknown_member, Err(ToolError::InvalidArguments(text)) if text.contains("rmSideways")),
        "{unknown_member:?}"
    );
    // A Pascal exception.
    let divided = calc.calc_divide(1, 0);
    assert!(
        matches!(&divided, Err(ToolError::Raised { tool, .. }) if tool == "calc_divide"),
        "{divided:?}"
    );
    // The text an MCP client reads for the same failure.
    let text = divided.map_err(|e| e.to_string()).err().unwrap_or_default();
    assert!(text.starts_with("Tool \"calc_divide\" raised "), "{text}");
    calc.calc_close_module().expect("close the module");
}

#[test]
fn a_library_of_other_units_is_refused() {
    let library = support::fpc::build_fixture("abi");
    let refused = calc::Library::load(&library);
    match refused {
        Err(BindError::ManifestMismatch(difference)) => assert_eq!(difference.at, "$.name"),
        other => panic!("expected a manifest mismatch, got {other:?}"),
    }
}

#[test]
fn a_missing_library_is_a_load_error() {
    let missing = support::repo().join("no-such-library.so");
    let refused = renamed::Library::load(&missing);
    assert!(matches!(refused, Err(BindError::Load(_))), "{refused:?}");
}

// Composite values, var/out parameters and a JSON handler (examples/values).
delphi_mcp_runtime::bind!(
    manifest = "examples/values/generated/tools.json",
    module = values
);

#[test]
fn composite_values_through_bind() {
    use values::{TBlob, TColor, TOrderLine, TPoint2};
    let library = support::fpc::build_example("values");
    let values = values::Library::load(&library).expect("the values library loads");

    // Records: a struct per record type, fields under their JSON names.
    assert_eq!(
        values.move_point(&TPoint2 { x: 1, y: 2 }, 3, 4),
        Ok(TPoint2 { x: 4, y: 6 })
    );
    let square = values
        .make_square("sq", 2, "Green")
        .expect("make_square answers");
    assert_eq!(square.name, "sq");
    assert_eq!(square.color, TColor::Green);
    assert_eq!(square.corners.len(), 4);
    assert_eq!(square.corners[2], TPoint2 { x: 2, y: 2 });
    assert_eq!(square.scale, vec![1.0, 1.0, 0.5]);
    assert_eq!(
        values.describe_shape(&square),
        Ok("sq: green, 4 corners, scale 1".to_string())
    );
    // [McpNaming('camelCase')] and [McpName('gift')] on the record: JSON keys, Rust fields.
    let line = |quantity, unit_price| TOrderLine {
        sku: "A-1".into(),
        quantity,
        unit_price,
        gift: false,
    };
    assert_eq!(values.order_total(&[line(2, 1.5), line(1, 4.0)]), Ok(7.0));

    // Arrays: Vec in and out, nested; a static array is a Vec whose count the runtime checks.
    assert_eq!(values.sum_all(&[1, 2, 3]), Ok(6));
    assert_eq!(values.evens(3), Ok(vec![0, 2, 4]));
    assert_eq!(
        values.transpose(&[vec![1, 2], vec![3, 4]]),
        Ok(vec![vec![1, 3], vec![2, 4]])
    );
    assert_eq!(
        values.scale_triple(&[1.0, 2.0, 3.0], 2.0),
        Ok(vec![2.0, 4.0, 6.0])
    );
    match values.scale_triple(&[1.0, 2.0], 2.0) {
        Err(ToolError::InvalidArguments(text)) => {
            assert!(text.contains("argument \"V\""), "{text}")
        }
        other => panic!("expected invalid arguments, got {other:?}"),
    }

    // Sets: a BTreeSet of the enumeration's enum.
    let red = std::collections::BTreeSet::from([TColor::Red]);
    assert_eq!(
        values.complement(&red),
        Ok(std::collections::BTreeSet::from([
            TColor::Green,
            TColor::Blue
        ]))
    );

    // TBytes as Vec<u8> (base64 on the wire), TStrings as Vec<String>.
    assert_eq!(values.reverse_bytes(&[1, 2, 255]), Ok(vec![255, 2, 1]));
    // TBytes inside records inside an array.
    let blob = |name: &str, data: &[u8]| TBlob {
        name: name.to_string(),
        data: data.to_vec(),
    };
    assert_eq!(
        values.reverse_blobs(&[blob("a", &[1, 2, 3]), blob("empty", &[])]),
        Ok(vec![blob("a", &[3, 2, 1]), blob("empty", &[])])
    );
    assert_eq!(
        values.reverse_lines(&["a".to_string(), "b".to_string()]),
        Ok(vec!["b".to_string(), "a".to_string()])
    );

    // var/out: a struct of the result and the parameters after the call.
    let parsed = values.try_parse("7").expect("try_parse answers");
    assert_eq!(
        parsed,
        values::TryParseOutput {
            result: true,
            value: 7
        }
    );
    assert_eq!(
        values.swap("x", "y"),
        Ok(values::SwapOutput {
            a: "y".into(),
            b: "x".into()
        })
    );

    // A JSON handler keeps JSON in and out.
    let serde_json::Value::Object(arguments) = serde_json::json!({"texts": ["a b", "c"]}) else {
        unreachable!("an object literal")
    };
    assert_eq!(
        values.count_words(arguments),
        Ok(serde_json::json!({"texts": 2, "words": 3}))
    );
}

// The units of the values example read with another naming policy (as `--naming`): only the
// names no [McpName] or [McpNaming] gives change.
delphi_mcp_runtime::bind!(
    "examples/values/ValueTools.pas",
    name = "Values",
    naming = "snake_case",
    module = values_snake
);

#[test]
fn bind_units_take_the_naming_policy() {
    let manifest: serde_json::Value =
        serde_json::from_str(values_snake::MANIFEST).expect("the manifest is JSON");
    let tools = manifest["tools"].as_array().cloned().unwrap_or_default();
    let keys = |tool: &str| -> Vec<String> {
        tools
            .iter()
            .find(|t| t["name"] == tool)
            .and_then(|t| t["inputSchema"]["properties"].as_object())
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(keys("move_point"), ["p", "dx", "dy"]);
    assert_eq!(keys("full_name"), ["first_name", "last_name"]);
    // The Rust types follow: the record's JSON keys are snake case now.
    let point = values_snake::TPoint2 { x: 1, y: 2 };
    assert_eq!(
        serde_json::to_value(&point).ok(),
        Some(serde_json::json!({"x": 1, "y": 2}))
    );
}

// ABI 3 from Rust: the everything example's manifest. A call context parameter is no Rust
// argument (the call gets a context without a client), content records are Rust structs.
delphi_mcp_runtime::bind!(
    manifest = "examples/everything/generated/tools.json",
    module = everything
);

#[test]
fn bind_calls_tools_with_a_context_and_content_results() {
    let library = support::fpc::build_example("everything");
    let lib = everything::Library::load(&library).expect("the everything library loads");
    // Progress and logs go to the log only; nobody cancels: all steps run.
    assert_eq!(lib.count_with_progress(3), Ok(3));
    let image = lib.test_image_content().expect("an image");
    assert_eq!(image.mime_type, "image/png");
    assert!(image.data.starts_with(b"\x89PNG"), "{:?}", image.data);
    // An EMcpToolError is a tool error with its message only.
    assert_eq!(
        lib.test_error_handling().map_err(|e| e.to_string()),
        Err("This tool intentionally returns an error for testing".into())
    );
    // A question to the client has no client to go to here.
    let error = lib
        .test_sampling("hello")
        .expect_err("no client to ask")
        .to_string();
    assert!(
        error.contains("sampling/createMessage is not available"),
        "{error}"
    );
}

#[test]
fn bind_reads_resources_and_gets_prompts() {
    let library = support::fpc::build_example("everything");
    let lib = everything::Library::load(&library).expect("the everything library loads");
    let bound = lib.bound();
    let read = bound
        .read_resource("test://template/7/data")
        .expect("a template resource");
    assert_eq!(
        read["contents"][0]["uri"], "test://template/7/data",
        "{read}"
    );
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("\"id\":\"7\"")),
        "{read}"
    );
    let serde_json::Value::Object(arguments) = serde_json::json!({"arg1": "a", "arg2": "b"}) else {
        unreachable!("an object literal")
    };
    let prompt = bound
        .get_prompt("test_prompt_with_arguments", &arguments)
        .expect("a prompt");
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='a', arg2='b'"
    );
    let markdown = bound
        .get_prompt("summarize", &serde_json::Map::new())
        .expect_err("a required argument is missing");
    assert!(
        markdown.to_string().contains("missing argument \"text\""),
        "{markdown}"
    );
}
