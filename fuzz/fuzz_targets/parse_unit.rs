//! Any text as a Delphi unit: parsing never panics, and every diagnostic points into the text.

#![no_main]

use delphi_mcp_parser::{parse_text, ParseOptions, SourceDb};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let db = SourceDb::new();
    // In a folder that does not exist, so that `{$I name}` searches no real folders: the outcome
    // does not depend on where the fuzzer runs, and no time goes to listing its corpus folders.
    let path = Path::new("no-such-folder/Fuzz.pas");
    let result = parse_text(&db, path, &text, &ParseOptions::default());
    for diagnostic in &result.diagnostics {
        if let Some(span) = diagnostic.span {
            let file = db.get(span.file);
            assert!(span.start <= span.end && span.end as usize <= file.text.len());
        }
        let _ = diagnostic.render(&db);
    }
});
