//! Any bytes as a message from an MCP server: never a panic; a message
//! that did not change is the very text given; one that changed is JSON
//! again, each of its messages with the id it had, and written piece by
//! piece it is the same text. The host's side is fed the same bytes first,
//! so a request with their id may be pending.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_carrier::facts::Facts;
use tool_carrier::mcp::{fit_message, Calls, FitOptions, Method, Rewrite};
use tool_carrier::provider::Provider;

/// A small box keeps decoding and resizing quick.
fn options() -> &'static FitOptions {
    static OPTIONS: OnceLock<FitOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        FitOptions::new(Facts::builtin(), Provider::Anthropic, None).with_max_dim(64)
    })
}

/// The id of each message (the message, or each element of a batch).
fn ids(v: &Value) -> Vec<Option<Value>> {
    match v {
        Value::Array(items) => items.iter().map(|m| m.get("id").cloned()).collect(),
        m => vec![m.get("id").cloned()],
    }
}

fn check(text: &str, rewrite: &Rewrite<'_>) {
    let out = rewrite.text();
    let mut written = Vec::new();
    rewrite.write_to(&mut written).unwrap();
    assert_eq!(written, out.as_bytes());
    assert_eq!(rewrite.len(), out.len());
    if !rewrite.changed() {
        assert_eq!(out, text);
        assert!(rewrite.images().iter().all(|i| !i.changed()));
        return;
    }
    assert!(rewrite.images().iter().any(|i| i.changed()));
    assert!(
        Calls::new().from_server(&out).is_message(),
        "not a message: {out}"
    );
    // serde_json refuses numbers out of f64's range, which the scanner
    // leaves to the reader: compare where it reads both.
    if let Ok(before) = serde_json::from_str::<Value>(text) {
        let after: Value = serde_json::from_str(&out).expect("the rewrite reads as the input did");
        assert_eq!(ids(&before), ids(&after));
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for method in Method::ALL {
        check(text, &fit_message(text, method, options()));
    }
    let mut calls = Calls::new();
    let read = calls.from_host(text);
    let plan = calls.from_server(text);
    assert_eq!(plan.is_message(), read);
    check(text, &plan.prepare(text, options()));
});
