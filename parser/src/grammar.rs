//! The pest parser generated from `delphi.pest`.

#![allow(missing_docs)]

/// Parser for the rules of `delphi.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "delphi.pest"]
pub(crate) struct DelphiParser;
