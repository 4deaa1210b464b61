//! Writes the benchmark's synthetic unit to stdout (for profiling).
fn main() {
    print!(
        "{}",
        delphi_mcp_test_support::synthetic::synthetic_unit(400)
    );
}
