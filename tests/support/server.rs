//! A `delphi-mcp serve` process driven over raw stdio pipes, and the JSON-RPC messages the
//! tests send to it.

use super::{server_exe, HANG_GUARD};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// A running `delphi-mcp serve`, stdin kept open, stdout read line by line.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Reads the log (stderr) to its end, when it is kept ([`Server::start_logged`]).
    log: Option<JoinHandle<String>>,
}

impl Server {
    /// Starts `delphi-mcp serve LIBRARY` with extra arguments; its log is discarded.
    pub fn start(library: &Path, extra: &[&str]) -> Server {
        Server::spawn(library, extra, false)
    }

    /// [`Server::start`], keeping the log for [`Server::finish_logged`]. It is read while the
    /// server runs, so that a full pipe never blocks the server.
    pub fn start_logged(library: &Path, extra: &[&str]) -> Server {
        Server::spawn(library, extra, true)
    }

    fn spawn(library: &Path, extra: &[&str], logged: bool) -> Server {
        let mut child = Command::new(server_exe())
            .arg("serve")
            .arg(library)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if logged {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("start delphi-mcp serve");
        let log = child.stderr.take().map(|mut stderr| {
            std::thread::spawn(move || {
                let mut log = String::new();
                let _ = stderr.read_to_string(&mut log);
                log
            })
        });
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines,
            log,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes raw bytes to the server's stdin and flushes them.
    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Writes one message followed by a newline to a server that may have ended already
    /// (a load error): false when it no longer reads.
    pub fn send_unless_ended(&mut self, message: &serde_json::Value) -> bool {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let line = format!("{message}\n");
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .is_ok()
    }

    /// Writes one message followed by a newline.
    pub fn send(&mut self, message: &serde_json::Value) {
        assert!(self.send_unless_ended(message), "write to server");
    }

    /// The next stdout line as sent, or `None` when the server sends none.
    pub fn receive_text(&mut self) -> Option<String> {
        self.lines.recv_timeout(HANG_GUARD).ok()
    }

    /// The next stdout line, parsed; fails the test when the server sends none.
    pub fn receive(&mut self) -> serde_json::Value {
        let line = self
            .lines
            .recv_timeout(HANG_GUARD)
            .expect("the server answered nothing (hung or exited)");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    /// Sends a request and returns its answer, which must carry the same id.
    pub fn request(&mut self, message: serde_json::Value) -> serde_json::Value {
        let id = message["id"].clone();
        self.send(&message);
        let answer = self.receive();
        assert_eq!(answer["id"], id, "answer to another request: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        answer
    }

    /// [`Server::finish`], with the whole log of a server started with
    /// [`Server::start_logged`].
    pub fn finish_logged(mut self) -> (std::process::ExitStatus, String) {
        let log = self.log.take().expect("started with start_logged");
        let status = self.finish();
        (status, log.join().expect("the log reader"))
    }

    /// Closes stdin and returns the exit status; fails if the server does not exit.
    pub fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let (tx, rx) = mpsc::channel();
        let mut child = self.child;
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let status = rx
            .recv_timeout(HANG_GUARD)
            .expect("the server did not exit at end of input")
            .expect("wait");
        assert!(
            self.lines.recv_timeout(HANG_GUARD).is_err(),
            "unexpected output after the last answer"
        );
        status
    }
}

/// An `initialize` request for `version`.
pub fn initialize(id: serde_json::Value, version: &str) -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1"}}})
}

/// The `_meta` every 2026-07-28 request carries.
pub fn meta_2026() -> serde_json::Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"}
    })
}
