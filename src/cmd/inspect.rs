//! `delphi-mcp inspect`: parse units and print what the parser found.
//!
//! Files are parsed in parallel into one shared [`SourceDb`]; the output is in the sorted order
//! of the files. By default a readable outline goes to stdout and diagnostics to stderr; with
//! `--json` one JSON document (described in `docs/inspect.md`) goes to stdout.

use super::common::SourceArgs;
use delphi_mcp_codegen::frontend::{self, LoadedFile, LoadedUnits};
use delphi_mcp_parser::ast::{
    self, Attribute, Decl, Member, Param, ParamMode, Routine, RoutineKind, TypeDef, TypeRef,
    Visibility,
};
use delphi_mcp_parser::{Diagnostic, SourceDb};
use miette::IntoDiagnostic;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `delphi-mcp inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Pascal files, or folders searched for .pas/.dpr/.dpk/.lpr files.
    #[arg(required = true, value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Print one JSON document instead of the outline.
    #[arg(long)]
    pub json: bool,
    /// How to read the sources.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Extensions of the Pascal files a folder argument is searched for.
pub const PASCAL_EXTENSIONS: &[&str] = &["pas", "dpr", "dpk", "lpr"];

/// The files named by `paths`: files as given, folders searched recursively for
/// [`PASCAL_EXTENSIONS`]; sorted, without duplicates. (Unlike the unit folders of `gen`, this
/// also lists programs, packages and the generated units: inspect shows whatever is there.)
pub fn collect_sources(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| PASCAL_EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)))
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut out)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Runs the command: exit code 1 when any file has an error.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let files = collect_sources(&args.paths).into_diagnostic()?;
    if files.is_empty() {
        return Err(miette::miette!(
            "no Pascal files (.pas, .dpr, .dpk, .lpr) found in the given paths"
        ));
    }
    let loaded = frontend::load_files(&files, &args.source.parse_options()).into_diagnostic()?;
    if args.json {
        let doc = json_document(&loaded);
        let mut text = serde_json::to_string_pretty(&doc).into_diagnostic()?;
        text.push('\n');
        write_stdout(&text)?;
    } else {
        let mut out = String::new();
        for file in &loaded.files {
            outline(&mut out, file);
        }
        write_stdout(&out)?;
        let diagnostics: Vec<Diagnostic> = loaded.diagnostics().cloned().collect();
        eprint!("{}", loaded.render(&diagnostics));
    }
    Ok(if loaded.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

// ------------------------------------------------------------------------ JSON

/// The `--json` document.
pub fn json_document(loaded: &LoadedUnits) -> Value {
    let entries: Vec<Value> = loaded
        .files
        .iter()
        .map(|f| {
            json!({
                "path": f.path.display().to_string(),
                "fileId": f.file.map(|id| id.0),
                "unit": f.unit.as_ref().map(|u| serde_json::to_value(u).unwrap_or(Value::Null)),
                "diagnostics": f.diagnostics.iter().map(|d| diagnostic_json(&loaded.db, d)).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "files": entries })
}

fn diagnostic_json(db: &SourceDb, d: &Diagnostic) -> Value {
    let mut v = json!({
        "severity": d.severity,
        "message": d.message,
        "line": Value::Null,
        "column": Value::Null,
        "endLine": Value::Null,
        "endColumn": Value::Null,
        "file": Value::Null,
        "expected": d.expected,
        "help": d.help,
    });
    if let Some(span) = d.span {
        let file = db.get(span.file);
        let start = file.line_col(span.start);
        let end = file.line_col(span.end);
        v["line"] = json!(start.line);
        v["column"] = json!(start.column);
        v["endLine"] = json!(end.line);
        v["endColumn"] = json!(end.column);
        v["file"] = json!(file.path.display().to_string());
    }
    v
}

// ------------------------------------------------------------------------ outline

fn outline(out: &mut String, file: &LoadedFile) {
    let path = &file.path;
    let errors = file.diagnostics.iter().filter(|d| d.is_error()).count();
    let Some(unit) = &file.unit else {
        let _ = writeln!(out, "{}: not parsed ({errors} errors)", path.display());
        return;
    };
    let kind = serde_json::to_value(unit.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let _ = write!(out, "{kind} {} ({})", unit.name, path.display());
    if errors > 0 {
        let _ = write!(out, " — {errors} error(s)");
    }
    out.push('\n');
    for section in &unit.sections {
        let name = match section.kind {
            ast::SectionKind::Interface => "interface",
            ast::SectionKind::Implementation => "implementation",
            ast::SectionKind::Main => "declarations",
        };
        let _ = writeln!(out, "  {name}");
        for uses in &section.uses {
            let names: Vec<&str> = uses.units.iter().map(|u| u.name.as_str()).collect();
            let _ = writeln!(out, "    {} {}", uses.keyword, names.join(", "));
        }
        for decl in &section.decls {
            decl_outline(out, decl, 4);
        }
    }
}

fn pad(depth: usize) -> String {
    " ".repeat(depth)
}

fn decl_outline(out: &mut String, decl: &Decl, depth: usize) {
    let p = pad(depth);
    match decl {
        Decl::Const(section) => {
            let kw = if section.resourcestring {
                "resourcestring"
            } else {
                "const"
            };
            for c in &section.items {
                attrs_outline(out, &c.attributes, depth);
                let ty =
                    c.ty.as_ref()
                        .map(|t| format!(": {}", t.text))
                        .unwrap_or_default();
                let _ = writeln!(out, "{p}{kw} {}{ty} = {}", c.name, clip(&c.value.text));
            }
        }
        Decl::Var(section) => {
            let kw = if section.threadvar {
                "threadvar"
            } else {
                "var"
            };
            for v in &section.items {
                let _ = writeln!(out, "{p}{kw} {}: {}", v.name, v.ty.text);
            }
        }
        Decl::Type(section) => {
            for t in &section.items {
                type_outline(out, t, depth);
            }
        }
        Decl::Routine(r) => routine_outline(out, r, depth, None),
        Decl::Other(o) => {
            let _ = writeln!(out, "{p}{} …", o.keyword);
        }
    }
}

fn type_outline(out: &mut String, t: &ast::TypeDecl, depth: usize) {
    let p = pad(depth);
    attrs_outline(out, &t.attributes, depth);
    let generics = if t.generic_params.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = t
            .generic_params
            .iter()
            .map(|g| {
                if g.constraints.is_empty() {
                    g.name.to_string()
                } else {
                    format!("{}: {}", g.name, g.constraints.join(", "))
                }
            })
            .collect();
        format!("<{}>", names.join("; "))
    };
    let doc = doc_suffix(t.doc.as_deref());
    match &t.def {
        TypeDef::Structured(st) => {
            let kind = serde_json::to_value(st.kind)
                .ok()
                .and_then(|v| {
                    v.as_str()
                        .map(|s| s.replace("disp_", "disp").replace('_', " "))
                })
                .unwrap_or_default();
            let ancestors: Vec<&str> = st.ancestors.iter().map(|a| a.text.as_str()).collect();
            let heritage = if ancestors.is_empty() {
                String::new()
            } else {
                format!("({})", ancestors.join(", "))
            };
            let helper = st
                .helper_for
                .as_ref()
                .map(|h| format!(" for {}", h.text))
                .unwrap_or_default();
            let fwd = if st.forward { " (forward)" } else { "" };
            let _ = writeln!(
                out,
                "{p}type {}{generics} = {kind}{heritage}{helper}{fwd}{doc}",
                t.name
            );
            for section in &st.sections {
                let vis = visibility_name(section.visibility);
                for m in &section.members {
                    member_outline(out, m, depth + 2, vis);
                }
            }
        }
        TypeDef::Enum(e) => {
            let names: Vec<&str> = e.members.iter().map(|m| m.name.as_str()).collect();
            let _ = writeln!(
                out,
                "{p}type {}{generics} = ({}){doc}",
                t.name,
                names.join(", ")
            );
        }
        other => {
            let text = match other {
                TypeDef::Alias { target, distinct } => {
                    format!("{}{}", if *distinct { "type " } else { "" }, target.text)
                }
                TypeDef::Subrange { low, high } => format!("{}..{}", low.text, high.text),
                TypeDef::Set { element } => format!("set of {}", element.text),
                TypeDef::ClassRef { class } => format!("class of {}", class.text),
                TypeDef::Pointer { target } => format!("^{}", target.text),
                TypeDef::Procedural(proc) => {
                    let mut s = String::new();
                    if proc.reference_to {
                        s.push_str("reference to ");
                    }
                    s.push_str(&heading_text(&proc.heading));
                    if proc.of_object {
                        s.push_str(" of object");
                    }
                    s
                }
                TypeDef::Other { target } => target.text.to_string(),
                TypeDef::Structured(_) | TypeDef::Enum(_) => String::new(),
            };
            let _ = writeln!(out, "{p}type {}{generics} = {}{doc}", t.name, clip(&text));
        }
    }
}

fn member_outline(out: &mut String, m: &Member, depth: usize, vis: &str) {
    let p = pad(depth);
    match m {
        Member::Field { field, is_class } => {
            attrs_outline(out, &field.attributes, depth);
            let class = if *is_class { "class var " } else { "" };
            let _ = writeln!(out, "{p}{vis}{class}{}: {}", field.name, field.ty.text);
        }
        Member::Method(r) => routine_outline(out, r, depth, Some(vis)),
        Member::Property(prop) => {
            attrs_outline(out, &prop.attributes, depth);
            let ty = prop
                .ty
                .as_ref()
                .map(|t| format!(": {}", t.text))
                .unwrap_or_default();
            let params = if prop.params.is_empty() {
                String::new()
            } else {
                format!("[{}]", params_text(&prop.params))
            };
            let _ = writeln!(
                out,
                "{p}{vis}property {}{params}{ty}{}",
                prop.name,
                doc_suffix(prop.doc.as_deref())
            );
        }
        Member::Const(section) => {
            for c in &section.items {
                let _ = writeln!(out, "{p}{vis}const {} = {}", c.name, clip(&c.value.text));
            }
        }
        Member::Type(section) => {
            for t in &section.items {
                type_outline(out, t, depth);
            }
        }
        Member::Variant { .. } => {
            let _ = writeln!(out, "{p}case … (variant part)");
        }
    }
}

fn visibility_name(v: Visibility) -> &'static str {
    match v {
        Visibility::Default => "",
        Visibility::Private => "private ",
        Visibility::StrictPrivate => "strict private ",
        Visibility::Protected => "protected ",
        Visibility::StrictProtected => "strict protected ",
        Visibility::Public => "public ",
        Visibility::Published => "published ",
        Visibility::Automated => "automated ",
    }
}

fn routine_outline(out: &mut String, r: &Routine, depth: usize, vis: Option<&str>) {
    attrs_outline(out, &r.attributes, depth);
    let p = pad(depth);
    let mut line = format!("{p}{}", vis.unwrap_or(""));
    line.push_str(&heading_text(r));
    let directives: Vec<String> = r
        .directives
        .iter()
        .map(|d| match &d.arg {
            Some(arg) => format!("{} {arg}", d.name),
            None => d.name.to_string(),
        })
        .collect();
    if !directives.is_empty() {
        let _ = write!(line, "; {}", directives.join("; "));
    }
    line.push_str(&doc_suffix(r.doc.as_deref()));
    let _ = writeln!(out, "{line}");
    for inner in &r.nested {
        routine_outline(out, inner, depth + 2, None);
    }
}

fn heading_text(r: &Routine) -> String {
    let kind = match r.kind {
        RoutineKind::Procedure => "procedure",
        RoutineKind::Function => "function",
        RoutineKind::Constructor => "constructor",
        RoutineKind::Destructor => "destructor",
        RoutineKind::Operator => "operator",
    };
    let mut s = String::new();
    if r.is_class {
        s.push_str("class ");
    }
    s.push_str(kind);
    if !r.name.is_empty() {
        s.push(' ');
        if let Some(q) = &r.qualifier {
            s.push_str(q);
            s.push('.');
        }
        s.push_str(&r.name);
    }
    if !r.generic_params.is_empty() {
        let names: Vec<&str> = r.generic_params.iter().map(|g| g.name.as_str()).collect();
        let _ = write!(s, "<{}>", names.join(", "));
    }
    if !r.params.is_empty() {
        let _ = write!(s, "({})", params_text(&r.params));
    }
    if let Some(result) = &r.result {
        let _ = write!(s, ": {}", result.text);
    }
    s
}

fn params_text(params: &[Param]) -> String {
    params
        .iter()
        .map(|p| {
            let mode = match p.mode {
                ParamMode::Value => "",
                ParamMode::Const => "const ",
                ParamMode::Var => "var ",
                ParamMode::Out => "out ",
                ParamMode::ConstRef => "constref ",
            };
            let attrs: String = p
                .attributes
                .iter()
                .map(|a| format!("[{}] ", attribute_text(a)))
                .collect();
            let ty = p.ty.as_ref().map(type_text).unwrap_or_default();
            let default = p
                .default
                .as_ref()
                .map(|d| format!(" = {}", d.text))
                .unwrap_or_default();
            format!("{attrs}{mode}{}{ty}{default}", p.name)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn type_text(t: &TypeRef) -> String {
    format!(": {}", t.text)
}

fn attribute_text(a: &Attribute) -> String {
    if a.args.is_empty() {
        return a.name.to_string();
    }
    let args: Vec<String> = a
        .args
        .iter()
        .map(|arg| match &arg.name {
            Some(n) => format!("{n} = {}", arg.value.text),
            None => arg.value.text.to_string(),
        })
        .collect();
    format!("{}({})", a.name, args.join(", "))
}

fn attrs_outline(out: &mut String, attrs: &[Attribute], depth: usize) {
    if attrs.is_empty() {
        return;
    }
    let list: Vec<String> = attrs.iter().map(attribute_text).collect();
    let _ = writeln!(out, "{}[{}]", pad(depth), clip(&list.join(", ")));
}

fn doc_suffix(doc: Option<&ast::DocComment>) -> String {
    match doc.and_then(|d| d.summary.as_deref()) {
        Some(summary) if !summary.is_empty() => format!("  // {}", clip(summary)),
        _ => String::new(),
    }
}

/// At most 80 characters of `text`.
fn clip(text: &str) -> String {
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(79).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}

/// Writes the report to stdout. A reader that stops early (`inspect --json . | head`) is not
/// an error: the rest of the report is dropped quietly.
fn write_stdout(text: &str) -> miette::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(miette::miette!("cannot write the report to stdout: {e}"))
        }
        _ => Ok(()),
    }
}
