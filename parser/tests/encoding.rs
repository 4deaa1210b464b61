//! Decoding of source files: BOMs, UTF-16, ANSI code pages, CR/LF/CRLF line ends.

use delphi_mcp_parser::{source, SourceDb};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pp/encoding")
        .join(name)
}

/// Loads a fixture and returns (encoding, line:col of `needle`, number of lines, text).
fn locate(name: &str, codepage: u16, needle: &str) -> (&'static str, String, usize, String) {
    let db = SourceDb::new();
    let id = source::load(&db, &fixture(name), codepage).expect("fixture loads");
    let file = db.get(id);
    let offset = file
        .text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in decoded {name}: {:?}", file.text));
    let at = file.line_col(offset as u32);
    (
        file.encoding,
        format!("{}:{}", at.line, at.column),
        file.line_starts().len(),
        file.text.clone(),
    )
}

#[test]
fn every_encoding_gives_the_same_text_and_positions() {
    let cases = [
        ("utf8_bom.pas", "UTF-8"),
        ("utf8_nobom.pas", "UTF-8"),
        ("utf16le_bom.pas", "UTF-16LE"),
        ("utf16be_bom.pas", "UTF-16BE"),
        ("utf16le_nobom.pas", "UTF-16LE"),
        ("utf16be_nobom.pas", "UTF-16BE"),
        ("ansi1252.pas", "windows-1252"),
    ];
    let (_, _, _, reference) = locate("utf8_nobom.pas", 1252, "Marker");
    for (name, encoding) in cases {
        let (found, marker, lines, text) = locate(name, 1252, "Marker");
        assert_eq!(found, encoding, "{name}");
        assert_eq!(text, reference, "{name} decodes to the same text");
        assert!(!text.starts_with('\u{feff}'), "{name}: BOM removed");
        assert_eq!(marker, "6:21", "{name}");
        // Columns count characters: `ö` and `€` are one column each.
        let (_, ok, _, _) = locate(name, 1252, "ok'");
        assert_eq!(ok, "5:24", "{name}");
        assert_eq!(
            lines, 10,
            "{name}: nine CRLF-terminated lines and the empty last one"
        );
    }
}

#[test]
fn ansi_code_page_is_taken_from_the_caller() {
    let (encoding, at, _, text) = locate("ansi1251.pas", 1251, "Marker");
    assert_eq!(encoding, "windows-1251");
    assert!(text.contains("Привет = 'мир'"), "{text:?}");
    assert_eq!(at, "4:3");
    // The same bytes read as 1252 are a different (but still loadable) text.
    let (encoding, _, _, text) = locate("ansi1251.pas", 1252, "Marker");
    assert_eq!(encoding, "windows-1252");
    assert!(!text.contains("Привет"));
}

#[test]
fn unknown_code_page_is_an_error_only_when_needed() {
    let db = SourceDb::new();
    let err = source::load(&db, &fixture("ansi1252.pas"), 4242).expect_err("needs the code page");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("4242"), "{err}");
    source::load(&db, &fixture("utf8_nobom.pas"), 4242).expect("UTF-8 needs no code page");
}

#[test]
fn lf_cr_and_mixed_line_ends_are_all_line_breaks() {
    for name in ["lf.pas", "cr.pas", "mixed.pas"] {
        let (encoding, marker, lines, text) = locate(name, 1252, "Marker");
        assert_eq!(encoding, "UTF-8");
        assert_eq!(marker, "6:21", "{name}");
        let (_, end, _, _) = locate(name, 1252, "end.");
        assert_eq!(end, "9:1", "{name}");
        assert_eq!(lines, 10, "{name}");
        // Line breaks are kept as they were, so offsets match the file.
        assert_eq!(
            text.len(),
            std::fs::read(fixture(name)).expect("fixture").len(),
            "{name}"
        );
    }
}

#[test]
fn line_text_and_starts_for_each_line_end_kind() {
    let db = SourceDb::new();
    let id = source::add_text(&db, Path::new("m.pas"), "a\r\nb\rc\nd".into());
    let file = db.get(id);
    assert_eq!(file.line_starts(), [0, 3, 5, 7]);
    let lines: Vec<&str> = (1..=4).map(|l| file.line_text(l)).collect();
    assert_eq!(lines, ["a", "b", "c", "d"]);
    assert_eq!(source::line_starts("\r\r\n\n"), vec![0, 1, 3, 4]);
    assert_eq!(source::line_starts(""), vec![0]);
}

#[test]
fn code_page_table_names() {
    assert_eq!(
        source::encoding_for_codepage(1250).map(|e| e.name()),
        Some("windows-1250")
    );
    assert_eq!(
        source::encoding_for_codepage(932).map(|e| e.name()),
        Some("Shift_JIS")
    );
    assert!(source::encoding_for_codepage(1).is_none());
}
