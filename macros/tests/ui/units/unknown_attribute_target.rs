delphi_mcp_macros::bind!("tests/ui/units/unknown_attribute_target.pas");

fn main() {}
