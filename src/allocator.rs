//! mimalloc's options, set before the first allocation of the `delphi-mcp` binary.

use std::os::raw::c_long;

/// mimalloc 3's `mi_option_arena_reserve` (the `libmimalloc-sys` crate names the options of
/// mimalloc 2, whose order differs); a test checks it against the option's default.
const ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// Address space mimalloc reserves for an arena, in KiB. With its default, 1 GiB, the arena's
/// bitmaps alone take about 30 page faults of a `serve` start (docs/performance.md, "What a
/// start waits for"); a server's heap is a few MB, and a larger heap takes more arenas.
const ARENA_RESERVE_KIB: c_long = 64 * 1024;

/// Sets mimalloc's options. The binary runs it as a constructor (`src/main.rs`), before the
/// Rust runtime's first allocation; an option given in the environment (`MIMALLOC_...`) still
/// wins.
pub extern "C" fn configure() {
    if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none() {
        // SAFETY: sets an option's value; callable at any time, allocates nothing.
        unsafe { libmimalloc_sys::mi_option_set(ARENA_RESERVE, ARENA_RESERVE_KIB) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arena_reserve_option_is_mimallocs() {
        if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none() {
            // Its default: 1 GiB, in KiB.
            // SAFETY: reads an option.
            assert_eq!(
                unsafe { libmimalloc_sys::mi_option_get(ARENA_RESERVE) },
                1024 * 1024
            );
        }
    }
}
