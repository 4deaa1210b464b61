//! The framing between the server and its worker processes, over the worker's stdin (server to
//! worker) and stdout (worker to server).
//!
//! Every frame is a little-endian `u32` payload length, then the payload: a one-byte frame type
//! and its fields, all little-endian.
//!
//! | type | direction | fields |
//! |---|---|---|
//! | 1 hello | worker → server | `u32` pid, `u8` 1 (loaded) or 0 (failed), bytes: the manifest's canonical JSON or the load error |
//! | 2 call | server → worker | `u64` call id, `u32` tool index, `u32` count, count values |
//! | 3 returned | worker → server | `u64` call id, `i32` ABI status, one value |
//! | 4 too large | worker → server | `u64` call id, `u64` length of the string that was not sent |
//!
//! A value is an `i32` kind exactly as the ABI numbers them (`AbiKind`: 0 absent, 1 bool,
//! 2 int, 3 uint, 4 double, 5 string) followed by its data: nothing, `u8` 0/1, `i64`, `u64`,
//! the `u64` bits of the double, or bytes. Bytes are a `u32` length and the bytes. A returned
//! value of a kind the runtime does not know travels as that kind with no data
//! ([`ReturnValue::Unknown`]); arguments must be of a known kind, and argument strings UTF-8.
//! A composite value (ABI 2: kind 6 record, 7 array, 8 bytes) is its root's kind, a `u32` slot
//! count and each slot of its [`Block`]: `i32` kind, then bytes for a string or bytes slot, else
//! `u64` bits and `u64` len. A result block the library got wrong travels as kind -2 and the
//! bytes of the reason ([`ReturnValue::Malformed`]).
//!
//! Nothing here panics on input: a short, oversized or malformed frame is a [`FrameError`].

use crate::block::{Block, Slot};
use crate::host::{ArgValue, CallReturn, ReturnValue};
use delphi_mcp_manifest::abi::AbiKind;
use std::io::Read;

/// Largest frame the worker accepts (a call's arguments): 1 GiB. The transports' own limits
/// (16 MiB lines on stdio, `--max-body` over HTTP) are far below.
pub const MAX_CALL_FRAME: usize = 1 << 30;
/// Bytes a frame from the worker may have beyond its string (type, ids, status, kind, length).
pub const FRAME_OVERHEAD: usize = 64;

const HELLO: u8 = 1;
const CALL: u8 = 2;
const RETURNED: u8 = 3;
const TOO_LARGE: u8 = 4;

/// A frame the server sends to a worker.
#[derive(Debug, Clone, PartialEq)]
pub enum ToWorker {
    /// Call tool `tool` (manifest index) with `args`.
    Call {
        /// The call's id, echoed in the answer.
        id: u64,
        /// The tool's index in the manifest.
        tool: u32,
        /// The marshalled arguments.
        args: Vec<ArgValue>,
    },
}

/// A frame a worker sends to the server.
#[derive(Debug, Clone, PartialEq)]
pub enum FromWorker {
    /// The first frame: the library is loaded and initialised (its manifest's canonical JSON),
    /// or why not.
    Hello {
        /// The worker's process id.
        pid: u32,
        /// The manifest JSON, or the load error's text.
        outcome: Result<Vec<u8>, String>,
    },
    /// A call's outcome.
    Returned {
        /// The call's id.
        id: u64,
        /// What the export returned.
        returned: CallReturn,
    },
    /// A call returned a string longer than the result limit; it was freed, not sent.
    TooLarge {
        /// The call's id.
        id: u64,
        /// The string's length.
        bytes: u64,
    },
}

/// Why a frame could not be read, written or decoded.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The pipe failed.
    #[error("the pipe failed: {0}")]
    Io(#[from] std::io::Error),
    /// The input ended inside a frame.
    #[error("the frame is truncated: {missing} more bytes were expected")]
    Truncated {
        /// How many bytes were missing.
        missing: usize,
    },
    /// A frame's length is over the limit.
    #[error("a frame of {len} bytes is over the limit of {max} bytes")]
    TooLarge {
        /// The announced or needed length.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// An unknown frame type, or one sent in the wrong direction.
    #[error("unexpected frame type {0}")]
    UnexpectedType(u8),
    /// An argument of a kind the ABI does not have.
    #[error("argument {index} has the unknown kind {kind}")]
    UnknownKind {
        /// The argument's position.
        index: usize,
        /// The kind.
        kind: i32,
    },
    /// A Boolean other than 0 or 1, a hello flag other than 0 or 1.
    #[error("invalid flag byte {0}")]
    InvalidFlag(u8),
    /// Text that must be UTF-8 is not.
    #[error("{0} is not valid UTF-8")]
    NotUtf8(&'static str),
    /// Bytes after the frame's last field.
    #[error("{0} bytes after the end of the frame")]
    Trailing(usize),
}

/// Reads one frame's payload; `Ok(None)` at the end of input between frames.
pub fn read_frame(reader: &mut impl Read, max: usize) -> Result<Option<Vec<u8>>, FrameError> {
    let mut header = [0u8; 4];
    let mut filled = 0;
    while filled < header.len() {
        match reader.read(&mut header[filled..]) {
            Ok(0) if filled == 0 => return Ok(None),
            Ok(0) => {
                return Err(FrameError::Truncated {
                    missing: header.len() - filled,
                })
            }
            Ok(n) => filled += n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error.into()),
        }
    }
    let len = u32::from_le_bytes(header) as usize;
    if len > max {
        return Err(FrameError::TooLarge {
            len: len as u64,
            max: max as u64,
        });
    }
    let mut payload = Vec::with_capacity(len);
    let read = reader.take(len as u64).read_to_end(&mut payload)?;
    if read < len {
        return Err(FrameError::Truncated {
            missing: len - read,
        });
    }
    Ok(Some(payload))
}

/// A frame being written: the length is filled in by [`Frame::finish`].
struct Frame(Vec<u8>);

impl Frame {
    fn new(frame_type: u8, capacity: usize) -> Frame {
        let mut bytes = Vec::with_capacity(capacity + 5);
        bytes.extend_from_slice(&[0, 0, 0, 0, frame_type]);
        Frame(bytes)
    }

    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }

    fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn i32(&mut self, value: i32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) -> Result<(), FrameError> {
        let len = u32::try_from(bytes.len()).map_err(|_| FrameError::TooLarge {
            len: bytes.len() as u64,
            max: u64::from(u32::MAX),
        })?;
        self.u32(len);
        self.0.extend_from_slice(bytes);
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<u8>, FrameError> {
        let payload = self.0.len() - 4;
        let len = u32::try_from(payload).map_err(|_| FrameError::TooLarge {
            len: payload as u64,
            max: u64::from(u32::MAX),
        })?;
        self.0[..4].copy_from_slice(&len.to_le_bytes());
        Ok(self.0)
    }
}

/// A value as the framing carries it, arguments and results alike.
enum Wire<'a> {
    Absent,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Bytes(&'a [u8]),
    /// A composite value (ABI 2).
    Block(Block),
    /// A borrowed composite value, to encode.
    BlockRef(&'a Block),
    /// A result block the library got wrong, and why.
    Malformed(&'a [u8]),
    /// A kind the ABI does not have (results only).
    Unknown(i32),
}

/// Bytes a block takes in a frame.
fn block_size(block: &Block) -> usize {
    8 + block.slots.len() * 20 + block.bytes.len()
}

/// The frame tag of [`Wire::Malformed`].
const MALFORMED: i32 = -2;

impl Wire<'_> {
    fn of_arg(arg: &ArgValue) -> Wire<'_> {
        match arg {
            ArgValue::Absent => Wire::Absent,
            ArgValue::Bool(value) => Wire::Bool(*value),
            ArgValue::Int(value) => Wire::Int(*value),
            ArgValue::UInt(value) => Wire::UInt(*value),
            ArgValue::Double(value) => Wire::Double(*value),
            ArgValue::String(text) => Wire::Bytes(text.as_bytes()),
            ArgValue::Block(block) => Wire::BlockRef(block),
            // ABI 3: the worker makes its own context (its calls have no client to talk to).
            ArgValue::Context(_) => Wire::Unknown(AbiKind::Context as i32),
        }
    }

    fn of_return(value: &ReturnValue) -> Wire<'_> {
        match value {
            ReturnValue::Absent => Wire::Absent,
            ReturnValue::Bool(value) => Wire::Bool(*value),
            ReturnValue::Int(value) => Wire::Int(*value),
            ReturnValue::UInt(value) => Wire::UInt(*value),
            ReturnValue::Double(value) => Wire::Double(*value),
            ReturnValue::String(bytes) => Wire::Bytes(bytes),
            ReturnValue::Block(block) => Wire::BlockRef(block),
            ReturnValue::Malformed(why) => Wire::Malformed(why.as_bytes()),
            // Its tag is taken by `Malformed`: say so in one.
            ReturnValue::Unknown(MALFORMED) => Wire::Malformed(b"unknown kind -2"),
            ReturnValue::Unknown(kind) => Wire::Unknown(*kind),
        }
    }

    /// Bytes it takes in a frame.
    fn size(&self) -> usize {
        match self {
            Wire::Bytes(bytes) | Wire::Malformed(bytes) => 8 + bytes.len(),
            Wire::Block(block) => block_size(block),
            Wire::BlockRef(block) => block_size(block),
            _ => 12,
        }
    }
}

impl Frame {
    fn value(&mut self, value: &Wire<'_>) -> Result<(), FrameError> {
        match *value {
            Wire::Absent => self.i32(AbiKind::Absent as i32),
            Wire::Bool(value) => {
                self.i32(AbiKind::Bool as i32);
                self.u8(u8::from(value));
            }
            Wire::Int(value) => {
                self.i32(AbiKind::Int as i32);
                self.u64(value as u64);
            }
            Wire::UInt(value) => {
                self.i32(AbiKind::UInt as i32);
                self.u64(value);
            }
            Wire::Double(value) => {
                self.i32(AbiKind::Double as i32);
                self.u64(value.to_bits());
            }
            Wire::Bytes(bytes) => {
                self.i32(AbiKind::String as i32);
                self.bytes(bytes)?;
            }
            Wire::Malformed(bytes) => {
                self.i32(MALFORMED);
                self.bytes(bytes)?;
            }
            Wire::Block(ref block) => self.block(block)?,
            Wire::BlockRef(block) => self.block(block)?,
            Wire::Unknown(kind) => self.i32(kind),
        }
        Ok(())
    }

    fn block(&mut self, block: &Block) -> Result<(), FrameError> {
        let root = block.slots.first().map_or(AbiKind::Array, |s| s.kind);
        self.i32(root as i32);
        self.u32(u32::try_from(block.slots.len()).unwrap_or(u32::MAX));
        for slot in &block.slots {
            self.i32(slot.kind as i32);
            if matches!(slot.kind, AbiKind::String | AbiKind::Bytes) {
                self.bytes(block.bytes_of(slot))?;
            } else {
                self.u64(slot.bits);
                self.u64(slot.len as u64);
            }
        }
        Ok(())
    }
}

/// Encodes a frame for the worker, length prefix included.
pub fn encode_to_worker(message: &ToWorker) -> Result<Vec<u8>, FrameError> {
    match message {
        ToWorker::Call { id, tool, args } => {
            let values: Vec<Wire<'_>> = args.iter().map(Wire::of_arg).collect();
            let mut frame = Frame::new(CALL, 16 + values.iter().map(Wire::size).sum::<usize>());
            frame.u64(*id);
            frame.u32(*tool);
            frame.u32(u32::try_from(values.len()).unwrap_or(u32::MAX));
            for value in &values {
                frame.value(value)?;
            }
            frame.finish()
        }
    }
}

/// Encodes a frame for the server, length prefix included.
pub fn encode_from_worker(message: &FromWorker) -> Result<Vec<u8>, FrameError> {
    match message {
        FromWorker::Hello { pid, outcome } => {
            let text = match outcome {
                Ok(manifest) => manifest.as_slice(),
                Err(error) => error.as_bytes(),
            };
            let mut frame = Frame::new(HELLO, 9 + text.len());
            frame.u32(*pid);
            frame.u8(u8::from(outcome.is_ok()));
            frame.bytes(text)?;
            frame.finish()
        }
        FromWorker::Returned { id, returned } => {
            let value = Wire::of_return(&returned.value);
            let mut frame = Frame::new(RETURNED, 12 + value.size());
            frame.u64(*id);
            frame.i32(returned.status);
            frame.value(&value)?;
            frame.finish()
        }
        FromWorker::TooLarge { id, bytes } => {
            let mut frame = Frame::new(TOO_LARGE, 16);
            frame.u64(*id);
            frame.u64(*bytes);
            frame.finish()
        }
    }
}

/// Reads the fields of one payload.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FrameError> {
        if self.rest.len() < n {
            return Err(FrameError::Truncated {
                missing: n - self.rest.len(),
            });
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FrameError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, FrameError> {
        Ok(self.array::<1>()?[0])
    }

    fn flag(&mut self) -> Result<bool, FrameError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(FrameError::InvalidFlag(other)),
        }
    }

    fn u32(&mut self) -> Result<u32, FrameError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, FrameError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32, FrameError> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    fn bytes(&mut self) -> Result<&'a [u8], FrameError> {
        let len = self.u32()? as usize;
        self.take(len)
    }

    fn value(&mut self) -> Result<Wire<'a>, FrameError> {
        Ok(match self.i32()? {
            k if k == AbiKind::Absent as i32 => Wire::Absent,
            k if k == AbiKind::Bool as i32 => Wire::Bool(self.flag()?),
            k if k == AbiKind::Int as i32 => Wire::Int(self.u64()? as i64),
            k if k == AbiKind::UInt as i32 => Wire::UInt(self.u64()?),
            k if k == AbiKind::Double as i32 => Wire::Double(f64::from_bits(self.u64()?)),
            k if k == AbiKind::String as i32 => Wire::Bytes(self.bytes()?),
            k if k == AbiKind::Record as i32
                || k == AbiKind::Array as i32
                || k == AbiKind::Bytes as i32 =>
            {
                Wire::Block(self.block()?)
            }
            MALFORMED => Wire::Malformed(self.bytes()?),
            other => Wire::Unknown(other),
        })
    }

    fn block(&mut self) -> Result<Block, FrameError> {
        let count = self.u32()? as usize;
        // Every slot takes at least its kind and a length: a count the payload cannot hold is
        // refused before anything is allocated for it.
        if count > self.rest.len() / 8 {
            return Err(FrameError::Truncated {
                missing: count * 8 - self.rest.len(),
            });
        }
        let mut block = Block::default();
        for index in 0..count {
            let tag = self.i32()?;
            let kind =
                AbiKind::from_tag(tag).ok_or(FrameError::UnknownKind { index, kind: tag })?;
            if matches!(kind, AbiKind::String | AbiKind::Bytes) {
                let bytes = self.bytes()?;
                block.push_bytes(kind, bytes);
            } else {
                let bits = self.u64()?;
                let len = usize::try_from(self.u64()?).unwrap_or(usize::MAX);
                block.slots.push(Slot {
                    kind,
                    bits,
                    start: 0,
                    len,
                });
            }
        }
        block.check().map_err(|_| FrameError::UnknownKind {
            index: 0,
            kind: MALFORMED,
        })?;
        Ok(block)
    }

    fn end(self) -> Result<(), FrameError> {
        match self.rest.len() {
            0 => Ok(()),
            n => Err(FrameError::Trailing(n)),
        }
    }
}

fn frame_type(payload: &[u8]) -> Result<(u8, Fields<'_>), FrameError> {
    match payload.split_first() {
        Some((&frame_type, rest)) => Ok((frame_type, Fields { rest })),
        None => Err(FrameError::Truncated { missing: 1 }),
    }
}

/// Decodes a payload the server sent (as [`read_frame`] returns it).
pub fn decode_to_worker(payload: &[u8]) -> Result<ToWorker, FrameError> {
    let (frame_type, mut fields) = frame_type(payload)?;
    if frame_type != CALL {
        return Err(FrameError::UnexpectedType(frame_type));
    }
    let id = fields.u64()?;
    let tool = fields.u32()?;
    let count = fields.u32()? as usize;
    // Every value takes at least its 4-byte kind: a count the payload cannot hold is refused
    // before anything is allocated for it.
    if count > fields.rest.len() / 4 {
        return Err(FrameError::Truncated {
            missing: count * 4 - fields.rest.len(),
        });
    }
    let mut args = Vec::with_capacity(count);
    for index in 0..count {
        args.push(match fields.value()? {
            Wire::Absent => ArgValue::Absent,
            Wire::Bool(value) => ArgValue::Bool(value),
            Wire::Int(value) => ArgValue::Int(value),
            Wire::UInt(value) => ArgValue::UInt(value),
            Wire::Double(value) => ArgValue::Double(value),
            Wire::Bytes(bytes) => ArgValue::String(
                std::str::from_utf8(bytes)
                    .map_err(|_| FrameError::NotUtf8("an argument string"))?
                    .to_string(),
            ),
            Wire::Block(block) => ArgValue::Block(block),
            Wire::Unknown(kind) if kind == AbiKind::Context as i32 => {
                ArgValue::Context(Default::default())
            }
            Wire::Unknown(kind) => return Err(FrameError::UnknownKind { index, kind }),
            // Never decoded: `Fields::value` gives owned blocks.
            Wire::BlockRef(_) | Wire::Malformed(_) => {
                return Err(FrameError::UnknownKind {
                    index,
                    kind: MALFORMED,
                })
            }
        });
    }
    fields.end()?;
    Ok(ToWorker::Call { id, tool, args })
}

/// Decodes a payload a worker sent (as [`read_frame`] returns it).
pub fn decode_from_worker(payload: &[u8]) -> Result<FromWorker, FrameError> {
    let (frame_type, mut fields) = frame_type(payload)?;
    let message = match frame_type {
        HELLO => {
            let pid = fields.u32()?;
            let loaded = fields.flag()?;
            let text = fields.bytes()?;
            let outcome = if loaded {
                Ok(text.to_vec())
            } else {
                Err(std::str::from_utf8(text)
                    .map_err(|_| FrameError::NotUtf8("the load error"))?
                    .to_string())
            };
            FromWorker::Hello { pid, outcome }
        }
        RETURNED => {
            let id = fields.u64()?;
            let status = fields.i32()?;
            let value = match fields.value()? {
                Wire::Absent => ReturnValue::Absent,
                Wire::Bool(value) => ReturnValue::Bool(value),
                Wire::Int(value) => ReturnValue::Int(value),
                Wire::UInt(value) => ReturnValue::UInt(value),
                Wire::Double(value) => ReturnValue::Double(value),
                Wire::Bytes(bytes) => ReturnValue::String(bytes.to_vec()),
                Wire::Block(block) => ReturnValue::Block(block),
                Wire::BlockRef(block) => ReturnValue::Block(block.clone()),
                Wire::Malformed(why) => {
                    ReturnValue::Malformed(String::from_utf8_lossy(why).into_owned())
                }
                Wire::Unknown(kind) => ReturnValue::Unknown(kind),
            };
            FromWorker::Returned {
                id,
                returned: CallReturn { status, value },
            }
        }
        TOO_LARGE => FromWorker::TooLarge {
            id: fields.u64()?,
            bytes: fields.u64()?,
        },
        other => return Err(FrameError::UnexpectedType(other)),
    };
    fields.end()?;
    Ok(message)
}

#[cfg(test)]
mod tests;
