//! Gemini responses, non-streamed and streamed (`alt=sse`, or the JSON
//! array without it), read into one assistant record: the fixtures in
//! `tests/data/responses/gemini/` follow the documented examples (a
//! signed function call, the parallel calls example, thoughts with a
//! signed call whose arguments hold a 30-digit integer and keys out of
//! order, a text answer whose signature arrives on an empty part, and
//! errors), each as a body and as the stream of the same message.
#![cfg(feature = "media")]

#[path = "responses_support/mod.rs"]
mod support;

use proptest::prelude::*;
use serde_json::Value;
use support::{
    call, converted, cuts, every_other_provider_takes, every_split_gives, fixture, pieces, quoted,
    read_as, said, stream_of,
};
use tool_carrier::history::AssistantTurn;
use tool_carrier::import::{
    from_provider, from_response, response_stream, ImportOptions, ResponseError, ResponseForm,
};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::Provider;

const NAMES: [&str; 4] = ["tool_call", "parallel_calls", "thinking", "signed_text"];

fn gemini(name: &str) -> String {
    fixture("gemini", name)
}

fn body(name: &str) -> AssistantTurn {
    read_as(
        Provider::Gemini,
        &gemini(&format!("{name}.json")),
        ResponseForm::Body,
    )
}

fn streamed(name: &str) -> AssistantTurn {
    read_as(
        Provider::Gemini,
        &gemini(&format!("{name}.sse")),
        ResponseForm::Stream,
    )
}

/// The stream's chunks as the JSON array the API streams without
/// `alt=sse`.
fn as_array(sse: &str) -> String {
    let chunks: Vec<&str> = sse
        .split("\r\n\r\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .collect();
    format!("[{}\n]", chunks.join(",\r\n"))
}

#[test]
fn the_stream_and_the_body_give_the_same_record() {
    for name in NAMES {
        let body = body(name);
        assert_eq!(streamed(name).to_record(), body.to_record(), "{name}");
        let array = as_array(&gemini(&format!("{name}.sse")));
        assert_eq!(
            read_as(Provider::Gemini, &array, ResponseForm::Stream),
            body,
            "{name} as an array"
        );
        // Both provider names read alike.
        let again = from_response(Provider::Gemini2, &gemini(&format!("{name}.json")));
        assert_eq!(again.unwrap(), body, "{name}");
    }
}

#[test]
fn what_the_records_hold() {
    assert_eq!(
        body("tool_call").to_json(),
        concat!(
            r#"{"content":null,"tool_calls":[{"id":"call_0_0","name":"get_current_temperature","arguments":{"location":"London"}}],"#,
            r#""gemini_thought_signatures":{"call_0_0":"CiQBcsjafFZ8bQ3nUbjN1WIgOXxjpOzKNhF6C1xAEAEMkPeN+0wKZwFyyNp8"},"stop_reason":"STOP","#,
            r#""usage":{"promptTokenCount":72,"candidatesTokenCount":17,"totalTokenCount":154,"promptTokensDetails":[{"modality":"TEXT","tokenCount":72}],"thoughtsTokenCount":65}}"#
        )
    );
    let turn = streamed("parallel_calls");
    let calls: Vec<(&str, &str, &str)> = turn
        .calls()
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_0_0", "power_disco_ball", r#"{"power":true}"#),
            (
                "call_0_1",
                "start_music",
                r#"{"energetic":true,"loud":true}"#
            ),
            ("call_0_2", "dim_lights", r#"{"brightness":0.5}"#)
        ]
    );
    // Only the first of parallel calls is signed.
    assert_eq!(
        turn.members()[0],
        (
            "gemini_thought_signatures".to_owned(),
            r#"{"call_0_0":"CiIBcsjafGxHVl1YaKfzMjlJpNiBlYx8HcyDxB6Af3kPRcU1eQpnAXLI2nw"}"#
                .to_owned()
        )
    );

    let turn = streamed("thinking");
    assert_eq!(turn.text(), "Recording the entry now.");
    assert_eq!(
        turn.calls()[0].arguments,
        r#"{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    );
    let members: Vec<&str> = turn.members().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        members,
        [
            "gemini_thought_signatures",
            "gemini_parts",
            "stop_reason",
            "usage"
        ]
    );
    let parts: Value = serde_json::from_str(&turn.members()[1].1).unwrap();
    assert_eq!(parts[0]["thought"], true);
    assert!(parts[0]["text"]
        .as_str()
        .unwrap()
        .starts_with("**Recording the entry**\n\nThe user wants"));

    // A text answer's signature, which came on an empty part of its own.
    let turn = streamed("signed_text");
    assert_eq!(
        turn.to_json(),
        concat!(
            r#"{"content":"The capital of France is Paris. It has been the capital since 987.","tool_calls":[],"#,
            r#""gemini_parts":[{"text":"","thoughtSignature":"CikBcsjafK1u5Qe0h3WbYvC6dHjwJ3sS0p0V8mQmq3Z7vN0k9l2sYdU"}],"#,
            r#""stop_reason":"STOP","usage":{"promptTokenCount":8,"candidatesTokenCount":16,"totalTokenCount":60,"thoughtsTokenCount":36}}"#
        )
    );
}

/// The members the request reader gives for the body's model content.
fn as_the_request_reader_reads(name: &str) -> Value {
    let response: Value = serde_json::from_str(&gemini(&format!("{name}.json"))).unwrap();
    let contents = Value::Array(vec![response["candidates"][0]["content"].clone()]);
    let history = from_provider(
        Provider::Gemini,
        &contents,
        &mut InlineStore,
        &ImportOptions::default(),
    )
    .unwrap();
    let record = &history.messages[0];
    assert_eq!(record.role(), "assistant");
    serde_json::from_str(record.content()).unwrap()
}

#[test]
fn the_record_holds_what_the_request_reader_keeps_for_the_same_content() {
    for name in NAMES {
        let read = as_the_request_reader_reads(name);
        let record: Value = serde_json::from_str(&body(name).to_json()).unwrap();
        for member in [
            "content",
            "tool_calls",
            "gemini_thought_signatures",
            "gemini_parts",
        ] {
            assert_eq!(record[member], read[member], "{name}: {member}");
        }
    }
}

#[test]
fn every_split_of_the_stream_gives_the_same_record() {
    for name in NAMES {
        let text = gemini(&format!("{name}.sse"));
        every_split_gives(Provider::Gemini, text.as_bytes(), &body(name), name);
    }
    let array = as_array(&gemini("thinking.sse"));
    every_split_gives(
        Provider::Gemini,
        array.as_bytes(),
        &body("thinking"),
        "array",
    );
}

#[test]
fn a_truncated_stream_says_what_it_lacks() {
    let text = gemini("thinking.sse");
    let last = text.rfind("data:").unwrap();
    for cut in (0..last).step_by(41) {
        let err = stream_of(Provider::Gemini, &[&text.as_bytes()[..cut]]).unwrap_err();
        assert!(
            matches!(&err, ResponseError::Truncated { missing } if missing.starts_with("a chunk with finishReason")),
            "cut at {cut}: {err}"
        );
    }
    assert_eq!(
        stream_of(Provider::Gemini, &[&text.as_bytes()[..last]])
            .unwrap_err()
            .to_string(),
        "the stream ended early: it lacks a chunk with finishReason"
    );
    // Inside the last chunk: its line is what is cut.
    let err = stream_of(Provider::Gemini, &[&text.as_bytes()[..text.len() - 20]])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "the stream ended early: it lacks a chunk with finishReason and the rest of the line \"data: {"
        ),
        "{err}"
    );
    // Cut after the last chunk's data line, before the blank line that
    // ends the event: the chunk is whole, and stands.
    let end = text.len() - "\r\n".len();
    assert_eq!(
        stream_of(Provider::Gemini, &[&text.as_bytes()[..end]]).unwrap(),
        body("thinking")
    );
}

#[test]
fn errors_from_the_provider() {
    let expected = ResponseError::Provider {
        kind: "RESOURCE_EXHAUSTED".into(),
        message: "Resource has been exhausted (e.g. check quota).".into(),
    };
    assert_eq!(
        from_response(Provider::Gemini, &gemini("error.json")),
        Err(expected)
    );
    let mut stream = response_stream(Provider::Gemini).unwrap();
    let err = stream.push(gemini("error.sse").as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the provider answered with an error: UNAVAILABLE: The model is overloaded. Please try again later."
    );
    assert_eq!(stream.finish().unwrap_err(), err);
    // A blocked prompt: no candidate, nothing the model said.
    let blocked = r#"{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 11, "totalTokenCount": 11}, "modelVersion": "gemini-3-pro-preview"}"#;
    let err = from_response(Provider::Gemini, blocked).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the provider answered with an error: PROHIBITED_CONTENT: the prompt was blocked (promptFeedback.blockReason): no candidate was returned"
    );
    let streamed = stream_of(
        Provider::Gemini,
        &[format!("data: {blocked}\n\n").as_bytes()],
    );
    assert_eq!(streamed.unwrap_err(), err);
}

#[test]
fn the_history_goes_back_to_gemini_with_its_signatures_and_calls() {
    let turn = streamed("thinking");
    let json = converted(Provider::Gemini, &turn);
    assert!(
        json.contains(concat!(
            r#"{"functionCall":{"id":"call_0_2","name":"record_entry","args":{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}},"#,
            r#""thoughtSignature":"EsgDCsUDAXLI2nxA1m8a9dTgqvXFBdCsVY5tUKjmEpUGcdsXPsG4Wl6w0kq3hF2JmYb0aBhyH+JqVxi4sS7C"}"#
        )),
        "{json}"
    );
    for name in NAMES {
        every_other_provider_takes(&[Provider::Gemini], &body(name));
    }
}

/// A generated model turn, and how its stream is cut.
#[derive(Debug, Clone)]
struct Generated {
    thought: Option<String>,
    text: String,
    /// A signature on the text part (given on an empty part in the stream).
    text_signature: Option<String>,
    calls: Vec<(String, String)>,
    /// Whether the calls carry ids.
    ids: bool,
    /// The first call's signature.
    call_signature: Option<String>,
    finish: &'static str,
    usage: (u32, u32),
    cuts: Vec<usize>,
}

fn generated() -> impl Strategy<Value = Generated> {
    let signature = || proptest::option::of("[A-Za-z0-9+/]{8,40}={0,2}");
    (
        proptest::option::of(said()),
        said(),
        signature(),
        prop::collection::vec(call(), 0..=3),
        any::<bool>(),
        signature(),
        prop_oneof![Just("STOP"), Just("MAX_TOKENS")],
        (0u32..100_000, 0u32..100_000),
        cuts(),
    )
        .prop_map(
            |(thought, text, text_signature, calls, ids, call_signature, finish, usage, cuts)| {
                Generated {
                    thought,
                    text,
                    text_signature,
                    calls,
                    ids,
                    call_signature,
                    finish,
                    usage,
                    cuts,
                }
            },
        )
}

impl Generated {
    fn id(&self, k: usize) -> Option<String> {
        self.ids.then(|| format!("fc_{k}"))
    }

    fn call_part(&self, k: usize) -> String {
        let (name, args) = &self.calls[k];
        let id = self
            .id(k)
            .map(|id| format!("\"id\": {}, ", quoted(&id)))
            .unwrap_or_default();
        let signature = match (&self.call_signature, k) {
            (Some(s), 0) => format!(", \"thoughtSignature\": {}", quoted(s)),
            _ => String::new(),
        };
        format!(
            "{{\"functionCall\": {{{id}\"name\": {}, \"args\": {args}}}{signature}}}",
            quoted(name)
        )
    }

    fn usage(&self) -> String {
        format!(
            "{{\"promptTokenCount\": {}, \"candidatesTokenCount\": {}}}",
            self.usage.0, self.usage.1
        )
    }

    fn chunk(parts: &[String], finish: Option<&str>, usage: Option<&str>) -> String {
        let finish = finish
            .map(|f| format!(", \"finishReason\": \"{f}\""))
            .unwrap_or_default();
        let usage = usage
            .map(|u| format!(", \"usageMetadata\": {u}"))
            .unwrap_or_default();
        format!(
            "{{\"candidates\": [{{\"content\": {{\"role\": \"model\", \"parts\": [{}]}}{finish}, \"index\": 0}}]{usage}}}",
            parts.join(", ")
        )
    }

    fn body(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.thought {
            parts.push(format!("{{\"text\": {}, \"thought\": true}}", quoted(t)));
        }
        let signature = self
            .text_signature
            .as_ref()
            .map(|s| format!(", \"thoughtSignature\": {}", quoted(s)))
            .unwrap_or_default();
        parts.push(format!("{{\"text\": {}{signature}}}", quoted(&self.text)));
        parts.extend((0..self.calls.len()).map(|k| self.call_part(k)));
        Generated::chunk(&parts, Some(self.finish), Some(&self.usage()))
    }

    fn stream(&self) -> String {
        let mut chunks = Vec::new();
        if let Some(t) = &self.thought {
            for piece in pieces(t, &self.cuts) {
                let part = format!("{{\"text\": {}, \"thought\": true}}", quoted(&piece));
                chunks.push(Generated::chunk(&[part], None, None));
            }
        }
        for piece in pieces(&self.text, &self.cuts) {
            let part = format!("{{\"text\": {}}}", quoted(&piece));
            chunks.push(Generated::chunk(&[part], None, None));
        }
        if let Some(s) = &self.text_signature {
            let part = format!("{{\"text\": \"\", \"thoughtSignature\": {}}}", quoted(s));
            chunks.push(Generated::chunk(&[part], None, None));
        }
        for k in 0..self.calls.len() {
            chunks.push(Generated::chunk(&[self.call_part(k)], None, None));
        }
        chunks.push(Generated::chunk(
            &[],
            Some(self.finish),
            Some(&self.usage()),
        ));
        chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
    }

    /// The record the turn should give, made without the reader.
    fn record(&self) -> AssistantTurn {
        let before = usize::from(self.thought.is_some()) + 1;
        let mut turn = AssistantTurn::new(self.text.clone());
        let mut ids = Vec::new();
        for (k, (name, args)) in self.calls.iter().enumerate() {
            let id = self
                .id(k)
                .unwrap_or_else(|| format!("call_0_{}", before + k));
            turn = turn.call(&id, name, args).unwrap();
            ids.push(id);
        }
        if let (Some(s), Some(id)) = (&self.call_signature, ids.first()) {
            turn = turn
                .with_member(
                    "gemini_thought_signatures",
                    &format!("{{{}:{}}}", quoted(id), quoted(s)),
                )
                .unwrap();
        }
        let mut kept = Vec::new();
        if let Some(t) = &self.thought {
            kept.push(format!("{{\"text\":{},\"thought\":true}}", quoted(t)));
        }
        if let Some(s) = &self.text_signature {
            kept.push(format!(
                "{{\"text\":\"\",\"thoughtSignature\":{}}}",
                quoted(s)
            ));
        }
        if !kept.is_empty() {
            turn = turn
                .with_member("gemini_parts", &format!("[{}]", kept.join(",")))
                .unwrap();
        }
        turn.with_member("stop_reason", &quoted(self.finish))
            .unwrap()
            .with_member(
                "usage",
                &format!(
                    "{{\"promptTokenCount\":{},\"candidatesTokenCount\":{}}}",
                    self.usage.0, self.usage.1
                ),
            )
            .unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_generated_turn_reads_the_same_from_its_body_and_its_stream(g in generated()) {
        let expected = g.record();
        let body = from_response(Provider::Gemini, &g.body()).unwrap();
        prop_assert_eq!(&body, &expected);
        let stream = stream_of(Provider::Gemini, &[g.stream().as_bytes()]).unwrap();
        prop_assert_eq!(&stream, &expected);

        let json = converted(Provider::Gemini, &body);
        for (k, call) in body.calls().iter().enumerate() {
            let written = format!(
                "\"functionCall\":{{\"id\":{},\"name\":{},\"args\":{}}}",
                quoted(&call.id), quoted(&call.name), call.arguments
            );
            prop_assert!(json.contains(&written), "{} in {}", written, json);
            if let (Some(s), 0) = (&g.call_signature, k) {
                let signed = format!("{written},\"thoughtSignature\":{}}}", quoted(s));
                prop_assert!(json.contains(&signed), "{} in {}", signed, json);
            }
        }
        every_other_provider_takes(&[Provider::Gemini], &body);
    }
}
