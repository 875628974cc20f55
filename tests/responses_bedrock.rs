//! Bedrock Converse responses, non-streamed and streamed (ConverseStream
//! events as JSON Lines), read into one assistant record: the fixtures in
//! `tests/data/responses/bedrock/` follow the documented examples (the
//! tool use guide's call, two parallel calls, Claude's reasoning with its
//! signature before a call whose input holds a 30-digit integer and keys
//! out of order, and a throttling error), each as a body and as the event
//! stream of the same message; and the reasoning goes back to Bedrock.
#![cfg(feature = "media")]

#[path = "responses_support/mod.rs"]
mod support;

use proptest::prelude::*;
use serde_json::Value;
use support::{
    call, converted, cuts, every_other_provider_takes, every_split_gives, fixture, history_with,
    pieces, quoted, read_as, said, stream_of,
};
use tool_carrier::history::AssistantTurn;
use tool_carrier::import::{
    from_provider, from_response, response_stream, ImportOptions, ResponseError, ResponseForm,
};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::rules::{check_json, Target};

const NAMES: [&str; 3] = ["tool_call", "parallel_calls", "thinking"];

fn bedrock(name: &str) -> String {
    fixture("bedrock", name)
}

fn body(name: &str) -> AssistantTurn {
    read_as(
        Provider::Bedrock,
        &bedrock(&format!("{name}.json")),
        ResponseForm::Body,
    )
}

fn streamed(name: &str) -> AssistantTurn {
    read_as(
        Provider::Bedrock,
        &bedrock(&format!("{name}.jsonl")),
        ResponseForm::Stream,
    )
}

/// The reasoning block as the body wrote it, white space aside.
fn reasoning_block() -> String {
    let body = bedrock("thinking.json");
    let at = body.find(r#"{"reasoningContent""#).unwrap();
    let end = at + body[at..].find("}}}").unwrap() + 3;
    body[at..end]
        .replace("\": ", "\":")
        .replace("\", \"", "\",\"")
}

#[test]
fn the_stream_and_the_body_give_the_same_record() {
    for name in NAMES {
        assert_eq!(streamed(name).to_record(), body(name).to_record(), "{name}");
    }
}

#[test]
fn what_the_records_hold() {
    assert_eq!(
        body("tool_call").to_json(),
        concat!(
            r#"{"content":"To find the most popular song on WZPZ, I'll use the top_song tool.","#,
            r#""tool_calls":[{"id":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","name":"top_song","arguments":{"sign":"WZPZ"}}],"#,
            r#""stop_reason":"tool_use","usage":{"inputTokens":416,"outputTokens":84,"totalTokens":500}}"#
        )
    );
    let turn = streamed("parallel_calls");
    let calls: Vec<(&str, &str)> = turn
        .calls()
        .iter()
        .map(|c| (c.id.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            (
                "tooluse_Sf3wYVqoTpGLRk5pNkwfHQ",
                r#"{"city":"Seattle","unit":"fahrenheit"}"#
            ),
            (
                "tooluse_2aP7CMNuR6uZkNLSWqnVTg",
                r#"{"city":"Paris","unit":"celsius"}"#
            )
        ]
    );
    let turn = streamed("thinking");
    assert_eq!(
        turn.calls()[0].arguments,
        r#"{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    );
    assert_eq!(
        turn.members()[0],
        (
            "bedrock_blocks".to_owned(),
            format!("[{}]", reasoning_block())
        )
    );
    assert_eq!(
        turn.members()[2].1,
        r#"{"inputTokens":1024,"outputTokens":256,"totalTokens":1280,"cacheReadInputTokens":0,"cacheWriteInputTokens":0}"#
    );
}

#[test]
fn the_record_holds_what_the_request_reader_keeps_for_the_same_message() {
    for name in NAMES {
        let response: Value = serde_json::from_str(&bedrock(&format!("{name}.json"))).unwrap();
        let messages = Value::Array(vec![response["output"]["message"].clone()]);
        let history = from_provider(
            Provider::Bedrock,
            &messages,
            &mut InlineStore,
            &ImportOptions::default(),
        )
        .unwrap();
        let read: Value = serde_json::from_str(history.messages[0].content()).unwrap();
        let record: Value = serde_json::from_str(&body(name).to_json()).unwrap();
        for member in ["content", "tool_calls", "bedrock_blocks"] {
            assert_eq!(record[member], read[member], "{name}: {member}");
        }
    }
}

#[test]
fn every_split_of_the_stream_gives_the_same_record() {
    for name in NAMES {
        let text = bedrock(&format!("{name}.jsonl"));
        every_split_gives(Provider::Bedrock, text.as_bytes(), &body(name), name);
    }
}

#[test]
fn a_truncated_stream_says_what_it_lacks() {
    let text = bedrock("thinking.jsonl");
    let stop = text.find("{\"messageStop\"").unwrap();
    for cut in (0..stop).step_by(23) {
        let err = stream_of(Provider::Bedrock, &[&text.as_bytes()[..cut]]).unwrap_err();
        assert!(
            matches!(&err, ResponseError::Truncated { missing } if missing.contains("messageStop")),
            "cut at {cut}: {err}"
        );
    }
    assert_eq!(
        stream_of(Provider::Bedrock, &[&text.as_bytes()[..stop]])
            .unwrap_err()
            .to_string(),
        "the stream ended early: it lacks messageStop"
    );
    let signature = text
        .find("{\"contentBlockDelta\": {\"delta\": {\"reasoningContent\": {\"signature\"")
        .unwrap();
    assert_eq!(
        stream_of(Provider::Bedrock, &[&text.as_bytes()[..signature]])
            .unwrap_err()
            .to_string(),
        "the stream ended early: it lacks contentBlockStop for block 0 and messageStop"
    );
    // Cut after messageStop: only the metadata event is lost, and with it
    // the usage.
    let metadata = text.find("{\"metadata\"").unwrap();
    let turn = stream_of(Provider::Bedrock, &[&text.as_bytes()[..metadata]]).unwrap();
    let names: Vec<&str> = turn.members().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["bedrock_blocks", "stop_reason"]);
}

#[test]
fn errors_from_the_provider() {
    assert_eq!(
        from_response(Provider::Bedrock, &bedrock("error.json")),
        Err(ResponseError::Provider {
            kind: "ThrottlingException".into(),
            message: "Too many tokens, please wait before trying again.".into()
        })
    );
    let mut stream = response_stream(Provider::Bedrock).unwrap();
    let err = stream.push(bedrock("error.jsonl").as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the provider answered with an error: throttlingException: Too many tokens, please wait before trying again."
    );
    assert_eq!(stream.finish().unwrap_err(), err);
}

#[test]
fn the_history_goes_back_to_bedrock_with_its_reasoning_first() {
    let turn = streamed("thinking");
    let json = converted(Provider::Bedrock, &turn);
    let request: Value = serde_json::from_str(&json).unwrap();
    let content = &request["messages"][1]["content"];
    let block: Value = serde_json::from_str(&reasoning_block()).unwrap();
    assert_eq!(content[0], block);
    assert_eq!(content[1]["text"], "Recording the entry now.");
    assert_eq!(content[2]["toolUse"]["toolUseId"], "tooluse_Ledger01");
    // Byte for byte: the block, and the input.
    assert!(json.contains(&reasoning_block()), "{json}");
    assert!(json.contains(
        r#""input":{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    ));
    // Other providers are given the text and the call, not the block.
    for provider in [Provider::Anthropic, Provider::Gemini, Provider::Ollama] {
        let json = converted(provider, &turn);
        assert!(!json.contains("ErcBCkgIBxABGAIiQ"), "{provider}: {json}");
    }
    for name in NAMES {
        every_other_provider_takes(&[Provider::Bedrock], &body(name));
    }
}

#[test]
fn a_redacted_block_goes_back_too_and_the_body_passes_the_rules() {
    let turn = AssistantTurn::new("Done.")
        .call("tooluse_1", "record_entry", r#"{"n":1}"#)
        .unwrap()
        .with_member(
            "bedrock_blocks",
            r#"[{"reasoningContent":{"redactedContent":"AAECAwQ="}},{"citationsContent":{"content":[{"text":"x"}],"citations":[]}}]"#,
        )
        .unwrap();
    let history = history_with(&turn);
    let request = build_request(Provider::Bedrock, &history, &Options::new()).unwrap();
    let json = request.json();
    // Golden: the assistant message, whole.
    let body: Value = serde_json::from_str(json).unwrap();
    assert_eq!(
        body["messages"][1].to_string(),
        r#"{"content":[{"reasoningContent":{"redactedContent":"AAECAwQ="}},{"text":"Done."},{"toolUse":{"input":{"n":1},"name":"record_entry","toolUseId":"tooluse_1"}}],"role":"assistant"}"#
    );
    let model = Options::new().model_for(Provider::Bedrock).to_owned();
    let violations = check_json(&Target::new(Provider::Bedrock, &model), json).unwrap();
    assert!(violations.is_empty(), "{violations:?}");
}

/// A generated Converse turn, and how its stream is cut.
#[derive(Debug, Clone)]
struct Generated {
    reasoning: Option<(String, Option<String>)>,
    text: String,
    calls: Vec<(String, String)>,
    stop: &'static str,
    usage: (u32, u32),
    cuts: Vec<usize>,
}

fn generated() -> impl Strategy<Value = Generated> {
    (
        proptest::option::of((said(), proptest::option::of("[A-Za-z0-9+/]{8,60}={0,2}"))),
        said(),
        prop::collection::vec(call(), 0..=3),
        prop_oneof![Just("end_turn"), Just("tool_use"), Just("max_tokens")],
        (0u32..100_000, 0u32..100_000),
        cuts(),
    )
        .prop_map(|(reasoning, text, calls, stop, usage, cuts)| Generated {
            reasoning,
            text,
            calls,
            stop,
            usage,
            cuts,
        })
}

impl Generated {
    fn id(k: usize) -> String {
        format!("tooluse_{k}x")
    }

    fn usage(&self) -> String {
        format!(
            "{{\"inputTokens\":{},\"outputTokens\":{},\"totalTokens\":{}}}",
            self.usage.0,
            self.usage.1,
            self.usage.0 + self.usage.1
        )
    }

    fn reasoning_block(&self) -> Option<String> {
        let (text, signature) = self.reasoning.as_ref()?;
        let signature = signature
            .as_ref()
            .map(|s| format!(",\"signature\":{}", quoted(s)))
            .unwrap_or_default();
        Some(format!(
            "{{\"reasoningContent\":{{\"reasoningText\":{{\"text\":{}{signature}}}}}}}",
            quoted(text)
        ))
    }

    fn body(&self) -> String {
        let mut blocks: Vec<String> = self.reasoning_block().into_iter().collect();
        blocks.push(format!("{{\"text\": {}}}", quoted(&self.text)));
        for (k, (name, args)) in self.calls.iter().enumerate() {
            blocks.push(format!(
                "{{\"toolUse\": {{\"toolUseId\": {}, \"name\": {}, \"input\": {args}}}}}",
                quoted(&Generated::id(k)),
                quoted(name)
            ));
        }
        format!(
            "{{\"output\": {{\"message\": {{\"role\": \"assistant\", \"content\": [{}]}}}}, \"stopReason\": {}, \"usage\": {}, \"metrics\": {{\"latencyMs\": 5}}}}",
            blocks.join(", "),
            quoted(self.stop),
            self.usage()
        )
    }

    fn stream(&self) -> String {
        let delta = |index: usize, delta: String| {
            format!(
                "{{\"contentBlockDelta\": {{\"delta\": {delta}, \"contentBlockIndex\": {index}}}}}"
            )
        };
        let stop =
            |index: usize| format!("{{\"contentBlockStop\": {{\"contentBlockIndex\": {index}}}}}");
        let mut lines = vec!["{\"messageStart\": {\"role\": \"assistant\"}}".to_owned()];
        let mut index = 0;
        if let Some((text, signature)) = &self.reasoning {
            for piece in pieces(text, &self.cuts) {
                lines.push(delta(
                    index,
                    format!("{{\"reasoningContent\": {{\"text\": {}}}}}", quoted(&piece)),
                ));
            }
            if let Some(s) = signature {
                lines.push(delta(
                    index,
                    format!("{{\"reasoningContent\": {{\"signature\": {}}}}}", quoted(s)),
                ));
            }
            lines.push(stop(index));
            index += 1;
        }
        for piece in pieces(&self.text, &self.cuts) {
            lines.push(delta(index, format!("{{\"text\": {}}}", quoted(&piece))));
        }
        lines.push(stop(index));
        index += 1;
        for (k, (name, args)) in self.calls.iter().enumerate() {
            lines.push(format!(
                "{{\"contentBlockStart\": {{\"start\": {{\"toolUse\": {{\"toolUseId\": {}, \"name\": {}}}}}, \"contentBlockIndex\": {index}}}}}",
                quoted(&Generated::id(k)),
                quoted(name)
            ));
            for piece in pieces(args, &self.cuts) {
                lines.push(delta(
                    index,
                    format!("{{\"toolUse\": {{\"input\": {}}}}}", quoted(&piece)),
                ));
            }
            lines.push(stop(index));
            index += 1;
        }
        lines.push(format!(
            "{{\"messageStop\": {{\"stopReason\": {}}}}}",
            quoted(self.stop)
        ));
        lines.push(format!(
            "{{\"metadata\": {{\"usage\": {}, \"metrics\": {{\"latencyMs\": 5}}}}}}",
            self.usage()
        ));
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The record the turn should give, made without the reader.
    fn record(&self) -> AssistantTurn {
        let mut turn = AssistantTurn::new(self.text.clone());
        for (k, (name, args)) in self.calls.iter().enumerate() {
            turn = turn.call(Generated::id(k), name, args).unwrap();
        }
        if let Some(block) = self.reasoning_block() {
            turn = turn
                .with_member("bedrock_blocks", &format!("[{block}]"))
                .unwrap();
        }
        turn.with_member("stop_reason", &quoted(self.stop))
            .unwrap()
            .with_member("usage", &self.usage())
            .unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_generated_turn_reads_the_same_from_its_body_and_its_stream(g in generated()) {
        let expected = g.record();
        let body = from_response(Provider::Bedrock, &g.body()).unwrap();
        prop_assert_eq!(&body, &expected);
        let stream = stream_of(Provider::Bedrock, &[g.stream().as_bytes()]).unwrap();
        prop_assert_eq!(&stream, &expected);

        let json = converted(Provider::Bedrock, &body);
        for call in body.calls() {
            let written = format!(
                "{{\"toolUse\":{{\"toolUseId\":{},\"name\":{},\"input\":{}}}}}",
                quoted(&call.id), quoted(&call.name), call.arguments
            );
            prop_assert!(json.contains(&written), "{} in {}", written, json);
        }
        if let Some(block) = g.reasoning_block() {
            let first = format!("\"role\":\"assistant\",\"content\":[{block},");
            prop_assert!(json.contains(&first), "{} in {}", first, json);
        }
        every_other_provider_takes(&[Provider::Bedrock], &body);
    }
}
