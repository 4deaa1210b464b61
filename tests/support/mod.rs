//! The support module of the root end-to-end tests, shared by every test binary (`tests/cli.rs`,
//! `tests/abi.rs`, `tests/stdio.rs`, `tests/http.rs`): each declares `mod support;` and uses
//! the parts it needs. Libraries are built once per test process and shared by its tests.

// Each test binary uses only part of this module.
#![allow(dead_code)]

pub mod abi_lib;
pub mod bad_input;
pub mod balancer;
pub mod call;
pub mod faults;
pub mod fpc;
pub mod http;
#[cfg(target_os = "linux")]
pub mod procs;
pub mod server;
pub mod tools;

use std::path::PathBuf;
use std::time::Duration;

/// Guard against a hung server: a test fails instead of hanging (never used to wait for work).
pub const HANG_GUARD: Duration = Duration::from_secs(60);

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `delphi-mcp` binary under test.
pub fn server_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_delphi-mcp"))
}
