//! Compile-fail tests of `bind!`: one per kind of error, each with the expected compiler
//! output beside it (`ui/**/*.stderr`; regenerate with `TRYBUILD=overwrite`).
//!
//! `ui/manifest/`: the manifest-file mode; `ui/units/`: the units mode (feature `units`, on by
//! default); `ui/no_units/`: unit paths without that feature, run with
//! `cargo test -p delphi-mcp-macros --no-default-features --test ui`.

#[test]
fn ui() {
    // trybuild builds the cases in a project of its own; paths in them are relative to this
    // crate's folder.
    std::env::set_var(
        "DELPHI_MCP_MANIFEST_DIR_OVERRIDE",
        env!("CARGO_MANIFEST_DIR"),
    );
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/manifest/*.rs");
    #[cfg(feature = "units")]
    cases.compile_fail("tests/ui/units/*.rs");
    #[cfg(not(feature = "units"))]
    cases.compile_fail("tests/ui/no_units/*.rs");
}
