//! Generated assistant turns written as OpenAI would answer them — a Chat
//! Completions body and its chunk stream, a Responses body and its event
//! stream — read back as the record the history API writes for them,
//! whatever the text pieces and however the bytes are cut.
#![cfg(feature = "media")]

use proptest::prelude::*;
use tool_carrier::history::AssistantTurn;
use tool_carrier::import::{from_response, response_stream};
use tool_carrier::provider::Provider;

#[derive(Clone, Debug)]
struct Generated {
    /// A Responses reasoning item's summary and encrypted content.
    reasoning: Option<(String, String)>,
    text: Option<String>,
    /// `(id, name, arguments JSON text)`.
    calls: Vec<(String, String, String)>,
    tokens: (u32, u32),
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn pieces(text: &str, k: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(k.max(1)).map(|c| c.iter().collect()).collect()
}

impl Generated {
    fn finish(&self) -> &'static str {
        if self.calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
    }

    fn usage(&self) -> String {
        let (i, o) = self.tokens;
        format!(
            r#"{{"prompt_tokens":{i},"completion_tokens":{o},"total_tokens":{}}}"#,
            i + o
        )
    }

    fn chat_body(&self) -> String {
        let calls: Vec<String> = self
            .calls
            .iter()
            .map(|(id, name, args)| {
                format!(
                    r#"{{"id":{},"type":"function","function":{{"name":{},"arguments":{}}}}}"#,
                    json(id),
                    json(name),
                    json(args)
                )
            })
            .collect();
        let tool_calls = if calls.is_empty() {
            String::new()
        } else {
            format!(r#","tool_calls":[{}]"#, calls.join(","))
        };
        format!(
            r#"{{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5.5","choices":[{{"index":0,"message":{{"role":"assistant","content":{}{tool_calls},"refusal":null}},"logprobs":null,"finish_reason":"{}"}}],"usage":{}}}"#,
            self.text.as_deref().map_or("null".into(), json),
            self.finish(),
            self.usage()
        )
    }

    fn chat_stream(&self, k: usize) -> String {
        let chunk = |delta: String, finish: &str, usage: &str, choices: bool| {
            let choices = if choices {
                format!(
                    r#"[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":{finish}}}]"#
                )
            } else {
                "[]".into()
            };
            format!(
                "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-5.5\",\"choices\":{choices},\"usage\":{usage}}}\n\n"
            )
        };
        let mut out = chunk(
            r#"{"role":"assistant","content":""}"#.into(),
            "null",
            "null",
            true,
        );
        for p in self
            .text
            .as_deref()
            .map(|t| pieces(t, k))
            .unwrap_or_default()
        {
            out += &chunk(
                format!(r#"{{"content":{}}}"#, json(&p)),
                "null",
                "null",
                true,
            );
        }
        for (n, (id, name, args)) in self.calls.iter().enumerate() {
            out += &chunk(
                format!(
                    r#"{{"tool_calls":[{{"index":{n},"id":{},"type":"function","function":{{"name":{},"arguments":""}}}}]}}"#,
                    json(id),
                    json(name)
                ),
                "null",
                "null",
                true,
            );
            for p in pieces(args, k) {
                out += &chunk(
                    format!(
                        r#"{{"tool_calls":[{{"index":{n},"function":{{"arguments":{}}}}}]}}"#,
                        json(&p)
                    ),
                    "null",
                    "null",
                    true,
                );
            }
        }
        out += &chunk("{}".into(), &format!("\"{}\"", self.finish()), "null", true);
        out += &chunk(String::new(), "null", &self.usage(), false);
        out + "data: [DONE]\n\n"
    }

    fn reasoning_item(&self) -> Option<String> {
        self.reasoning.as_ref().map(|(summary, encrypted)| {
            format!(
                r#"{{"id":"rs_1","type":"reasoning","summary":[{{"type":"summary_text","text":{}}}],"encrypted_content":{}}}"#,
                json(summary),
                json(encrypted)
            )
        })
    }

    fn responses_usage(&self) -> String {
        let (i, o) = self.tokens;
        format!(
            r#"{{"input_tokens":{i},"output_tokens":{o},"total_tokens":{}}}"#,
            i + o
        )
    }

    /// Each output item whole, and as added (before its deltas).
    fn responses_items(&self) -> Vec<(String, String)> {
        let mut items: Vec<(String, String)> = self
            .reasoning_item()
            .map(|r| (r.clone(), r))
            .into_iter()
            .collect();
        if let Some(text) = &self.text {
            let message = |t: &str, status: &str| {
                format!(
                    r#"{{"id":"msg_1","type":"message","status":"{status}","content":[{{"type":"output_text","annotations":[],"text":{}}}],"role":"assistant"}}"#,
                    json(t)
                )
            };
            items.push((message(text, "completed"), message("", "in_progress")));
        }
        for (n, (id, name, args)) in self.calls.iter().enumerate() {
            let call = |a: &str, status: &str| {
                format!(
                    r#"{{"id":"fc_{n}","type":"function_call","status":"{status}","arguments":{},"call_id":{},"name":{}}}"#,
                    json(a),
                    json(id),
                    json(name)
                )
            };
            items.push((call(args, "completed"), call("", "in_progress")));
        }
        items
    }

    fn responses_body(&self, status: &str, output: &[String], usage: &str) -> String {
        format!(
            r#"{{"id":"resp_1","object":"response","created_at":1,"status":"{status}","error":null,"incomplete_details":null,"model":"gpt-5.5","output":[{}],"usage":{usage}}}"#,
            output.join(",")
        )
    }

    fn responses(&self) -> String {
        let whole: Vec<String> = self.responses_items().into_iter().map(|(w, _)| w).collect();
        self.responses_body("completed", &whole, &self.responses_usage())
    }

    fn responses_stream(&self, k: usize) -> String {
        let mut seq = 0;
        let mut out = String::new();
        let mut event = |kind: &str, rest: String| {
            out += &format!(
                "event: {kind}\ndata: {{\"type\":\"{kind}\",{rest}\"sequence_number\":{seq}}}\n\n"
            );
            seq += 1;
        };
        event(
            "response.created",
            format!(
                r#""response":{},"#,
                self.responses_body("in_progress", &[], "null")
            ),
        );
        let items = self.responses_items();
        for (n, (whole, added)) in items.iter().enumerate() {
            event(
                "response.output_item.added",
                format!(r#""output_index":{n},"item":{added},"#),
            );
            let item: serde_json::Value = serde_json::from_str(whole).unwrap();
            match item["type"].as_str() {
                Some("message") => {
                    let text = item["content"][0]["text"].as_str().unwrap();
                    for p in pieces(text, k) {
                        event(
                            "response.output_text.delta",
                            format!(
                                r#""item_id":"msg_1","output_index":{n},"content_index":0,"delta":{},"#,
                                json(&p)
                            ),
                        );
                    }
                }
                Some("function_call") => {
                    let args = item["arguments"].as_str().unwrap();
                    for p in pieces(args, k) {
                        event(
                            "response.function_call_arguments.delta",
                            format!(r#""item_id":"fc","output_index":{n},"delta":{},"#, json(&p)),
                        );
                    }
                }
                _ => {}
            }
            event(
                "response.output_item.done",
                format!(r#""output_index":{n},"item":{whole},"#),
            );
        }
        let whole: Vec<String> = items.into_iter().map(|(w, _)| w).collect();
        event(
            "response.completed",
            format!(
                r#""response":{},"#,
                self.responses_body("completed", &whole, &self.responses_usage())
            ),
        );
        out
    }

    /// The Responses record, written with the history API.
    fn responses_record(&self) -> AssistantTurn {
        let mut turn = AssistantTurn::new(self.text.clone().unwrap_or_default());
        for (id, name, args) in &self.calls {
            turn = turn.call(id, name, args).unwrap();
        }
        if let Some(item) = self.reasoning_item() {
            turn = turn
                .with_member("openai_items", &format!("[{item}]"))
                .unwrap();
        }
        turn.with_member("stop_reason", "\"completed\"")
            .unwrap()
            .with_member("usage", &self.responses_usage())
            .unwrap()
    }

    /// The record, written with the history API.
    fn record(&self) -> AssistantTurn {
        let mut turn = AssistantTurn::new(self.text.clone().unwrap_or_default());
        for (id, name, args) in &self.calls {
            turn = turn.call(id, name, args).unwrap();
        }
        turn.with_member("stop_reason", &json(self.finish()))
            .unwrap()
            .with_member("usage", &self.usage())
            .unwrap()
    }
}

fn generated() -> impl Strategy<Value = Generated> {
    let text = "[a-zA-Z0-9 .,\"\\\\\u{e9}\u{1F600}\n]{1,40}";
    let args = proptest::collection::btree_map(
        "[a-z]{1,6}",
        prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            "[a-z \"]{0,8}".prop_map(|s| json(&s)),
            Just("123456789012345678901234567890".to_owned()),
        ],
        0..4,
    )
    .prop_map(|m| {
        let members: Vec<String> = m
            .into_iter()
            .map(|(k, v)| format!("{}:{v}", json(&k)))
            .collect();
        format!("{{{}}}", members.join(","))
    });
    (
        proptest::option::of((text, "[A-Za-z0-9_=-]{8,60}")),
        proptest::option::of(text),
        proptest::collection::vec(("call_[a-zA-Z0-9]{8}", "[a-z_]{1,10}", args), 0..4),
        (0u32..100_000, 1u32..10_000),
    )
        .prop_map(|(reasoning, text, calls, tokens)| Generated {
            reasoning: reasoning.map(|(s, e)| (s.to_string(), e)),
            text: text.map(|t| t.to_string()),
            calls,
            tokens,
        })
}

fn streamed(provider: Provider, text: &str, n: usize) -> AssistantTurn {
    let mut stream = response_stream(provider).unwrap();
    for piece in text.as_bytes().chunks(n) {
        stream.push(piece).unwrap();
    }
    stream.finish().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn chat_turns_read_back_as_written(turn in generated(), k in 1usize..7, n in 1usize..64) {
        let expected = turn.record();
        for provider in [Provider::OpenAiChat, Provider::OpenAiCompatible] {
            prop_assert_eq!(from_response(provider, &turn.chat_body()).unwrap(), expected.clone());
            prop_assert_eq!(streamed(provider, &turn.chat_stream(k), n), expected.clone());
        }
    }

    #[test]
    fn responses_turns_read_back_as_written(turn in generated(), k in 1usize..7, n in 1usize..64) {
        let expected = turn.responses_record();
        let provider = Provider::OpenAiResponses;
        prop_assert_eq!(from_response(provider, &turn.responses()).unwrap(), expected.clone());
        prop_assert_eq!(streamed(provider, &turn.responses_stream(k), n), expected);
    }
}
