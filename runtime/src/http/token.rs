//! The Bearer token of the HTTP transport: where it comes from and how it is compared.
//!
//! Precedence: `--token-file PATH` (read; created with a fresh token, mode 0600, when absent),
//! else the `DELPHI_MCP_TOKEN` environment variable, else a token generated at each start and
//! written (mode 0600) to `delphi-mcp/http-token-<port>` in the per-user state folder
//! (`$XDG_STATE_HOME`, else `~/.local/state`, on Unix; `%LOCALAPPDATA%` on Windows).

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The environment variable holding the token.
pub const TOKEN_ENV: &str = "DELPHI_MCP_TOKEN";

/// Where the token came from (named in the start-up line so the user can find it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `DELPHI_MCP_TOKEN`.
    Environment,
    /// A file given with `--token-file` (read, or created when absent).
    File(PathBuf),
    /// Generated for this start and written to this file in the state folder.
    Generated(PathBuf),
}

impl std::fmt::Display for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenSource::Environment => write!(f, "env {TOKEN_ENV}"),
            TokenSource::File(path) | TokenSource::Generated(path) => {
                write!(f, "file {}", path.display())
            }
        }
    }
}

/// Errors while obtaining the token.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The token file could not be read or written.
    #[error("token file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The token file holds no token.
    #[error("token file {0} is empty")]
    Empty(PathBuf),
    /// A token holds characters that cannot appear in an HTTP header.
    #[error("the token from {0} contains characters not allowed in an HTTP header (use printable ASCII)")]
    NotPrintable(String),
    /// No per-user state folder is known (neither XDG_STATE_HOME/HOME nor LOCALAPPDATA).
    #[error("no per-user state folder to write the generated token to (set {TOKEN_ENV} or pass --token-file)")]
    NoStateFolder,
    /// The operating system's random source failed.
    #[error("cannot generate a token: {0}")]
    Random(String),
}

/// A Bearer token and where it came from.
#[derive(Clone)]
pub struct Token {
    digest: [u8; 32],
    source: TokenSource,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the secret.
        f.debug_struct("Token")
            .field("source", &self.source)
            .finish()
    }
}

impl Token {
    /// A token with the given secret text.
    pub fn new(secret: &str, source: TokenSource) -> Result<Token, TokenError> {
        if secret.is_empty() || !secret.bytes().all(|b| (0x21..0x7f).contains(&b)) {
            return Err(TokenError::NotPrintable(source.to_string()));
        }
        Ok(Token {
            digest: Sha256::digest(secret.as_bytes()).into(),
            source,
        })
    }

    /// Where it came from.
    pub fn source(&self) -> &TokenSource {
        &self.source
    }

    /// True when `presented` is the token. Both sides are hashed first so the comparison
    /// takes the same time whatever the length or content of `presented`.
    pub fn matches(&self, presented: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented).into();
        let difference = digest
            .iter()
            .zip(self.digest.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        // black_box keeps the optimiser from turning the fold into an early exit.
        std::hint::black_box(difference) == 0
    }

    /// True when an `Authorization` header value is `Bearer <token>`.
    pub fn authorizes(&self, header: Option<&[u8]>) -> bool {
        let Some(value) = header else {
            return false;
        };
        let Some((scheme, rest)) = split_scheme(value) else {
            return false;
        };
        scheme.eq_ignore_ascii_case(b"bearer") && self.matches(rest)
    }
}

fn split_scheme(value: &[u8]) -> Option<(&[u8], &[u8])> {
    let space = value.iter().position(|&b| b == b' ')?;
    let rest = &value[space + 1..];
    let start = rest.iter().position(|&b| b != b' ')?;
    let rest = &rest[start..];
    let end = rest.iter().rposition(|&b| b != b' ')? + 1;
    Some((&value[..space], &rest[..end]))
}

/// Obtains the token per the precedence in the module documentation.
pub fn resolve(token_file: Option<&Path>, port: u16) -> Result<Token, TokenError> {
    if let Some(path) = token_file {
        return from_file(path);
    }
    if let Ok(secret) = std::env::var(TOKEN_ENV) {
        let secret = secret.trim();
        if !secret.is_empty() {
            return Token::new(secret, TokenSource::Environment);
        }
    }
    let folder = state_folder().ok_or(TokenError::NoStateFolder)?;
    let path = folder.join(format!("http-token-{port}"));
    let secret = generate()?;
    write_private(&path, &secret, true)?;
    Token::new(&secret, TokenSource::Generated(path))
}

fn from_file(path: &Path) -> Result<Token, TokenError> {
    let io = |source| TokenError::Io {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let secret = text.trim();
            if secret.is_empty() {
                return Err(TokenError::Empty(path.to_path_buf()));
            }
            Token::new(secret, TokenSource::File(path.to_path_buf()))
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let secret = generate()?;
            write_private(path, &secret, false)?;
            Token::new(&secret, TokenSource::File(path.to_path_buf()))
        }
        Err(error) => Err(io(error)),
    }
}

/// 32 random bytes from the operating system, hex-encoded.
fn generate() -> Result<String, TokenError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The per-user state folder of delphi-mcp.
pub fn state_folder() -> Option<PathBuf> {
    let base = if cfg!(windows) {
        std::env::var_os("LOCALAPPDATA").map(PathBuf::from)
    } else {
        std::env::var_os("XDG_STATE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state"))
            })
    }?;
    Some(base.join("delphi-mcp"))
}

/// Writes `secret` to `path` readable by the owner only; `replace` overwrites an old file.
fn write_private(path: &Path, secret: &str, replace: bool) -> Result<(), TokenError> {
    use std::io::Write;
    let io = |source| TokenError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_private_dir(parent).map_err(io)?;
    }
    if replace {
        // Remove first so the new file gets mode 0600 even if an old one was wider.
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(e)),
        }
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(io)?;
    file.write_all(secret.as_bytes()).map_err(io)?;
    file.write_all(b"\n").map_err(io)?;
    Ok(())
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_header_is_checked_exactly() {
        let token = Token::new("s3cret", TokenSource::Environment).expect("token");
        assert!(token.authorizes(Some(b"Bearer s3cret")));
        assert!(token.authorizes(Some(b"bearer   s3cret ")));
        assert!(!token.authorizes(Some(b"Bearer s3cre")));
        assert!(!token.authorizes(Some(b"Bearer s3cret2")));
        assert!(!token.authorizes(Some(b"Basic s3cret")));
        assert!(!token.authorizes(Some(b"s3cret")));
        assert!(!token.authorizes(None));
    }

    #[test]
    fn token_file_is_created_private_then_reused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sub/token");
        let first = resolve(Some(&path), 1).expect("created");
        let text = std::fs::read_to_string(&path).expect("written");
        assert_eq!(text.trim().len(), 64);
        assert!(first.matches(text.trim().as_bytes()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let second = resolve(Some(&path), 1).expect("read");
        assert!(second.matches(text.trim().as_bytes()));
        assert_eq!(second.source(), &TokenSource::File(path.clone()));
    }

    #[test]
    fn empty_or_unprintable_tokens_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, "  \n").expect("write");
        assert!(matches!(resolve(Some(&path), 1), Err(TokenError::Empty(_))));
        assert!(Token::new("a b", TokenSource::Environment).is_err());
    }
}
