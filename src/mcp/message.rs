//! One JSON-RPC message (a line of the stdio transport) and the results
//! in it: [`fit_message`], and [`Method`], the requests whose results carry
//! content for the model.
//!
//! A message is one JSON object, or (in revisions up to 2025-03-26) a batch:
//! an array of them. A response is an object with an `id` and a `result`
//! or an `error` and no `method`; only responses have results to prepare.
//! Anything else (requests, notifications, text that is no JSON) is left
//! as it is.

use std::ops::Range;

use crate::json::scan::{self, Pick};

use super::calls::RequestId;
use super::options::FitOptions;
use super::plan::{find_in_result, Found, Plan};
use super::rewrite::Rewrite;

/// The requests whose results hold content a model reads, by the result
/// shape the proxy looks in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `tools/call`: a `CallToolResult`, its `content` blocks.
    ToolsCall,
    /// `resources/read`: a `ReadResourceResult`, its `contents`.
    ResourcesRead,
    /// `tasks/result` (2025-11-25): the `CallToolResult` of a tool call
    /// run as a task, the only request a server runs as a task.
    TasksResult,
}

impl Method {
    /// Every method, in the order of [`Method::name`]'s names.
    pub const ALL: [Method; 3] = [
        Method::ToolsCall,
        Method::ResourcesRead,
        Method::TasksResult,
    ];

    /// The JSON-RPC method name: `tools/call`, `resources/read`,
    /// `tasks/result`.
    pub fn name(self) -> &'static str {
        match self {
            Method::ToolsCall => "tools/call",
            Method::ResourcesRead => "resources/read",
            Method::TasksResult => "tasks/result",
        }
    }

    /// The method named `name`, if its results are prepared.
    ///
    /// ```
    /// use tool_carrier::mcp::Method;
    /// assert_eq!(Method::from_name("tools/call"), Some(Method::ToolsCall));
    /// assert_eq!(Method::from_name("prompts/get"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Prepare the images of `message`, one JSON-RPC message (a line of the
/// stdio transport, its line feed included or not) known to answer a
/// request of `method`, for `options`' model. In a batch every response is
/// taken to answer `method`.
///
/// A message that is no response, a response with an `error`, a result
/// without images and text that is no JSON come back unchanged:
/// [`Rewrite::text`] borrows `message`, byte for byte.
///
/// ```
/// use tool_carrier::facts::Facts;
/// use tool_carrier::mcp::{fit_message, FitOptions, Method};
/// use tool_carrier::provider::Provider;
///
/// let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, None);
/// let pong = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
/// assert_eq!(fit_message(pong, Method::ToolsCall, &options).text(), pong);
/// let gif = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";
/// let shot = format!(r#"{{"jsonrpc":"2.0","id":8,"result":{{"content":[{{"type":"image","data":"{gif}","mimeType":"image/png"}}]}}}}"#);
/// let fitted = fit_message(&shot, Method::ToolsCall, &options);
/// // A 1×1 GIF fits as it is; its type is corrected.
/// assert_eq!(fitted.text(), shot.replace("image/png", "image/gif"));
/// assert_eq!(fitted.images()[0].to_string(), "id 8 content[0]: 1×1 GIF, 35 bytes kept, mimeType \"image/png\" corrected");
/// ```
pub fn fit_message<'a>(message: &'a str, method: Method, options: &FitOptions) -> Rewrite<'a> {
    plan_message(message, &mut |_| Some(method)).prepare(message, options)
}

/// The images of the responses in `message` whose request `answers`
/// names (it is asked once for every response, results and errors alike).
pub(crate) fn plan_message(
    message: &str,
    answers: &mut dyn FnMut(&RequestId) -> Option<Method>,
) -> Plan {
    let mut found = Vec::new();
    let read = for_each_message(message, &mut |span, at| {
        plan_one(message, span, at, answers, &mut found)
    });
    Plan::new(message.len(), found, read)
}

/// Call `f` with the span of each object of `message` (the message, or
/// each element of a batch) and the prefix of its paths (`""`, `"[2]."`);
/// `f` says whether the span is a JSON object. Whether `message` is one
/// JSON object or one JSON array (a batch), white space around it
/// allowed.
pub(crate) fn for_each_message(
    message: &str,
    f: &mut dyn FnMut(Range<usize>, &str) -> bool,
) -> bool {
    let start = message.len() - message.trim_start().len();
    match message.as_bytes().get(start) {
        Some(b'{') => f(0..message.len(), ""),
        Some(b'[') => {
            let Some(items) = scan::array(message) else {
                return false;
            };
            for (i, item) in items.into_iter().enumerate() {
                f(item, &format!("[{i}]."));
            }
            true
        }
        _ => false,
    }
}

/// The images of the one response at `span`; whether it is a JSON
/// object.
fn plan_one(
    message: &str,
    span: Range<usize>,
    at: &str,
    answers: &mut dyn FnMut(&RequestId) -> Option<Method>,
    found: &mut Vec<Found>,
) -> bool {
    let text = &message[span.clone()];
    let Some(picked) = scan::pick(text, ["id", "method", "result", "error"]) else {
        return false;
    };
    let [id, method, result, error] = picked.picks;
    let (Pick::One(id), Pick::Absent) = (id, method) else {
        return true;
    };
    let Some(request) = RequestId::read(&text[id.value.clone()], id.decoded.as_deref()) else {
        return true;
    };
    let Some(answered) = answers(&request) else {
        return true;
    };
    if let (Pick::One(result), Pick::Absent) = (result, error) {
        let result = span.start + result.value.start..span.start + result.value.end;
        let id = &text[id.value];
        find_in_result(message, result, answered, Some(id), at, found);
    }
    true
}
