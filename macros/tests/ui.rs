//! Compile-fail tests of `bind!`: one per kind of error, each with the expected compiler
//! output beside it (`ui/*.stderr`; regenerate with `TRYBUILD=overwrite`).

#[test]
fn ui() {
    // trybuild builds the cases in a project of its own; unit paths in them are relative to
    // this crate's folder.
    std::env::set_var(
        "DELPHI_MCP_MANIFEST_DIR_OVERRIDE",
        env!("CARGO_MANIFEST_DIR"),
    );
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
