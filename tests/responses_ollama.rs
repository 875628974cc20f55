//! Ollama chat responses, non-streamed and streamed (NDJSON), read into
//! one assistant record: the fixtures in `tests/data/responses/ollama/`
//! follow the documented examples (the weather tool call, two calls at
//! once, thinking before a call whose arguments hold a 30-digit integer
//! and keys out of order, and errors), each as a body and as the stream of
//! the same message; and the thinking goes back to Ollama.
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

const NAMES: [&str; 3] = ["tool_call", "parallel_calls", "thinking"];

fn ollama(name: &str) -> String {
    fixture("ollama", name)
}

fn body(name: &str) -> AssistantTurn {
    read_as(
        Provider::Ollama,
        &ollama(&format!("{name}.json")),
        ResponseForm::Body,
    )
}

fn streamed(name: &str) -> AssistantTurn {
    read_as(
        Provider::Ollama,
        &ollama(&format!("{name}.ndjson")),
        ResponseForm::Stream,
    )
}

const THINKING: &str =
    "The user wants the ledger entry recorded. The amount is larger than 64 bits, so I must not round it.";

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
            r#"{"content":null,"tool_calls":[{"id":"call_0_0","name":"get_weather","arguments":{"city":"Toronto"}}],"#,
            r#""stop_reason":"stop","usage":{"total_duration":3076430125,"load_duration":2011383834,"prompt_eval_count":169,"#,
            r#""prompt_eval_duration":84765458,"eval_count":23,"eval_duration":978327583}}"#
        )
    );
    let turn = streamed("parallel_calls");
    assert_eq!(turn.text(), "Checking both.");
    let calls: Vec<(&str, &str)> = turn
        .calls()
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_0_0", "get_temperature"),
            ("call_0_1", "get_conditions")
        ]
    );
    let turn = streamed("thinking");
    assert_eq!(
        turn.calls()[0].arguments,
        r#"{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    );
    assert_eq!(
        turn.members()[0],
        ("ollama_thinking".to_owned(), quoted(THINKING))
    );
}

#[test]
fn the_record_holds_what_the_request_reader_keeps_for_the_same_message() {
    for name in NAMES {
        let response: Value = serde_json::from_str(&ollama(&format!("{name}.json"))).unwrap();
        let messages = Value::Array(vec![response["message"].clone()]);
        let history = from_provider(
            Provider::Ollama,
            &messages,
            &mut InlineStore,
            &ImportOptions::default(),
        )
        .unwrap();
        let read: Value = serde_json::from_str(history.messages[0].content()).unwrap();
        let record: Value = serde_json::from_str(&body(name).to_json()).unwrap();
        for member in ["content", "tool_calls", "ollama_thinking"] {
            assert_eq!(record[member], read[member], "{name}: {member}");
        }
    }
}

#[test]
fn every_split_of_the_stream_gives_the_same_record() {
    for name in NAMES {
        let text = ollama(&format!("{name}.ndjson"));
        every_split_gives(Provider::Ollama, text.as_bytes(), &body(name), name);
    }
}

#[test]
fn a_truncated_stream_says_what_it_lacks() {
    let text = ollama("thinking.ndjson");
    let done = text.find("\"done\":true").unwrap();
    let done = text[..done].rfind('\n').unwrap() + 1;
    for cut in (0..done).step_by(29) {
        let err = stream_of(Provider::Ollama, &[&text.as_bytes()[..cut]]).unwrap_err();
        assert!(
            matches!(&err, ResponseError::Truncated { missing } if missing.starts_with("the line with \"done\": true")),
            "cut at {cut}: {err}"
        );
    }
    assert_eq!(
        stream_of(Provider::Ollama, &[&text.as_bytes()[..done]])
            .unwrap_err()
            .to_string(),
        "the stream ended early: it lacks the line with \"done\": true"
    );
    // The last line without its line feed stands.
    assert_eq!(
        stream_of(Provider::Ollama, &[text.trim_end().as_bytes()]).unwrap(),
        body("thinking")
    );
}

#[test]
fn errors_from_the_provider() {
    assert_eq!(
        from_response(Provider::Ollama, &ollama("error.json")),
        Err(ResponseError::Provider {
            kind: "error".into(),
            message: "model \"qwen3\" not found, try pulling it first".into()
        })
    );
    let mut stream = response_stream(Provider::Ollama).unwrap();
    let err = stream.push(ollama("error.ndjson").as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the provider answered with an error: error: an error was encountered while running the model: unexpected EOF"
    );
    assert_eq!(stream.finish().unwrap_err(), err);
}

#[test]
fn the_history_goes_back_to_ollama_with_its_thinking() {
    let turn = streamed("thinking");
    let json = converted(Provider::Ollama, &turn);
    assert!(
        json.contains(&format!(
            r#"{{"role":"assistant","content":"Recording the entry now.","thinking":{},"tool_calls":[{{"function":{{"name":"record_entry","arguments":{{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{{"b":2,"a":[3,1,2]}},"alpha":-0.0}}}}}}]}}"#,
            quoted(THINKING)
        )),
        "{json}"
    );
    // Other providers are not given it.
    for provider in [Provider::Anthropic, Provider::Bedrock, Provider::OpenAiChat] {
        assert!(
            !converted(provider, &turn).contains("64 bits"),
            "{provider}"
        );
    }
    for name in NAMES {
        every_other_provider_takes(&[Provider::Ollama], &body(name));
    }
}

/// A generated chat turn, and how its stream is cut.
#[derive(Debug, Clone)]
struct Generated {
    thinking: Option<String>,
    text: String,
    calls: Vec<(String, String)>,
    /// Whether the calls carry ids (newer servers).
    ids: bool,
    done_reason: &'static str,
    counts: (u64, u32, u32),
    cuts: Vec<usize>,
}

fn generated() -> impl Strategy<Value = Generated> {
    (
        proptest::option::of(said()),
        said(),
        prop::collection::vec(call(), 0..=3),
        any::<bool>(),
        prop_oneof![Just("stop"), Just("length")],
        (0u64..u64::MAX / 2, 0u32..100_000, 0u32..100_000),
        cuts(),
    )
        .prop_map(
            |(thinking, text, calls, ids, done_reason, counts, cuts)| Generated {
                thinking,
                text,
                calls,
                ids,
                done_reason,
                counts,
                cuts,
            },
        )
}

impl Generated {
    fn id(&self, k: usize) -> String {
        if self.ids {
            format!("call_{k}_x")
        } else {
            format!("call_0_{k}")
        }
    }

    fn call(&self, k: usize) -> String {
        let (name, args) = &self.calls[k];
        let id = if self.ids {
            format!("\"id\":{},", quoted(&self.id(k)))
        } else {
            String::new()
        };
        format!(
            "{{{id}\"function\":{{\"index\":{k},\"name\":{},\"arguments\":{args}}}}}",
            quoted(name)
        )
    }

    fn counts(&self) -> String {
        format!(
            "\"total_duration\":{},\"prompt_eval_count\":{},\"eval_count\":{}",
            self.counts.0, self.counts.1, self.counts.2
        )
    }

    fn line(message: String, done: bool) -> String {
        format!("{{\"model\":\"qwen3\",\"created_at\":\"2026-12-02T10:00:00Z\",\"message\":{{\"role\":\"assistant\",{message}}},\"done\":{done}}}")
    }

    fn body(&self) -> String {
        let mut message = format!("\"content\":{}", quoted(&self.text));
        if let Some(t) = &self.thinking {
            message.push_str(&format!(",\"thinking\":{}", quoted(t)));
        }
        if !self.calls.is_empty() {
            let calls: Vec<String> = (0..self.calls.len()).map(|k| self.call(k)).collect();
            message.push_str(&format!(",\"tool_calls\":[{}]", calls.join(",")));
        }
        let line = Generated::line(message, true);
        format!(
            "{},\"done_reason\":{},{}}}",
            &line[..line.len() - 1],
            quoted(self.done_reason),
            self.counts()
        )
    }

    fn stream(&self) -> String {
        let mut lines = Vec::new();
        if let Some(t) = &self.thinking {
            for piece in pieces(t, &self.cuts) {
                lines.push(Generated::line(
                    format!("\"content\":\"\",\"thinking\":{}", quoted(&piece)),
                    false,
                ));
            }
        }
        for piece in pieces(&self.text, &self.cuts) {
            lines.push(Generated::line(
                format!("\"content\":{}", quoted(&piece)),
                false,
            ));
        }
        for k in 0..self.calls.len() {
            lines.push(Generated::line(
                format!("\"content\":\"\",\"tool_calls\":[{}]", self.call(k)),
                false,
            ));
        }
        let last = Generated::line("\"content\":\"\"".into(), true);
        lines.push(format!(
            "{},\"done_reason\":{},{}}}",
            &last[..last.len() - 1],
            quoted(self.done_reason),
            self.counts()
        ));
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The record the turn should give, made without the reader.
    fn record(&self) -> AssistantTurn {
        let mut turn = AssistantTurn::new(self.text.clone());
        for (k, (name, args)) in self.calls.iter().enumerate() {
            turn = turn.call(self.id(k), name, args).unwrap();
        }
        if let Some(t) = &self.thinking {
            turn = turn.with_member("ollama_thinking", &quoted(t)).unwrap();
        }
        turn.with_member("stop_reason", &quoted(self.done_reason))
            .unwrap()
            .with_member("usage", &format!("{{{}}}", self.counts()))
            .unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_generated_turn_reads_the_same_from_its_body_and_its_stream(g in generated()) {
        let expected = g.record();
        let body = from_response(Provider::Ollama, &g.body()).unwrap();
        prop_assert_eq!(&body, &expected);
        let stream = stream_of(Provider::Ollama, &[g.stream().as_bytes()]).unwrap();
        prop_assert_eq!(&stream, &expected);

        let json = converted(Provider::Ollama, &body);
        for call in body.calls() {
            let written = format!(
                "{{\"function\":{{\"name\":{},\"arguments\":{}}}}}",
                quoted(&call.name), call.arguments
            );
            prop_assert!(json.contains(&written), "{} in {}", written, json);
        }
        if let Some(t) = &g.thinking {
            let written = format!("\"thinking\":{}", quoted(t));
            prop_assert!(json.contains(&written), "{} in {}", written, json);
        }
        every_other_provider_takes(&[Provider::Ollama], &body);
    }
}
