delphi_mcp_macros::bind!(manifest = "tests/ui/manifest/no_such_tools.json", module = calc);

fn main() {}
