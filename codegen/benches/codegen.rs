//! A synthetic unit with 10,000 tools through the generator: model + manifest + Pascal stubs
//! (`generate`), and the manifest alone. Parsing is measured separately for reference.
//!
//! `cargo bench -p delphi-mcp-codegen --bench codegen`; figures in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion};
use delphi_mcp_codegen::UnitInput;
use delphi_mcp_parser::{parse_text, ParseOptions, SourceDb};
use std::fmt::Write as _;
use std::path::Path;

const TOOLS: usize = 10_000;

fn synthetic_unit() -> String {
    let mut text = String::from(
        "unit Synthetic;\n\ninterface\n\ntype\n  TMode = (mOne, mTwo, mThree);\n  TPercent = 0..100;\n\n",
    );
    let signatures = [
        "(A: Integer; B: Double = 1; C: string = ''): Integer",
        "(Text: string; Mode: TMode = mTwo): string",
        "(Value: Int64; Percent: TPercent; Flag: Boolean = False): Double",
        "(When: TDateTime; Count: Word): TDateTime",
    ];
    for i in 0..TOOLS {
        let _ = write!(
            text,
            "/// <summary>Synthetic tool number {i}.</summary>\n/// <param name=\"A\">First.</param>\n[McpTool]\nfunction Tool{i}{};\n",
            signatures[i % signatures.len()]
        );
    }
    text.push_str("\nimplementation\n\nend.\n");
    text
}

fn bench(c: &mut Criterion) {
    let text = synthetic_unit();
    let db = SourceDb::new();
    let parsed = parse_text(
        &db,
        Path::new("Synthetic.pas"),
        &text,
        &ParseOptions::default(),
    );
    let unit = parsed.unit.expect("the synthetic unit parses");
    let inputs = [UnitInput {
        unit: &unit,
        path: "Synthetic.pas",
    }];
    let check = delphi_mcp_codegen::generate(&db, &inputs, &Default::default(), "Synthetic")
        .expect("renders");
    assert_eq!(
        check.output.as_ref().map(|g| g.manifest.tools.len()),
        Some(TOOLS),
        "{:?}",
        check.diagnostics.first().map(|d| &d.message)
    );

    let mut group = c.benchmark_group("codegen_10000_tools");
    group.sample_size(10);
    group.bench_function("parse", |b| {
        b.iter(|| {
            let db = SourceDb::new();
            parse_text(
                &db,
                Path::new("Synthetic.pas"),
                &text,
                &ParseOptions::default(),
            )
        })
    });
    group.bench_function("manifest", |b| {
        b.iter(|| {
            let outcome =
                delphi_mcp_codegen::manifest_of(&db, &inputs, &Default::default(), "Synthetic");
            outcome
                .output
                .map(|m| delphi_mcp_codegen::schema::manifest_json(&m).len())
        })
    });
    group.bench_function("manifest_and_stubs", |b| {
        b.iter(|| delphi_mcp_codegen::generate(&db, &inputs, &Default::default(), "Synthetic"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
