//! The files of the top-level `templates/` folder, read through one table and rendered through
//! one minijinja set-up: the Pascal stubs and library skeleton (`templates/pascal/`, rendered by
//! [`crate::pascal`]) and the Rust server scaffold (`templates/rust-server/`,
//! [`render_rust_server`]).
//!
//! Templates are compiled into the crate (`include_str!`), so the generator needs no files at
//! run time. Names are paths below `templates/` (`pascal/tool.pas.j2`); a template includes
//! another by that name. Files without the `.j2` suffix are copied verbatim ([`verbatim`]).

use minijinja::{AutoEscape, Environment};
use serde::Serialize;
use std::sync::OnceLock;

/// One file of `templates/`: its path below the folder and its text.
type TemplateFile = (&'static str, &'static str);

/// Every file of `templates/`.
const FILES: &[TemplateFile] = &[
    (
        "pascal/McpExports.pas.j2",
        include_str!("../../templates/pascal/McpExports.pas.j2"),
    ),
    (
        "pascal/tool.pas.j2",
        include_str!("../../templates/pascal/tool.pas.j2"),
    ),
    (
        "pascal/argument.pas.j2",
        include_str!("../../templates/pascal/argument.pas.j2"),
    ),
    (
        "pascal/result.pas.j2",
        include_str!("../../templates/pascal/result.pas.j2"),
    ),
    (
        "pascal/McpExports.inc.j2",
        include_str!("../../templates/pascal/McpExports.inc.j2"),
    ),
    (
        "pascal/library.dpr.j2",
        include_str!("../../templates/pascal/library.dpr.j2"),
    ),
    (
        "pascal/McpRuntime.pas",
        include_str!("../../templates/pascal/McpRuntime.pas"),
    ),
    (
        "pascal/McpAttributes.pas",
        include_str!("../../templates/pascal/McpAttributes.pas"),
    ),
    (
        "rust-server/Cargo.toml.j2",
        include_str!("../../templates/rust-server/Cargo.toml.j2"),
    ),
    (
        "rust-server/main.rs.j2",
        include_str!("../../templates/rust-server/main.rs.j2"),
    ),
    (
        "rust-server/README.md.j2",
        include_str!("../../templates/rust-server/README.md.j2"),
    ),
    (
        "rust-server/gitignore",
        include_str!("../../templates/rust-server/gitignore"),
    ),
];

/// The suffix of files rendered by minijinja; other files are copied verbatim.
const TEMPLATE_SUFFIX: &str = ".j2";

/// A template failed to render (a bug of a template or of its context, never user input).
#[derive(Debug, thiserror::Error)]
#[error("rendering the template `{name}` failed: {source}")]
pub struct RenderError {
    /// The template's name (its path below `templates/`).
    pub name: String,
    /// What minijinja reported.
    #[source]
    pub source: minijinja::Error,
}

/// The text of the verbatim file `name` (a path below `templates/` without `.j2`, such as
/// `pascal/McpRuntime.pas`); `None` for other names.
pub fn verbatim(name: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(file, _)| *file == name && !file.ends_with(TEMPLATE_SUFFIX))
        .map(|(_, text)| *text)
}

/// The environment holding every template, built once: trailing newlines kept, no
/// auto-escaping (the output is Pascal, Rust, TOML and Markdown, never HTML).
fn environment() -> Result<&'static Environment<'static>, RenderError> {
    static ENVIRONMENT: OnceLock<Result<Environment<'static>, RenderError>> = OnceLock::new();
    match ENVIRONMENT.get_or_init(build_environment) {
        Ok(env) => Ok(env),
        Err(error) => Err(RenderError {
            name: error.name.clone(),
            source: minijinja::Error::new(error.source.kind(), error.source.to_string()),
        }),
    }
}

fn build_environment() -> Result<Environment<'static>, RenderError> {
    let fail = |name: &str| {
        let name = name.to_string();
        move |source| RenderError { name, source }
    };
    let mut env = Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .map_err(fail("(syntax)"))?,
    );
    env.set_auto_escape_callback(|_| AutoEscape::None);
    for (name, text) in FILES.iter().filter(|(n, _)| n.ends_with(TEMPLATE_SUFFIX)) {
        env.add_template(name, text).map_err(fail(name))?;
    }
    Ok(env)
}

/// Renders the template `name` (a path below `templates/`, such as `pascal/library.dpr.j2`)
/// with `context`.
pub fn render(name: &str, context: impl Serialize) -> Result<String, RenderError> {
    let fail = |source| RenderError {
        name: name.to_string(),
        source,
    };
    let env = environment()?;
    let template = env.get_template(name).map_err(fail)?;
    template
        .render(minijinja::value::Serde(context))
        .map_err(fail)
}

/// What the Rust server scaffold (`templates/rust-server/`) is rendered from.
#[derive(Debug, Clone, Serialize)]
pub struct RustServer {
    /// The crate's name (`calc-server`).
    pub crate_name: String,
    /// The library name in the manifest (`Calc`).
    pub library_name: String,
    /// The module `bind!` expands to (`calc`).
    pub module: String,
    /// The unit files, relative to the crate (`delphi/CalcModule.pas`).
    pub units: Vec<String>,
    /// The compiler target the units are read for.
    pub target: String,
    /// The folder (relative to the crate) the manifest and stubs are generated into.
    pub out_dir: String,
    /// The manifest file `bind!` reads (relative to the crate).
    pub manifest: String,
    /// The `delphi-mcp-runtime = ...` line of `[dependencies]`.
    pub runtime_dependency: String,
}

/// The files of a new Rust server crate: (path relative to the crate, `/`-separated; text).
pub fn render_rust_server(server: &RustServer) -> Result<Vec<(String, String)>, RenderError> {
    let mut files = Vec::new();
    for (template, path) in [
        ("rust-server/Cargo.toml.j2", "Cargo.toml"),
        ("rust-server/main.rs.j2", "src/main.rs"),
        ("rust-server/README.md.j2", "README.md"),
    ] {
        files.push((path.to_string(), render(template, server)?));
    }
    let gitignore = verbatim("rust-server/gitignore").unwrap_or_default();
    files.push((".gitignore".to_string(), gitignore.to_string()));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_compiles_and_verbatim_files_are_found() {
        assert!(environment().is_ok());
        assert!(verbatim("pascal/McpRuntime.pas").is_some_and(|t| t.contains("unit McpRuntime")));
        assert!(verbatim("pascal/tool.pas.j2").is_none());
        assert!(verbatim("pascal/nothing.pas").is_none());
    }

    #[test]
    fn an_unknown_template_is_an_error_naming_it() {
        let error = render("pascal/nothing.j2", ()).expect_err("no such template");
        assert!(error.to_string().contains("pascal/nothing.j2"), "{error}");
    }

    #[test]
    fn the_rust_server_renders_its_files() -> Result<(), RenderError> {
        let files = render_rust_server(&RustServer {
            crate_name: "calc-server".into(),
            library_name: "Calc".into(),
            module: "calc".into(),
            units: vec!["delphi/CalcModule.pas".into()],
            target: "delphi12-win64".into(),
            out_dir: "delphi/generated".into(),
            manifest: "delphi/generated/tools.json".into(),
            runtime_dependency: "delphi-mcp-runtime = \"0.1.0\"".into(),
        })?;
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["Cargo.toml", "src/main.rs", "README.md", ".gitignore"]
        );
        assert!(files[0].1.contains("units = [\"delphi/CalcModule.pas\"]"));
        assert!(files[1].1.contains("module = calc);"));
        assert_eq!(files[3].1, "/target\n");
        Ok(())
    }
}
