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
pub mod worker;

/// Sets how errors are shown: unwrapped, so that target names, paths and commands in messages
/// stay whole for copying (wrapping would break them at hyphens).
pub fn init_error_reports() {
    let _ = miette::set_hook(Box::new(|_| {
        Box::new(miette::MietteHandlerOpts::new().wrap_lines(false).build())
    }));
}
