//! Parser throughput: a large generated unit and the fixture units.
//!
//! `cargo bench -p delphi-mcp-parser` (single-threaded; throughput is reported in bytes/s).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use delphi_mcp_parser::{parse_text, ParseOptions, SourceDb};
use delphi_mcp_test_support::synthetic::synthetic_unit;
use std::hint::black_box;
use std::path::Path;

// The allocator the `delphi-mcp` binary uses, so the figures are the CLI's.
#[global_allocator]
static GLOBAL: delphi_mcp_parser::alloc::MiMalloc = delphi_mcp_parser::alloc::MiMalloc;

fn bench(c: &mut Criterion) {
    let opts = ParseOptions::default();
    let text = synthetic_unit(400);
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("synthetic", |b| {
        b.iter(|| {
            let db = SourceDb::new();
            let r = parse_text(&db, Path::new("Synthetic.pas"), black_box(&text), &opts);
            assert!(!r.has_errors());
            r
        })
    });
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/units");
    let mut all = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&fixtures) {
        for e in entries.flatten() {
            if let Ok(t) = std::fs::read_to_string(e.path()) {
                all.push((e.path(), t));
            }
        }
    }
    all.sort();
    let total: usize = all.iter().map(|(_, t)| t.len()).sum();
    if total > 0 {
        group.throughput(Throughput::Bytes(total as u64));
        group.bench_function("fixtures", |b| {
            b.iter(|| {
                let db = SourceDb::new();
                for (path, t) in &all {
                    black_box(parse_text(&db, path, t, &opts));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
