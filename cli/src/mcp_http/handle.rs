//! One HTTP request to the MCP endpoint: POST a message, GET the
//! session's stream, DELETE the session.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::{Body, Bytes, Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tokio::sync::mpsc;

use super::channel::{Channel, Kind as ChannelKind};
use super::route::{Busy, Key, Line, Refused};
use super::{State, PATH};
use tool_carrier::mcp::http::{
    self as message, HttpError, Posted as Message, PostedKind as Kind, INVALID_REQUEST,
};

pub type Out = Either<Full<Bytes>, Stream>;

/// A JSON-RPC error the proxy answers with: its code and message.
struct Bad(i32, String);

impl From<HttpError> for Bad {
    fn from(e: HttpError) -> Bad {
        Bad(e.code(), e.message().to_owned())
    }
}

pub const SESSION: &str = "mcp-session-id";

/// The largest message the host may POST (a tool's arguments can hold a
/// file).
pub const MAX_MESSAGE: usize = 64 << 20;

pub async fn handle(
    state: Arc<State>,
    request: Request<Incoming>,
) -> Result<Response<Out>, Infallible> {
    if request.uri().path() != PATH {
        return Ok(plain(
            StatusCode::NOT_FOUND,
            format!("the MCP endpoint is {PATH}\n"),
        ));
    }
    if let Err(origin) = origin_allowed(request.headers()) {
        return Ok(error(
            StatusCode::FORBIDDEN,
            None,
            Bad(INVALID_REQUEST, format!("Origin {origin:?} is not served: only pages of this host's own address are (DNS rebinding)")),
        ));
    }
    let response = match *request.method() {
        Method::POST => post(&state, request).await,
        Method::GET => get(&state, &request),
        Method::DELETE => delete(&state, &request).await,
        _ => not_allowed("GET, POST, DELETE", "POST, GET or DELETE"),
    };
    Ok(response)
}

/// A page's `Origin` must name this host (loopback, or the `Host` it was
/// sent to): a web page elsewhere must not reach a local server through
/// the browser.
fn origin_allowed(headers: &HeaderMap) -> Result<(), String> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let text = origin.to_str().unwrap_or_default();
    let authority = text
        .strip_prefix("http://")
        .or_else(|| text.strip_prefix("https://"))
        .unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6
            .split(']')
            .next()
            .and_then(|h| authority.get(..h.len() + 2))
            .unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    let loopback = matches!(host, "localhost" | "[::1]")
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback());
    let same = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| !authority.is_empty() && h.eq_ignore_ascii_case(authority));
    if loopback || same {
        Ok(())
    } else {
        Err(text.to_owned())
    }
}

/// Whether the client takes an SSE stream, or else JSON; `None` if
/// neither.
fn takes_stream(headers: &HeaderMap) -> Option<bool> {
    let accept = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    if accept.is_empty() || accept.contains("*/*") {
        return Some(true);
    }
    if accept.contains("text/event-stream") {
        Some(true)
    } else if accept.contains("application/json") || accept.contains("application/*") {
        Some(false)
    } else {
        None
    }
}

fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The channel a message goes to, and the session id to announce when
/// its `initialize` began one.
enum Target {
    Channel(Arc<Channel>, Option<String>),
    Refuse(Response<Out>),
}

fn target(state: &State, headers: &HeaderMap, message: &Message) -> Target {
    let version = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok());
    let stateless = version.is_some_and(message::is_stateless);
    if let Some(id) = session_of(headers) {
        if let Some(channel) = state.session(&id) {
            return Target::Channel(channel, None);
        }
        if !stateless {
            return Target::Refuse(error(
                StatusCode::NOT_FOUND,
                None,
                Bad(INVALID_REQUEST, format!("no session {id:?}: it ended, or was never begun here; send initialize again")),
            ));
        }
        // 2026-07-28: a session id is ignored.
    }
    if stateless {
        return match state.shared() {
            Ok(channel) => Target::Channel(channel, None),
            Err(why) => Target::Refuse(error(StatusCode::BAD_GATEWAY, None, Bad(-32603, why))),
        };
    }
    if message.method() == Some("initialize") {
        return match state.begin() {
            Ok((id, channel)) => Target::Channel(channel, Some(id)),
            Err((status, why)) => Target::Refuse(error(status, None, Bad(-32603, why))),
        };
    }
    Target::Refuse(error(
        StatusCode::BAD_REQUEST,
        None,
        Bad(
            INVALID_REQUEST,
            format!("no Mcp-Session-Id: begin a session with initialize, or send MCP-Protocol-Version: {} (or later) to use the stateless revision", message::STATELESS),
        ),
    ))
}

async fn post(state: &Arc<State>, request: Request<Incoming>) -> Response<Out> {
    let Some(stream) = takes_stream(request.headers()) else {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list application/json and text/event-stream\n".into(),
        );
    };
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if !json {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the body must be Content-Type: application/json\n".into(),
        );
    }
    // Room for the body among those held, by its declared length (or
    // the largest there may be), until it is written to the server.
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_MESSAGE as u64) {
        // Refused before a byte of it is held; read to its end, kept
        // nowhere, so the client sees the answer, not a broken pipe.
        crate::http::drain(request.into_body()).await;
        return too_large();
    }
    let declared = declared.map_or(MAX_MESSAGE, |n| n as usize);
    let kib = u32::try_from((declared >> 10) + 1).unwrap_or(u32::MAX);
    let Ok(room) = Arc::clone(&state.bodies).acquire_many_owned(kib).await else {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "stopping\n".into());
    };
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_MESSAGE).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => return too_large(),
        Err(e) => return plain(StatusCode::BAD_REQUEST, format!("reading the body: {e}\n")),
    };
    let message = match Message::read(&body) {
        Ok(message) => message,
        Err(bad) => return error(StatusCode::BAD_REQUEST, None, bad.into()),
    };
    let (channel, begun) = match target(state, &parts.headers, &message) {
        Target::Channel(channel, begun) => (channel, begun),
        Target::Refuse(response) => return response,
    };
    if channel.kind() == ChannelKind::Shared {
        if let Err(bad) =
            message.check_headers(|name| parts.headers.get(name).map(|v| v.as_bytes()))
        {
            return error(StatusCode::BAD_REQUEST, raw_id(&message), bad.into());
        }
    }
    // A line of stdio holds no line break: those between JSON's tokens
    // (the only place one can be) become spaces, which JSON reads alike.
    let mut line = Vec::with_capacity(body.len() + 1);
    line.extend(
        body.iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
    );
    line.push(b'\n');
    drop(body);
    let Kind::Request { id, raw_id } = message.kind() else {
        return if blocking(|| channel.send(&line)) {
            empty(StatusCode::ACCEPTED)
        } else {
            gone(&channel, None)
        };
    };
    let lines = match channel
        .router
        .wait_for(id.clone(), message.progress_token().cloned(), stream)
    {
        Ok(lines) => lines,
        Err(refused) => {
            let (status, why) = match refused {
                Refused::InFlight => (
                    StatusCode::CONFLICT,
                    format!(
                        "a request of id {raw_id} awaits its response: ids in flight must differ"
                    ),
                ),
                Refused::TokenInUse => (
                    StatusCode::CONFLICT,
                    "its progressToken is another request's in flight".to_owned(),
                ),
                Refused::Ended => return gone(&channel, Some(raw_id.clone())),
            };
            return error(status, Some(raw_id.clone()), Bad(INVALID_REQUEST, why));
        }
    };
    let guard = Guard {
        channel: channel.clone(),
        id: id.clone(),
        raw_id: raw_id.clone(),
    };
    if !blocking(|| channel.send(&line)) {
        drop(guard);
        return gone(&channel, Some(raw_id.clone()));
    }
    // Written: its room is free while the answer is awaited.
    drop((room, line));
    // The response is JSON when it is the server's first line about the
    // request (a client may bound an SSE event's size: the SDK's is 1 MiB,
    // less than one screenshot), an SSE stream when a notification comes
    // first.
    let mut lines = lines;
    let mut response = match lines.recv().await {
        Some(Line { bytes, last: true }) => {
            drop(guard);
            let mut response = Response::new(Either::Left(Full::new(bytes)));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
        Some(first) => sse(Stream {
            lines,
            queued: vec![
                Bytes::from_static(b"\n\n"),
                first.bytes,
                Bytes::from_static(EVENT),
            ],
            _guard: Some(guard),
        }),
        None => {
            drop(guard);
            return gone(&channel, Some(raw_id.clone()));
        }
    };
    if let Some(id) = begun {
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION, value);
        }
    }
    response
}

/// The raw id of a request, for an error answering it.
fn raw_id(message: &Message) -> Option<String> {
    match message.kind() {
        Kind::Request { raw_id, .. } => Some(raw_id.clone()),
        _ => None,
    }
}

/// The server's input is closed or its output ended: its session (or the
/// shared server) is over.
fn gone(channel: &Channel, id: Option<String>) -> Response<Out> {
    channel.reap();
    error(
        StatusCode::BAD_GATEWAY,
        id,
        Bad(-32603, "the MCP server ended before answering".into()),
    )
}

fn get(state: &State, request: &Request<Incoming>) -> Response<Out> {
    let Some(id) = session_of(request.headers()) else {
        return not_allowed(
            "POST",
            "a stream of the server's own messages is a session's: GET with its Mcp-Session-Id",
        );
    };
    let Some(channel) = state.session(&id) else {
        return error(
            StatusCode::NOT_FOUND,
            None,
            Bad(INVALID_REQUEST, format!("no session {id:?}")),
        );
    };
    if takes_stream(request.headers()) != Some(true) {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list text/event-stream\n".into(),
        );
    }
    match channel.router.listen() {
        Ok(lines) => sse(Stream {
            lines,
            queued: Vec::new(),
            _guard: None,
        }),
        Err(Busy::Open) => plain(
            StatusCode::CONFLICT,
            "the session's stream is open already\n".into(),
        ),
        Err(Busy::Ended) => gone(&channel, None),
    }
}

async fn delete(state: &State, request: &Request<Incoming>) -> Response<Out> {
    let Some(id) = session_of(request.headers()) else {
        return not_allowed("POST", "DELETE ends a session: send its Mcp-Session-Id");
    };
    match state.end(&id) {
        Some(channel) => {
            let _ = tokio::task::spawn_blocking(move || channel.stop(super::STOP_GRACE)).await;
            empty(StatusCode::NO_CONTENT)
        }
        None => error(
            StatusCode::NOT_FOUND,
            None,
            Bad(INVALID_REQUEST, format!("no session {id:?}")),
        ),
    }
}

/// Run a write to a server's pipe, which may block, off the runtime's
/// event loop.
fn blocking<T>(write: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(write)
}

/// A request's response stream closing before its response came.
struct Guard {
    channel: Arc<Channel>,
    id: Key,
    raw_id: String,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let (channel, id, raw) = (&self.channel, &self.id, &self.raw_id);
        blocking(|| channel.abandoned(id, raw));
    }
}

/// What starts each event: its type and the field its data is in.
const EVENT: &[u8] = b"event: message\ndata: ";

/// An SSE response: each of the server's lines as one `message` event.
pub struct Stream {
    lines: mpsc::Receiver<Line>,
    queued: Vec<Bytes>,
    _guard: Option<Guard>,
}

impl Body for Stream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if let Some(next) = this.queued.pop() {
            return Poll::Ready(Some(Ok(Frame::data(next))));
        }
        match this.lines.poll_recv(cx) {
            Poll::Ready(Some(Line { bytes: line, .. })) => {
                // Sent as it came, between its field name and the blank
                // line ending the event (popped from the end).
                this.queued.push(Bytes::from_static(b"\n\n"));
                this.queued.push(line);
                Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(EVENT)))))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

fn sse(stream: Stream) -> Response<Out> {
    let mut response = Response::new(Either::Right(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// 413: a message over [`MAX_MESSAGE`].
fn too_large() -> Response<Out> {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        Bad(
            INVALID_REQUEST,
            format!("a message over {} MiB is not taken", MAX_MESSAGE >> 20),
        ),
    )
}

/// 405, saying `why` and which methods are `allowed`.
fn not_allowed(allowed: &'static str, why: &str) -> Response<Out> {
    let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, format!("{why}\n"));
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allowed));
    response
}

fn empty(status: StatusCode) -> Response<Out> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::new())));
    *response.status_mut() = status;
    response
}

fn plain(status: StatusCode, text: String) -> Response<Out> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(text))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A JSON-RPC error answering request `id` (or none) with `status`.
fn error(status: StatusCode, id: Option<String>, Bad(code, why): Bad) -> Response<Out> {
    let message = serde_json::to_string(&why).expect("a string");
    let id = id.as_deref().unwrap_or("null");
    let body =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#);
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(body))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
