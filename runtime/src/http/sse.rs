//! rmcp's SSE answers with the client's ids: each `data:` line answering the internal id of a
//! request gets the client's exact id back, event by event as the stream arrives.

use super::jsonrpc::RmcpBody;
use crate::jsonrpc::{self, RawId};
use bytes::Bytes;
use http_body::{Body as HttpBody, Frame};
use std::pin::Pin;
use std::task::{Context, Poll};

/// An SSE body whose `data:` answers to `internal` get the client's id back.
pub(super) struct SseIdRewriter {
    inner: RmcpBody,
    /// Bytes of an event not complete yet.
    pending: Vec<u8>,
    id: Option<RawId>,
    internal: Option<i64>,
}

impl SseIdRewriter {
    /// Rewrites `inner`'s answers to `internal` to carry `id`.
    pub(super) fn new(inner: RmcpBody, id: Option<RawId>, internal: Option<i64>) -> SseIdRewriter {
        SseIdRewriter {
            inner,
            pending: Vec::new(),
            id,
            internal,
        }
    }

    /// Rewrites the complete events in `pending` and returns them.
    fn complete_events(&mut self, all: bool) -> Option<Bytes> {
        let end = if all {
            self.pending.len()
        } else {
            self.pending
                .windows(2)
                .rposition(|w| w == b"\n\n")
                .map(|p| p + 2)?
        };
        let events: Vec<u8> = self.pending.drain(..end).collect();
        let text = String::from_utf8_lossy(&events);
        let mut out = String::with_capacity(text.len() + 32);
        for line in text.split_inclusive('\n') {
            let rewritten = match (line.strip_prefix("data:"), &self.id, self.internal) {
                (Some(data), Some(id), Some(internal))
                    if jsonrpc::internal_id(data.trim()) == Some(internal) =>
                {
                    let newline = if line.ends_with('\n') { "\n" } else { "" };
                    Some(format!(
                        "data: {}{newline}",
                        jsonrpc::with_id(data.trim(), id)
                    ))
                }
                _ => None,
            };
            out.push_str(rewritten.as_deref().unwrap_or(line));
        }
        (!out.is_empty()).then(|| Bytes::from(out))
    }
}

impl HttpBody for SseIdRewriter {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        loop {
            let this = &mut *self;
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => {
                        this.pending.extend_from_slice(&data);
                        if let Some(events) = this.complete_events(false) {
                            return Poll::Ready(Some(Ok(Frame::data(events))));
                        }
                    }
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                Poll::Ready(Some(Err(never))) => match never {},
                Poll::Ready(None) => {
                    return Poll::Ready(this.complete_events(true).map(|b| Ok(Frame::data(b))));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Full};

    #[tokio::test]
    async fn sse_answers_get_the_client_id() {
        let body = Full::new(Bytes::from(
            "data:\nid: 0\nretry: 3000\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":41,\"result\":{}}\nid: 1\n\n",
        ))
        .boxed();
        let rewriter = SseIdRewriter {
            inner: body,
            pending: Vec::new(),
            id: RawId::from_json("\"x\""),
            internal: Some(41),
        };
        let text = rewriter.collect().await.expect("body").to_bytes();
        assert_eq!(
            String::from_utf8_lossy(&text),
            "data:\nid: 0\nretry: 3000\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}\nid: 1\n\n"
        );
    }
}
