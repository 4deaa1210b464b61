//! Rendering of diagnostics with file:line:col and a snippet.

use delphi_mcp_parser::{source, Diagnostic, SourceDb, Span};
use std::path::Path;

#[test]
fn renders_location_snippet_and_carets() {
    let db = SourceDb::new();
    let file = source::add_text(
        &db,
        Path::new("Calc.pas"),
        "unit Calc;\r\ninterface\n  function Scäle(X: Integer): Integer\nimplementation\n".into(),
    );
    let text = &db.get(file).text;
    let start = text.find("Scäle").expect("fixture has the name") as u32;
    let diagnostic = Diagnostic::error(
        "expected `;`",
        Some(Span {
            file,
            start,
            end: start + "Scäle".len() as u32,
        }),
    )
    .with_help("end the heading with `;`");
    assert_eq!(diagnostic.location(&db).as_deref(), Some("Calc.pas:3:12"));
    assert_eq!(
        diagnostic.render(&db),
        "error: expected `;`\n \
         --> Calc.pas:3:12\n  |\n\
         3 |   function Scäle(X: Integer): Integer\n  \
         |            ^^^^^\n   \
         = help: end the heading with `;`\n"
    );
}
