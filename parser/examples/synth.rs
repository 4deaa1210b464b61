//! Writes the benchmark's synthetic unit to stdout (for profiling).
#[path = "../benches/parse.rs"]
#[allow(dead_code)]
mod bench;
fn main() {
    print!("{}", bench::synthetic_unit(400));
}
