//! `delphi-mcp serve --http` (Streamable HTTP), each server a child process on a port of its
//! own: raw HTTP/1.1 (authentication, Origin and Host checks, limits, port fallback, status
//! JSON), the official Python MCP SDK client, the MCP conformance suite, the status page in
//! headless Chromium, fault containment over HTTP, and three servers behind HAProxy.
//!
//! A test of the HTTP transport belongs here, as a module in `tests/http/`. Shared helpers (the
//! server process, a raw HTTP client, the client tools, library builds) in `tests/support/`.

mod support;

mod http {
    mod bad_input;
    mod balancer;
    mod browser;
    mod conformance;
    mod direct;
    mod faults;
    mod python;
    mod transport;
}
