//! Lines from a byte stream: one JSON-RPC message per line, each at most [`MAX_LINE`] bytes.
//!
//! A read returns whatever the pipe holds, so a message split across writes and several
//! messages in one write both work. Bytes are scanned once (a long line arriving in many small
//! reads is not rescanned), and the buffer is compacted once per read, not once per line.

use tokio::io::{AsyncRead, AsyncReadExt};

/// Largest accepted line (one message): longer lines are answered with an error and skipped.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Room made in the buffer before each read.
const READ_SIZE: usize = 64 * 1024;

/// How much of an over-long line is kept to read its id from.
pub const KEPT_PREFIX: usize = 4096;

/// What the reader found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line, without its `\n` (and without a `\r` before it).
    Text(Vec<u8>),
    /// A line longer than [`MAX_LINE`]: its first [`KEPT_PREFIX`] bytes. The rest of it, up to
    /// its end, is skipped.
    TooLong(Vec<u8>),
    /// End of input.
    End,
}

/// Lines from the bytes read so far: the buffer a reader fills ([`LineReader`] from an async
/// reader; the library thread from the raw pipe, `stdio/library_input.rs`).
#[derive(Debug, Default)]
pub struct LineBuffer {
    buffer: Vec<u8>,
    /// Where the next line starts in `buffer`.
    start: usize,
    /// How far `buffer` has been searched for `\n` (never before `start`).
    scanned: usize,
    /// Inside an over-long line: skip up to its end.
    skipping: bool,
    /// The input ended (or failed).
    pub eof: bool,
}

impl LineBuffer {
    /// The next line from what was read, or `None` when more must be read first (the buffer
    /// then has room for [`READ_SIZE`] bytes: see [`Self::spare`]).
    pub fn next_line(&mut self) -> Option<Line> {
        loop {
            let from = self.scanned.max(self.start);
            if let Some(offset) = self.buffer[from..].iter().position(|&b| b == b'\n') {
                let end = from + offset;
                let mut line = self.buffer[self.start..end].to_vec();
                self.start = end + 1;
                self.scanned = self.start;
                if std::mem::take(&mut self.skipping) {
                    continue;
                }
                if line.len() > MAX_LINE {
                    // It ended in the read that took it over the limit.
                    line.truncate(KEPT_PREFIX);
                    return Some(Line::TooLong(line));
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(Line::Text(line));
            }
            self.scanned = self.buffer.len();
            if self.buffer.len() - self.start > MAX_LINE {
                let skipped = !self.skipping;
                let prefix = self.buffer[self.start..self.start + KEPT_PREFIX].to_vec();
                self.buffer.clear();
                self.start = 0;
                self.scanned = 0;
                self.skipping = true;
                if skipped {
                    return Some(Line::TooLong(prefix));
                }
            }
            if self.eof {
                let rest = self.buffer.split_off(self.start);
                self.buffer.clear();
                self.start = 0;
                self.scanned = 0;
                if rest.is_empty() || std::mem::take(&mut self.skipping) {
                    return Some(Line::End);
                }
                return Some(Line::Text(rest));
            }
            if self.start > 0 {
                self.buffer.drain(..self.start);
                self.scanned -= self.start;
                self.start = 0;
            }
            // Straight into the buffer's spare room: no chunk to clear and copy on every read
            // (a 64 KiB chunk cleared per line was a tenth of a round trip).
            self.buffer.reserve(READ_SIZE);
            return None;
        }
    }

    /// Whether a complete line (or the end) is buffered.
    #[cfg(target_os = "linux")]
    pub fn has_line(&self) -> bool {
        self.eof || self.buffer[self.scanned.max(self.start)..].contains(&b'\n')
    }

    /// The buffer to read into: bytes appended to it are the input's next bytes.
    pub fn spare(&mut self) -> &mut Vec<u8> {
        &mut self.buffer
    }
}

/// Splits a reader into lines.
pub struct LineReader<R> {
    reader: R,
    lines: LineBuffer,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Reads lines from `reader`.
    pub fn new(reader: R) -> Self {
        LineReader {
            reader,
            lines: LineBuffer::default(),
        }
    }

    /// The next line. Cancel-safe: a dropped call loses nothing.
    pub async fn next(&mut self) -> Line {
        loop {
            if let Some(line) = self.lines.next_line() {
                return line;
            }
            match self.reader.read_buf(self.lines.spare()).await {
                Ok(0) => self.lines.eof = true,
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(%error, "cannot read stdin");
                    self.lines.eof = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: Vec<u8>) -> Vec<Line> {
        let mut reader = LineReader::new(std::io::Cursor::new(input));
        let mut out = Vec::new();
        loop {
            match reader.next().await {
                Line::End => return out,
                line => out.push(line),
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_and_long_lines_skipped() {
        let mut input = b"a\r\nb\n\nc".to_vec();
        assert_eq!(
            lines(input.clone()).await,
            [
                Line::Text(b"a".to_vec()),
                Line::Text(b"b".to_vec()),
                Line::Text(Vec::new()),
                Line::Text(b"c".to_vec())
            ]
        );
        input = b"{\"id\":1,".to_vec();
        input.resize(MAX_LINE + 200_000, b' ');
        input.extend_from_slice(b"\nnext\n");
        let found = lines(input).await;
        assert_eq!(found.len(), 2);
        assert!(
            matches!(&found[0], Line::TooLong(prefix) if prefix.starts_with(b"{\"id\":1,") && prefix.len() == KEPT_PREFIX)
        );
        assert_eq!(found[1], Line::Text(b"next".to_vec()));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_buffer_says_when_a_line_is_complete() {
        let mut buffer = LineBuffer::default();
        assert!(buffer.next_line().is_none());
        buffer.spare().extend_from_slice(b"{\"id\":1}\n{\"id\"");
        assert!(buffer.has_line());
        assert_eq!(buffer.next_line(), Some(Line::Text(b"{\"id\":1}".to_vec())));
        assert!(!buffer.has_line(), "half a line");
        assert!(buffer.next_line().is_none());
        buffer.spare().extend_from_slice(b":2}\n");
        assert_eq!(buffer.next_line(), Some(Line::Text(b"{\"id\":2}".to_vec())));
        buffer.eof = true;
        assert!(buffer.has_line());
        assert_eq!(buffer.next_line(), Some(Line::End));
    }
}
