delphi_mcp_macros::bind!("tests/ui/units/var_param.pas", naming = "kebab-case");

fn main() {}
