//! Any bytes as a message POSTed to a Streamable HTTP server, with any
//! header values, and as a line of a server's: never a panic; a request
//! read has an id that is the JSON written for it; a request whose
//! headers pass names the method they mirror; where a line is addressed
//! is what its members say.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_carrier::mcp::http::{addressed, Addressed, Posted, PostedKind, HEADER_MISMATCH};
use tool_carrier::mcp::RequestId;

fn as_json(id: &RequestId) -> Value {
    match id {
        RequestId::String(s) => Value::String(s.clone()),
        RequestId::Number(n) => serde_json::from_str(n).expect("a number as written"),
    }
}

fuzz_target!(|input: (&[u8], [&[u8]; 3])| {
    let (body, values) = input;
    if let Ok(posted) = Posted::read(body) {
        let value: Value = serde_json::from_slice(body).expect("read, so JSON");
        if let PostedKind::Request { id, raw_id } = posted.kind() {
            let raw: Value = serde_json::from_str(raw_id).unwrap();
            assert_eq!(raw, value["id"]);
            assert_eq!(as_json(id), raw);
        }
        let names = ["mcp-protocol-version", "mcp-method", "mcp-name"];
        let get = |name: &str| names.iter().position(|n| *n == name).map(|i| values[i]);
        match posted.check_headers(get) {
            Ok(()) => {
                if matches!(posted.kind(), PostedKind::Request { .. }) {
                    assert_eq!(Some(values[1]), posted.method().map(str::as_bytes));
                }
            }
            Err(e) => assert_eq!(e.code(), HEADER_MISMATCH),
        }
    }
    let value: Option<Value> = serde_json::from_slice(body).ok();
    match addressed(body) {
        Addressed::Response(id) => {
            let v = value.expect("addressed, so JSON");
            assert!(v.get("method").is_none());
            assert_eq!(as_json(&id), v["id"]);
        }
        Addressed::Progress(token) => {
            let v = value.expect("addressed, so JSON");
            assert_eq!(as_json(&token), v["params"]["progressToken"]);
        }
        Addressed::Subscription(id) => {
            let v = value.expect("addressed, so JSON");
            assert_eq!(
                as_json(&id),
                v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
            );
        }
        _ => {}
    }
});
