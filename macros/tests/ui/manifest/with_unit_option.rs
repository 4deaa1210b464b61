delphi_mcp_macros::bind!(
    manifest = "tests/ui/manifest/other_abi_version.json",
    name = "Calc",
    module = calc
);

fn main() {}
