//! The status page: `GET /status.json` (the data) and `GET /` (the same data as one
//! self-contained HTML page, no scripts or external assets, refreshing itself every
//! [`REFRESH_SECONDS`] seconds). Argument values are never shown: only time, tool, outcome and
//! duration of each call.

use super::LibraryInfo;
use crate::dispatch::Dispatch;
use crate::status::CallStats;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::sync::Arc;

/// Seconds between refreshes of the HTML page.
pub const REFRESH_SECONDS: u32 = 5;

/// Everything the page reports on.
pub struct StatusSource {
    /// The served tools and identity (unwrapped: listing is not a call).
    pub dispatch: Arc<dyn Dispatch>,
    /// The library, when serving one.
    pub library: Option<LibraryInfo>,
    /// Call statistics.
    pub stats: Arc<CallStats>,
    /// The MCP endpoint URL.
    pub endpoint: String,
    /// Whether `/mcp` requires the token.
    pub auth: bool,
}

impl StatusSource {
    /// The status as JSON (the body of `/status.json`).
    pub fn snapshot(&self) -> Value {
        let identity = self.dispatch.identity();
        let mut total_calls = 0u64;
        let mut total_errors = 0u64;
        let tools: Vec<Value> = self
            .dispatch
            .tools()
            .iter()
            .map(|tool| {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                let stats = self.stats.tool(name);
                total_calls += stats.calls;
                total_errors += stats.errors;
                json!({
                    "name": name,
                    "title": tool.get("title"),
                    "description": tool.get("description"),
                    "inputSchema": tool.get("inputSchema"),
                    "outputSchema": tool.get("outputSchema"),
                    "calls": stats.calls,
                    "errors": stats.errors,
                    "medianMs": stats.median_ms,
                    "p99Ms": stats.p99_ms,
                })
            })
            .collect();
        let uptime = self.stats.uptime();
        json!({
            "server": {
                "name": identity.name,
                "version": identity.version,
                "endpoint": self.endpoint,
                "auth": if self.auth { "bearer" } else { "none" },
                "startedAt": self.stats.started_at(),
                "uptimeSeconds": uptime.as_secs(),
            },
            "library": self.library.as_ref().map(|library| json!({
                "path": library.path,
                "abiVersion": library.abi_version,
                "manifestSha256": library.manifest_sha256,
                "threads": library.threads,
            })),
            "totals": {
                "calls": total_calls,
                "errors": total_errors,
                "unknownToolCalls": self.stats.unknown_tool_calls(),
            },
            "host": self.dispatch.host_state(),
            "tools": tools,
            "recentCalls": self.stats.recent(),
        })
    }
}

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "—".to_string(),
        other => other.to_string(),
    }
}

fn millis(value: &Value) -> String {
    value
        .as_f64()
        .map(|ms| format!("{ms:.3} ms"))
        .unwrap_or_else(|| "—".to_string())
}

fn uptime(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (hours, rest) = (rest / 3600, rest % 3600);
    let (minutes, seconds) = (rest / 60, rest % 60);
    if days > 0 {
        format!("{days}d {hours}h {minutes}m {seconds}s")
    } else if hours > 0 {
        format!("{hours}h {minutes}m {seconds}s")
    } else {
        format!("{minutes}m {seconds}s")
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}\
h1{font-size:1.4rem;margin:0 0 .8rem}h2{font-size:1.1rem;margin:1.4rem 0 .5rem}\
table{border-collapse:collapse;margin:.3rem 0}th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:left;vertical-align:top}\
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.ok{color:#1a7f37}.toolError,.unknownTool{color:#b42318}pre{margin:.3rem 0;font-size:.8rem;white-space:pre-wrap}\
code{font-size:.9em}details summary{cursor:pointer}";

/// Renders the HTML page from a [`StatusSource::snapshot`].
pub fn render_html(status: &Value) -> String {
    let server = &status["server"];
    let mut html = String::new();
    let name = escape(&text_of(&server["name"]));
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"refresh\" content=\"{REFRESH_SECONDS}\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{name} — delphi-mcp status</title><style>{STYLE}</style></head><body>\n\
<h1>{name} <small>delphi-mcp {version}</small></h1>\n<table id=\"server\">\
<tr><th>MCP endpoint</th><td><code>{endpoint}</code> (authentication: {auth})</td></tr>\
<tr><th>Started</th><td>{started}</td></tr><tr><th>Uptime</th><td id=\"uptime\">{uptime}</td></tr>",
        version = escape(&text_of(&server["version"])),
        endpoint = escape(&text_of(&server["endpoint"])),
        auth = escape(&text_of(&server["auth"])),
        started = escape(&text_of(&server["startedAt"])),
        uptime = uptime(server["uptimeSeconds"].as_u64().unwrap_or(0)),
    );
    let library = &status["library"];
    if library.is_object() {
        let _ = write!(
            html,
            "<tr><th>Library</th><td><code>{}</code></td></tr><tr><th>ABI version</th><td>{}</td></tr>\
<tr><th>Manifest SHA-256</th><td><code>{}</code></td></tr><tr><th>Library threads</th><td>{}</td></tr>",
            escape(&text_of(&library["path"])),
            escape(&text_of(&library["abiVersion"])),
            escape(&text_of(&library["manifestSha256"])),
            escape(&text_of(&library["threads"])),
        );
    }
    let totals = &status["totals"];
    let _ = writeln!(
        html,
        "<tr><th>Calls</th><td id=\"total-calls\">{} ({} errors, {} to unknown tools)</td></tr></table>",
        text_of(&totals["calls"]),
        text_of(&totals["errors"]),
        text_of(&totals["unknownToolCalls"]),
    );

    render_host(&mut html, &status["host"]);

    html.push_str(
        "<h2>Tools</h2>\n<table id=\"tools\"><thead><tr><th>Tool</th><th>Calls</th><th>Errors</th>\
<th>Median</th><th>p99</th><th>Description and schema</th></tr></thead><tbody>\n",
    );
    for tool in status["tools"].as_array().into_iter().flatten() {
        let tool_name = escape(&text_of(&tool["name"]));
        let schema = |key: &str| serde_json::to_string_pretty(&tool[key]).unwrap_or_default();
        let _ = writeln!(
            html,
            "<tr data-tool=\"{tool_name}\"><td class=\"name\"><code>{tool_name}</code></td>\
<td class=\"num calls\">{calls}</td><td class=\"num errors\">{errors}</td>\
<td class=\"num\">{median}</td><td class=\"num\">{p99}</td>\
<td>{description}<details><summary>input schema</summary><pre>{input}</pre></details>\
<details><summary>output schema</summary><pre>{output}</pre></details></td></tr>",
            calls = text_of(&tool["calls"]),
            errors = text_of(&tool["errors"]),
            median = millis(&tool["medianMs"]),
            p99 = millis(&tool["p99Ms"]),
            description = escape(&text_of(&tool["description"])),
            input = escape(&schema("inputSchema")),
            output = escape(&schema("outputSchema")),
        );
    }
    html.push_str("</tbody></table>\n");

    let recent = status["recentCalls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let _ = write!(
        html,
        "<h2>Last {} calls</h2>\n<table id=\"recent\"><thead><tr><th>Time (UTC)</th><th>Tool</th>\
<th>Outcome</th><th>Duration</th></tr></thead><tbody>\n",
        recent.len()
    );
    for call in &recent {
        let outcome = escape(&text_of(&call["outcome"]));
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td><code>{}</code></td><td class=\"{outcome}\">{outcome}</td><td class=\"num\">{}</td></tr>",
            escape(&text_of(&call["time"])),
            escape(&text_of(&call["tool"])),
            millis(&call["durationMs"]),
        );
    }
    let _ = write!(
        html,
        "</tbody></table>\n<p><small>Refreshes every {REFRESH_SECONDS} s. The same data as JSON: \
<a href=\"/status.json\">/status.json</a>. Argument values are never recorded.</small></p>\n</body></html>\n"
    );
    html
}

/// The library host: where the library runs, running calls, workers, restarts.
fn render_host(html: &mut String, host: &Value) {
    if !host.is_object() {
        return;
    }
    let status = escape(&text_of(&host["status"]));
    let timeout = match host["callTimeoutSeconds"].as_f64() {
        Some(seconds) => format!("{seconds} s"),
        None => "none".to_string(),
    };
    let _ = write!(
        html,
        "<h2>Library host</h2>\n<table id=\"host\"><tr><th>Runs</th><td>{isolation}</td></tr>\
<tr><th>Status</th><td id=\"host-status\" class=\"{status}\">{status}</td></tr>\
<tr><th>Call deadline</th><td>{timeout}</td></tr><tr><th>Result limit</th><td>{limit} bytes</td></tr>\
<tr><th>Queued calls</th><td>{queued}</td></tr>",
        isolation = match host["isolation"].as_str() {
            Some("isolated") => format!(
                "isolated, {} worker process(es); on cancel: {}",
                text_of(&host["libraryThreads"]),
                escape(&text_of(&host["onCancel"]))
            ),
            _ => format!("in process, {} library thread(s)", text_of(&host["libraryThreads"])),
        },
        limit = text_of(&host["maxResultBytes"]),
        queued = text_of(&host["queued"]),
    );
    if host["isolation"].as_str() == Some("isolated") {
        let _ = write!(
            html,
            "<tr><th>Restarts</th><td id=\"host-restarts\">{}</td></tr>",
            text_of(&host["restarts"])
        );
        let exit = &host["lastExit"];
        if exit.is_object() {
            let _ = write!(
                html,
                "<tr><th>Last exit</th><td>{} {}{}</td></tr>",
                escape(&text_of(&exit["at"])),
                escape(&text_of(&exit["cause"])),
                exit["tool"]
                    .as_str()
                    .map(|tool| format!(" during <code>{}</code>", escape(tool)))
                    .unwrap_or_default()
            );
        }
        if let Some(until) = host["unavailableUntil"].as_str() {
            let _ = write!(
                html,
                "<tr><th>Unavailable until</th><td class=\"toolError\">{} ({})</td></tr>",
                escape(until),
                escape(&text_of(&host["unavailableReason"]))
            );
        }
    }
    html.push_str("</table>\n");
    let running = host["running"].as_array().cloned().unwrap_or_default();
    if !running.is_empty() {
        html.push_str(
            "<table id=\"running\"><thead><tr><th>Running tool</th><th>Since (UTC)</th><th>For</th>\
<th>Past its deadline</th></tr></thead><tbody>\n",
        );
        for call in &running {
            let past = call["pastDeadline"].as_bool() == Some(true);
            let _ = writeln!(
                html,
                "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{:.1} s</td><td class=\"{}\">{}</td></tr>",
                escape(&text_of(&call["tool"])),
                escape(&text_of(&call["startedAt"])),
                call["runningSeconds"].as_f64().unwrap_or_default(),
                if past { "toolError" } else { "ok" },
                if past { "yes" } else { "no" },
            );
        }
        html.push_str("</tbody></table>\n");
    }
    let workers = host["workers"].as_array().cloned().unwrap_or_default();
    if !workers.is_empty() {
        html.push_str(
            "<table id=\"workers\"><thead><tr><th>Worker pid</th><th>Status</th><th>Since (UTC)</th>\
<th>Calls</th></tr></thead><tbody>\n",
        );
        for worker in &workers {
            let _ = writeln!(
                html,
                "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                text_of(&worker["pid"]),
                escape(&text_of(&worker["status"])),
                escape(&text_of(&worker["since"])),
                text_of(&worker["calls"]),
            );
        }
        html.push_str("</tbody></table>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_everything_it_shows() {
        let status = json!({
            "server": {"name": "<x>", "version": "1", "endpoint": "e", "auth": "none",
                       "startedAt": "t", "uptimeSeconds": 3725},
            "library": null,
            "totals": {"calls": 1, "errors": 0, "unknownToolCalls": 0},
            "tools": [{"name": "a\"b", "description": "<script>", "inputSchema": {"k": "<v>"},
                       "outputSchema": {}, "calls": 1, "errors": 0, "medianMs": 1.5, "p99Ms": 2.0}],
            "recentCalls": [{"time": "t", "tool": "<t>", "outcome": "ok", "durationMs": 1.5}],
            "host": {"isolation": "isolated", "status": "restarting", "libraryThreads": 2,
                     "callTimeoutSeconds": 1.0, "maxResultBytes": 8, "onCancel": "abandon",
                     "queued": 0, "restarts": 3, "unavailableUntil": null,
                     "lastExit": {"at": "t", "cause": "was killed by signal 11 (SIGSEGV)", "tool": "<f>", "planned": false},
                     "running": [{"tool": "<r>", "startedAt": "t", "runningSeconds": 2.0, "pastDeadline": true}],
                     "workers": [{"pid": 42, "status": "busy", "since": "t", "calls": 7}]},
        });
        let html = render_html(&status);
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<x>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains("data-tool=\"a&quot;b\""));
        assert!(html.contains("1h 2m 5s"));
        assert!(html.contains("1.500 ms"));
        assert!(html.contains("http-equiv=\"refresh\""));
        assert!(html.contains("isolated, 2 worker process(es)"), "{html}");
        assert!(html.contains("during <code>&lt;f&gt;</code>"), "{html}");
        assert!(
            html.contains("<code>&lt;r&gt;</code>") && html.contains(">yes<"),
            "{html}"
        );
        assert!(html.contains("<td>busy</td>"), "{html}");
        assert!(!html.contains("<f>") && !html.contains("<r>"));
    }
}
