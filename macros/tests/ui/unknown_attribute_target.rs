delphi_mcp_macros::bind!("tests/ui/unknown_attribute_target.pas");

fn main() {}
