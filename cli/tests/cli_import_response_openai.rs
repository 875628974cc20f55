//! `tool-carrier import --from openai-chat` / `openai-responses` given a
//! response: the body and its event stream become the same one assistant
//! record; a cut stream and an error body fail with the reason; and the
//! record converts back to Responses with its reasoning item.

mod common;

use serde_json::Value;

fn fixture(api: &str, name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../tests/data/responses/{api}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn import(from: &str, stdin: &[u8]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    common::run_in(dir.path(), &["import", "--from", from], stdin)
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn a_body_and_its_stream_give_one_and_the_same_record() {
    for (from, api, name) in [
        ("openai-chat", "openai-chat", "parallel_calls"),
        ("openai-compatible", "openai-chat", "tool_call"),
        ("openai-responses", "openai-responses", "reasoning_call"),
    ] {
        let body = ok(&import(from, &fixture(api, &format!("{name}.json"))));
        let stream = ok(&import(from, &fixture(api, &format!("{name}.sse"))));
        assert_eq!(body, stream, "{from}");
        assert_eq!(body.lines().count(), 1);
        let record: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(record["role"], "assistant");
        let envelope: Value = serde_json::from_str(record["content"].as_str().unwrap()).unwrap();
        assert!(envelope["tool_calls"][0]["id"].is_string(), "{from}");
    }
}

#[test]
fn a_cut_stream_or_an_error_body_fails_with_the_reason() {
    let stream = fixture("openai-responses", "reasoning_call.sse");
    let cut = import("openai-responses", &stream[..stream.len() / 2]);
    assert!(!cut.status.success());
    assert!(cut.stdout.is_empty());
    let err = String::from_utf8_lossy(&cut.stderr);
    assert!(err.contains("the stream ended early: it lacks"), "{err}");
    assert!(err.contains("response.completed"), "{err}");

    let error = import("openai-chat", &fixture("openai-chat", "error.json"));
    assert!(!error.status.success());
    let err = String::from_utf8_lossy(&error.stderr);
    assert!(
        err.contains("tokens (rate_limit_exceeded): Rate limit reached"),
        "{err}"
    );
}

#[test]
fn a_request_body_is_still_read_as_one() {
    let out = import(
        "openai-responses",
        br#"{"model":"m","input":[{"role":"user","content":"Hi."}]}"#,
    );
    assert_eq!(ok(&out), "{\"role\":\"user\",\"content\":\"Hi.\"}\n");
    let out = import(
        "openai-chat",
        br#"{"model":"m","messages":[{"role":"user","content":"Hi."}]}"#,
    );
    assert_eq!(ok(&out), "{\"role\":\"user\",\"content\":\"Hi.\"}\n");
}

#[test]
fn the_record_goes_back_to_responses_with_its_reasoning() {
    let dir = tempfile::tempdir().unwrap();
    let record = ok(&common::run_in(
        dir.path(),
        &["import", "--from", "openai-responses"],
        &fixture("openai-responses", "reasoning_call.sse"),
    ));
    let history = format!(
        "{{\"role\":\"user\",\"content\":\"Record it.\"}}\n{record}{}\n",
        r#"{"role":"tool","content":"{\"tool_call_id\":\"call_Ledger01\",\"content\":\"recorded\",\"attachments\":[]}"}"#
    );
    std::fs::write(dir.path().join("h.jsonl"), history).unwrap();
    let body = ok(&common::run_in(
        dir.path(),
        &["convert", "--provider", "openai-responses", "h.jsonl"],
        b"",
    ));
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["input"][1]["type"], "reasoning");
    assert_eq!(
        body["input"][1]["id"],
        "rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9"
    );
    assert!(body["input"][1]["encrypted_content"]
        .as_str()
        .unwrap()
        .ends_with("-_ZxCvBnM=="));
    assert_eq!(body["input"][3]["type"], "function_call");
}
