delphi_mcp_macros::bind!("tests/ui/units/syntax_error.pas");

fn main() {}
