//! The global allocator of the `delphi-mcp` binaries and of this crate's benchmark.
//!
//! Parsing makes many small allocations (names, types, tree vectors), which mimalloc serves
//! at about a quarter of the system allocator's cost (docs/performance.md). It is called
//! directly rather than through the `mimalloc` crate, which passes every request to
//! `mi_malloc_aligned`: mimalloc 3 serves an aligned request whose block size is not a power
//! of two by over-allocating on a slow path, and that is most first pushes into a vector of
//! tree nodes here (four parameters are 1,088 bytes). Requests that every mimalloc block
//! meets go to `mi_malloc` instead.

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};

/// The alignment `mi_malloc` gives every block whose size is a multiple of it
/// (`MI_MAX_ALIGN_SIZE`: bins above 16 bytes are multiples of 16, smaller ones of 8, and
/// pages start 16-aligned).
const PLAIN_ALIGN: usize = 16;

/// mimalloc as the global allocator: `#[global_allocator] static A: MiMalloc = MiMalloc;`.
#[derive(Debug, Clone, Copy, Default)]
pub struct MiMalloc;

/// Whether a block of `size` bytes from the plain functions is aligned to `align`.
fn plain(size: usize, align: usize) -> bool {
    align <= PLAIN_ALIGN && size.is_multiple_of(align)
}

// SAFETY: every method forwards to mimalloc, which returns blocks of at least the requested
// size or null; the plain functions only where their blocks meet the alignment (`plain`),
// the aligned ones otherwise. `mi_free` and `mi_realloc*` take blocks from either.
unsafe impl GlobalAlloc for MiMalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(layout.size(), layout.align()) {
            mi::mi_malloc(layout.size()).cast()
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if plain(layout.size(), layout.align()) {
            mi::mi_zalloc(layout.size()).cast()
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr.cast());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if plain(new_size, layout.align()) {
            mi::mi_realloc(ptr.cast(), new_size).cast()
        } else {
            mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_meet_their_layout_and_keep_their_bytes() {
        let a = MiMalloc;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 3, 8, 16, 24, 40, 48, 100, 272, 1088, 1248, 5000, 70_000] {
                let Ok(layout) = Layout::from_size_align(size, align) else {
                    continue;
                };
                // SAFETY: sizes are non-zero; each block is freed once, with its layout.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc {size} align {align}");
                    p.write_bytes(0xAB, size);
                    let q = a.realloc(p, layout, size * 3 + 8);
                    assert_eq!(q as usize % align, 0, "realloc {size} align {align}");
                    assert!((0..size).all(|i| *q.add(i) == 0xAB));
                    a.dealloc(q, Layout::from_size_align(size * 3 + 8, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0, "zalloc {size} align {align}");
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
