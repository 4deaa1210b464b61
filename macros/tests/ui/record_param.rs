delphi_mcp_macros::bind!("tests/ui/record_param.pas");

fn main() {}
