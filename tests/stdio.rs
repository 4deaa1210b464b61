//! `delphi-mcp serve` over stdio, each server a child process on the ABI fixture or an example:
//! raw pipes (framing, ids, both protocol eras), the official Python MCP SDK client and the
//! MCP Inspector CLI.
//!
//! A test of the stdio transport belongs here, as a module in `tests/stdio/`. Shared helpers
//! (the server process, the client tools, library builds) in `tests/support/`.

mod support;

mod stdio {
    mod bad_input;
    mod calls;
    mod inspector;
    mod python;
    mod raw;
}
