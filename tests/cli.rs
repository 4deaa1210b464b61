//! The commands as users run them, each a process of the built binaries: `gen`, `build`,
//! `manifest`, `inspect`, `config`, `new` and `cargo delphi-mcp`; the generator's output
//! (snapshots in `tests/cli/snapshots/`); the examples' checked-in generated files and libraries.
//!
//! A test of a command-line command belongs here, as a module in `tests/cli/`. Serving belongs
//! in `tests/stdio.rs` or `tests/http.rs`, libraries called from Rust in `tests/abi.rs`; shared
//! helpers in `tests/support/`.

mod support;

mod cli {
    mod cargo_metadata;
    mod config;
    mod examples;
    mod gen;
    mod generator;
    mod inspect;
    mod new;
}
