//! Build script of the `delphi-mcp` binaries: on Linux with the GNU C library, they are linked
//! with packed relative relocations (`-z pack-relative-relocs`, DT_RELR) when the linker and
//! the C library of the machine take them. The binaries stay position-independent; the loader
//! then reads a few kilobytes of relocations instead of 400 KB at every start, which is about
//! 1 MB less resident memory for `serve` (`docs/performance.md`, "Runtime: memory and
//! start-up"). Elsewhere, or when the probe fails, nothing changes.

use std::path::PathBuf;
use std::process::Command;

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    // The probe runs what it links: only for the machine it runs on.
    if target != host || !target.ends_with("-linux-gnu") {
        return;
    }
    if probe_links_and_runs() {
        println!("cargo:rustc-link-arg-bins={FLAG}");
    }
}

/// Whether the C compiler (Rust's linker driver on Linux) links a program with the flag, and
/// the program runs (the C library's loader takes DT_RELR: glibc 2.36 and later).
fn probe_links_and_runs() -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out.join("relr_probe.c");
    let program = out.join("relr_probe");
    if std::fs::write(&source, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let linked = Command::new("cc")
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .arg(FLAG)
        .output()
        .is_ok_and(|output| output.status.success() && output.stderr.is_empty());
    linked && Command::new(&program).status().is_ok_and(|s| s.success())
}
