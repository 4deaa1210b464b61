//! Call statistics for the HTTP status page: a [`Dispatch`] wrapper that times every call.
//!
//! [`StatsDispatch`] forwards to the real dispatcher and records, per tool, the number of calls,
//! the number of tool errors and the latencies of the most recent [`LATENCY_WINDOW`] calls (median
//! and p99 are computed over that window), plus the last [`RECENT_CALLS`] calls overall. Argument
//! values are never recorded: only time, tool, outcome and duration.

use crate::dispatch::{CallControl, CallFuture, Dispatch, DispatchError, ServerIdentity};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How many recent calls the status page lists.
pub const RECENT_CALLS: usize = 200;
/// How many latencies per tool the median and p99 are computed over.
pub const LATENCY_WINDOW: usize = 10_000;
/// Longest tool name recorded for a call to an unknown tool (client-chosen text).
const MAX_UNKNOWN_NAME: usize = 64;

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CallOutcome {
    /// The tool answered with a result.
    Ok,
    /// The tool answered with `isError: true` (tool failure or rejected arguments).
    ToolError,
    /// No such tool (a protocol error).
    UnknownTool,
}

/// One entry of the recent-calls list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecentCall {
    /// When the call finished, UTC, ISO 8601 with milliseconds and `Z`.
    pub time: String,
    /// The tool name as requested (cut to 64 characters for unknown tools).
    pub tool: String,
    /// How it ended.
    pub outcome: CallOutcome,
    /// Duration in milliseconds.
    pub duration_ms: f64,
}

/// Statistics of one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolStats {
    /// Calls so far.
    pub calls: u64,
    /// Calls that answered `isError: true`.
    pub errors: u64,
    /// Median latency in milliseconds over the window (`None` before the first call).
    pub median_ms: Option<f64>,
    /// 99th percentile latency in milliseconds over the window.
    pub p99_ms: Option<f64>,
}

#[derive(Debug, Default)]
struct ToolRecord {
    calls: u64,
    errors: u64,
    latencies_us: VecDeque<u64>,
}

#[derive(Debug, Default)]
struct Records {
    /// Only the manifest's tools are keys (unknown names are counted apart), so a fast hash is
    /// safe.
    tools: HashMap<String, ToolRecord, foldhash::fast::RandomState>,
    recent: VecDeque<Recorded>,
    unknown_calls: u64,
}

/// A recent call as recorded: the time is formatted when the status page asks (most calls
/// are never shown).
#[derive(Debug)]
struct Recorded {
    time: SystemTime,
    tool: String,
    outcome: CallOutcome,
    duration: Duration,
}

/// The statistics shared by the dispatcher wrapper and the status page.
#[derive(Debug)]
pub struct CallStats {
    started: Instant,
    started_at: SystemTime,
    records: Mutex<Records>,
}

impl Default for CallStats {
    fn default() -> Self {
        CallStats::new()
    }
}

impl CallStats {
    /// Empty statistics; uptime counts from now.
    pub fn new() -> CallStats {
        CallStats {
            started: Instant::now(),
            started_at: SystemTime::now(),
            records: Mutex::new(Records::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Records> {
        // A panic while holding the lock cannot leave the records inconsistent enough to matter.
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records one finished call.
    pub fn record(&self, tool: &str, outcome: CallOutcome, duration: Duration) {
        let time = SystemTime::now();
        let mut records = self.lock();
        let name = if outcome == CallOutcome::UnknownTool {
            records.unknown_calls += 1;
            tool.chars().take(MAX_UNKNOWN_NAME).collect()
        } else {
            // Looked up before inserting: no key allocated for a tool called before.
            if !records.tools.contains_key(tool) {
                records
                    .tools
                    .insert(tool.to_string(), ToolRecord::default());
            }
            let Some(record) = records.tools.get_mut(tool) else {
                return;
            };
            record.calls += 1;
            if outcome == CallOutcome::ToolError {
                record.errors += 1;
            }
            if record.latencies_us.len() == LATENCY_WINDOW {
                record.latencies_us.pop_front();
            }
            record
                .latencies_us
                .push_back(duration.as_micros().min(u64::MAX as u128) as u64);
            tool.to_string()
        };
        if records.recent.len() == RECENT_CALLS {
            records.recent.pop_back();
        }
        records.recent.push_front(Recorded {
            time,
            tool: name,
            outcome,
            duration,
        });
    }

    /// Statistics of `tool` (zero counts when never called).
    pub fn tool(&self, tool: &str) -> ToolStats {
        let records = self.lock();
        match records.tools.get(tool) {
            None => ToolStats {
                calls: 0,
                errors: 0,
                median_ms: None,
                p99_ms: None,
            },
            Some(record) => {
                let mut sorted: Vec<u64> = record.latencies_us.iter().copied().collect();
                sorted.sort_unstable();
                ToolStats {
                    calls: record.calls,
                    errors: record.errors,
                    median_ms: percentile(&sorted, 50.0),
                    p99_ms: percentile(&sorted, 99.0),
                }
            }
        }
    }

    /// The most recent calls, newest first.
    pub fn recent(&self) -> Vec<RecentCall> {
        self.lock()
            .recent
            .iter()
            .map(|call| RecentCall {
                time: utc_iso(call.time),
                tool: call.tool.clone(),
                outcome: call.outcome,
                duration_ms: call.duration.as_secs_f64() * 1000.0,
            })
            .collect()
    }

    /// Calls naming a tool that does not exist.
    pub fn unknown_tool_calls(&self) -> u64 {
        self.lock().unknown_calls
    }

    /// Time since the statistics were created (the server start).
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// When the server started, UTC ISO 8601.
    pub fn started_at(&self) -> String {
        utc_iso(self.started_at)
    }
}

/// Nearest-rank percentile of sorted microsecond values, in milliseconds.
fn percentile(sorted_us: &[u64], percent: f64) -> Option<f64> {
    if sorted_us.is_empty() {
        return None;
    }
    let rank = ((percent / 100.0) * sorted_us.len() as f64).ceil() as usize;
    let index = rank.clamp(1, sorted_us.len()) - 1;
    Some(sorted_us[index] as f64 / 1000.0)
}

/// `time` as `YYYY-MM-DDTHH:MM:SS.fffZ`.
pub fn utc_iso(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    // TDateTime counts days from 1899-12-30; the Unix epoch is day 25569.
    let millis = since.as_millis() as f64;
    let days = 25569.0 + (millis / 86_400_000.0);
    let text = crate::datetime::format(days, delphi_mcp_manifest::DateTimePart::DateTime)
        .unwrap_or_else(|| "1970-01-01T00:00:00".to_string());
    // `format` leaves out a zero millisecond part; the page wants a fixed width.
    let text = if text.len() == 19 {
        format!("{text}.000")
    } else {
        text
    };
    format!("{text}Z")
}

/// A [`Dispatch`] that records every call into [`CallStats`] and forwards it.
pub struct StatsDispatch {
    inner: Arc<dyn Dispatch>,
    stats: Arc<CallStats>,
}

impl std::fmt::Debug for StatsDispatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatsDispatch")
            .field("identity", self.inner.identity())
            .finish()
    }
}

impl StatsDispatch {
    /// Wraps `inner`, recording into `stats`.
    pub fn new(inner: Arc<dyn Dispatch>, stats: Arc<CallStats>) -> StatsDispatch {
        StatsDispatch { inner, stats }
    }
}

impl Dispatch for StatsDispatch {
    fn identity(&self) -> &ServerIdentity {
        self.inner.identity()
    }

    fn tools(&self) -> &[Map<String, Value>] {
        self.inner.tools()
    }

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        raw_arguments: Option<&'a str>,
        control: CallControl,
    ) -> CallFuture<'a> {
        Box::pin(async move {
            let started = Instant::now();
            let answer = self.inner.call_tool(name, raw_arguments, control).await;
            let outcome = match &answer {
                Ok(outcome) if outcome.is_error => CallOutcome::ToolError,
                Ok(_) => CallOutcome::Ok,
                Err(DispatchError::UnknownTool(_)) => CallOutcome::UnknownTool,
            };
            self.stats.record(name, outcome, started.elapsed());
            answer
        })
    }

    fn host_state(&self) -> Option<crate::host::HostState> {
        self.inner.host_state()
    }

    fn features(&self) -> Option<&dyn crate::dispatch::Features> {
        self.inner.features()
    }

    fn completes_unlocked(&self) -> bool {
        self.inner.completes_unlocked()
    }

    fn call_timeout(&self) -> Option<std::time::Duration> {
        self.inner.call_timeout()
    }

    #[cfg(target_os = "linux")]
    fn set_idle_work(&self, work: std::sync::Arc<dyn crate::host::idle::IdleWork>) -> bool {
        self.inner.set_idle_work(work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let values: Vec<u64> = (1..=100).map(|v| v * 1000).collect();
        assert_eq!(percentile(&values, 50.0), Some(50.0));
        assert_eq!(percentile(&values, 99.0), Some(99.0));
        assert_eq!(percentile(&[7000], 99.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn records_counts_errors_and_recent_calls_newest_first() {
        let stats = CallStats::new();
        stats.record("add", CallOutcome::Ok, Duration::from_millis(2));
        stats.record("add", CallOutcome::ToolError, Duration::from_millis(4));
        stats.record(&"x".repeat(500), CallOutcome::UnknownTool, Duration::ZERO);
        let add = stats.tool("add");
        assert_eq!((add.calls, add.errors), (2, 1));
        assert_eq!(add.median_ms, Some(2.0));
        assert_eq!(add.p99_ms, Some(4.0));
        assert_eq!(stats.tool("other").calls, 0);
        assert_eq!(stats.unknown_tool_calls(), 1);
        let recent = stats.recent();
        assert_eq!(recent.len(), 3);
        assert_eq!(recent[0].outcome, CallOutcome::UnknownTool);
        assert_eq!(recent[0].tool.chars().count(), MAX_UNKNOWN_NAME);
        assert_eq!(recent[2].tool, "add");
    }

    #[test]
    fn recent_list_is_bounded() {
        let stats = CallStats::new();
        for _ in 0..(RECENT_CALLS + 50) {
            stats.record("t", CallOutcome::Ok, Duration::from_micros(10));
        }
        assert_eq!(stats.recent().len(), RECENT_CALLS);
        assert_eq!(stats.tool("t").calls, (RECENT_CALLS + 50) as u64);
    }

    #[test]
    fn utc_iso_formats_known_instants() {
        assert_eq!(utc_iso(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let instant = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        assert_eq!(utc_iso(instant), "2023-11-14T22:13:20.123Z");
    }
}
