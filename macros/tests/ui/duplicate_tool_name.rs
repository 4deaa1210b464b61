delphi_mcp_macros::bind!("tests/ui/duplicate_tool_name.pas");

fn main() {}
