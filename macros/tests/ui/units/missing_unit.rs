delphi_mcp_macros::bind!("tests/ui/units/NoSuchUnit.pas");

fn main() {}
