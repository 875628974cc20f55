//! Anthropic responses, non-streamed and streamed, read into one assistant
//! record: the fixtures in `tests/data/responses/anthropic/` follow the documented
//! examples (a tool call, two parallel calls, a thinking block with its
//! signature and a tool input with a 30-digit integer and keys out of
//! order), each as a body and as the event stream of the same message.
#![cfg(feature = "media")]

use serde_json::Value;
use tool_carrier::history::AssistantTurn;
use tool_carrier::import::{from_response, response_stream, ResponseError};
use tool_carrier::provider::{build_request, Options, Provider};

const NAMES: [&str; 3] = ["tool_call", "parallel_calls", "thinking"];

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/data/responses/anthropic/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn streamed(bytes: &[u8]) -> Result<AssistantTurn, ResponseError> {
    let mut stream = response_stream(Provider::Anthropic).unwrap();
    stream.push(bytes)?;
    stream.finish()
}

#[test]
fn the_stream_and_the_body_give_the_same_record() {
    for name in NAMES {
        let body = from_response(Provider::Anthropic, &fixture(&format!("{name}.json"))).unwrap();
        let stream = streamed(fixture(&format!("{name}.sse")).as_bytes()).unwrap();
        assert_eq!(stream.to_record(), body.to_record(), "{name}");
        let via_table = from_response(Provider::Anthropic, &fixture(&format!("{name}.json")));
        assert_eq!(via_table.unwrap(), body, "{name}");
    }
}

#[test]
fn what_the_records_hold() {
    let turn = from_response(Provider::Anthropic, &fixture("tool_call.json")).unwrap();
    assert_eq!(
        turn.to_json(),
        concat!(
            r#"{"content":"I'll check the current weather in San Francisco for you.","#,
            r#""tool_calls":[{"id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","arguments":{"location":"San Francisco, CA","unit":"celsius"}}],"#,
            r#""stop_reason":"tool_use","usage":{"input_tokens":472,"output_tokens":89}}"#
        )
    );
    let turn = from_response(Provider::Anthropic, &fixture("parallel_calls.json")).unwrap();
    let ids: Vec<&str> = turn.calls().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["toolu_01WeatherSF", "toolu_01WeatherNY"]);

    let turn = streamed(fixture("thinking.sse").as_bytes()).unwrap();
    assert_eq!(
        turn.calls()[0].arguments,
        r#"{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    );
    let members: Vec<&str> = turn.members().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(members, ["anthropic_thinking", "stop_reason", "usage"]);
    assert_eq!(
        turn.members()[2].1,
        r#"{"input_tokens":1024,"cache_read_input_tokens":0,"output_tokens":256}"#
    );
}

/// The thinking block as the body wrote it (white space aside).
fn thinking_block() -> String {
    let body = fixture("thinking.json");
    let at = body.find(r#"{"type": "thinking""#).unwrap();
    let end = at + body[at..].find('}').unwrap() + 1;
    body[at..end]
        .replace("\", \"", "\",\"")
        .replace("\": \"", "\":\"")
}

#[test]
fn the_history_goes_back_to_anthropic_with_its_thinking_and_calls() {
    let turn = streamed(fixture("thinking.sse").as_bytes()).unwrap();
    let history = vec![("user".to_owned(), "Record it.".to_owned()), {
        let v: Value = serde_json::from_str(&turn.to_record()).unwrap();
        (
            v["role"].as_str().unwrap().to_owned(),
            v["content"].as_str().unwrap().to_owned(),
        )
    }];
    let request = build_request(Provider::Anthropic, &history, &Options::new()).unwrap();
    let json = request.json();
    let body: Value = serde_json::from_str(json).unwrap();
    let content = &body["messages"][1]["content"];
    // Thinking first, then the text, then the call.
    let block: Value = serde_json::from_str(&thinking_block()).unwrap();
    assert_eq!(content[0], block);
    assert!(json.contains(&thinking_block()), "{json}");
    assert_eq!(content[1]["text"], "Recording the entry now.");
    assert_eq!(content[2]["id"], "toolu_01Ledger");
    assert!(json.contains(
        r#""input":{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    ));
}

#[test]
fn every_split_of_the_stream_gives_the_same_record() {
    for name in NAMES {
        let text = fixture(&format!("{name}.sse"));
        let bytes = text.as_bytes();
        let expected = streamed(bytes).unwrap();
        for cut in 0..=bytes.len() {
            let mut stream = response_stream(Provider::Anthropic).unwrap();
            stream.push(&bytes[..cut]).unwrap();
            stream.push(&bytes[cut..]).unwrap();
            assert_eq!(stream.finish().unwrap(), expected, "{name} cut at {cut}");
        }
    }
    // And a byte at a time, through the provider's reader.
    let text = fixture("thinking.sse");
    let mut stream = response_stream(Provider::Anthropic).unwrap();
    for b in text.as_bytes() {
        stream.push(std::slice::from_ref(b)).unwrap();
    }
    assert_eq!(stream.finish().unwrap(), streamed(text.as_bytes()).unwrap());
}

#[test]
fn a_truncated_stream_says_what_it_lacks() {
    let text = fixture("thinking.sse");
    // Cut anywhere before message_stop's event is whole: an error.
    let stop = text.find("event: message_stop").unwrap();
    for cut in 0..stop {
        let err = streamed(&text.as_bytes()[..cut]).unwrap_err();
        assert!(
            matches!(err, ResponseError::Truncated { .. }),
            "cut at {cut}: {err}"
        );
    }
    let before_stop = streamed(&text.as_bytes()[..stop]).unwrap_err();
    assert_eq!(
        before_stop.to_string(),
        "the stream ended early: it lacks message_stop"
    );
    // Inside the thinking block: its stop is missing too.
    let cut = text.find("signature_delta").unwrap();
    let err = streamed(&text.as_bytes()[..cut]).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "the stream ended early: it lacks content_block_stop for block 0 and message_stop (it stops inside the line "
        ),
        "{err}"
    );
    assert_eq!(
        streamed(b"").unwrap_err().to_string(),
        "the stream ended early: it lacks message_start and message_stop"
    );
}

#[test]
fn errors_from_the_provider() {
    let err = from_response(Provider::Anthropic, &fixture("error.json")).unwrap_err();
    assert_eq!(
        err,
        ResponseError::Provider {
            kind: "overloaded_error".into(),
            message: "Overloaded".into()
        }
    );
    let mut stream = response_stream(Provider::Anthropic).unwrap();
    let err = stream.push(fixture("error.sse").as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the provider answered with an error: overloaded_error: Overloaded"
    );
    // It stays failed.
    assert_eq!(stream.finish().unwrap_err(), err);
    // An API whose responses are not read yet (where one is left) says so.
    for provider in Provider::ALL {
        if let Err(e @ ResponseError::Unsupported { .. }) = from_response(provider, "{}") {
            assert_eq!(
                e.to_string(),
                format!(
                    "{} responses are not read yet (only request bodies are)",
                    provider.name()
                )
            );
        }
    }
}

#[test]
fn a_turn_without_calls_keeps_its_members_and_goes_back_as_text() {
    let body = r#"{"type":"message","content":[{"type":"text","text":"I can't help with that."}],"stop_reason":"refusal","usage":{"input_tokens":5,"output_tokens":7}}"#;
    let turn = from_response(Provider::Anthropic, body).unwrap();
    assert_eq!(
        turn.to_json(),
        r#"{"content":"I can't help with that.","tool_calls":[],"stop_reason":"refusal","usage":{"input_tokens":5,"output_tokens":7}}"#
    );
    let history = vec![
        ("user".to_owned(), "Do it.".to_owned()),
        ("assistant".to_owned(), turn.to_json()),
        ("user".to_owned(), "Why?".to_owned()),
    ];
    for provider in [Provider::Anthropic, Provider::OpenAiChat] {
        let request = build_request(provider, &history, &Options::new()).unwrap();
        let json = request.json();
        assert!(json.contains("I can't help with that."), "{json}");
        assert!(
            !json.contains("refusal") && !json.contains("output_tokens"),
            "{json}"
        );
    }
}

/// A generated assistant turn, as Anthropic would answer it.
#[derive(Clone, Debug)]
struct Generated {
    thinking: Option<(String, String)>,
    texts: Vec<String>,
    /// `(id, name, input JSON text)`.
    calls: Vec<(String, String, String)>,
    stop_reason: &'static str,
    stop_sequence: Option<String>,
    tokens: (u32, u32),
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

impl Generated {
    fn thinking_block(&self) -> Option<String> {
        self.thinking.as_ref().map(|(t, s)| {
            format!(
                r#"{{"type":"thinking","thinking":{},"signature":{}}}"#,
                json(t),
                json(s)
            )
        })
    }

    /// The non-streamed body.
    fn body(&self) -> String {
        let mut blocks: Vec<String> = self.thinking_block().into_iter().collect();
        blocks.extend(
            self.texts
                .iter()
                .map(|t| format!(r#"{{"type":"text","text":{}}}"#, json(t))),
        );
        blocks.extend(self.calls.iter().map(|(id, name, input)| {
            format!(
                r#"{{"type":"tool_use","id":{},"name":{},"input":{input}}}"#,
                json(id),
                json(name)
            )
        }));
        format!(
            r#"{{"id":"msg_1","type":"message","role":"assistant","content":[{}],"stop_reason":"{}","stop_sequence":{},"usage":{{"input_tokens":{},"output_tokens":{}}}}}"#,
            blocks.join(","),
            self.stop_reason,
            self.stop_sequence.as_deref().map_or("null".into(), json),
            self.tokens.0,
            self.tokens.1
        )
    }

    /// The event stream of the same message, text cut every `k` characters.
    fn stream(&self, k: usize) -> String {
        let mut out = String::new();
        let mut event = |name: &str, data: String| {
            out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
        };
        event(
            "message_start",
            format!(
                r#"{{"type":"message_start","message":{{"id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":{},"output_tokens":1}}}}}}"#,
                self.tokens.0
            ),
        );
        let pieces = |text: &str| -> Vec<String> {
            let chars: Vec<char> = text.chars().collect();
            chars.chunks(k.max(1)).map(|c| c.iter().collect()).collect()
        };
        let mut index = 0;
        let delta = |event: &mut dyn FnMut(&str, String), index: usize, body: String| {
            event(
                "content_block_delta",
                format!(r#"{{"type":"content_block_delta","index":{index},"delta":{body}}}"#),
            );
        };
        if let Some((thinking, signature)) = &self.thinking {
            event(
                "content_block_start",
                format!(
                    r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"thinking","thinking":"","signature":""}}}}"#
                ),
            );
            for p in pieces(thinking) {
                delta(
                    &mut event,
                    index,
                    format!(r#"{{"type":"thinking_delta","thinking":{}}}"#, json(&p)),
                );
            }
            delta(
                &mut event,
                index,
                format!(
                    r#"{{"type":"signature_delta","signature":{}}}"#,
                    json(signature)
                ),
            );
            event(
                "content_block_stop",
                format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
            );
            index += 1;
        }
        for text in &self.texts {
            event(
                "content_block_start",
                format!(
                    r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"text","text":""}}}}"#
                ),
            );
            for p in pieces(text) {
                delta(
                    &mut event,
                    index,
                    format!(r#"{{"type":"text_delta","text":{}}}"#, json(&p)),
                );
            }
            event(
                "content_block_stop",
                format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
            );
            index += 1;
        }
        for (id, name, input) in &self.calls {
            event(
                "content_block_start",
                format!(
                    r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"tool_use","id":{},"name":{},"input":{{}}}}}}"#,
                    json(id),
                    json(name)
                ),
            );
            for p in pieces(input) {
                delta(
                    &mut event,
                    index,
                    format!(
                        r#"{{"type":"input_json_delta","partial_json":{}}}"#,
                        json(&p)
                    ),
                );
            }
            event(
                "content_block_stop",
                format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
            );
            index += 1;
        }
        event(
            "message_delta",
            format!(
                r#"{{"type":"message_delta","delta":{{"stop_reason":"{}","stop_sequence":{}}},"usage":{{"output_tokens":{}}}}}"#,
                self.stop_reason,
                self.stop_sequence.as_deref().map_or("null".into(), json),
                self.tokens.1
            ),
        );
        event("message_stop", r#"{"type":"message_stop"}"#.into());
        out
    }

    /// The record the turn should become, written with the history API.
    fn record(&self) -> AssistantTurn {
        let mut turn = AssistantTurn::new(self.texts.join("\n"));
        for (id, name, input) in &self.calls {
            turn = turn.call(id, name, input).unwrap();
        }
        if let Some(block) = self.thinking_block() {
            turn = turn
                .with_member("anthropic_thinking", &format!("[{block}]"))
                .unwrap();
        }
        turn = turn
            .with_member("stop_reason", &json(self.stop_reason))
            .unwrap();
        if let Some(sequence) = &self.stop_sequence {
            turn = turn.with_member("stop_sequence", &json(sequence)).unwrap();
        }
        turn.with_member(
            "usage",
            &format!(
                r#"{{"input_tokens":{},"output_tokens":{}}}"#,
                self.tokens.0, self.tokens.1
            ),
        )
        .unwrap()
    }
}

fn generated() -> impl proptest::strategy::Strategy<Value = Generated> {
    use proptest::prelude::*;
    let text = "[a-zA-Z0-9 .,\"\\\\\u{e9}\u{1F600}\n]{1,40}";
    let input = (
        proptest::collection::btree_map(
            "[a-z]{1,6}",
            prop_oneof![
                any::<i64>().prop_map(|n| n.to_string()),
                "[a-z \"]{0,8}".prop_map(|s| json(&s)),
                Just("123456789012345678901234567890".to_owned()),
                Just("[1,{\"b\":2,\"a\":null}]".to_owned()),
            ],
            0..4,
        ),
        any::<bool>(),
    )
        .prop_map(|(members, reversed)| {
            let mut members: Vec<String> = members
                .into_iter()
                .map(|(k, v)| format!("{}:{v}", json(&k)))
                .collect();
            if reversed {
                members.reverse(); // keys out of order stay so
            }
            format!("{{{}}}", members.join(","))
        });
    (
        proptest::option::of((text, "[A-Za-z0-9+/=]{8,40}")),
        proptest::collection::vec(text, 0..3),
        proptest::collection::vec(("toolu_[a-zA-Z0-9]{6}", "[a-z_]{1,10}", input), 0..4),
        prop_oneof![
            Just("end_turn"),
            Just("tool_use"),
            Just("max_tokens"),
            Just("stop_sequence"),
            Just("refusal")
        ],
        proptest::option::of("[A-Z]{1,6}"),
        (0u32..100_000, 1u32..10_000),
    )
        .prop_map(
            |(thinking, texts, calls, stop_reason, stop_sequence, tokens)| Generated {
                thinking: thinking.map(|(t, s)| (t.to_string(), s)),
                texts: texts.into_iter().map(|t| t.to_string()).collect(),
                calls,
                stop_reason,
                stop_sequence,
                tokens,
            },
        )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// A generated turn written as a body and as a stream (its text cut
    /// every `k` characters, its bytes pushed `n` at a time) reads back as
    /// the record the history API writes for it.
    #[test]
    fn generated_turns_read_back_as_written(turn in generated(), k in 1usize..7, n in 1usize..64) {
        let expected = turn.record();
        proptest::prop_assert_eq!(from_response(Provider::Anthropic, &turn.body()).unwrap(), expected.clone());
        let stream = turn.stream(k);
        let mut reader = response_stream(Provider::Anthropic).unwrap();
        for piece in stream.as_bytes().chunks(n) {
            reader.push(piece).unwrap();
        }
        proptest::prop_assert_eq!(reader.finish().unwrap(), expected);
    }
}
