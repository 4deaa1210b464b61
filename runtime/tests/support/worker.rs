//! For test and bench binaries that are their own worker program: started as `BINARY worker
//! LIBRARY ...` they serve an isolated host's calls (`WorkerCommand::current_exe(&["worker"])`).

#![allow(dead_code)]

use delphi_mcp_runtime::host::{CancelPolicy, IsolationOptions, WorkerCommand};

/// When the first argument is `worker`, runs the worker and ends the process; else returns.
pub fn run_as_worker_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|arg| arg == "worker") {
        let code = delphi_mcp_runtime::host::isolated::run_worker(args);
        std::process::exit(if code == std::process::ExitCode::SUCCESS {
            0
        } else {
            1
        });
    }
}

/// Isolation with `workers` processes of this binary.
pub fn isolation(workers: usize) -> IsolationOptions {
    IsolationOptions {
        workers,
        on_cancel: CancelPolicy::Abandon,
        command: WorkerCommand::current_exe(&["worker"]).expect("current exe"),
    }
}
