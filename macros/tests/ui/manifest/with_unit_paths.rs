delphi_mcp_macros::bind!(
    "tests/ui/units/var_param.pas",
    manifest = "tests/ui/manifest/other_abi_version.json"
);

fn main() {}
