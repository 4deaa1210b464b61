//! Runtime of delphi-mcp: loads a library built with the generated stubs, validates and
//! marshals tool calls through the ABI (`delphi_mcp_manifest::abi`), and serves the tools over
//! MCP. It reads manifests, never Pascal: it depends on the contract crate
//! `delphi-mcp-manifest`, not on the parser or the code generator.
//!
//! - [`host`]: where the tools run ([`host::ToolHost`]): in process ([`LibraryHost`]: loading,
//!   checks, the library thread(s)) or isolated in worker processes ([`host::IsolatedHost`]);
//!   call deadlines, cancellation, result limits;
//! - [`marshal`] and [`datetime`]: argument validation and JSON <-> ABI conversion;
//! - [`call`]: one tool call and what its status means, for MCP and for `bind!` alike;
//! - [`dispatch`]: the transport-independent engine ([`dispatch::Dispatch`]);
//! - [`raw_json`]: JSON read as raw text (every valid JSON text, duplicate keys kept);
//! - [`jsonrpc`]: JSON-RPC envelopes (exact ids, error answers, batches); [`lifecycle`]: a
//!   connection's protocol era;
//! - [`mcp`]: the rmcp adapter; [`stdio`] and [`http`]: the transports;
//! - [`bind`]: what `bind!` expansions run on ([`bind::BoundLibrary`]).
//!
//! Features: `macros` re-exports the `bind!` proc-macro (`delphi_mcp_runtime::bind!`) in its
//! manifest mode, `bind!(manifest = "delphi/generated/tools.json", module = calc)`;
//! `bind-units` adds the mode that reads the Delphi units themselves (it builds the parser and
//! the code generator into the macro).

#![warn(missing_docs)]

pub mod bind;
pub mod block;
pub mod call;
pub mod compose;
pub mod content;
pub mod context;
pub mod datetime;
pub mod direct;
pub mod dispatch;
pub mod error;
pub mod features;
pub mod host;
pub mod http;
pub mod input_required;
pub mod jsonrpc;
pub mod lifecycle;
pub mod marshal;
pub mod mcp;
pub mod peer_link;
pub mod raw_json;
pub mod schema_check;
pub mod status;
pub mod stdio;
pub mod subscriptions;
pub mod values;

pub use dispatch::{CallControl, Dispatch, LibraryDispatch};
pub use error::LoadError;
pub use host::{HostOptions, IsolatedHost, LibraryHost, ToolHost};

/// Typed Rust access to a Delphi library: see `docs/rust.md`.
///
/// `bind!(manifest = "delphi/generated/tools.json", module = calc)` reads a manifest written by
/// `delphi-mcp gen`; with the feature `bind-units`, `bind!("delphi/Calc.pas", name = "Calc")`
/// reads the units. Either expands to a module holding `MANIFEST`, `Library::load(path)` and one
/// method per tool. Paths are relative to the calling crate's `CARGO_MANIFEST_DIR`.
#[cfg(feature = "macros")]
pub use delphi_mcp_macros::bind;
