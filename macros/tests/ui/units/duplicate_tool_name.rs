delphi_mcp_macros::bind!("tests/ui/units/duplicate_tool_name.pas");

fn main() {}
