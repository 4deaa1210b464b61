//! The hand-written ABI fixture library of the `delphi-mcp-test-support` crate (the runtime's
//! host tests use it too), built by Free Pascal into this package's target folder.

use delphi_mcp_test_support::abi_lib;
use std::path::{Path, PathBuf};

/// The library built with `defines` (once per test process).
pub fn fixture_library(defines: &[&str]) -> PathBuf {
    abi_lib::fixture_library(Path::new(env!("CARGO_TARGET_TMPDIR")), defines)
}

/// The manifest file the library embeds.
pub fn fixture_manifest() -> PathBuf {
    abi_lib::fixture_manifest()
}
