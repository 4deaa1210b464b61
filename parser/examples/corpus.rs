//! Parses every Pascal file under the given folders and reports the files with errors.
//!
//! `cargo run --release -p delphi-mcp-parser --example corpus -- DIR... [-v] [--target T] [--summary]`
//!
//! `-v` renders the first errors of each failing file; `--summary` counts the failing files by
//! the message of their first error, most frequent first; `--audit` cross-checks the headings
//! found against a line-based count (a heading keyword and a name starting a line of the
//! preprocessed text, comments and strings removed) and lists the files where the parser found
//! fewer. `--repeat N` reads the files first and then parses their texts N times, each round
//! with a new source database, as the benchmark does: for instruction counts of parsing alone
//! (`valgrind --tool=callgrind`).

use delphi_mcp_parser::{ast, parse_file, parse_text, ParseOptions, SourceDb};

// The allocator the `delphi-mcp` binary uses, so the figures are the CLI's.
#[global_allocator]
static GLOBAL: delphi_mcp_parser::alloc::MiMalloc = delphi_mcp_parser::alloc::MiMalloc;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        if dir.is_file() {
            out.push(dir.to_path_buf());
        }
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().and_then(|x| x.to_str()).is_some_and(|x| {
            ["pas", "dpr", "dpk", "lpr", "pp"]
                .iter()
                .any(|e| x.eq_ignore_ascii_case(e))
        }) {
            out.push(p);
        }
    }
}

fn count_methods(unit: &ast::Unit) -> usize {
    unit.type_decls()
        .iter()
        .map(|t| match &t.def {
            ast::TypeDef::Structured(st) => st.methods().count(),
            _ => 0,
        })
        .sum()
}

/// Headings counted line by line: `[class] procedure|function|constructor|destructor|operator
/// Name` at the start of a line, outside comments and strings. Procedural types and anonymous
/// methods do not start a line with a keyword followed by a name, so they are not counted.
fn line_headings(text: &str) -> usize {
    let code = strip_comments_and_strings(text);
    code.lines()
        .filter(|line| {
            let l = line.trim_start().to_ascii_lowercase();
            let l = l.strip_prefix("class ").map(str::trim_start).unwrap_or(&l);
            [
                "procedure ",
                "function ",
                "constructor ",
                "destructor ",
                "operator ",
            ]
            .iter()
            .any(|k| {
                l.strip_prefix(k).is_some_and(|rest| {
                    rest.trim_start()
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '&')
                        && !rest.trim_start().starts_with("begin")
                })
            })
        })
        .count()
}

fn strip_comments_and_strings(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let end = match b[i] {
            b'{' => text[i..].find('}').map_or(b.len(), |e| i + e + 1),
            b'(' if b.get(i + 1) == Some(&b'*') => {
                text[i + 2..].find("*)").map_or(b.len(), |e| i + e + 4)
            }
            b'/' if b.get(i + 1) == Some(&b'/') => text[i..].find('\n').map_or(b.len(), |e| i + e),
            b'\'' => text[i + 1..]
                .find(['\'', '\n'])
                .map_or(b.len(), |e| i + e + 2),
            c => {
                out.push(c);
                i += 1;
                continue;
            }
        };
        let end = end.min(b.len());
        out.extend(b[i..end].iter().filter(|&&c| c == b'\n'));
        out.push(b' ');
        i = end;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let summary = args.iter().any(|a| a == "--summary");
    let audit = args.iter().any(|a| a == "--audit");
    let mut audit_short = 0usize;
    let mut opts = ParseOptions::default();
    let mut files = Vec::new();
    let mut repeat: Option<usize> = None;
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a == "--target" {
            opts.target = iter.next().expect("--target needs a value").clone();
        } else if a == "--repeat" {
            repeat = iter.next().and_then(|n| n.parse().ok());
        } else if !a.starts_with('-') {
            collect(Path::new(a), &mut files);
        }
    }
    files.sort();
    if let Some(rounds) = repeat {
        let texts: Vec<(PathBuf, String)> = files
            .iter()
            .filter_map(|f| Some((f.clone(), std::fs::read_to_string(f).ok()?)))
            .collect();
        let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
        let start = std::time::Instant::now();
        for _ in 0..rounds {
            let db = SourceDb::new();
            for (path, text) in &texts {
                std::hint::black_box(parse_text(&db, path, text, &opts));
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let mb = (bytes * rounds) as f64 / 1e6;
        println!(
            "{} files, {rounds} rounds: {mb:.1} MB in {secs:.2}s = {:.1} MB/s",
            texts.len(),
            mb / secs.max(1e-9)
        );
        return;
    }
    let db = SourceDb::new();
    let mut first_errors: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut failed = 0;
    let mut bytes = 0usize;
    let (mut routines, mut methods) = (0usize, 0usize);
    let start = std::time::Instant::now();
    for f in &files {
        let r = parse_file(&db, f, &opts);
        if let Some(id) = r.file {
            bytes += db.get(id).text.len();
        }
        if let Some(u) = &r.unit {
            routines += u.all_routines().len();
            methods += count_methods(u);
            if audit {
                if let Some(id) = r.file {
                    let pp = delphi_mcp_parser::preprocess::preprocess(&db, id, &opts);
                    let expected = line_headings(&pp.text);
                    let found = u.all_routines().len() + count_methods(u);
                    if found < expected {
                        audit_short += 1;
                        println!(
                            "AUDIT {} found {found} headings, lines suggest {expected}",
                            f.display()
                        );
                    }
                }
            }
        }
        let errors: Vec<_> = r.diagnostics.iter().filter(|d| d.is_error()).collect();
        if !errors.is_empty() {
            failed += 1;
            println!("FAIL {} ({} errors)", f.display(), errors.len());
            let loc = errors[0]
                .span
                .map(|s| {
                    let lc = db.get(s.file).line_col(s.start);
                    format!(
                        "{}:{}:{}",
                        db.get(s.file).path.display(),
                        lc.line,
                        lc.column
                    )
                })
                .unwrap_or_else(|| f.display().to_string());
            first_errors
                .entry(errors[0].message.clone())
                .or_default()
                .push(loc);
            if verbose {
                for e in errors.iter().take(3) {
                    print!("{}", e.render(&db));
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} files, {} with errors, {:.2}% clean; {} routines, {} method headings; {:.1} MB in {:.2}s = {:.1} MB/s",
        files.len(),
        failed,
        100.0 * (files.len() - failed) as f64 / files.len().max(1) as f64,
        routines,
        methods,
        bytes as f64 / 1e6,
        secs,
        bytes as f64 / 1e6 / secs.max(1e-9)
    );
    if audit {
        println!("audit: {audit_short} files with fewer headings than the line count");
    }
    if summary {
        let mut groups: Vec<_> = first_errors.into_iter().collect();
        groups.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        for (message, locs) in groups {
            println!("{:5}  {message}", locs.len());
            for l in locs.iter().take(3) {
                println!("         {l}");
            }
        }
    }
}
