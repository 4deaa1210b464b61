delphi_mcp_macros::bind!("tests/ui/units/record_param.pas");

fn main() {}
