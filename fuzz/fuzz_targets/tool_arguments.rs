//! Any text as the `arguments` of a tool: validation never panics, whatever the parameter types
//! (every row of the type table: the scalar rows from the calc example's manifest, the
//! composite rows, `var`/`out` and the JSON handler from the values example's).

#![no_main]

use delphi_mcp_manifest::{Manifest, ToolEntry};
use delphi_mcp_runtime::marshal;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn tools() -> &'static [ToolEntry] {
    static TOOLS: OnceLock<Vec<ToolEntry>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let manifests = [
            include_str!("../../examples/calc/generated/tools.json"),
            include_str!("../../examples/values/generated/tools.json"),
        ];
        manifests
            .iter()
            .flat_map(|text| {
                let manifest: Manifest = serde_json::from_str(text).expect("the manifest parses");
                manifest.tools
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let tools = tools();
    let tool = &tools[selector as usize % tools.len()];
    // As runtime::call chooses between the two.
    let _ = if tool.delphi.json_arguments {
        marshal::json_arguments(&tool.name, Some(text), tool.input_schema.value())
    } else {
        marshal::parse_arguments(&tool.name, Some(text), &tool.delphi.params)
    };
});
