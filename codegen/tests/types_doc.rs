//! `docs/types.md` is rendered from the type table; this fails when the checked-in file is stale.
//! `UPDATE_DOCS=1 cargo test -p delphi-mcp-codegen --test types_doc` rewrites it.

use std::path::PathBuf;

#[test]
fn types_doc_matches_the_type_table() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/types.md");
    let expected = delphi_mcp_codegen::types::render_types_doc();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).expect("write docs/types.md");
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/types.md is stale: run `UPDATE_DOCS=1 cargo test -p delphi-mcp-codegen --test types_doc`"
    );
}
