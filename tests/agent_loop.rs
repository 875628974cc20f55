//! The example of the whole loop (`examples/agent_loop.rs`), run as a
//! test: a mock Anthropic provider on 127.0.0.1 replays the recorded
//! responses in `examples/loop/`, checks each request against the API's
//! rules, and both sides stop by themselves.
#![cfg(feature = "media")]

#[allow(dead_code)]
#[path = "../examples/agent_loop.rs"]
mod agent_loop;

use serde_json::Value;

#[test]
fn the_loop_runs_to_the_models_last_word() {
    let session = agent_loop::run().unwrap();
    assert_eq!(session.exchanges.len(), 3);
    assert_eq!(
        session.last_text,
        "The file fails to compile because `main` returns nothing; the panel shows the same error."
    );
    let images: Vec<usize> = session.exchanges.iter().map(|e| e.images).collect();
    assert_eq!(images, [0, 1, 2]);
    // Every result went back paired with its call, in the record and in
    // the body the mock received.
    let last: Value = serde_json::from_str(&session.exchanges[2].body).unwrap();
    let messages = last["messages"].as_array().unwrap();
    let ids = |m: &Value, kind: &str, key: &str| -> Vec<String> {
        m["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == kind)
            .map(|b| b[key].as_str().unwrap().to_owned())
            .collect()
    };
    let calls: Vec<String> = messages
        .iter()
        .flat_map(|m| ids(m, "tool_use", "id"))
        .collect();
    let results: Vec<String> = messages
        .iter()
        .flat_map(|m| ids(m, "tool_result", "tool_use_id"))
        .collect();
    assert_eq!(calls, ["toolu_01Shot", "toolu_01Read", "toolu_01Zoom"]);
    assert_eq!(results, calls);
    // The streamed call's arguments arrived in pieces and went back whole.
    assert!(session.exchanges[2]
        .body
        .contains(r#""input":{"display":1,"region":[0,0,640,400]}"#));
    let roles: Vec<&str> = session.records.iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "tool",
            "assistant"
        ]
    );
}
