//! One module per subcommand.

pub mod build;
pub mod cargo_meta;
pub mod common;
pub mod config;
pub mod gen;
pub mod inspect;
pub mod manifest;
pub mod new;
pub mod serve;
