delphi_mcp_macros::bind!("tests/ui/var_param.pas");

fn main() {}
