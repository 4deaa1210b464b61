//! Validation and marshalling of a composite argument (ABI 2), against parsing the same text
//! into a `serde_json::Value` (run: `cargo bench -p delphi-mcp-runtime --bench composite`).
//!
//! The arguments are one array of 10,000 records of four fields (string, integer, number,
//! boolean), about 0.6 MB. Measured: `marshal::parse_arguments` (the whole value checked against
//! the manifest type and written into a block) plus `Block::abi_slots` (the slots the library
//! reads), and `serde_json::from_str::<serde_json::Value>` of the same text. Prints the median of
//! 31 runs of each and their ratio; asserts nothing about time.

use delphi_mcp_manifest::{FieldEntry, NumberRepr, ParamEntry, StringRepr, ValueType};
use delphi_mcp_runtime::host::ArgValue;
use delphi_mcp_runtime::marshal;
use std::time::{Duration, Instant};

const RECORDS: usize = 10_000;
const RUNS: usize = 31;

fn field(name: &str, ty: ValueType) -> FieldEntry {
    FieldEntry {
        name: name.into(),
        description: None,
        ty,
    }
}

fn lines_param() -> ParamEntry {
    let line = ValueType::Record {
        type_name: "TOrderLine".into(),
        fields: vec![
            field(
                "sku",
                ValueType::String {
                    repr: StringRepr::Utf16,
                    max_length: None,
                },
            ),
            field(
                "quantity",
                ValueType::Integer {
                    min: i32::MIN.into(),
                    max: i32::MAX.into(),
                },
            ),
            field(
                "unitPrice",
                ValueType::Number {
                    repr: NumberRepr::Double,
                },
            ),
            field("gift", ValueType::Boolean),
        ],
    };
    ParamEntry {
        name: "Lines".into(),
        delphi_type: "TOrderLines".into(),
        ty: ValueType::Array {
            items: Box::new(line),
            min_items: None,
            max_items: None,
        },
        optional: false,
        default: None,
    }
}

fn arguments() -> String {
    let lines: Vec<String> = (0..RECORDS)
        .map(|i| {
            format!(
                r#"{{"sku":"SKU-{i:05}","quantity":{},"unitPrice":{}.25,"gift":{}}}"#,
                i % 17,
                i % 1000,
                i % 3 == 0
            )
        })
        .collect();
    format!(r#"{{"Lines":[{}]}}"#, lines.join(","))
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort_unstable();
    runs[runs.len() / 2]
}

fn main() {
    let params = [lines_param()];
    let text = arguments();
    let mut ours = Vec::with_capacity(RUNS);
    let mut serde = Vec::with_capacity(RUNS);
    let mut slots = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        let values = marshal::parse_arguments("order_total", Some(&text), &params)
            .expect("the arguments are valid");
        if let Some(ArgValue::Block(block)) = values.first() {
            slots = std::hint::black_box(block.abi_slots()).len();
        }
        ours.push(started.elapsed());
        drop(values);

        let started = Instant::now();
        let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        std::hint::black_box(&value);
        serde.push(started.elapsed());
        drop(value);
    }
    let (ours, serde) = (median(ours), median(serde));
    println!(
        "{RECORDS} records of four fields ({} bytes, {slots} ABI slots):",
        text.len()
    );
    println!("  validate + marshal (parse_arguments + abi_slots): {ours:?}");
    println!("  serde_json::from_str::<Value>:                    {serde:?}");
    println!(
        "  ratio: {:.2}",
        ours.as_secs_f64() / serde.as_secs_f64().max(f64::MIN_POSITIVE)
    );
}
