//! The `bind!` proc-macro of delphi-mcp (not yet implemented; see the project's issues).
