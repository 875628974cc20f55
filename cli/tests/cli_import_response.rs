//! `tool-carrier import --from P` given a response, for every API whose
//! fixtures are in `tests/data/responses/P/`: the body and its stream
//! become the same one assistant record; a request body is still read as
//! one; a cut stream and an error body fail with the reason.

mod common;

use serde_json::Value;

/// One API's case: its fixtures' stream extension, a request body, what
/// the thinking fixture's record holds, and what the failures say.
struct Case {
    provider: &'static str,
    stream: &'static str,
    request: &'static str,
    stop_reason: &'static str,
    first_call: &'static str,
    kept: &'static str,
    cut_lacks: &'static str,
    error_says: &'static str,
}

const CASES: [Case; 4] = [
    Case {
        provider: "anthropic",
        stream: "sse",
        request: r#"{"model":"m","messages":[{"role":"user","content":"Hi."}]}"#,
        stop_reason: "tool_use",
        first_call: "toolu_01Ledger",
        kept: "anthropic_thinking",
        cut_lacks: "message_stop",
        error_says: "overloaded_error: Overloaded",
    },
    Case {
        provider: "gemini",
        stream: "sse",
        request: r#"{"contents":[{"role":"user","parts":[{"text":"Hi."}]}]}"#,
        stop_reason: "STOP",
        first_call: "call_0_2",
        kept: "gemini_thought_signatures",
        cut_lacks: "finishReason",
        error_says: "RESOURCE_EXHAUSTED: Resource has been exhausted",
    },
    Case {
        provider: "bedrock",
        stream: "jsonl",
        request: r#"{"messages":[{"role":"user","content":[{"text":"Hi."}]}]}"#,
        stop_reason: "tool_use",
        first_call: "tooluse_Ledger01",
        kept: "bedrock_blocks",
        cut_lacks: "messageStop",
        error_says: "ThrottlingException: Too many tokens",
    },
    Case {
        provider: "ollama",
        stream: "ndjson",
        request: r#"{"model":"qwen3","messages":[{"role":"user","content":"Hi."}]}"#,
        stop_reason: "stop",
        first_call: "call_0_0",
        kept: "ollama_thinking",
        cut_lacks: "done",
        error_says: "model \"qwen3\" not found",
    },
];

fn fixture(provider: &str, name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../tests/data/responses/{provider}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn import(provider: &str, stdin: &[u8]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    common::run_in(dir.path(), &["import", "--from", provider], stdin)
}

fn succeeded(out: &std::process::Output, provider: &str) {
    assert!(
        out.status.success(),
        "{provider}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_body_and_its_stream_give_one_and_the_same_record() {
    for c in &CASES {
        let body = import(c.provider, &fixture(c.provider, "thinking.json"));
        succeeded(&body, c.provider);
        // White space before a stream is no request body.
        let mut input = b"\n  ".to_vec();
        input.extend(fixture(c.provider, &format!("thinking.{}", c.stream)));
        let stream = import(c.provider, &input);
        succeeded(&stream, c.provider);
        assert_eq!(body.stdout, stream.stdout, "{}", c.provider);
        let text = String::from_utf8(body.stdout).unwrap();
        assert_eq!(text.lines().count(), 1);
        let record: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(record["role"], "assistant");
        let envelope: Value = serde_json::from_str(record["content"].as_str().unwrap()).unwrap();
        assert_eq!(envelope["stop_reason"], c.stop_reason, "{}", c.provider);
        assert_eq!(
            envelope["tool_calls"][0]["id"], c.first_call,
            "{}",
            c.provider
        );
        assert!(!envelope[c.kept].is_null(), "{}: {envelope}", c.provider);
        assert!(
            text.contains("123456789012345678901234567890"),
            "{}",
            c.provider
        );
    }
}

#[test]
fn a_request_body_is_still_read_as_one() {
    for c in &CASES {
        let out = import(c.provider, c.request.as_bytes());
        succeeded(&out, c.provider);
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "{\"role\":\"user\",\"content\":\"Hi.\"}\n",
            "{}",
            c.provider
        );
    }
}

#[test]
fn a_cut_stream_or_an_error_body_fails_with_the_reason() {
    for c in &CASES {
        let stream = fixture(c.provider, &format!("tool_call.{}", c.stream));
        let cut = import(c.provider, &stream[..stream.len() / 2]);
        assert!(!cut.status.success(), "{}", c.provider);
        assert!(cut.stdout.is_empty());
        let err = String::from_utf8_lossy(&cut.stderr);
        assert!(err.contains("the stream ended early: it lacks"), "{err}");
        assert!(err.contains(c.cut_lacks), "{err}");

        let error = import(c.provider, &fixture(c.provider, "error.json"));
        assert!(!error.status.success(), "{}", c.provider);
        let err = String::from_utf8_lossy(&error.stderr);
        assert!(err.contains(c.error_says), "{err}");
    }
}
