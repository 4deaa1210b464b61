delphi_mcp_macros::bind!("tests/ui/syntax_error.pas");

fn main() {}
