//! The tables: medians over the rounds, ratios, and their place in docs/performance.md.

use crate::stats::median;
use crate::{http, stdio, CONNECTIONS};
use std::fmt::Write;
use std::path::Path;

/// Where the bench's section starts and ends in the document (the lines themselves stay).
pub const BEGIN: &str =
    "<!-- bench/run: begin (generated; edit bench/side-by-side/src/report.rs) -->";
/// See [`BEGIN`].
pub const END: &str = "<!-- bench/run: end -->";

/// Every run of every server, in table order.
pub struct Runs<'a> {
    /// Per stdio server, its rounds.
    pub stdio: Vec<(&'a str, Vec<stdio::Figures>)>,
    /// Per HTTP server, its rounds: the levels and the RSS after the calls.
    pub http: Vec<(&'a str, Vec<http::Run>)>,
}

/// What the tables are headed with.
pub struct Context {
    /// Rounds run.
    pub rounds: usize,
    /// Free text from the caller (date, versions).
    pub note: String,
    /// `/proc/loadavg`'s first three figures before the run.
    pub load_before: String,
    /// The same after the run.
    pub load_after: String,
}

/// The 1, 5 and 15 minute load averages.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn ratio(value: f64, base: f64) -> String {
    if base > 0.0 {
        format!("{:.2}", value / base)
    } else {
        "–".to_string()
    }
}

fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn micros(value: f64) -> String {
    if value < 100.0 {
        format!("{value:.1}")
    } else {
        thousands(value)
    }
}

struct StdioRow<'a> {
    name: &'a str,
    start_ms: f64,
    rss_start: f64,
    rss_after: f64,
    p50: f64,
    p99: f64,
    per_s: f64,
}

struct HttpRow<'a> {
    name: &'a str,
    per_s: Vec<f64>,
    p50: Vec<f64>,
    p99: Vec<f64>,
    rss: f64,
}

/// The markdown section.
pub fn render(runs: &Runs, context: &Context) -> String {
    let stdio: Vec<StdioRow> = runs
        .stdio
        .iter()
        .map(|(name, rounds)| StdioRow {
            name,
            start_ms: median(rounds.iter().map(|f| f.start_ms)),
            rss_start: median(rounds.iter().map(|f| f.rss_start_mb)),
            rss_after: median(rounds.iter().map(|f| f.rss_after_mb)),
            p50: median(rounds.iter().map(|f| f.p50_us)),
            p99: median(rounds.iter().map(|f| f.p99_us)),
            per_s: median(rounds.iter().map(|f| f.pipelined_per_s)),
        })
        .collect();
    let http: Vec<HttpRow> = runs
        .http
        .iter()
        .map(|(name, rounds)| {
            let level = |i: usize, pick: fn(&http::Level) -> f64| {
                median(rounds.iter().map(|run| pick(&run.levels[i])))
            };
            HttpRow {
                name,
                per_s: (0..CONNECTIONS.len())
                    .map(|i| level(i, |l| l.per_s))
                    .collect(),
                p50: (0..CONNECTIONS.len())
                    .map(|i| level(i, |l| l.p50_us))
                    .collect(),
                p99: (0..CONNECTIONS.len())
                    .map(|i| level(i, |l| l.p99_us))
                    .collect(),
                rss: median(rounds.iter().map(|run| run.rss_mb)),
            }
        })
        .collect();

    let find = |name: &str| stdio.iter().find(|r| r.name == name);
    let limit = find("limit");
    let rmcp: Vec<&StdioRow> = stdio
        .iter()
        .filter(|r| r.name.starts_with("rmcp"))
        .collect();
    let best_p50 = rmcp.iter().map(|r| r.p50).fold(f64::INFINITY, f64::min);
    let best_per_s = rmcp.iter().map(|r| r.per_s).fold(0.0, f64::max);
    let ts_per_s = find("TS SDK").map_or(0.0, |r| r.per_s);

    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} rounds, medians; load average {} before, {} after (1, 5, 15 min). {}\n",
        context.rounds, context.load_before, context.load_after, context.note
    );
    out.push_str("| stdio | start (ms) | RSS start / after (MB) | sequential p50 / p99 (µs) | p50 ÷ limit | p50 ÷ best rmcp | p99 ÷ limit | pipelined calls/s | ÷ best rmcp | ÷ TS SDK |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for row in &stdio {
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.1} / {:.1} | {} / {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            row.start_ms,
            row.rss_start,
            row.rss_after,
            micros(row.p50),
            micros(row.p99),
            ratio(row.p50, limit.map_or(0.0, |l| l.p50)),
            ratio(row.p50, best_p50),
            ratio(row.p99, limit.map_or(0.0, |l| l.p99)),
            thousands(row.per_s),
            ratio(row.per_s, best_per_s),
            ratio(row.per_s, ts_per_s),
        );
    }

    let rmcp_http = http.iter().find(|r| r.name.starts_with("rmcp"));
    let limit_http = http.iter().find(|r| r.name == "limit");
    let counts = CONNECTIONS.map(|c| c.to_string()).join(" / ");
    let _ = writeln!(
        out,
        "\n| HTTP | req/s at {counts} connections | p50 (µs) | p99 (µs) | req/s ÷ rmcp/axum | ÷ limit at {} | p50 at 1 ÷ rmcp/axum | RSS after (MB) |",
        CONNECTIONS[CONNECTIONS.len() - 1]
    );
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    let join = |values: &[f64], format: fn(f64) -> String| {
        values
            .iter()
            .map(|v| format(*v))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    for row in &http {
        let vs_rmcp = rmcp_http.map_or("–".to_string(), |base| {
            row.per_s
                .iter()
                .zip(&base.per_s)
                .map(|(v, b)| ratio(*v, *b))
                .collect::<Vec<_>>()
                .join(" / ")
        });
        let last = CONNECTIONS.len() - 1;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {:.1} |",
            row.name,
            join(&row.per_s, thousands),
            join(&row.p50, micros),
            join(&row.p99, micros),
            vs_rmcp,
            ratio(row.per_s[last], limit_http.map_or(0.0, |l| l.per_s[last])),
            ratio(row.p50[0], rmcp_http.map_or(0.0, |r| r.p50[0])),
            row.rss,
        );
    }
    out
}

/// Replaces the text between [`BEGIN`] and [`END`] in `doc` with `section`.
pub fn write_section(doc: &Path, section: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(doc).map_err(|e| format!("read {}: {e}", doc.display()))?;
    let start = text
        .find(BEGIN)
        .ok_or_else(|| format!("{} has no line {BEGIN}", doc.display()))?
        + BEGIN.len();
    let end = text[start..]
        .find(END)
        .ok_or_else(|| format!("{} has no line {END}", doc.display()))?
        + start;
    let updated = format!(
        "{}\n{}\n{}",
        &text[..start],
        section.trim_end(),
        &text[end..]
    );
    std::fs::write(doc, updated).map_err(|e| format!("write {}: {e}", doc.display()))
}
