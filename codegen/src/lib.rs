//! Code generation of delphi-mcp: from parsed units to the tool model, strict JSON schemas, the
//! tool manifest and the Pascal marshalling stubs.

#![warn(missing_docs)]

pub mod manifest;
