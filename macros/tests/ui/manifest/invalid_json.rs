delphi_mcp_macros::bind!(manifest = "tests/ui/manifest/invalid_json.json", module = calc);

fn main() {}
