//! Where each of the server's lines goes: [`Router`].
//!
//! Over stdio a server writes every message to one stream; over HTTP each
//! of the host's requests has a response of its own (a JSON body, or an
//! SSE stream), and a session may have a stream of its own opened with
//! GET. The router keeps the requests awaiting their response and sends
//! each of the server's lines to one of them:
//!
//! 1. a response, to the request with its id, ending that request's
//!    stream;
//! 2. a `notifications/progress`, to the request whose `_meta` gave its
//!    `progressToken`;
//! 3. a notification carrying `io.modelcontextprotocol/subscriptionId`
//!    (2026-07-28), to the `subscriptions/listen` request of that id;
//! 4. anything else (the server's own requests, other notifications, a
//!    response whose request's stream was closed): to the session's GET
//!    stream if one is open, else to the stream of the oldest request
//!    awaiting its response (stdio says no more of which request a
//!    `notifications/message` is about), else it waits in a backlog for
//!    the next stream to open.
//!
//! The backlog is bounded ([`BACKLOG`]): past it the oldest line is let go
//! and said on standard error, as is a line for a stream its client has
//! closed. Nothing is let go without a line saying so.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hyper::body::Bytes;
use tokio::sync::mpsc;
use tool_carrier::mcp::http::{addressed, Addressed};
/// A request id or progress token.
pub use tool_carrier::mcp::RequestId as Key;

use crate::relay::log;

/// One of the server's lines, as it wrote it (no line feed).
#[derive(Debug)]
pub struct Line {
    pub bytes: Bytes,
    /// Whether it is the response its stream waited for (the last).
    pub last: bool,
}

/// Lines for one response.
pub type Sink = mpsc::Sender<Line>;

/// How many of the server's lines wait for a slow client on one stream
/// before the server's output is read no further.
pub const QUEUED: usize = 4;

/// The most bytes of lines waiting for a stream to open.
pub const BACKLOG: usize = 16 << 20;

/// A request awaiting its response.
struct Waiter {
    sink: Sink,
    /// Whether its response is a stream (it takes the lines of step 4).
    stream: bool,
    /// When it came, to find the oldest.
    seq: u64,
    token: Option<Key>,
}

#[derive(Default)]
struct Table {
    waiting: HashMap<Key, Waiter>,
    tokens: HashMap<Key, Key>,
    standalone: Option<Sink>,
    backlog: VecDeque<Bytes>,
    backlog_bytes: usize,
    next: u64,
    /// The server's output ended: nothing more comes.
    ended: bool,
}

impl Table {
    /// Move the lines waiting for a stream to `sink`, oldest first, as
    /// many as it has room for; the rest wait for the next.
    fn hand_backlog(&mut self, sink: &Sink) {
        while let Some(bytes) = self.backlog.pop_front() {
            self.backlog_bytes -= bytes.len();
            if let Err(mpsc::error::TrySendError::Full(line)) =
                sink.try_send(Line { bytes, last: false })
            {
                self.backlog_bytes += line.bytes.len();
                self.backlog.push_front(line.bytes);
                return;
            }
        }
    }
}

/// Why a request cannot wait for its response.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// A request of the same id awaits its response.
    InFlight,
    /// Its progress token is another waiting request's.
    TokenInUse,
    /// The server's output has ended.
    Ended,
}

/// Why a GET stream cannot open.
#[derive(Debug, PartialEq, Eq)]
pub enum Busy {
    /// One is open already.
    Open,
    Ended,
}

#[derive(Default)]
pub struct Router {
    table: Mutex<Table>,
}

impl Router {
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Await the response to request `id` (whose `_meta` gave `token`):
    /// its lines come out of the receiver, which ends after the response.
    /// `stream`: whether it takes other lines too (an SSE response).
    pub fn wait_for(
        &self,
        id: Key,
        token: Option<Key>,
        stream: bool,
    ) -> Result<mpsc::Receiver<Line>, Refused> {
        let mut table = self.table();
        if table.ended {
            return Err(Refused::Ended);
        }
        if table.waiting.contains_key(&id) {
            return Err(Refused::InFlight);
        }
        if let Some(token) = &token {
            if table.tokens.contains_key(token) {
                return Err(Refused::TokenInUse);
            }
            table.tokens.insert(token.clone(), id.clone());
        }
        let (sink, lines) = mpsc::channel(QUEUED);
        table.next += 1;
        let seq = table.next;
        // A stream opening takes what waited for one.
        if stream {
            table.hand_backlog(&sink);
        }
        table.waiting.insert(
            id,
            Waiter {
                sink,
                stream,
                seq,
                token,
            },
        );
        Ok(lines)
    }

    /// The client of request `id` closed its response before it came:
    /// whether it was still awaited. Its response, should it come, goes
    /// where step 4 says.
    pub fn forget(&self, id: &Key) -> bool {
        let mut table = self.table();
        match table.waiting.remove(id) {
            Some(waiter) => {
                if let Some(token) = waiter.token {
                    table.tokens.remove(&token);
                }
                true
            }
            None => false,
        }
    }

    /// Open the session's own stream (GET): the lines of step 4, those
    /// waiting first.
    pub fn listen(&self) -> Result<mpsc::Receiver<Line>, Busy> {
        let mut table = self.table();
        if table.ended {
            return Err(Busy::Ended);
        }
        if table.standalone.as_ref().is_some_and(|s| !s.is_closed()) {
            return Err(Busy::Open);
        }
        let (sink, lines) = mpsc::channel(QUEUED);
        // Waiting lines go first, in order.
        table.hand_backlog(&sink);
        table.standalone = Some(sink);
        Ok(lines)
    }

    /// Whether nothing awaits a response and no stream is open.
    pub fn idle(&self) -> bool {
        let table = self.table();
        table.waiting.is_empty() && table.standalone.as_ref().is_none_or(Sink::is_closed)
    }

    /// Close the session's own stream (the proxy is stopping).
    pub fn end_listening(&self) {
        self.table().standalone = None;
    }

    /// Nothing more comes from the server: every stream ends (a request
    /// still awaiting its response sees its stream end without one).
    pub fn end(&self) -> usize {
        let mut table = self.table();
        table.ended = true;
        table.standalone = None;
        table.tokens.clear();
        let left = table.waiting.len();
        table.waiting.clear();
        if !table.backlog.is_empty() {
            log(format_args!(
                "{} of the server's messages waited for a stream that never opened: not delivered",
                table.backlog.len()
            ));
            table.backlog.clear();
            table.backlog_bytes = 0;
        }
        left
    }

    /// Send one of the server's lines (without its line feed) where it
    /// goes; blocks while that stream's client is slow.
    pub fn route(&self, line: Bytes) {
        let mut table = self.table();
        let waiter = match addressed(&line) {
            Addressed::Response(id) => {
                if let Some(waiter) = table.waiting.remove(&id) {
                    if let Some(token) = &waiter.token {
                        table.tokens.remove(token);
                    }
                    drop(table);
                    // The stream ends when the sink is dropped, after it.
                    let last = Line {
                        bytes: line,
                        last: true,
                    };
                    if let Err(e) = waiter.sink.blocking_send(last) {
                        self.unrouted(e.0.bytes, "its request's client closed the stream");
                    }
                    return;
                }
                drop(table);
                self.unrouted(line, "its request's stream is closed");
                return;
            }
            Addressed::Progress(token) => table.tokens.get(&token).cloned(),
            Addressed::Subscription(id) => Some(id),
            _ => None,
        };
        let to = waiter
            .and_then(|id| table.waiting.get(&id))
            .filter(|w| w.stream)
            .map(|w| w.sink.clone());
        drop(table);
        match to {
            Some(sink) => {
                if let Err(e) = sink.blocking_send(Line {
                    bytes: line,
                    last: false,
                }) {
                    self.unrouted(e.0.bytes, "its request's client closed the stream");
                }
            }
            None => self.unrouted(line, ""),
        }
    }

    /// Step 4: the GET stream, the oldest streaming request, or the
    /// backlog.
    fn unrouted(&self, mut line: Bytes, why: &str) {
        if !why.is_empty() {
            log(format_args!(
                "a response ({} bytes) for a request whose stream is gone ({why}): sent on another stream if one is open",
                line.len()
            ));
        }
        for _ in 0..2 {
            let table = self.table();
            let sink = table
                .standalone
                .clone()
                .filter(|s| !s.is_closed())
                .or_else(|| {
                    table
                        .waiting
                        .values()
                        .filter(|w| w.stream && !w.sink.is_closed())
                        .min_by_key(|w| w.seq)
                        .map(|w| w.sink.clone())
                });
            drop(table);
            let Some(sink) = sink else { break };
            match sink.blocking_send(Line {
                bytes: line,
                last: false,
            }) {
                Ok(()) => return,
                // Closed between the look and the send: once more.
                Err(e) => line = e.0.bytes,
            }
        }
        let mut table = self.table();
        if table.ended {
            return;
        }
        table.backlog_bytes += line.len();
        table.backlog.push_back(line);
        while table.backlog_bytes > BACKLOG {
            let Some(old) = table.backlog.pop_front() else {
                break;
            };
            table.backlog_bytes -= old.len();
            log(format_args!(
                "a message of the server's ({} bytes) waited for a stream past {} MiB of others: not delivered",
                old.len(),
                BACKLOG >> 20
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(n: u32) -> Key {
        Key::Number(n.to_string())
    }

    fn take(lines: &mut mpsc::Receiver<Line>) -> Vec<String> {
        let mut got = Vec::new();
        while let Ok(line) = lines.try_recv() {
            got.push(String::from_utf8(line.bytes.to_vec()).unwrap());
        }
        got
    }

    fn route(router: &Router, line: &str) {
        router.route(Bytes::copy_from_slice(line.as_bytes()));
    }

    #[test]
    fn a_response_goes_to_its_request_and_ends_its_stream() {
        let router = Router::default();
        let mut one = router.wait_for(num(1), None, true).unwrap();
        let mut two = router
            .wait_for(Key::String("2".into()), None, true)
            .unwrap();
        route(&router, r#"{"jsonrpc":"2.0","id":"2","result":{}}"#);
        route(&router, r#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#);
        assert_eq!(
            take(&mut one),
            [r#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#]
        );
        assert_eq!(
            take(&mut two),
            [r#"{"jsonrpc":"2.0","id":"2","result":{}}"#]
        );
        assert!(one.is_closed() && one.try_recv().is_err());
        assert_eq!(
            router.wait_for(num(1), None, true).err(),
            None,
            "the id is free again"
        );
    }

    #[test]
    fn an_id_in_flight_or_a_token_in_use_is_refused() {
        let router = Router::default();
        let _one = router.wait_for(num(1), Some(num(7)), true).unwrap();
        assert_eq!(
            router.wait_for(num(1), None, true).err(),
            Some(Refused::InFlight)
        );
        assert_eq!(
            router.wait_for(num(2), Some(num(7)), true).err(),
            Some(Refused::TokenInUse)
        );
    }

    #[test]
    fn progress_goes_by_token_and_a_subscription_by_its_id() {
        let router = Router::default();
        let mut old = router.wait_for(num(1), None, true).unwrap();
        let mut call = router
            .wait_for(num(2), Some(Key::String("t".into())), true)
            .unwrap();
        let mut listen = router.wait_for(num(3), None, true).unwrap();
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#;
        let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#;
        route(&router, progress);
        route(&router, changed);
        assert_eq!(take(&mut call), [progress]);
        assert_eq!(take(&mut listen), [changed]);
        assert!(take(&mut old).is_empty());
    }

    #[test]
    fn other_lines_go_to_the_get_stream_else_the_oldest_stream_else_wait() {
        let router = Router::default();
        let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
        route(&router, log);
        // No stream: it waits, and the first to open takes it.
        let mut json = router.wait_for(num(9), None, false).unwrap();
        assert!(
            take(&mut json).is_empty(),
            "a JSON response takes only its own"
        );
        let mut get = router.listen().unwrap();
        assert_eq!(take(&mut get), [log]);
        assert_eq!(router.listen().err(), Some(Busy::Open));
        let sampling = r#"{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}"#;
        route(&router, sampling);
        assert_eq!(take(&mut get), [sampling]);
        drop(get);
        let mut first = router.wait_for(num(1), None, true).unwrap();
        let mut second = router.wait_for(num(2), None, true).unwrap();
        route(&router, log);
        assert_eq!(take(&mut first), [log]);
        assert!(take(&mut second).is_empty());
    }

    #[test]
    fn a_response_whose_stream_closed_goes_elsewhere() {
        let router = Router::default();
        let gone = router.wait_for(num(1), None, true).unwrap();
        drop(gone);
        let mut get = router.listen().unwrap();
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        route(&router, answer);
        assert_eq!(take(&mut get), [answer]);
        assert!(
            !router.forget(&num(1)),
            "answered elsewhere, no longer awaited"
        );
        let _kept = router.wait_for(num(5), None, true).unwrap();
        assert!(router.forget(&num(5)));
        assert!(!router.forget(&num(5)));
    }

    #[test]
    fn the_backlog_keeps_the_newest_within_its_bound() {
        let router = Router::default();
        let big = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{}"}}}}"#,
            "x".repeat(BACKLOG / 3)
        );
        for _ in 0..4 {
            route(&router, &big);
        }
        let table = router.table();
        assert_eq!(table.backlog.len(), 2);
        assert!(table.backlog_bytes <= BACKLOG);
    }

    #[test]
    fn the_end_ends_every_stream_and_refuses_more() {
        let router = Router::default();
        let mut one = router.wait_for(num(1), None, true).unwrap();
        assert_eq!(router.end(), 1);
        assert!(one.try_recv().is_err() && one.is_closed());
        assert_eq!(
            router.wait_for(num(2), None, true).err(),
            Some(Refused::Ended)
        );
        assert_eq!(router.listen().err(), Some(Busy::Ended));
    }
}
