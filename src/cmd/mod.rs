//! One module per subcommand.

pub mod build;
pub mod common;
pub mod config;
pub mod gen;
pub mod inspect;
pub mod manifest;
pub mod serve;
