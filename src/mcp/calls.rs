//! Which responses answer which requests: [`Calls`].
//!
//! A response carries only the id of the request it answers. So the
//! requests the host sends whose results hold content ([`Method`]) are
//! remembered by id until their response comes back (or the host cancels
//! them with `notifications/cancelled`, after which the server sends
//! nothing more for them). Ids are those of the host's requests only: the
//! server's own requests (`sampling/createMessage`, …) number from their
//! own counter and their responses travel the other way.

use std::collections::HashMap;

use crate::json::scan::{self, Pick};

use super::message::{for_each_message, plan_message, Method};
use super::plan::Plan;

/// A JSON-RPC request id: a string or a number (kept as written; `1` and
/// `1.0` are different ids here, as they are to most SDKs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// A string id, decoded.
    String(String),
    /// A number id, as written.
    Number(String),
}

impl RequestId {
    /// The id written as `raw` (its decoded string when it is one); `None`
    /// for `null` and anything else that cannot be an id.
    pub(crate) fn read(raw: &str, decoded: Option<&str>) -> Option<RequestId> {
        match raw.as_bytes().first()? {
            b'"' => decoded.map(|s| RequestId::String(s.to_owned())),
            b'-' | b'0'..=b'9' => Some(RequestId::Number(raw.to_owned())),
            _ => None,
        }
    }
}

/// The host's requests awaiting a response, by id: what tells a proxy
/// which of the server's responses to prepare.
///
/// ```
/// use tool_carrier::mcp::Calls;
///
/// let mut calls = Calls::new();
/// calls.from_host(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot"}}"#);
/// calls.from_host(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
/// assert_eq!(calls.pending(), 1);
/// let gif = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";
/// let result = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"image","data":"{gif}","mimeType":"image/gif"}}]}}}}"#);
/// // The same image in a response to another request is not looked at.
/// assert!(calls.from_server(&result.replace("\"id\":1", "\"id\":2")).is_empty());
/// assert_eq!(calls.from_server(&result).len(), 1);
/// assert_eq!(calls.pending(), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Calls {
    pending: HashMap<RequestId, Method>,
}

impl Calls {
    /// No request pending.
    pub fn new() -> Calls {
        Calls::default()
    }

    /// Note a message the host sends to the server: a request of a
    /// [`Method`] is remembered by id, a `notifications/cancelled` forgets
    /// the request it names. Anything else is not looked at. Whether the
    /// message is one (a JSON object or batch, as [`Plan::is_message`]).
    pub fn from_host(&mut self, message: &str) -> bool {
        for_each_message(message, &mut |span, _| {
            let text = &message[span];
            let Some(picked) = scan::pick(text, ["id", "method", "params"]) else {
                return false;
            };
            let [id, method, params] = picked.picks;
            let Pick::One(method) = method else {
                return true;
            };
            match (method.decoded.as_deref(), id) {
                (Some("notifications/cancelled"), Pick::Absent) => {
                    if let Pick::One(params) = params {
                        self.cancelled(&text[params.value]);
                    }
                }
                (Some(name), Pick::One(id)) => {
                    let request = RequestId::read(&text[id.value.clone()], id.decoded.as_deref());
                    if let (Some(m), Some(request)) = (Method::from_name(name), request) {
                        self.pending.insert(request, m);
                    }
                }
                _ => {}
            }
            true
        })
    }

    /// Forget the request a `notifications/cancelled`'s `params` name.
    fn cancelled(&mut self, params: &str) {
        let Some(picked) = scan::pick(params, ["requestId"]) else {
            return;
        };
        if let [Pick::One(id)] = picked.picks {
            if let Some(request) = RequestId::read(&params[id.value], id.decoded.as_deref()) {
                self.pending.remove(&request);
            }
        }
    }

    /// Plan a message the server sends to the host: the images of each
    /// response answering a remembered request (whose id is then
    /// forgotten). Empty for everything else; [`Plan::is_message`] says
    /// whether it was a JSON-RPC message at all.
    pub fn from_server(&mut self, message: &str) -> Plan {
        plan_message(message, &mut |id| self.pending.remove(id))
    }

    /// How many requests await their response.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}
