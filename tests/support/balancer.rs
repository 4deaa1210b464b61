//! HAProxy (`deploy/haproxy.cfg`) in front of three `delphi-mcp serve --http` instances on
//! loopback: the instances on 127.0.0.2, 127.0.0.3 and 127.0.0.4, all on the port the balancer
//! listens on at 127.0.0.1, so `localhost:PORT` is a Host every instance accepts. The test binds
//! the balancer's socket itself and hands it to HAProxy (`fd@3`): connections made before
//! HAProxy is up wait in the socket's backlog, so nothing polls for readiness.

use super::http::HttpServer;
use super::repo;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// HAProxy from PATH. `None` (with a message on stderr) when it is absent on a developer's
/// machine; under CI (`DELPHI_MCP_CI` set, as `.ci/run` does, after installing it) a missing
/// HAProxy fails the test.
pub fn haproxy() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("haproxy"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("DELPHI_MCP_CI").is_none(),
            "haproxy is not installed: scripts/install-test-tools.sh installs it"
        );
        eprintln!(
            "SKIPPED: haproxy is not installed (scripts/install-test-tools.sh installs it; CI runs this test)"
        );
    }
    found
}

/// HAProxy and its three instances; all are killed on drop.
pub struct Balancer {
    haproxy: Child,
    /// `http://127.0.0.1:PORT/mcp`, the balancer's endpoint.
    pub endpoint: String,
    /// `127.0.0.1:PORT`.
    pub authority: String,
    /// The instances; `None` once killed.
    pub instances: Vec<Option<HttpServer>>,
}

impl Balancer {
    /// Starts three instances serving `library` (with `token`, or `--no-auth` without one)
    /// and HAProxy in front of them.
    pub fn start(haproxy: &Path, library: &Path, token: Option<&str>) -> Balancer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("the balancer's socket");
        let port = listener.local_addr().expect("local address").port();
        let instances: Vec<Option<HttpServer>> = (2..=4)
            .map(|last| {
                let address = format!("127.0.0.{last}:{port}");
                let mut extra = vec!["--http", address.as_str()];
                if token.is_none() {
                    extra.push("--no-auth");
                }
                let server = HttpServer::start_with_env(
                    library,
                    &extra,
                    &[("DELPHI_MCP_TOKEN", token.unwrap_or_default())],
                );
                assert_eq!(
                    server.authority, address,
                    "an instance did not get the balancer's port"
                );
                Some(server)
            })
            .collect();
        let authority = format!("127.0.0.1:{port}");
        let mut command = Command::new(haproxy);
        command
            .arg("-db")
            .arg("-f")
            .arg(repo().join("deploy/haproxy.cfg"))
            .env("MCP_BIND", "fd@3")
            .env("MCP_PUBLIC_HOST", &authority)
            .env("MCP_INSTANCE_HOST", format!("localhost:{port}"))
            .env("MCP_TOKEN", token.unwrap_or_default())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (i, instance) in instances.iter().enumerate() {
            let instance = instance.as_ref().expect("started");
            command.env(format!("MCP_SERVER_{}", i + 1), &instance.authority);
        }
        let fd = listener.as_raw_fd();
        // SAFETY: between fork and exec only async-signal-safe calls (dup2, fcntl) on a
        // descriptor this process owns; the child gets the listening socket as fd 3.
        unsafe {
            command.pre_exec(move || {
                if fd != 3 && libc::dup2(fd, 3) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let flags = libc::fcntl(3, libc::F_GETFD);
                if flags < 0 || libc::fcntl(3, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let haproxy = command.spawn().expect("start haproxy");
        // HAProxy holds the socket now; this process's copy is not needed.
        drop(listener);
        Balancer {
            haproxy,
            endpoint: format!("http://{authority}/mcp"),
            authority,
            instances,
        }
    }

    /// Kills instance `index` (0 to 2) and reaps it.
    pub fn kill_instance(&mut self, index: usize) {
        self.instances[index] = None;
    }

    /// The calls each instance counted (its status page's `calls` plus `unknownToolCalls`);
    /// 0 for a killed instance.
    pub fn calls_per_instance(&self) -> Vec<u64> {
        self.instances
            .iter()
            .map(|instance| {
                instance.as_ref().map_or(0, |server| {
                    let status = server.request("GET", "/status.json", &[], b"").json();
                    let totals = &status["totals"];
                    totals["calls"].as_u64().unwrap_or(0)
                        + totals["unknownToolCalls"].as_u64().unwrap_or(0)
                })
            })
            .collect()
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.haproxy.kill();
        let _ = self.haproxy.wait();
    }
}
