//! What a Streamable HTTP server reads of the messages it relays, without
//! the transport (MCP 2025-11-25 and 2026-07-28,
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>,
//! read 2026-12-05): a host's POSTed message ([`Posted`]: its kind, its id,
//! the fields the 2026-07-28 headers mirror, and the check of those
//! headers), and where a server's line is addressed ([`addressed`]: the
//! request a response answers, a progress notification's token, a
//! subscription's id). `tool-carrier mcp-proxy --http` is built on it.
//!
//! ```
//! use tool_carrier::mcp::http::{addressed, Addressed, Posted, PostedKind};
//! use tool_carrier::mcp::RequestId;
//!
//! let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot"}}"#;
//! let posted = Posted::read(body)?;
//! assert!(matches!(posted.kind(), PostedKind::Request { raw_id, .. } if raw_id == "1"));
//! let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "shot")];
//! let header = |name: &str| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_bytes());
//! assert!(posted.check_headers(header).is_ok());
//! let answer = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
//! assert_eq!(addressed(answer), Addressed::Response(RequestId::Number("1".into())));
//! # Ok::<(), tool_carrier::mcp::http::HttpError>(())
//! ```

use base64::Engine as _;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::calls::RequestId;
use crate::json::scan::{self, Member, Pick, Picked};

/// An id or token written as `raw`; `None` for `null` and what is none.
fn key(raw: &RawValue) -> Option<RequestId> {
    let text = raw.get();
    let decoded = text
        .starts_with('"')
        .then(|| serde_json::from_str::<String>(text).ok())
        .flatten();
    RequestId::read(text, decoded.as_deref())
}

/// The first revision whose requests carry their metadata in themselves
/// (no `initialize`, no sessions).
pub const STATELESS: &str = "2026-07-28";

/// What a POSTed message is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PostedKind {
    /// A request.
    Request {
        /// Its id.
        id: RequestId,
        /// The id as written, for an answer to carry.
        raw_id: String,
    },
    /// A notification: nothing answers it.
    Notification,
    /// A response to one of the server's requests.
    Response,
}

/// One JSON-RPC message a host POSTed, read as far as a transport needs.
#[derive(Clone, Debug)]
pub struct Posted {
    kind: PostedKind,
    method: Option<String>,
    name: Option<String>,
    token: Option<RequestId>,
    version: Option<String>,
}

#[derive(Deserialize)]
struct Wire<'a> {
    /// Present, even as `null` (which `Option` alone would read as
    /// absent: a request with a `null` id is no notification).
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, default, rename = "progressToken")]
    token: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<&'a RawValue>,
}

/// `text` read as `T` when it is a JSON object: serde would read a struct
/// from an array too, its members by position (`[0]` a response of id 0).
fn object<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<String>(raw?.get()).ok()
}

/// Why a POSTed message is refused: a JSON-RPC error, its code and
/// message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({code})")]
pub struct HttpError {
    code: i32,
    message: String,
}

impl HttpError {
    fn new(code: i32, message: impl Into<String>) -> HttpError {
        HttpError {
            code,
            message: message.into(),
        }
    }

    /// The JSON-RPC error code: [`PARSE_ERROR`], [`INVALID_REQUEST`] or
    /// [`HEADER_MISMATCH`].
    pub fn code(&self) -> i32 {
        self.code
    }

    /// What is wrong, for the error's `message`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The body is no JSON.
pub const PARSE_ERROR: i32 = -32700;
/// The body is JSON but no single JSON-RPC message.
pub const INVALID_REQUEST: i32 = -32600;
/// A mirrored header is missing, malformed or differs from the body
/// (2026-07-28).
pub const HEADER_MISMATCH: i32 = -32020;

impl Posted {
    /// Read `body`: one JSON-RPC message, an object.
    ///
    /// # Errors
    /// [`HttpError`]: not JSON, a batch, or no request, notification or
    /// response.
    pub fn read(body: &[u8]) -> Result<Posted, HttpError> {
        match body.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => {}
            Some(b'[') => {
                return Err(HttpError::new(
                    INVALID_REQUEST,
                    "a batch (JSON array) is not taken over HTTP: send each message in a POST of its own (batches were removed in 2025-06-18)",
                ))
            }
            _ => return Err(HttpError::new(PARSE_ERROR, "the body is not a JSON object")),
        }
        let wire: Wire<'_> = serde_json::from_slice(body).map_err(|e| {
            HttpError::new(
                PARSE_ERROR,
                format!("the body is not one JSON-RPC message: {e}"),
            )
        })?;
        let params = wire.params.and_then(|p| object::<Params<'_>>(p.get()));
        let (name, token, version) = match params {
            Some(p) => {
                let name = match wire.method.as_deref() {
                    Some("resources/read") => string(p.uri),
                    _ => string(p.name),
                };
                let meta = p.meta.and_then(|m| object::<Meta<'_>>(m.get()));
                (
                    name,
                    meta.as_ref().and_then(|m| m.token).and_then(key),
                    string(meta.as_ref().and_then(|m| m.version)),
                )
            }
            None => (None, None, None),
        };
        let kind = match (&wire.method, wire.id) {
            (Some(_), Some(raw)) => match key(raw) {
                Some(id) => PostedKind::Request {
                    id,
                    raw_id: raw.get().to_owned(),
                },
                None => {
                    return Err(HttpError::new(
                        INVALID_REQUEST,
                        "a request's id must be a string or a number",
                    ))
                }
            },
            (Some(_), None) => PostedKind::Notification,
            (None, Some(_)) if wire.result.is_some() || wire.error.is_some() => {
                PostedKind::Response
            }
            _ => {
                return Err(HttpError::new(
                    INVALID_REQUEST,
                    "not a JSON-RPC request, notification or response",
                ))
            }
        };
        Ok(Posted {
            kind,
            method: wire.method,
            name,
            token,
            version,
        })
    }

    /// A request, a notification or a response.
    pub fn kind(&self) -> &PostedKind {
        &self.kind
    }

    /// Its `method`, unless a response.
    pub fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }

    /// What `Mcp-Name` mirrors: `params.name` (`tools/call`,
    /// `prompts/get`) or `params.uri` (`resources/read`), when a string.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Its `params._meta.progressToken`.
    pub fn progress_token(&self) -> Option<&RequestId> {
        self.token.as_ref()
    }

    /// Its `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    pub fn protocol_version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// Check the headers a 2026-07-28 request mirrors its body in (`header`
    /// gives a header's value by its lower-case name): the protocol
    /// version, `Mcp-Method`, and `Mcp-Name` for the methods that name
    /// something (after the `=?base64?…?=` sentinel is decoded).
    /// `Mcp-Param-*` headers are not checked: that needs the tool's
    /// `inputSchema`, which only the server has. A notification carries
    /// none the revision requires.
    ///
    /// # Errors
    /// [`HttpError`] of [`HEADER_MISMATCH`], saying which.
    pub fn check_headers<'h>(
        &self,
        get: impl Fn(&str) -> Option<&'h [u8]>,
    ) -> Result<(), HttpError> {
        let headers = &get;
        let PostedKind::Request { .. } = self.kind else {
            // The revision defines no header a notification must carry.
            return Ok(());
        };
        let version = header(headers, "mcp-protocol-version")?;
        if let (Some(header), Some(body)) = (&version, &self.version) {
            if header != body {
                return Err(mismatch(format!(
                    "MCP-Protocol-Version {header:?} does not match the body's protocolVersion {body:?}"
                )));
            }
        }
        let method = self.method.as_deref().unwrap_or_default();
        match header(headers, "mcp-method")? {
            None => return Err(mismatch("the Mcp-Method header is missing".into())),
            Some(m) if m != method => {
                return Err(mismatch(format!(
                    "Mcp-Method {m:?} does not match the body's method {method:?}"
                )))
            }
            Some(_) => {}
        }
        if matches!(method, "tools/call" | "resources/read" | "prompts/get") {
            let Some(name) = header(headers, "mcp-name")? else {
                return Err(mismatch(format!(
                    "the Mcp-Name header is missing (required for {method})"
                )));
            };
            let name = decoded(&name)?;
            if self.name.as_deref() != Some(name.as_str()) {
                return Err(mismatch(format!(
                    "Mcp-Name {name:?} does not match the body's {:?}",
                    self.name.as_deref().unwrap_or("(none)")
                )));
            }
        }
        Ok(())
    }
}

fn mismatch(why: String) -> HttpError {
    HttpError::new(HEADER_MISMATCH, format!("Header mismatch: {why}"))
}

/// A header's value, if present; one of characters a field value cannot
/// hold (RFC 9110: visible ASCII, space, tab) is a mismatch.
fn header<'h>(
    get: &impl Fn(&str) -> Option<&'h [u8]>,
    name: &str,
) -> Result<Option<String>, HttpError> {
    let Some(value) = get(name) else {
        return Ok(None);
    };
    let valid = value
        .iter()
        .all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b));
    match std::str::from_utf8(value) {
        Ok(text) if valid => Ok(Some(text.to_owned())),
        _ => Err(mismatch(format!(
            "the {name} header holds characters a header cannot"
        ))),
    }
}

/// A header value as the client meant it: `=?base64?…?=` decoded.
fn decoded(value: &str) -> Result<String, HttpError> {
    let Some(inner) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Ok(value.to_owned());
    };
    base64::engine::general_purpose::STANDARD
        .decode(inner)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| mismatch(format!("{value:?} is not Base64 of UTF-8 text")))
}

/// Whether a protocol version (`YYYY-MM-DD`) is [`STATELESS`] or later:
/// its requests carry their metadata in themselves.
pub fn is_stateless(version: &str) -> bool {
    let date = version.len() == 10
        && version.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    date && version >= STATELESS
}

/// Where one of the server's lines is addressed, as far as it says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Addressed {
    /// A response to the request of this id.
    Response(RequestId),
    /// A notification carrying this `progressToken`
    /// (`notifications/progress`).
    Progress(RequestId),
    /// A notification of the `subscriptions/listen` request of this id
    /// (`_meta["io.modelcontextprotocol/subscriptionId"]`, 2026-07-28).
    Subscription(RequestId),
    /// Anything else: the server's own requests, other notifications, a
    /// line that is no message.
    Other,
}

/// Where the server's `line` (one JSON-RPC message) is addressed. Read
/// with the scanner that plans the same line's images, no second parser.
pub fn addressed(line: &[u8]) -> Addressed {
    let Ok(text) = std::str::from_utf8(line) else {
        return Addressed::Other;
    };
    let id_in = |src: &str, m: Member<'_>| RequestId::read(&src[m.value], m.decoded.as_deref());
    let Some(Picked {
        picks: [id, method, params],
        ..
    }) = scan::pick(text, ["id", "method", "params"])
    else {
        return Addressed::Other;
    };
    match (method, id, params) {
        (Pick::Absent, Pick::One(id), _) => {
            id_in(text, id).map_or(Addressed::Other, Addressed::Response)
        }
        (Pick::One(_), _, Pick::One(params)) => {
            let params = &text[params.value];
            let Some(Picked {
                picks: [token, meta],
                ..
            }) = scan::pick(params, ["progressToken", "_meta"])
            else {
                return Addressed::Other;
            };
            if let Some(token) = token.one().and_then(|m| id_in(params, m)) {
                return Addressed::Progress(token);
            }
            let Some(meta) = meta.one().map(|m| &params[m.value]) else {
                return Addressed::Other;
            };
            scan::pick(meta, ["io.modelcontextprotocol/subscriptionId"])
                .and_then(|p| match p.picks {
                    [Pick::One(m)] => id_in(meta, m),
                    _ => None,
                })
                .map_or(Addressed::Other, Addressed::Subscription)
        }
        _ => Addressed::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(posted: &Posted, pairs: &[(&str, &str)]) -> Result<(), HttpError> {
        posted.check_headers(|name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.as_bytes())
        })
    }

    const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;

    #[test]
    fn a_request_is_read_with_what_its_headers_mirror() {
        let m = Posted::read(CALL.as_bytes()).unwrap();
        assert!(
            matches!(m.kind(), PostedKind::Request { id: RequestId::Number(n), raw_id } if n == "1" && raw_id == "1")
        );
        assert_eq!(m.method(), Some("tools/call"));
        assert_eq!(m.name(), Some("get_weather"));
        assert_eq!(
            m.progress_token().cloned(),
            Some(RequestId::String("p".into()))
        );
        assert_eq!(m.protocol_version(), Some("2026-07-28"));
        let read = Posted::read(
            br#"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"file:///a"}}"#,
        )
        .unwrap();
        assert_eq!(read.name(), Some("file:///a"));
    }

    #[test]
    fn kinds_and_what_is_no_message() {
        assert!(matches!(
            Posted::read(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .unwrap()
                .kind(),
            PostedKind::Notification
        ));
        assert!(matches!(
            Posted::read(br#"{"jsonrpc":"2.0","id":0,"result":{}}"#)
                .unwrap()
                .kind(),
            PostedKind::Response
        ));
        assert_eq!(Posted::read(b"[{}]").unwrap_err().code(), INVALID_REQUEST);
        assert_eq!(Posted::read(b"nope").unwrap_err().code(), PARSE_ERROR);
        assert_eq!(Posted::read(b"{\"id\":").unwrap_err().code(), PARSE_ERROR);
        assert_eq!(
            Posted::read(br#"{"id":1}"#).unwrap_err().code(),
            INVALID_REQUEST
        );
        assert_eq!(
            Posted::read(br#"{"id":null,"method":"x"}"#)
                .unwrap_err()
                .code(),
            INVALID_REQUEST
        );
    }

    #[test]
    fn the_mirrored_headers_must_match_the_body() {
        let m = Posted::read(CALL.as_bytes()).unwrap();
        let good = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_weather"),
        ];
        assert_eq!(check(&m, &good), Ok(()));
        let encoded = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?Z2V0X3dlYXRoZXI=?="),
        ];
        assert_eq!(check(&m, &encoded), Ok(()));
        for bad in [
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-name", "get_weather"),
            ][..],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
                ("mcp-name", "get_weather"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other"),
            ],
            &[
                ("mcp-protocol-version", "2027-01-01"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "get_weather"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "=?base64?***?="),
            ],
        ] {
            let err = check(&m, bad).unwrap_err();
            assert_eq!(err.code(), HEADER_MISMATCH, "{bad:?}");
        }
        let note = Posted::read(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#).unwrap();
        assert_eq!(check(&note, &[]), Ok(()));
    }

    #[test]
    fn stateless_versions_are_dates_from_2026_07_28() {
        assert!(is_stateless("2026-07-28") && is_stateless("2027-01-01"));
        assert!(
            !is_stateless("2025-11-25")
                && !is_stateless("2026-7-28x")
                && !is_stateless("DRAFT-2026")
        );
    }

    #[test]
    fn a_line_is_addressed_by_what_its_members_say() {
        let n = |s: &str| RequestId::Number(s.into());
        assert_eq!(
            addressed(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Addressed::Response(n("3"))
        );
        assert_eq!(
            addressed(br#"{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}"#),
            Addressed::Response(RequestId::String("a".into()))
        );
        assert_eq!(
            addressed(
                br#"{"method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#
            ),
            Addressed::Progress(n("7"))
        );
        assert_eq!(
            addressed(br#"{"method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}"#),
            Addressed::Subscription(RequestId::String("s".into()))
        );
        // The server's own request is not a response to one of ours.
        assert_eq!(
            addressed(br#"{"id":0,"method":"sampling/createMessage","params":{}}"#),
            Addressed::Other
        );
        // Arrays are read as nothing, not as members by position (a fuzz
        // finding: `[0]` was a response of id 0).
        for line in [
            &b"[0]"[..],
            br#"[{"id":1,"result":{}}]"#,
            br#"{"method":"notifications/progress","params":["t"]}"#,
            br#"{"method":"x","params":{"_meta":[1]}}"#,
            b"\xff",
            b"",
        ] {
            assert_eq!(addressed(line), Addressed::Other, "{line:?}");
        }
        let posted = Posted::read(br#"{"id":1,"method":"tools/call","params":["n"]}"#).unwrap();
        assert_eq!(posted.name(), None);
    }
}
