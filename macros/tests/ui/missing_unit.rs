delphi_mcp_macros::bind!("tests/ui/NoSuchUnit.pas");

fn main() {}
