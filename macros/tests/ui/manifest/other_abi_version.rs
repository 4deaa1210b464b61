delphi_mcp_macros::bind!(manifest = "tests/ui/manifest/other_abi_version.json", module = calc);

fn main() {}
