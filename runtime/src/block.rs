//! Composite values as they cross the ABI (version 2, `docs/abi.md`): a [`Block`] of slots in
//! pre-order, a record or array slot followed by its fields or items, and the bytes of its
//! strings in one buffer. The runtime builds argument blocks ([`crate::values`]) and lends them
//! to the library as [`AbiValue`] arrays ([`Block::abi_slots`]); result blocks are copied out of
//! library memory and released through `mcp_free` ([`Block::take`]).

use delphi_mcp_manifest::abi::{AbiKind, AbiValue, FreeFn};

/// One slot of a [`Block`], owned by the runtime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot {
    /// The kind.
    pub kind: AbiKind,
    /// Bool, Int64, UInt64, Double bits; field or item count of a record or array.
    pub bits: u64,
    /// String / bytes: offset of the bytes in [`Block::bytes`].
    pub start: usize,
    /// String / bytes: byte length; record / array: the slots after it that belong to it.
    pub len: usize,
}

/// A composite value: its slots in pre-order (the first is the root) and the bytes of its
/// strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    /// The slots, root first.
    pub slots: Vec<Slot>,
    /// The bytes of every string and byte string, back to back.
    pub bytes: Vec<u8>,
}

/// Why a result block could not be taken from the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TakeError {
    /// Its strings together exceed the result limit (their total length).
    TooLarge(u64),
    /// The block is malformed (counts that do not add up, an unknown kind): a stub bug.
    Malformed(String),
}

impl Block {
    /// Appends a scalar slot.
    pub fn push(&mut self, kind: AbiKind, bits: u64) {
        self.slots.push(Slot {
            kind,
            bits,
            start: 0,
            len: 0,
        });
    }

    /// Appends a string or bytes slot holding `bytes`.
    pub fn push_bytes(&mut self, kind: AbiKind, bytes: &[u8]) {
        self.slots.push(Slot {
            kind,
            bits: 0,
            start: self.bytes.len(),
            len: bytes.len(),
        });
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends a record or array header of `count` children; returns its index for
    /// [`Self::close`].
    pub fn open(&mut self, kind: AbiKind, count: usize) -> usize {
        self.push(kind, count as u64);
        self.slots.len() - 1
    }

    /// Records how many slots after header `index` belong to it (all pushed since).
    pub fn close(&mut self, index: usize) {
        let after = self.slots.len() - index - 1;
        if let Some(slot) = self.slots.get_mut(index) {
            slot.len = after;
        }
    }

    /// The bytes of a string or bytes slot.
    pub fn bytes_of(&self, slot: &Slot) -> &[u8] {
        self.bytes
            .get(slot.start..slot.start + slot.len)
            .unwrap_or(&[])
    }

    /// The slots as the library reads them, pointing into this block's bytes; valid while the
    /// block lives and is not changed.
    pub fn abi_slots(&self) -> Vec<AbiValue> {
        self.slots
            .iter()
            .map(|slot| {
                let mut value = AbiValue::ABSENT;
                value.kind = slot.kind as i32;
                value.bits = slot.bits;
                if matches!(slot.kind, AbiKind::String | AbiKind::Bytes) {
                    value.ptr = self.bytes_of(slot).as_ptr();
                }
                value.len = slot.len as isize;
                value
            })
            .collect()
    }

    /// The argument slot of a block lent as `slots` ([`Self::abi_slots`]): the root's kind and
    /// count, pointing at the slots.
    /// A block of one bytes slot (`TBytes`) is lent as that slot.
    pub fn root_value(slots: &[AbiValue]) -> AbiValue {
        let mut value = slots.first().copied().unwrap_or(AbiValue::ABSENT);
        if value.kind == AbiKind::Bytes as i32 {
            return value;
        }
        value.ptr = slots.as_ptr().cast();
        value.len = slots.len() as isize;
        value
    }

    /// Copies the result block `root` points to out of library memory and releases every string
    /// in it and the block itself with `free`. Strings beyond `limit` bytes in total are
    /// released without being copied.
    ///
    /// # Safety
    /// `root` must be a record or array out value as `docs/abi.md` describes: `ptr` holds `len`
    /// slots allocated by the library, each string slot `len` readable bytes.
    pub unsafe fn take(root: &AbiValue, free: FreeFn, limit: usize) -> Result<Block, TakeError> {
        let count = usize::try_from(root.len).unwrap_or(0);
        let mut block = Block::default();
        let mut error = None;
        let slots: &[AbiValue] = if root.ptr.is_null() || count == 0 {
            error = Some(TakeError::Malformed(
                "a composite result without slots".into(),
            ));
            &[]
        } else {
            // SAFETY: the caller's contract.
            unsafe { std::slice::from_raw_parts(root.ptr.cast::<AbiValue>(), count) }
        };
        let mut total: u64 = 0;
        for value in slots {
            let Some(kind) = AbiKind::from_tag(value.kind) else {
                error.get_or_insert(TakeError::Malformed(format!(
                    "unknown kind {} in a result block",
                    value.kind
                )));
                continue;
            };
            if matches!(kind, AbiKind::String | AbiKind::Bytes) {
                let len = usize::try_from(value.len).unwrap_or(0);
                total += len as u64;
                if total > limit as u64 {
                    error.get_or_insert(TakeError::TooLarge(total));
                } else if error.is_none() {
                    let bytes = if value.ptr.is_null() || len == 0 {
                        &[][..]
                    } else {
                        // SAFETY: the caller's contract.
                        unsafe { std::slice::from_raw_parts(value.ptr, len) }
                    };
                    block.push_bytes(kind, bytes);
                }
                if !value.ptr.is_null() {
                    // SAFETY: allocated by the library, released exactly once.
                    unsafe { free(value.ptr as *mut std::ffi::c_void) };
                }
            } else if error.is_none() {
                block.slots.push(Slot {
                    kind,
                    bits: value.bits,
                    start: 0,
                    len: if kind.is_composite() {
                        usize::try_from(value.len).unwrap_or(usize::MAX)
                    } else {
                        0
                    },
                });
            }
        }
        if !root.ptr.is_null() {
            // SAFETY: the block was allocated by the library, released exactly once.
            unsafe { free(root.ptr as *mut std::ffi::c_void) };
        }
        if let Some(error) = error {
            return Err(error);
        }
        block.check().map_err(TakeError::Malformed)?;
        Ok(block)
    }

    /// Checks that every header's counts add up (each child inside its parent, the root
    /// covering the whole block).
    pub fn check(&self) -> Result<(), String> {
        let end = self.skip(0)?;
        if end != self.slots.len() {
            return Err(format!(
                "the block has {} slots, its root covers {end}",
                self.slots.len()
            ));
        }
        Ok(())
    }

    /// The index after the value starting at `at`, checking its counts.
    fn skip(&self, at: usize) -> Result<usize, String> {
        let slot = self
            .slots
            .get(at)
            .ok_or_else(|| format!("the block ends before slot {at}"))?;
        if !slot.kind.is_composite() {
            return Ok(at + 1);
        }
        let end = at + 1 + slot.len;
        let mut next = at + 1;
        for _ in 0..slot.bits {
            next = self.skip(next)?;
            if next > end {
                return Err(format!(
                    "slot {at} has children beyond its {} slots",
                    slot.len
                ));
            }
        }
        if next != end {
            return Err(format!(
                "slot {at} says {} slots follow, its children take {}",
                slot.len,
                next - at - 1
            ));
        }
        Ok(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_count_what_follows() {
        let mut block = Block::default();
        let root = block.open(AbiKind::Array, 2);
        let first = block.open(AbiKind::Record, 2);
        block.push(AbiKind::Int, 1);
        block.push_bytes(AbiKind::String, b"one");
        block.close(first);
        let second = block.open(AbiKind::Record, 2);
        block.push(AbiKind::Int, 2);
        block.push_bytes(AbiKind::String, b"two");
        block.close(second);
        block.close(root);
        assert_eq!(block.slots[0].len, 6);
        assert_eq!(block.slots[1].len, 2);
        assert_eq!(block.check(), Ok(()));
        let abi = block.abi_slots();
        let root = Block::root_value(&abi);
        assert_eq!(
            (root.kind, root.bits, root.len),
            (AbiKind::Array as i32, 2, 7)
        );
        assert_eq!(block.bytes_of(&block.slots[6]), b"two");
        block.slots[0].bits = 3;
        assert!(block.check().is_err());
    }
}
