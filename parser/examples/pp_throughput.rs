use delphi_mcp_parser::preprocess::preprocess;
use delphi_mcp_parser::{source, ParseOptions, SourceDb};
use std::path::Path;
use std::time::Instant;
fn main() {
    let unit = r#"
  /// <summary>Adds</summary>
  {$IFNDEF FPC}[McpTool('add', 'Adds two numbers')]{$ENDIF}
  function TCalc.Add(A, B: Integer): Integer; // comment {$IFDEF X}
  begin
    {$IF CompilerVersion >= 36}
    Result := A + B; (* old *) { brace comment }
    {$ELSE}
    Result := A - B;
    {$IFEND}
    S := 'it''s a string with {$IFDEF} inside' + #13#10;
  end;
"#;
    let text = unit.repeat(200_000 / 10);
    let db = SourceDb::new();
    let id = source::add_text(&db, Path::new("Big.pas"), text.clone());
    let options = ParseOptions::default();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        let pp = preprocess(&db, id, &options);
        let dt = t.elapsed().as_secs_f64();
        assert_eq!(pp.text.len(), text.len());
        best = best.min(dt);
    }
    println!(
        "preprocess: {:.1} MB in {:.3}s = {:.0} MB/s",
        text.len() as f64 / 1e6,
        best,
        text.len() as f64 / 1e6 / best
    );
    let t = Instant::now();
    let d = source::decode(text.as_bytes(), 1252).unwrap();
    let dt = t.elapsed().as_secs_f64();
    println!("decode utf8: {:.0} MB/s", text.len() as f64 / 1e6 / dt);
    let t = Instant::now();
    let ls = source::line_starts(&d.text);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "line_starts: {} lines {:.0} MB/s",
        ls.len(),
        text.len() as f64 / 1e6 / dt
    );
}
