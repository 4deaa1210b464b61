//! Runtime of delphi-mcp: loads a library built with the generated stubs, validates and
//! marshals tool calls through the ABI of [`abi`], and serves the tools over MCP.
//!
//! - [`host`]: loading, checks, the library thread(s);
//! - [`marshal`] and [`datetime`]: argument validation and JSON <-> ABI conversion;
//! - [`dispatch`]: the transport-independent engine ([`dispatch::Dispatch`]);
//! - [`mcp`]: the rmcp adapter; [`stdio`]: the stdio transport.

#![warn(missing_docs)]

pub mod abi;
pub mod compose;
pub mod datetime;
pub mod dispatch;
pub mod error;
pub mod host;
pub mod http;
pub mod jsonrpc;
pub mod marshal;
pub mod mcp;
pub mod status;
pub mod stdio;

pub use dispatch::{Dispatch, LibraryDispatch};
pub use error::LoadError;
pub use host::{HostOptions, LibraryHost};
