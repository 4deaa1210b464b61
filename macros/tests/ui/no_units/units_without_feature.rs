delphi_mcp_macros::bind!("tests/ui/units/var_param.pas", name = "Calc");

fn main() {}
