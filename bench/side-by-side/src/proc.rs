//! Server processes: a guard that kills a server on drop or when it hangs, its stderr's tail,
//! its RSS, free ports.

use std::io::Read;
use std::process::Child;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A server still running after this long is killed (its run then fails on a closed pipe).
const HANG_GUARD: Duration = Duration::from_secs(300);

/// Owns a server process: kills and reaps it on drop, or after [`HANG_GUARD`].
pub struct Guard {
    child: Arc<Mutex<Child>>,
    disarm: mpsc::Sender<()>,
}

impl Guard {
    /// Guards `child`.
    pub fn new(child: Child) -> Guard {
        let child = Arc::new(Mutex::new(child));
        let (disarm, disarmed) = mpsc::channel::<()>();
        let watched = Arc::clone(&child);
        std::thread::spawn(move || {
            if disarmed.recv_timeout(HANG_GUARD).is_err() {
                if let Ok(mut child) = watched.lock() {
                    let _ = child.kill();
                }
            }
        });
        Guard { child, disarm }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.lock().map(|c| c.id()).unwrap_or(0)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.disarm.send(());
        if let Ok(mut child) = self.child.lock() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The last few KB a process wrote to a pipe, collected by a thread.
#[derive(Clone)]
pub struct Tail(Arc<Mutex<Vec<u8>>>);

impl Tail {
    /// What was collected so far, as text.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Reads `pipe` to its end on a thread, keeping the last 4 KB.
pub fn collect_tail(mut pipe: impl Read + Send + 'static) -> Tail {
    let tail = Tail(Arc::new(Mutex::new(Vec::new())));
    let kept = tail.clone();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = pipe.read(&mut buffer) {
            if read == 0 {
                break;
            }
            if let Ok(mut kept) = kept.0.lock() {
                kept.extend_from_slice(&buffer[..read]);
                let excess = kept.len().saturating_sub(4096);
                kept.drain(..excess);
            }
        }
    });
    tail
}

/// The resident set size of `pid` in MB (`VmRSS` of `/proc/PID/status`; 0 when unreadable).
pub fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// A port free on 127.0.0.1 a moment ago.
pub fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| format!("find a free port: {e}"))
}

/// Waits until `authority` accepts connections (a server starting); `Err` after a minute.
pub fn wait_for_port(authority: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(authority).is_err() {
        if Instant::now() > deadline {
            return Err(format!("nothing listens on {authority} after a minute"));
        }
        // Polling a port of a process that prints nothing when ready (a bench, not a test).
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}
