//! Any text as the `arguments` of a tool: validation never panics, whatever the parameter types
//! (every row of the type table, from the calc example's manifest).

#![no_main]

use delphi_mcp_manifest::Manifest;
use delphi_mcp_runtime::marshal;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn manifest() -> &'static Manifest {
    static MANIFEST: OnceLock<Manifest> = OnceLock::new();
    MANIFEST.get_or_init(|| {
        serde_json::from_str(include_str!("../../examples/calc/generated/tools.json"))
            .expect("the calc manifest parses")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let tools = &manifest().tools;
    let tool = &tools[selector as usize % tools.len()];
    let _ = marshal::parse_arguments(&tool.name, Some(text), &tool.delphi.params);
});
