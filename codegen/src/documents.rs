//! The Markdown documents of a project folder that go into its manifest: `help/*.md` (help
//! documents) and `prompts/*.md` (prompts), read with `delphi_mcp_manifest::documents`.

use delphi_mcp_manifest::documents::{
    parse_help, parse_prompt, HelpDocumentEntry, MarkdownPromptEntry,
};
use delphi_mcp_manifest::Manifest;
use std::path::{Path, PathBuf};

/// The folder of help documents in a project folder.
pub const HELP_FOLDER: &str = "help";
/// The folder of Markdown prompts in a project folder.
pub const PROMPTS_FOLDER: &str = "prompts";

/// The documents of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Documents {
    /// Help documents, sorted by name.
    pub help: Vec<HelpDocumentEntry>,
    /// Markdown prompts, sorted by name.
    pub prompts: Vec<MarkdownPromptEntry>,
}

/// A document that cannot be read or is not valid.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file's front matter is not valid.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl Documents {
    /// Reads `help/*.md` and `prompts/*.md` of each folder among `paths` (files are skipped).
    pub fn read(paths: &[PathBuf]) -> Result<Documents, DocumentError> {
        let mut documents = Documents::default();
        for dir in paths.iter().filter(|p| p.is_dir()) {
            for file in markdown_files(&dir.join(HELP_FOLDER))? {
                let (stem, text) = read(&file)?;
                documents
                    .help
                    .push(parse_help(&stem, &text).map_err(|e| invalid(&file, e))?);
            }
            for file in markdown_files(&dir.join(PROMPTS_FOLDER))? {
                let (stem, text) = read(&file)?;
                documents
                    .prompts
                    .push(parse_prompt(&stem, &text).map_err(|e| invalid(&file, e))?);
            }
        }
        documents.help.sort_by(|a, b| a.name.cmp(&b.name));
        documents.prompts.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(documents)
    }

    /// Puts the documents into `manifest`.
    pub fn apply(&self, manifest: &mut Manifest) {
        manifest.help_documents = self.help.clone();
        manifest.markdown_prompts = self.prompts.clone();
    }
}

fn invalid(path: &Path, error: delphi_mcp_manifest::documents::DocumentError) -> DocumentError {
    DocumentError::Invalid {
        path: path.to_path_buf(),
        line: error.line,
        message: error.message,
    }
}

/// The `.md` files of `dir`, sorted; none when it does not exist.
fn markdown_files(dir: &Path) -> Result<Vec<PathBuf>, DocumentError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(DocumentError::Read {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        })
        .collect();
    files.sort();
    Ok(files)
}

fn read(path: &Path) -> Result<(String, String), DocumentError> {
    let text = std::fs::read_to_string(path).map_err(|source| DocumentError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((stem, text))
}
