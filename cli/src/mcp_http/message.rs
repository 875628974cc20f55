//! The host's message, as much of it as the transport needs: what kind
//! it is, its id, the fields the 2026-07-28 headers mirror; and the
//! checks of those headers
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata>,
//! read 2026-12-05).

use base64::Engine as _;
use hyper::header::HeaderMap;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::route::Key;

/// The first revision whose requests carry their metadata in themselves
/// (no `initialize`, no sessions).
pub const STATELESS: &str = "2026-07-28";

/// What a POST's body is.
#[derive(Debug)]
pub enum Kind {
    Request { id: Key, raw_id: String },
    Notification,
    Response,
}

/// One JSON-RPC message from the host, read.
#[derive(Debug)]
pub struct Message {
    pub kind: Kind,
    pub method: Option<String>,
    /// `params.name` (`tools/call`, `prompts/get`) or `params.uri`
    /// (`resources/read`), when a string.
    pub name: Option<String>,
    pub token: Option<Key>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    pub version: Option<String>,
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
    meta: Option<Meta<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, default, rename = "progressToken")]
    token: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<String>(raw?.get()).ok()
}

/// A JSON-RPC error: its code and message.
#[derive(Debug, PartialEq, Eq)]
pub struct Bad(pub i32, pub String);

pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;
pub const HEADER_MISMATCH: i32 = -32020;

impl Message {
    /// Read `body`: one JSON-RPC message, an object.
    pub fn read(body: &[u8]) -> Result<Message, Bad> {
        match body.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => {}
            Some(b'[') => {
                return Err(Bad(
                    INVALID_REQUEST,
                    "a batch (JSON array) is not taken over HTTP: send each message in a POST of its own (batches were removed in 2025-06-18)".into(),
                ))
            }
            _ => return Err(Bad(PARSE_ERROR, "the body is not a JSON object".into())),
        }
        let wire: Wire<'_> = serde_json::from_slice(body).map_err(|e| {
            Bad(
                PARSE_ERROR,
                format!("the body is not one JSON-RPC message: {e}"),
            )
        })?;
        let params = wire
            .params
            .and_then(|p| serde_json::from_str::<Params<'_>>(p.get()).ok());
        let (name, token, version) = match params {
            Some(p) => {
                let name = match wire.method.as_deref() {
                    Some("resources/read") => string(p.uri),
                    _ => string(p.name),
                };
                let meta = p.meta;
                (
                    name,
                    meta.as_ref().and_then(|m| m.token).and_then(Key::read),
                    string(meta.as_ref().and_then(|m| m.version)),
                )
            }
            None => (None, None, None),
        };
        let kind = match (&wire.method, wire.id) {
            (Some(_), Some(raw)) => match Key::read(raw) {
                Some(id) => Kind::Request {
                    id,
                    raw_id: raw.get().to_owned(),
                },
                None => {
                    return Err(Bad(
                        INVALID_REQUEST,
                        "a request's id must be a string or a number".into(),
                    ))
                }
            },
            (Some(_), None) => Kind::Notification,
            (None, Some(_)) if wire.result.is_some() || wire.error.is_some() => Kind::Response,
            _ => {
                return Err(Bad(
                    INVALID_REQUEST,
                    "not a JSON-RPC request, notification or response".into(),
                ))
            }
        };
        Ok(Message {
            kind,
            method: wire.method,
            name,
            token,
            version,
        })
    }

    /// Check the headers a 2026-07-28 request mirrors its body in: the
    /// protocol version, `Mcp-Method`, and `Mcp-Name` for the methods
    /// that name something (after the `=?base64?…?=` sentinel is
    /// decoded). `Mcp-Param-*` headers are not checked: that needs the
    /// tool's `inputSchema`, which only the server has.
    pub fn check_headers(&self, headers: &HeaderMap) -> Result<(), Bad> {
        let Kind::Request { .. } = self.kind else {
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

fn mismatch(why: String) -> Bad {
    Bad(HEADER_MISMATCH, format!("Header mismatch: {why}"))
}

/// A header's value, if present; one of invalid characters is a mismatch.
fn header(headers: &HeaderMap, name: &str) -> Result<Option<String>, Bad> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v.to_str().map(|s| Some(s.to_owned())).map_err(|_| {
            mismatch(format!(
                "the {name} header holds characters a header cannot"
            ))
        }),
    }
}

/// A header value as the client meant it: `=?base64?…?=` decoded.
fn decoded(value: &str) -> Result<String, Bad> {
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

/// Whether a protocol version (YYYY-MM-DD) is 2026-07-28 or later.
pub fn stateless(version: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;

    #[test]
    fn a_request_is_read_with_what_its_headers_mirror() {
        let m = Message::read(CALL.as_bytes()).unwrap();
        assert!(
            matches!(&m.kind, Kind::Request { id: Key::Num(n), raw_id } if n == "1" && raw_id == "1")
        );
        assert_eq!(m.method.as_deref(), Some("tools/call"));
        assert_eq!(m.name.as_deref(), Some("get_weather"));
        assert_eq!(m.token, Some(Key::Str("p".into())));
        assert_eq!(m.version.as_deref(), Some("2026-07-28"));
        let read = Message::read(
            br#"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"file:///a"}}"#,
        )
        .unwrap();
        assert_eq!(read.name.as_deref(), Some("file:///a"));
    }

    #[test]
    fn kinds_and_what_is_no_message() {
        assert!(matches!(
            Message::read(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .unwrap()
                .kind,
            Kind::Notification
        ));
        assert!(matches!(
            Message::read(br#"{"jsonrpc":"2.0","id":0,"result":{}}"#)
                .unwrap()
                .kind,
            Kind::Response
        ));
        assert_eq!(Message::read(b"[{}]").unwrap_err().0, INVALID_REQUEST);
        assert_eq!(Message::read(b"nope").unwrap_err().0, PARSE_ERROR);
        assert_eq!(Message::read(b"{\"id\":").unwrap_err().0, PARSE_ERROR);
        assert_eq!(
            Message::read(br#"{"id":1}"#).unwrap_err().0,
            INVALID_REQUEST
        );
        assert_eq!(
            Message::read(br#"{"id":null,"method":"x"}"#).unwrap_err().0,
            INVALID_REQUEST
        );
    }

    #[test]
    fn the_mirrored_headers_must_match_the_body() {
        let m = Message::read(CALL.as_bytes()).unwrap();
        let good = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_weather"),
        ];
        assert_eq!(m.check_headers(&headers(&good)), Ok(()));
        let encoded = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?Z2V0X3dlYXRoZXI=?="),
        ];
        assert_eq!(m.check_headers(&headers(&encoded)), Ok(()));
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
            let err = m.check_headers(&headers(bad)).unwrap_err();
            assert_eq!(err.0, HEADER_MISMATCH, "{bad:?}");
        }
        let note = Message::read(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#).unwrap();
        assert_eq!(note.check_headers(&HeaderMap::new()), Ok(()));
    }

    #[test]
    fn stateless_versions_are_dates_from_2026_07_28() {
        assert!(stateless("2026-07-28") && stateless("2027-01-01"));
        assert!(!stateless("2025-11-25") && !stateless("2026-7-28x") && !stateless("DRAFT-2026"));
    }
}
