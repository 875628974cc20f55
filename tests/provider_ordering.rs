//! The orderings each API demands, checked on the output of every
//! provider for the shipped histories, the edge cases and a history whose
//! results arrive out of order with other messages between them.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::Value;
use support::{calls, history, line, result, Fixture};
use tool_carrier::history;
use tool_carrier::history::Record;
use tool_carrier::provider::Provider;

/// Results out of order, a user message and a system message among them,
/// a result for a call nobody made, and a second batch.
fn shuffled() -> Vec<Record> {
    let lines = [
        line("user", "Check both pages."),
        calls(&[("c1", "screenshot"), ("c2", "screenshot"), ("c3", "fetch")]),
        result("c3", "fetched", &[]),
        line("user", "hurry up"),
        result("c1", "shot one", &["shots/dashboard.png"]),
        line("system", "Be terse."),
        result("nobody", "stray", &[]),
        result(
            "c2",
            "shot two",
            &["shots/editor.png", "reports/incident-42.pdf"],
        ),
        calls(&[("c4", "screenshot")]),
        result("c4", "shot three", &["shots/panel7.png"]),
        line("user", "Thanks."),
    ]
    .concat();
    history::read(lines.as_bytes()).unwrap()
}

fn histories() -> Vec<(&'static str, Vec<Record>)> {
    vec![
        ("history", history("examples/history.jsonl")),
        (
            "screenshot-round",
            history("examples/screenshot-round.jsonl"),
        ),
        ("edge-cases", history("tests/golden/edge-cases.jsonl")),
        ("shuffled", shuffled()),
    ]
}

fn bodies(provider: Provider) -> Vec<(&'static str, Value)> {
    let fixture = Fixture::new();
    histories()
        .into_iter()
        .map(|(name, messages)| {
            (
                name,
                support::build(provider, &messages, &fixture.options())
                    .body
                    .to_value(),
            )
        })
        .collect()
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().expect("an array")
}

fn ids(v: &[&Value], key: &str) -> Vec<String> {
    v.iter()
        .map(|b| b[key].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn anthropic_tool_result_blocks_come_first_in_the_next_user_turn() {
    for (name, body) in bodies(Provider::Anthropic) {
        let messages = arr(&body["messages"]);
        for (i, m) in messages.iter().enumerate() {
            let Some(blocks) = m["content"].as_array() else {
                continue;
            };
            let uses: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "tool_use").collect();
            if uses.is_empty() {
                continue;
            }
            let next = &messages[i + 1];
            assert_eq!(next["role"], "user", "{name}: message {i}");
            let next_blocks = arr(&next["content"]);
            let leading: Vec<&Value> = next_blocks
                .iter()
                .take_while(|b| b["type"] == "tool_result")
                .collect();
            assert_eq!(
                ids(&leading, "tool_use_id"),
                ids(&uses, "id"),
                "{name}: message {}",
                i + 1
            );
            assert!(
                next_blocks[leading.len()..]
                    .iter()
                    .all(|b| b["type"] != "tool_result"),
                "{name}: a tool_result after other content in message {}",
                i + 1
            );
        }
    }
}

#[test]
fn anthropic_and_bedrock_roles_alternate_starting_with_the_user() {
    for provider in [Provider::Anthropic, Provider::Bedrock] {
        for (name, body) in bodies(provider) {
            let roles: Vec<&str> = arr(&body["messages"])
                .iter()
                .map(|m| m["role"].as_str().unwrap())
                .collect();
            assert_eq!(roles[0], "user", "{provider} {name}");
            assert!(
                roles.windows(2).all(|w| w[0] != w[1]),
                "{provider} {name}: {roles:?}"
            );
        }
    }
}

#[test]
fn bedrock_tool_results_come_first_in_the_next_user_turn() {
    for (name, body) in bodies(Provider::Bedrock) {
        let messages = arr(&body["messages"]);
        for (i, m) in messages.iter().enumerate() {
            let uses: Vec<&Value> = arr(&m["content"])
                .iter()
                .filter_map(|b| b.get("toolUse"))
                .collect();
            if uses.is_empty() {
                continue;
            }
            let next = arr(&messages[i + 1]["content"]);
            let leading: Vec<&Value> = next.iter().map_while(|b| b.get("toolResult")).collect();
            assert_eq!(
                ids(&leading, "toolUseId"),
                ids(&uses, "toolUseId"),
                "{name}: message {i}"
            );
        }
    }
}

#[test]
fn openai_chat_has_no_user_message_between_tool_calls_and_their_results() {
    for (name, body) in bodies(Provider::OpenAiChat) {
        let messages = arr(&body["messages"]);
        for (i, m) in messages.iter().enumerate() {
            let Some(tool_calls) = m["tool_calls"].as_array() else {
                continue;
            };
            let call_ids: Vec<&Value> = tool_calls.iter().collect();
            let answers: Vec<&Value> = messages[i + 1..i + 1 + call_ids.len()].iter().collect();
            assert!(
                answers.iter().all(|a| a["role"] == "tool"),
                "{name}: something other than a tool message right after the calls of message {i}"
            );
            assert_eq!(
                ids(&answers, "tool_call_id"),
                ids(&call_ids, "id"),
                "{name}: message {i}"
            );
            // Whatever follows the batch is not another tool message.
            if let Some(after) = messages.get(i + 1 + call_ids.len()) {
                assert_ne!(after["role"], "tool", "{name}: message {i}");
            }
        }
    }
}

#[test]
fn openai_chat_tool_messages_carry_text_only_and_media_follow_the_batch() {
    for (name, body) in bodies(Provider::OpenAiChat) {
        let messages = arr(&body["messages"]);
        for (i, m) in messages.iter().enumerate() {
            if m["role"] == "tool" {
                assert!(m["content"].is_string(), "{name}: message {i}");
                let follows = m["content"]
                    .as_str()
                    .unwrap()
                    .contains("follows in the next user message");
                if follows {
                    // The next non-tool message is the user message with the media.
                    let next = messages[i + 1..]
                        .iter()
                        .find(|n| n["role"] != "tool")
                        .unwrap();
                    assert_eq!(next["role"], "user", "{name}: message {i}");
                    assert!(arr(&next["content"]).iter().any(|p| p["type"] != "text"));
                }
            }
        }
    }
}

#[test]
fn openai_responses_outputs_follow_their_function_calls() {
    for (name, body) in bodies(Provider::OpenAiResponses) {
        let input = arr(&body["input"]);
        let mut i = 0;
        while i < input.len() {
            if input[i]["type"] != "function_call" {
                i += 1;
                continue;
            }
            let calls: Vec<&Value> = input[i..]
                .iter()
                .take_while(|x| x["type"] == "function_call")
                .collect();
            let outputs: Vec<&Value> = input[i + calls.len()..i + 2 * calls.len()].iter().collect();
            assert!(
                outputs.iter().all(|o| o["type"] == "function_call_output"),
                "{name}: item {i}"
            );
            assert_eq!(
                ids(&outputs, "call_id"),
                ids(&calls, "call_id"),
                "{name}: item {i}"
            );
            i += 2 * calls.len();
        }
    }
}

#[test]
fn gemini_function_responses_follow_their_calls_one_for_one() {
    for provider in [Provider::Gemini, Provider::Gemini2] {
        for (name, body) in bodies(provider) {
            let contents = arr(&body["contents"]);
            assert_eq!(contents[0]["role"], "user", "{provider} {name}");
            for (i, c) in contents.iter().enumerate() {
                let calls: Vec<&Value> = arr(&c["parts"])
                    .iter()
                    .filter_map(|p| p.get("functionCall"))
                    .collect();
                if calls.is_empty() {
                    continue;
                }
                assert_eq!(c["role"], "model");
                // A model turn with calls follows a user turn.
                assert_eq!(
                    contents[i - 1]["role"],
                    "user",
                    "{provider} {name}: content {i}"
                );
                let next = &contents[i + 1];
                assert_eq!(next["role"], "user");
                let responses: Vec<&Value> = arr(&next["parts"])
                    .iter()
                    .map(|p| p.get("functionResponse").expect("only function responses"))
                    .collect();
                assert_eq!(
                    ids(&responses, "id"),
                    ids(&calls, "id"),
                    "{provider} {name}: content {i}"
                );
                assert_eq!(ids(&responses, "name"), ids(&calls, "name"));
                assert!(responses.iter().all(|r| r["response"].is_object()));
            }
        }
    }
}

#[test]
fn gemini_3_nests_media_in_the_response_and_gemini_2_after_it() {
    let (_, nested) = bodies(Provider::Gemini).swap_remove(1);
    let (_, separate) = bodies(Provider::Gemini2).swap_remove(1);
    let response_parts = |body: &Value| -> usize {
        arr(&body["contents"])
            .iter()
            .flat_map(|c| arr(&c["parts"]))
            .filter_map(|p| p.get("functionResponse"))
            .filter_map(|r| r.get("parts"))
            .map(|p| arr(p).len())
            .sum()
    };
    assert_eq!(response_parts(&nested), 2);
    assert_eq!(response_parts(&separate), 0);
    let contents = arr(&separate["contents"]);
    let last = contents.last().unwrap();
    assert_eq!(last["role"], "user");
    let inline = arr(&last["parts"])
        .iter()
        .filter(|p| p.get("inlineData").is_some())
        .count();
    assert_eq!(inline, 2);
    assert!(arr(&contents[contents.len() - 2]["parts"])
        .iter()
        .all(|p| p.get("functionResponse").is_some()));
}

#[test]
fn ollama_tool_messages_follow_the_calls_and_images_follow_the_batch() {
    for (name, body) in bodies(Provider::Ollama) {
        let messages = arr(&body["messages"]);
        for (i, m) in messages.iter().enumerate() {
            let Some(tool_calls) = m["tool_calls"].as_array() else {
                continue;
            };
            let answers = &messages[i + 1..i + 1 + tool_calls.len()];
            for (call, answer) in tool_calls.iter().zip(answers) {
                assert_eq!(answer["role"], "tool", "{name}: message {i}");
                assert_eq!(answer["tool_name"], call["function"]["name"]);
                assert!(answer.get("images").is_none());
            }
            if let Some(after) = messages.get(i + 1 + tool_calls.len()) {
                assert_ne!(after["role"], "tool");
            }
        }
    }
}

#[test]
fn messages_between_calls_and_results_move_after_the_results() {
    let fixture = Fixture::new();
    let request = support::build(Provider::OpenAiChat, &shuffled(), &fixture.options());
    let roles: Vec<String> = arr(&request.body.to_value()["messages"])
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap();
            let text = match &m["content"] {
                Value::String(s) => s.as_str(),
                Value::Null => "null",
                _ => "[parts]",
            };
            format!("{role}: {}", text.lines().next().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        roles,
        [
            "user: Check both pages.",
            "assistant: null",
            "tool: shot one",
            "tool: shot two",
            "tool: fetched",
            "user: [parts]",
            "user: hurry up",
            // The default model reasons: its system text goes as `developer`.
            "developer: Be terse.",
            "user: [Tool result for call nobody, which no tool call is waiting for]",
            "assistant: null",
            "tool: shot three",
            "user: [parts]",
            "user: Thanks.",
        ]
    );
}
