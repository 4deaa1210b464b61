//! The side-by-side bench's driver (run by `bench/run`; see docs/performance.md, Side by side).
//!
//! usage: compare --repo DIR --delphi-mcp BIN --library LIB --bins DIR [--rounds N] [--quick]
//!                [--doc FILE] [--note TEXT] [--only NAME,NAME...]
//!
//! Every server gets the same calls of the calc example's `calc_scale`, from this one driver:
//! over stdio the handshake then calls one at a time and pipelined, over HTTP keep-alive
//! connections at 1, 8 and 32. Servers take turns within each round (the order rotates per
//! round), a fresh process per server and round; the tables show medians over the rounds and
//! ratios against the limit (a process with canned answers) and the bare rmcp server. Every
//! answer is checked: the run fails on a wrong or missing one. `--doc` replaces the section
//! between the bench markers of FILE with the tables; `--quick` makes few calls in one round
//! (a smoke test; nothing is written). `--only` runs just the servers of those names (as in the
//! tables, e.g. `delphi-mcp,limit`) and prints each round's figures, nothing else.
//!
//! usage: compare --load 127.0.0.1:PORT --connections N --calls M [--token T] [--limit]
//!
//! loads one running HTTP server at one connection count (after 2,000 calls on one connection)
//! and prints its req/s, p50 and p99; `--limit` for a canned server (`canned http`), else
//! stateless 2026-07-28 calls of `calc_scale` with the Bearer token T. `bench/http_cpu.sh` runs
//! it to measure the server's CPU per request.

mod calls;
mod http;
mod proc;
mod report;
mod stats;
mod stdio;

use calls::Expect;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The token the delphi-mcp HTTP servers are started with.
const TOKEN: &str = "side-by-side-bench-token";

/// The connection counts of the HTTP runs.
pub const CONNECTIONS: [usize; 3] = [1, 8, 32];

/// The tools and binaries the servers run.
struct Paths {
    repo: PathBuf,
    delphi_mcp: String,
    library: String,
    bins: PathBuf,
}

impl Paths {
    fn bin(&self, name: &str) -> String {
        self.bins.join(name).display().to_string()
    }

    fn tool(&self, path: &str) -> String {
        self.repo.join(path).display().to_string()
    }
}

/// A server of the comparison.
pub struct Server {
    /// The name in the tables.
    pub name: &'static str,
    /// Calls are divided by this (slow servers make fewer).
    slowness: u64,
    expect: Expect,
    /// The command line; over HTTP `{port}` stands for the port.
    command: Vec<String>,
    style: http::Style,
}

fn stdio_servers(paths: &Paths) -> Vec<Server> {
    let server = |name, slowness, expect, command: Vec<String>| Server {
        name,
        slowness,
        expect,
        command,
        style: http::Style::Stateless2025,
    };
    let delphi = |extra: &[&str]| {
        let mut command = vec![
            paths.delphi_mcp.clone(),
            "serve".to_string(),
            paths.library.clone(),
        ];
        command.extend(extra.iter().map(|s| s.to_string()));
        command
    };
    vec![
        server("delphi-mcp", 1, Expect::Mcp, delphi(&[])),
        server(
            "delphi-mcp --isolate",
            1,
            Expect::Mcp,
            delphi(&["--isolate"]),
        ),
        server(
            "delphi-mcp --busy-poll 0",
            1,
            Expect::Mcp,
            delphi(&["--busy-poll", "0"]),
        ),
        server(
            "delphi-mcp --isolate --busy-poll 0",
            1,
            Expect::Mcp,
            delphi(&["--isolate", "--busy-poll", "0"]),
        ),
        server(
            "rmcp stdio()",
            1,
            Expect::Mcp,
            vec![paths.bin("rmcp-bare"), "stdio".into()],
        ),
        server(
            "rmcp stdio_pipes()",
            1,
            Expect::Mcp,
            vec![paths.bin("rmcp-bare"), "stdio-pipes".into()],
        ),
        server("TS SDK", 2, Expect::Mcp, ts_command(paths, "stdio")),
        server("FastMCP", 10, Expect::Mcp, fastmcp_command(paths, "stdio")),
        server(
            "limit",
            1,
            Expect::Canned,
            vec![paths.bin("canned"), "stdio".into()],
        ),
    ]
}

fn http_servers(paths: &Paths) -> Vec<Server> {
    let delphi = |name, extra: &[&str]| {
        let mut command = vec![
            paths.delphi_mcp.clone(),
            "serve".to_string(),
            paths.library.clone(),
            "--http".into(),
            "127.0.0.1:{port}".into(),
            "--log-level".into(),
            "warn".into(),
            "--max-concurrent".into(),
            "256".into(),
        ];
        command.extend(extra.iter().map(|s| s.to_string()));
        Server {
            name,
            slowness: 1,
            expect: Expect::Mcp,
            command,
            style: http::Style::Stateless2026 {
                token: Some(TOKEN.to_string()),
            },
        }
    };
    let mut ts = ts_command(paths, "http");
    ts.push("{port}".into());
    let mut fastmcp = fastmcp_command(paths, "http");
    fastmcp.push("{port}".into());
    vec![
        delphi("delphi-mcp", &[]),
        delphi("delphi-mcp --isolate", &["--isolate"]),
        delphi("delphi-mcp --busy-poll 0", &["--busy-poll", "0"]),
        Server {
            name: "rmcp/axum",
            slowness: 1,
            expect: Expect::Mcp,
            command: vec![
                paths.bin("rmcp-bare"),
                "http".into(),
                "127.0.0.1:{port}".into(),
            ],
            style: http::Style::Stateless2026 { token: None },
        },
        Server {
            name: "TS SDK",
            slowness: 5,
            expect: Expect::Mcp,
            command: ts,
            style: http::Style::Stateless2025,
        },
        Server {
            name: "FastMCP",
            slowness: 10,
            expect: Expect::Mcp,
            command: fastmcp,
            style: http::Style::Stateless2025,
        },
        Server {
            name: "limit",
            slowness: 1,
            expect: Expect::Canned,
            command: vec![
                paths.bin("canned"),
                "http".into(),
                "127.0.0.1:{port}".into(),
            ],
            style: http::Style::Stateless2025,
        },
    ]
}

fn ts_command(paths: &Paths, mode: &str) -> Vec<String> {
    vec![
        paths.tool(".tools/node/node_modules/node/bin/node"),
        paths.tool("bench/servers/ts_calc.mjs"),
        paths.tool(".tools/ts-sdk"),
        mode.into(),
    ]
}

fn fastmcp_command(paths: &Paths, mode: &str) -> Vec<String> {
    vec![
        paths.tool(".tools/fastmcp-venv/bin/python"),
        paths.tool("bench/servers/fastmcp_calc.py"),
        mode.into(),
    ]
}

/// Starts an HTTP server on a free port and loads it.
fn measure_http(server: &Server, calls: u64, warm_up: u64) -> Result<http::Run, String> {
    let port = proc::free_port()?;
    let command: Vec<String> = server
        .command
        .iter()
        .map(|part| part.replace("{port}", &port.to_string()))
        .collect();
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .env("DELPHI_MCP_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("start {}: {e}", command[0]))?;
    let stderr = proc::collect_tail(child.stderr.take().expect("stderr"));
    let guard = proc::Guard::new(child);
    let authority = format!("127.0.0.1:{port}");
    let fail = |message: String| format!("{message}\nserver stderr: {}", stderr.text());
    proc::wait_for_port(&authority).map_err(fail)?;
    let target = http::Target {
        authority,
        style: server.style.clone(),
        expect: server.expect,
    };
    let levels = http::measure(&target, &CONNECTIONS, calls, warm_up).map_err(fail)?;
    Ok(http::Run {
        levels,
        rss_mb: proc::rss_mb(guard.pid()),
    })
}

/// `--load`: one running server at one connection count.
fn load(authority: &str, options: &HashMap<String, String>) -> Result<(), String> {
    let number = |name: &str| -> Result<u64, String> {
        options
            .get(name)
            .ok_or(format!("--{name} is required with --load"))?
            .parse()
            .map_err(|_| format!("--{name}: a number"))
    };
    let limit = options.contains_key("limit");
    let target = http::Target {
        authority: authority.to_string(),
        style: if limit {
            http::Style::Stateless2025
        } else {
            http::Style::Stateless2026 {
                token: options.get("token").cloned(),
            }
        },
        expect: if limit { Expect::Canned } else { Expect::Mcp },
    };
    let connections = number("connections")? as usize;
    let levels = http::measure(&target, &[connections], number("calls")?, 2_000)?;
    for level in levels {
        println!(
            "{:.0} req/s, p50 {:.1} us, p99 {:.1} us",
            level.per_s, level.p50_us, level.p99_us
        );
    }
    Ok(())
}

fn main() {
    if let Err(error) = run() {
        eprintln!("compare: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut options: HashMap<String, String> = HashMap::new();
    let mut quick = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--quick" {
            quick = true;
        } else if arg == "--limit" {
            options.insert("limit".to_string(), String::new());
        } else if let Some(name) = arg.strip_prefix("--") {
            let value = args.next().ok_or(format!("{arg} needs a value"))?;
            options.insert(name.to_string(), value);
        } else {
            return Err(format!("unexpected argument {arg:?}"));
        }
    }
    if let Some(authority) = options.get("load") {
        return load(authority, &options);
    }
    let required = |name: &str| {
        options
            .get(name)
            .cloned()
            .ok_or(format!("--{name} is required"))
    };
    let paths = Paths {
        repo: required("repo")?.into(),
        delphi_mcp: required("delphi-mcp")?,
        library: required("library")?,
        bins: required("bins")?.into(),
    };
    let rounds: usize = match options.get("rounds") {
        Some(n) => n.parse().map_err(|_| "--rounds: a number".to_string())?,
        None if quick => 1,
        None => 5,
    };
    let (counts, http_calls) = if quick {
        (
            stdio::Counts {
                warm_up: 2,
                sequential: 20,
                pipelined: 50,
                extra_starts: 1,
            },
            50,
        )
    } else {
        (
            stdio::Counts {
                warm_up: 50,
                sequential: 2_000,
                pipelined: 20_000,
                // 21 starts per round: the ratio of two medians of nine still moved by a
                // tenth from one run to the next.
                extra_starts: 20,
            },
            5_000,
        )
    };
    let load_before = report::load_average();
    let only: Option<Vec<&str>> = options.get("only").map(|names| names.split(',').collect());
    let chosen = |server: &Server| {
        only.as_ref()
            .is_none_or(|names| names.contains(&server.name))
    };
    let mut stdio_list = stdio_servers(&paths);
    let mut http_list = http_servers(&paths);
    stdio_list.retain(chosen);
    http_list.retain(chosen);
    let mut stdio_runs: Vec<Vec<stdio::Figures>> = vec![Vec::new(); stdio_list.len()];
    let mut http_runs: Vec<Vec<http::Run>> = vec![Vec::new(); http_list.len()];
    for round in 0..rounds {
        for turn in 0..stdio_list.len() {
            let which = (turn + round) % stdio_list.len();
            let server = &stdio_list[which];
            let scaled = stdio::Counts {
                warm_up: counts.warm_up,
                sequential: (counts.sequential / server.slowness).max(10),
                pipelined: (counts.pipelined / server.slowness).max(10),
                extra_starts: counts.extra_starts / server.slowness,
            };
            let figures = stdio::measure(&server.command, server.expect, scaled)
                .map_err(|e| format!("stdio, {}: {e}", server.name))?;
            eprintln!(
                "round {}/{rounds} stdio {:<22} p50 {:>8.1} us  {:>9.0} calls/s",
                round + 1,
                server.name,
                figures.p50_us,
                figures.pipelined_per_s
            );
            stdio_runs[which].push(figures);
        }
        for turn in 0..http_list.len() {
            let which = (turn + round) % http_list.len();
            let server = &http_list[which];
            let calls = (http_calls / server.slowness).max(10);
            let figures = measure_http(server, calls, counts.warm_up)
                .map_err(|e| format!("HTTP, {}: {e}", server.name))?;
            eprintln!(
                "round {}/{rounds} HTTP  {:<22} {}",
                round + 1,
                server.name,
                figures
                    .levels
                    .iter()
                    .map(|l| format!("{:.0} req/s", l.per_s))
                    .collect::<Vec<_>>()
                    .join(" / ")
            );
            http_runs[which].push(figures);
        }
    }
    if only.is_some() {
        return Ok(());
    }
    let load_after = report::load_average();
    let section = report::render(
        &report::Runs {
            stdio: stdio_list.iter().map(|s| s.name).zip(stdio_runs).collect(),
            http: http_list.iter().map(|s| s.name).zip(http_runs).collect(),
        },
        &report::Context {
            rounds,
            note: options.get("note").cloned().unwrap_or_default(),
            load_before,
            load_after,
        },
    );
    println!("{section}");
    if quick {
        eprintln!("compare --quick: every server gave every answer right");
    } else if let Some(doc) = options.get("doc") {
        report::write_section(doc.as_ref(), &section)?;
        eprintln!("compare: wrote the tables into {doc}");
    }
    Ok(())
}
