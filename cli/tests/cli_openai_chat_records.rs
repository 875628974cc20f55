//! `tool-carrier convert` and `inspect` read histories whose records are
//! spelled the OpenAI Chat way, as the library's `import::read_records`
//! reads them.

mod common;

use std::process::Output;

use serde_json::Value;
use tool_carrier::provider::Provider;
use tool_carrier::rules::{check_json, Target};

const FIXTURE: &str = "tests/data/adversarial/openai-chat-records.jsonl";

fn tool_carrier(args: &[&str], stdin: &[u8]) -> Output {
    common::run(args, stdin)
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// `convert --provider P` of the fixture: exit 0, nothing unclaimed, and
/// the body keeps every rule of P's API.
fn converted(provider: Provider) -> Value {
    let out = tool_carrier(&["convert", "--provider", provider.name(), FIXTURE], b"");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{provider}: {stderr}");
    for stream in [stdout, stderr] {
        assert!(
            !stream.contains("which no tool call is waiting for"),
            "{provider}: {stream}"
        );
    }
    let body: Value = serde_json::from_str(stdout).unwrap();
    let model = body["model"].as_str().unwrap();
    let broken = check_json(&Target::new(provider, model), stdout).unwrap();
    assert!(broken.is_empty(), "{provider}: {broken:?}");
    body
}

fn ids<'v>(values: impl IntoIterator<Item = &'v Value>, key: &str) -> Vec<&'v str> {
    values.into_iter().filter_map(|v| v[key].as_str()).collect()
}

#[test]
fn convert_for_anthropic_answers_each_tool_use_with_its_result() {
    let body = converted(Provider::Anthropic);
    let turns = body["messages"].as_array().unwrap();
    let at = turns.iter().position(|t| t["role"] == "assistant").unwrap();
    let blocks = |i: usize, kind: &str| -> Vec<&Value> {
        turns[i]["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == kind)
            .collect()
    };
    let uses = blocks(at, "tool_use");
    assert_eq!(ids(uses.iter().copied(), "id"), ["call_shot", "call_log"]);
    let results = blocks(at + 1, "tool_result");
    assert_eq!(
        ids(results.iter().copied(), "tool_use_id"),
        ids(uses.iter().copied(), "id")
    );
    let shot = results[0]["content"]
        .as_array()
        .expect("the screenshot's result holds blocks");
    assert!(shot.iter().any(|b| b["type"] == "image"));
}

#[test]
fn convert_for_openai_chat_answers_each_call_with_its_tool_message() {
    let body = converted(Provider::OpenAiChat);
    let list = body["messages"].as_array().unwrap();
    let at = list.iter().position(|m| m["role"] == "assistant").unwrap();
    let calls = list[at]["tool_calls"].as_array().unwrap();
    assert_eq!(ids(calls, "id"), ["call_shot", "call_log"]);
    assert_eq!(
        ids(&list[at + 1..at + 3], "tool_call_id"),
        ["call_shot", "call_log"]
    );
    assert_eq!(list[at + 3]["role"], "user", "the screenshot follows");
}

#[test]
fn inspect_shows_chat_records_as_convert_reads_them() {
    let out = tool_carrier(&["inspect", "--json", FIXTURE], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert!(lines.iter().all(|l| l.get("error").is_none()));
    assert_eq!(lines[2]["role"], "assistant");
    assert_eq!(lines[2]["carrier"], Value::Null);
    assert_eq!(lines[3]["carrier"]["declared"], true);
    assert_eq!(lines[3]["carrier"]["attachments"], serde_json::json!([]));
    assert_eq!(lines[4]["carrier"]["kind"], "native");
    assert_eq!(lines[4]["carrier"]["attachments"][0]["kind"], "image");
    assert_eq!(
        lines[4]["carrier"]["body"],
        "Saved screenshot of the dashboard (1x1)."
    );
}

#[test]
fn a_chat_record_that_cannot_be_read_stops_convert_and_is_an_error_in_inspect() {
    let input = concat!(
        "{\"role\":\"user\",\"content\":\"hi\"}\n",
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"arguments\":\"{}\"}}]}\n",
    );
    let out = tool_carrier(&["convert", "--provider", "anthropic"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(
        err.contains("line 2: ")
            && err.contains(
                "read as an OpenAI Chat message (record 1), $.tool_calls[0]: a tool call needs function.name"
            ),
        "{err}"
    );
    let out = tool_carrier(&["inspect", "--json"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let second: Value = serde_json::from_str(text(&out.stdout).lines().nth(1).unwrap()).unwrap();
    assert!(
        second["error"]
            .as_str()
            .unwrap()
            .contains("(record 1), $.tool_calls[0]: a tool call needs function.name"),
        "{second}"
    );
}
