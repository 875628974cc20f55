//! MCP tool results of any shape: `from_mcp` never panics, and what it
//! accepts is a declared native carrier holding every text block's text,
//! one attachment per payload or declarable link, and the error flag.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_carrier::import::{from_mcp, ImportOptions};
use tool_carrier::media::store::InlineStore;
use tool_carrier::Role;
use tool_carrier::{Carrier, Declaration};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(imported) = from_mcp(
        Some("c"),
        &value,
        &mut InlineStore,
        &ImportOptions::default(),
    ) else {
        return;
    };
    let carrier =
        Carrier::read(Role::Tool, &imported.content).expect("a tool message is a carrier");
    let Declaration::Declared(attachments) = &carrier.declaration else {
        panic!("not declared: {}", imported.content);
    };
    assert_eq!(carrier.call_id.as_deref(), Some("c"));
    let blocks = value["content"].as_array().cloned().unwrap_or_default();
    for block in &blocks {
        if block["type"] == "text" {
            assert!(carrier.body.contains(block["text"].as_str().unwrap()));
        }
    }
    let payloads = blocks
        .iter()
        .filter(|b| {
            matches!(b["type"].as_str(), Some("image" | "audio"))
                || (b["type"] == "resource"
                    && b["resource"].get("text").and_then(Value::as_str).is_none())
        })
        .count();
    assert!(attachments.len() >= payloads);
    assert!(attachments.iter().all(|a| !a.target.is_empty()));
    let envelope: Value = serde_json::from_str(&imported.content).unwrap();
    assert_eq!(envelope.get("is_error").is_some(), value["isError"] == true);
});
