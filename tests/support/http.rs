//! A `delphi-mcp serve --http` process on a free port (read from its start-up line) and a
//! minimal HTTP/1.1 client over a TCP socket, so the tests see status codes and headers exactly
//! as sent.

use super::{server_exe, HANG_GUARD};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

/// A running `delphi-mcp serve LIBRARY --http 127.0.0.1:0`.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub endpoint: String,
    /// `127.0.0.1:PORT`.
    pub authority: String,
    /// The token (read from the file the start-up line names), unless `--no-auth`.
    pub token: Option<String>,
    /// The file the start-up line names.
    pub token_file: Option<PathBuf>,
    /// The per-user state folder given to the server (XDG_STATE_HOME).
    pub state: tempfile::TempDir,
    stderr: mpsc::Receiver<String>,
}

impl HttpServer {
    /// Starts the server with extra arguments and waits for its start-up line.
    pub fn start(library: &Path, extra: &[&str]) -> HttpServer {
        Self::start_with_env(library, extra, &[])
    }

    /// Like [`HttpServer::start`] with extra environment variables.
    pub fn start_with_env(library: &Path, extra: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let state = tempfile::tempdir().expect("state folder");
        let mut command = Command::new(server_exe());
        command.arg("serve").arg(library);
        if !extra.contains(&"--http") {
            command.args(["--http", "127.0.0.1:0"]);
        }
        let mut child = command
            .args(["--log-level", "warn"])
            .args(extra)
            .env("XDG_STATE_HOME", state.path())
            .env_remove("DELPHI_MCP_TOKEN")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start delphi-mcp serve --http");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let banner = loop {
            let line = lines
                .recv_timeout(HANG_GUARD)
                .expect("the server printed no start-up line (failed to start?)");
            if line.starts_with("delphi-mcp: MCP endpoint ") {
                break line;
            }
        };
        let endpoint = banner
            .split_whitespace()
            .find(|w| w.starts_with("http://") && w.ends_with("/mcp"))
            .unwrap_or_else(|| panic!("no endpoint in {banner:?}"))
            .to_string();
        let authority = endpoint
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        let token_file = banner
            .split(" ; ")
            .find_map(|part| part.strip_prefix("token: file "))
            .map(PathBuf::from);
        let token = token_file.as_ref().map(|path| {
            std::fs::read_to_string(path)
                .expect("read the token file named on the start-up line")
                .trim()
                .to_string()
        });
        HttpServer {
            child,
            endpoint,
            authority,
            token,
            token_file,
            state,
            stderr: lines,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `Authorization: Bearer <token>` (empty when there is no token).
    pub fn bearer(&self) -> String {
        format!("Bearer {}", self.token.as_deref().unwrap_or_default())
    }

    /// Sends one request on a fresh connection.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> HttpResponse {
        http_request(&self.authority, method, path, headers, body)
    }

    /// POSTs a JSON-RPC message to /mcp with the token and the 2026-07-28 headers.
    pub fn post_2026(&self, method: &str, name: Option<&str>, message: &str) -> HttpResponse {
        let bearer = self.bearer();
        let mut headers = vec![
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name", name));
        }
        self.request("POST", "/mcp", &headers, message.as_bytes())
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `serve` with arguments that must make it fail; returns its stderr.
pub fn serve_failure(library: &Path, extra: &[&str]) -> String {
    let output = Command::new(server_exe())
        .arg("serve")
        .arg(library)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("run delphi-mcp serve");
    assert!(
        !output.status.success(),
        "serve {extra:?} should have failed"
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// An HTTP response.
#[derive(Debug)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body (chunked encoding removed).
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON (the `data:` line of an SSE body holding one message).
    pub fn json(&self) -> serde_json::Value {
        let text = self.text();
        let json_text = if self
            .header("content-type")
            .is_some_and(|c| c.starts_with("text/event-stream"))
        {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or_default()
                .to_string()
        } else {
            text.clone()
        };
        serde_json::from_str(&json_text)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {text}"))
    }
}

/// Opens a connection to `authority` with the hang guard as read timeout.
pub fn connect(authority: &str) -> TcpStream {
    let stream = TcpStream::connect(authority).expect("connect to the server");
    stream.set_read_timeout(Some(HANG_GUARD)).expect("timeout");
    stream
}

/// The request head (with `Connection: close` and `Content-Length`).
pub fn request_head(
    authority: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    length: usize,
) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {authority}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {length}\r\nConnection: close\r\n\r\n"
    ));
    head
}

/// Sends one request on a fresh connection and reads the response to the end.
pub fn http_request(
    authority: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> HttpResponse {
    let mut stream = connect(authority);
    stream
        .write_all(request_head(authority, method, path, headers, body.len()).as_bytes())
        .expect("send head");
    // A server may answer (413) before the whole body is sent and close: ignore write errors.
    let _ = stream.write_all(body);
    read_response(&mut stream)
}

/// Reads a response until the server closes the connection.
pub fn read_response(stream: &mut TcpStream) -> HttpResponse {
    let mut raw = Vec::new();
    if let Err(error) = stream.read_to_end(&mut raw) {
        // A reset after a complete answer (server closed while we were still sending) is fine.
        if raw.is_empty() {
            panic!("no response: {error}");
        }
    }
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> HttpResponse {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    HttpResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..end]);
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
        else {
            break;
        };
        if size == 0 || data.len() < end + 2 + size {
            break;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[(end + 4 + size).min(data.len())..];
    }
    out
}

/// A 2026-07-28 `tools/call` message with `arguments` as given (duplicate keys survive).
pub fn tools_call_2026(id: i64, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{},"arguments":{arguments},"_meta":{}}}}}"#,
        serde_json::Value::String(name.to_string()),
        super::server::meta_2026()
    )
}
