//! `tool-carrier import --from bedrock` given a response: the body and
//! its ConverseStream events (JSON Lines) become the same one assistant record; a cut stream and
//! an error body fail with the reason.

mod common;

use serde_json::Value;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../tests/data/responses/bedrock/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn import(stdin: &[u8]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    common::run_in(dir.path(), &["import", "--from", "bedrock"], stdin)
}

#[test]
fn a_body_and_its_stream_give_one_and_the_same_record() {
    let body = import(&fixture("thinking.json"));
    assert!(
        body.status.success(),
        "{}",
        String::from_utf8_lossy(&body.stderr)
    );
    let stream = import(&fixture("thinking.jsonl"));
    assert!(
        stream.status.success(),
        "{}",
        String::from_utf8_lossy(&stream.stderr)
    );
    assert_eq!(body.stdout, stream.stdout);
    let text = String::from_utf8(body.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    let record: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(record["role"], "assistant");
    let envelope: Value = serde_json::from_str(record["content"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["stop_reason"], "tool_use");
    assert_eq!(envelope["tool_calls"][0]["id"], "tooluse_Ledger01");
    assert!(!envelope["bedrock_blocks"].is_null(), "{envelope}");
    assert!(text.contains("123456789012345678901234567890"));
}

#[test]
fn a_request_body_is_still_read_as_one() {
    let out = import(br#"{"messages":[{"role":"user","content":[{"text":"Hi."}]}]}"#);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"role\":\"user\",\"content\":\"Hi.\"}\n"
    );
}

#[test]
fn a_cut_stream_or_an_error_body_fails_with_the_reason() {
    let stream = fixture("tool_call.jsonl");
    let cut = import(&stream[..stream.len() / 2]);
    assert!(!cut.status.success());
    assert!(cut.stdout.is_empty());
    let err = String::from_utf8_lossy(&cut.stderr);
    assert!(err.contains("the stream ended early: it lacks"), "{err}");
    assert!(err.contains("messageStop"), "{err}");

    let error = import(&fixture("error.json"));
    assert!(!error.status.success());
    let err = String::from_utf8_lossy(&error.stderr);
    assert!(
        err.contains("ThrottlingException: Too many tokens"),
        "{err}"
    );
}
