// A record field whose range no Rust integer holds: refused, naming the field.
delphi_mcp_macros::bind!(manifest = "tests/ui/manifest/record_field_beyond_64_bits.json", module = values);

fn main() {}
