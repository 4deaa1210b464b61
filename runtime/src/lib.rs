//! Runtime of delphi-mcp: loads a library built with the generated stubs, validates and
//! marshals tool calls through the ABI of [`abi`], and serves the tools over MCP.

#![warn(missing_docs)]

pub mod abi;
