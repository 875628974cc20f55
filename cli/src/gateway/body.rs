//! The bodies the gateway sends: what it received, streamed as it comes,
//! or one it holds (a fitted body, a refusal), which gives back its share
//! of the memory budget when dropped.

use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::{Either, Full};
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use tokio::sync::OwnedSemaphorePermit;

/// A body held whole, with the share of the buffered bodies' budget it
/// takes until it is dropped (sent, or the request abandoned).
pub struct Held {
    bytes: Full<Bytes>,
    _budget: Option<OwnedSemaphorePermit>,
}

impl Held {
    pub fn new(bytes: Bytes, budget: Option<OwnedSemaphorePermit>) -> Held {
        Held {
            bytes: Full::new(bytes),
            _budget: budget,
        }
    }
}

impl Body for Held {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        Pin::new(&mut self.bytes)
            .poll_frame(cx)
            .map(|frame| frame.map(|f| f.map_err(|never| match never {})))
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.bytes.size_hint()
    }
}

/// A body the gateway sends on: as received, or held.
pub type Out = Either<Incoming, Held>;
