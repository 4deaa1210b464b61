//! `delphi-mcp serve` over stdio, each server a child process on the ABI fixture or an example:
//! raw pipes (framing, ids, both protocol eras), the official Python MCP SDK client, the
//! MCP Inspector CLI, and fault containment (`examples/faults` in process and isolated).
//!
//! A test of the stdio transport belongs here, as a module in `tests/stdio/`. Shared helpers
//! (the server process, the client tools, library builds) in `tests/support/`.

mod support;

mod stdio {
    mod bad_input;
    #[cfg(target_os = "linux")]
    mod busy_poll;
    mod calls;
    mod context;
    mod faults;
    mod inspector;
    #[cfg(target_os = "linux")]
    mod library_reads;
    mod python;
    mod raw;
    #[cfg(target_os = "linux")]
    mod worker_reads;
}
