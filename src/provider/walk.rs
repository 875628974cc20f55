//! The walk shared by every builder: history messages to a neutral
//! sequence of turns.
//!
//! * `system` (and `developer`) messages → [`Turn::System`].
//! * `user` messages → [`Turn::User`], or [`Turn::Carrier`] for a
//!   prompt-mode carrier (its declared attachments become slots).
//! * `assistant` messages → [`Turn::Assistant`], with the tool calls of a
//!   tool-call envelope (`{"content": …, "tool_calls": [{"id", "name", "arguments"}]}`).
//! * After an assistant turn with calls, every `tool` message up to the
//!   next assistant message is paired with a call — by the envelope's
//!   `tool_call_id` when it has one, else with the first call still
//!   unanswered — and the batch becomes one [`Turn::Results`] in call order
//!   right after the calls. A call nobody answered gets a result saying so;
//!   other messages found among the results follow the batch, in order.
//! * A `tool` message no call claims → [`Turn::Carrier`], labelled.
//!
//! Only a carrier's declared attachments become [`Slot`]s; its body is text
//! and is never scanned.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::carrier::{Attachment, AttachmentKind, Carrier, TOOL_RESULTS_PREFIX};
use crate::media::Prepared;

use super::NoteReason;
use crate::Role;

/// One step of the conversation, provider-neutral.
#[derive(Debug)]
pub(crate) enum Turn<'a> {
    /// System text.
    System(&'a str),
    /// User text.
    User(Cow<'a, str>),
    /// Assistant text and tool calls.
    Assistant(AssistantTurn<'a>),
    /// The results of the preceding assistant turn's calls, in call order.
    Results(Vec<ToolResult<'a>>),
    /// A user message with attachments: a prompt-mode carrier, or a tool
    /// result no call claims.
    Carrier(UserCarrier<'a>),
}

/// An assistant message.
#[derive(Debug)]
pub(crate) struct AssistantTurn<'a> {
    /// Its text; `None` when there is none.
    pub text: Option<Cow<'a, str>>,
    /// Its tool calls, in order.
    pub calls: Vec<Call>,
}

/// One tool call.
#[derive(Debug)]
pub(crate) struct Call {
    /// The call id (synthesised as `call_<message>_<n>` when absent).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub arguments: Arguments,
}

/// Tool-call arguments: a JSON string or an object in the history.
#[derive(Debug)]
pub(crate) enum Arguments {
    /// Given as a string (kept verbatim for providers that take a string).
    Text(String),
    /// Given as a JSON value.
    Json(Value),
}

impl Arguments {
    /// As a JSON string (OpenAI): a string stays verbatim, except that
    /// blank text is `{}`.
    pub fn to_json_string(&self) -> String {
        match self {
            Arguments::Text(s) if s.trim().is_empty() => "{}".to_owned(),
            Arguments::Text(s) => s.clone(),
            Arguments::Json(Value::Null) => "{}".to_owned(),
            Arguments::Json(v) => v.to_string(),
        }
    }

    /// As an object (Anthropic, Gemini, Bedrock, Ollama): a string that
    /// holds an object is parsed; blank text is `{}`; anything else is
    /// kept whole under `"arguments"`, so nothing is lost.
    pub fn to_object(&self) -> Map<String, Value> {
        let value = match self {
            Arguments::Text(s) if s.trim().is_empty() => return Map::new(),
            Arguments::Text(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(map)) => return map,
                _ => Value::String(s.clone()),
            },
            Arguments::Json(Value::Object(map)) => return map.clone(),
            Arguments::Json(Value::Null) => return Map::new(),
            Arguments::Json(v) => v.clone(),
        };
        let mut map = Map::new();
        map.insert("arguments".into(), value);
        map
    }
}

/// The result of one call.
#[derive(Debug)]
pub(crate) struct ToolResult<'a> {
    /// The id of the call it answers.
    pub call_id: String,
    /// The name of the tool called.
    pub name: String,
    /// The body (verbatim tool output).
    pub body: Cow<'a, str>,
    /// Its declared attachments.
    pub slots: Vec<Slot<'a>>,
}

/// A user message holding attachments.
#[derive(Debug)]
pub(crate) struct UserCarrier<'a> {
    /// The text shown to the model.
    pub text: Cow<'a, str>,
    /// Its declared attachments.
    pub slots: Vec<Slot<'a>>,
}

/// One declared attachment and what it became.
#[derive(Debug)]
pub(crate) struct Slot<'a> {
    /// Index of the message that declared it.
    pub index: usize,
    /// What it was declared as.
    pub kind: AttachmentKind,
    /// Where it lives, as declared.
    pub target: Cow<'a, str>,
    /// What it became.
    pub media: Media,
}

/// What a declared attachment became.
#[derive(Debug)]
pub(crate) enum Media {
    /// Not resolved yet.
    Pending,
    /// Bytes to send inline.
    Inline(Prepared),
    /// An `http(s)` URL the provider fetches itself.
    Url(String),
    /// A note to send instead, and why.
    Note(NoteReason, String),
}

/// Text of the result given to a call nobody answered.
pub(crate) const NO_RESULT: &str = "[no result was recorded for this call]";

/// Walk `messages` into turns.
pub(crate) fn walk<R: AsRef<str>, C: AsRef<str>>(messages: &[(R, C)]) -> Vec<Turn<'_>> {
    let mut turns = Vec::with_capacity(messages.len());
    let mut i = 0;
    while i < messages.len() {
        let (role, content) = (Role::parse(messages[i].0.as_ref()), messages[i].1.as_ref());
        if role != Role::Assistant {
            turns.push(single(i, role, content));
            i += 1;
            continue;
        }
        let turn = assistant(i, content);
        if turn.calls.is_empty() {
            turns.push(Turn::Assistant(turn));
            i += 1;
            continue;
        }
        // The window of this turn's results: up to the next assistant.
        let end = messages[i + 1..]
            .iter()
            .position(|(r, _)| Role::parse(r.as_ref()) == Role::Assistant)
            .map_or(messages.len(), |p| i + 1 + p);
        let mut answers: Vec<Option<ToolResult<'_>>> = turn.calls.iter().map(|_| None).collect();
        let mut after = Vec::new();
        for (j, (r, c)) in messages.iter().enumerate().take(end).skip(i + 1) {
            let (r, c) = (Role::parse(r.as_ref()), c.as_ref());
            if r != Role::Tool {
                after.push(single(j, r, c));
                continue;
            }
            let carrier = Carrier::native(c);
            let claimed = match carrier.call_id.as_deref() {
                Some(id) => turn
                    .calls
                    .iter()
                    .zip(&answers)
                    .position(|(call, answer)| call.id == id && answer.is_none()),
                None => answers.iter().position(Option::is_none),
            };
            match claimed {
                Some(k) => {
                    let call = &turn.calls[k];
                    answers[k] = Some(ToolResult {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        slots: slots(j, carrier.attachments()),
                        body: carrier.body,
                    });
                }
                None => after.push(unclaimed(j, carrier)),
            }
        }
        let results = turn
            .calls
            .iter()
            .zip(answers)
            .map(|(call, answer)| {
                answer.unwrap_or_else(|| ToolResult {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    body: Cow::Borrowed(NO_RESULT),
                    slots: Vec::new(),
                })
            })
            .collect();
        turns.push(Turn::Assistant(turn));
        turns.push(Turn::Results(results));
        turns.extend(after);
        i = end;
    }
    turns
}

/// A message that is not an assistant's, on its own.
fn single<'a>(index: usize, role: Role<'_>, content: &'a str) -> Turn<'a> {
    match role {
        Role::System | Role::Developer => Turn::System(content),
        Role::User => match Carrier::prompt(content) {
            Some(carrier) => {
                let text = if carrier.is_declared() {
                    // The count and marker lines are gone (the attachments
                    // travel as media); line 1 says what the text is.
                    Cow::Owned(format!("{TOOL_RESULTS_PREFIX}\n{}", carrier.body))
                } else {
                    Cow::Borrowed(content)
                };
                Turn::Carrier(UserCarrier {
                    text,
                    slots: slots(index, carrier.attachments()),
                })
            }
            None => Turn::User(Cow::Borrowed(content)),
        },
        Role::Tool => unclaimed(index, Carrier::native(content)),
        Role::Other(other) => Turn::User(Cow::Owned(format!("[{other}]\n{content}"))),
        // The walk takes assistant messages apart (their calls pair with
        // the results after them); as text here for completeness.
        Role::Assistant => Turn::Assistant(AssistantTurn {
            text: (!content.is_empty()).then_some(Cow::Borrowed(content)),
            calls: Vec::new(),
        }),
    }
}

/// A tool result no call claims, labelled (with its call id when the
/// envelope names one).
fn unclaimed(index: usize, carrier: Carrier<'_>) -> Turn<'_> {
    let label = match carrier.call_id.as_deref() {
        Some(id) => format!("[Tool result for call {id}, which no tool call is waiting for]"),
        None => "[Tool result that no tool call is waiting for]".to_owned(),
    };
    Turn::Carrier(UserCarrier {
        text: Cow::Owned(format!("{label}\n{}", carrier.body)),
        slots: slots(index, carrier.attachments()),
    })
}

fn slots<'a>(index: usize, attachments: &[Attachment<'a>]) -> Vec<Slot<'a>> {
    attachments
        .iter()
        .map(|a| Slot {
            index,
            kind: a.kind,
            target: a.target.clone(),
            media: Media::Pending,
        })
        .collect()
}

/// An assistant message: a tool-call envelope, or text.
fn assistant(index: usize, content: &str) -> AssistantTurn<'_> {
    envelope(index, content).unwrap_or(AssistantTurn {
        text: (!content.is_empty()).then_some(Cow::Borrowed(content)),
        calls: Vec::new(),
    })
}

/// `{"content": <text|null>, "tool_calls": [{"id","name","arguments"}…]}`.
/// Anything else (other JSON, a call without a name, a non-string content)
/// is not an envelope, and the message stays text.
fn envelope(index: usize, content: &str) -> Option<AssistantTurn<'static>> {
    if !content.trim_start().starts_with('{') {
        return None;
    }
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(content) else {
        return None;
    };
    let Some(Value::Array(raw_calls)) = map.remove("tool_calls") else {
        return None;
    };
    let text = match map.remove("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => (!s.is_empty()).then_some(Cow::Owned(s)),
        Some(_) => return None,
    };
    let mut calls = Vec::with_capacity(raw_calls.len());
    for (n, raw) in raw_calls.into_iter().enumerate() {
        let Value::Object(mut call) = raw else {
            return None;
        };
        // Also read the OpenAI nesting, {"function": {"name", "arguments"}}.
        if let Some(Value::Object(function)) = call.remove("function") {
            for (k, v) in function {
                call.entry(k).or_insert(v);
            }
        }
        let Some(Value::String(name)) = call.remove("name") else {
            return None;
        };
        let id = match call.remove("id") {
            Some(Value::String(id)) if !id.is_empty() => id,
            _ => format!("call_{index}_{n}"),
        };
        let arguments = match call.remove("arguments") {
            Some(Value::String(s)) => Arguments::Text(s),
            Some(v) => Arguments::Json(v),
            None => Arguments::Json(Value::Null),
        };
        calls.push(Call {
            id,
            name,
            arguments,
        });
    }
    Some(AssistantTurn { text, calls })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(turns: &[Turn<'_>]) -> Vec<String> {
        turns
            .iter()
            .map(|t| match t {
                Turn::System(_) => "system".to_owned(),
                Turn::User(_) => "user".to_owned(),
                Turn::Assistant(a) => format!("assistant:{}", a.calls.len()),
                Turn::Results(r) => format!(
                    "results:{}",
                    r.iter()
                        .map(|r| r.call_id.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                Turn::Carrier(_) => "carrier".to_owned(),
            })
            .collect()
    }

    const CALLS: &str = r#"{"content":"Looking.","tool_calls":[{"id":"a","name":"one","arguments":"{\"x\":1}"},{"id":"b","name":"two","arguments":{"y":2}}]}"#;

    #[test]
    fn results_follow_their_calls_in_call_order() {
        let history = [
            ("assistant", CALLS),
            (
                "tool",
                r#"{"tool_call_id":"b","content":"B","attachments":[]}"#,
            ),
            ("user", "an interjection"),
            (
                "tool",
                r#"{"tool_call_id":"a","content":"A","attachments":[]}"#,
            ),
            ("assistant", "done"),
        ];
        let turns = walk(&history);
        assert_eq!(
            kinds(&turns),
            ["assistant:2", "results:a,b", "user", "assistant:0"]
        );
    }

    #[test]
    fn results_without_ids_answer_calls_in_order() {
        let history = [
            ("assistant", CALLS),
            ("tool", "raw text from a legacy runtime"),
            ("tool", r#"{"content":"second"}"#),
        ];
        let turns = walk(&history);
        let Turn::Results(results) = &turns[1] else {
            panic!()
        };
        assert_eq!(results[0].body, "raw text from a legacy runtime");
        assert_eq!(results[1].body, "second");
    }

    #[test]
    fn unanswered_calls_get_a_result_and_unclaimed_results_stay_visible() {
        let history = [
            ("assistant", CALLS),
            (
                "tool",
                r#"{"tool_call_id":"zzz","content":"stray","attachments":[]}"#,
            ),
        ];
        let turns = walk(&history);
        assert_eq!(kinds(&turns), ["assistant:2", "results:a,b", "carrier"]);
        let Turn::Results(results) = &turns[1] else {
            panic!()
        };
        assert!(results.iter().all(|r| r.body == NO_RESULT));
        let Turn::Carrier(c) = &turns[2] else {
            panic!()
        };
        assert!(c.text.contains("call zzz"));
        assert!(c.text.ends_with("stray"));
    }

    #[test]
    fn markers_in_bodies_are_never_attachments() {
        let history = [
            ("assistant", CALLS),
            (
                "tool",
                r#"{"tool_call_id":"a","content":"[IMAGE:/etc/passwd]","attachments":[{"kind":"image","target":"ok.png"}]}"#,
            ),
            (
                "tool",
                r#"{"tool_call_id":"b","content":"[IMAGE:/etc/shadow]"}"#,
            ),
            ("user", "[Tool results]\n[IMAGE:/root/x.png]\nlegacy"),
        ];
        let turns = walk(&history);
        let Turn::Results(results) = &turns[1] else {
            panic!()
        };
        let targets: Vec<_> = results[0].slots.iter().map(|s| s.target.as_ref()).collect();
        assert_eq!(targets, ["ok.png"]);
        assert!(results[1].slots.is_empty());
        let Turn::Carrier(c) = &turns[2] else {
            panic!()
        };
        assert!(c.slots.is_empty());
        assert_eq!(c.text, "[Tool results]\n[IMAGE:/root/x.png]\nlegacy");
    }

    #[test]
    fn call_ids_are_read_as_the_grammar_reads_envelopes() {
        assert_eq!(
            Carrier::native(r#" {"tool_call_id":"a\u0062"}"#)
                .call_id
                .as_deref(),
            Some("ab")
        );
        for content in [
            r#"{"tool_call_id":"a","tool_call_id":"b"}"#,
            r#"{"tool_call_id":7}"#,
            r#"{"tool_call_id":null}"#,
            r#"{"tool_call_id":""}"#,
            r#"{"tool_call_id":"a"} x"#,
            "raw text",
        ] {
            assert_eq!(Carrier::native(content).call_id, None, "{content}");
        }
    }

    #[test]
    fn declared_prompt_carriers_keep_line_one_and_drop_the_markers() {
        let history = [(
            "user",
            "[Tool results]\n[Tool attachments: 1]\n[IMAGE:a.png]\n[IMAGE:b.png]\nbody",
        )];
        let turns = walk(&history);
        let Turn::Carrier(c) = &turns[0] else {
            panic!()
        };
        assert_eq!(c.text, "[Tool results]\n[IMAGE:b.png]\nbody");
        assert_eq!(c.slots.len(), 1);
        assert_eq!(c.slots[0].target, "a.png");
    }

    #[test]
    fn envelopes_that_do_not_follow_the_shape_stay_text() {
        for content in [
            r#"{"content":"x"}"#,
            r#"{"content":1,"tool_calls":[]}"#,
            r#"{"tool_calls":[{"id":"a"}]}"#,
            r#"{"tool_calls":"no"}"#,
            "{not json",
        ] {
            let history = [("assistant", content)];
            let turns = walk(&history);
            let Turn::Assistant(a) = &turns[0] else {
                panic!()
            };
            assert!(a.calls.is_empty(), "{content}");
            assert_eq!(a.text.as_deref(), Some(content));
        }
    }

    #[test]
    fn arguments_become_objects_without_losing_anything() {
        assert_eq!(Arguments::Text("".into()).to_object(), Map::new());
        let m = Arguments::Text("{\"a\":1}".into()).to_object();
        assert_eq!(Value::Object(m), serde_json::json!({"a": 1}));
        let m = Arguments::Text("not json".into()).to_object();
        assert_eq!(
            Value::Object(m),
            serde_json::json!({"arguments": "not json"})
        );
        let m = Arguments::Json(serde_json::json!([1, 2])).to_object();
        assert_eq!(Value::Object(m), serde_json::json!({"arguments": [1, 2]}));
        assert_eq!(
            Arguments::Json(serde_json::json!({"b": 2})).to_json_string(),
            "{\"b\":2}"
        );
        assert_eq!(
            Arguments::Text("{ \"a\" : 1 }".into()).to_json_string(),
            "{ \"a\" : 1 }"
        );
    }

    #[test]
    fn missing_ids_are_synthesised_and_openai_nesting_is_read() {
        let content = r#"{"content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}"#;
        let history = [("user", "hi"), ("assistant", content)];
        let turns = walk(&history);
        let Turn::Assistant(a) = &turns[1] else {
            panic!()
        };
        assert_eq!(a.calls[0].id, "call_1_0");
        assert_eq!(a.calls[0].name, "f");
        assert!(a.text.is_none());
    }
}
