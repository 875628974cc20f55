//! Histories whose records are spelled the OpenAI Chat way (`tool_calls`,
//! `tool_call_id`, content parts or null) are read as `import --from
//! openai-chat` reads them, and the crate's own `{role, content}` records
//! pass unchanged: no call is lost, every result finds its call.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::fs;

use proptest::prelude::*;
use serde_json::{json, Value};
use support::{manifest_dir, png};
use tool_carrier::history::{self, MessageError, ReadError, Record, RecordError};
use tool_carrier::import::{from_provider, read_records, ImportOptions};
use tool_carrier::media::store::{InlineStore, MediaStore};
use tool_carrier::provider::{build_request, convert, ConvertError, Options, Provider, Request};
use tool_carrier::rules::{check_json, Target};

const FIXTURE: &str = "tests/data/adversarial/openai-chat-records.jsonl";

/// What a result no call claims is labelled with.
const UNCLAIMED: &str = "which no tool call is waiting for";

/// The records of a history, inline media kept as `data:` targets.
fn records(input: &[u8]) -> Result<Vec<Record>, ReadError> {
    read_records(input, &mut InlineStore, &ImportOptions::default()).map(|h| h.messages)
}

fn fixture() -> Vec<u8> {
    fs::read(manifest_dir().join(FIXTURE)).unwrap()
}

/// The request for `provider`, its compact body text checked against
/// every rule of the provider's API.
fn body(provider: Provider, messages: &[Record]) -> Value {
    let request: Request = build_request(provider, messages, &Options::new())
        .unwrap_or_else(|e| panic!("{provider}: {e}"));
    let mut text = Vec::new();
    request.write_compact(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let broken = check_json(&Target::of(&request), &text).unwrap();
    assert!(broken.is_empty(), "{provider}: {broken:?}");
    assert!(!text.contains(UNCLAIMED), "{provider}: {text}");
    assert!(!text.contains("no result was recorded"), "{provider}");
    serde_json::from_str(&text).unwrap()
}

fn strs<'v>(values: impl IntoIterator<Item = &'v Value>, key: &str) -> Vec<&'v str> {
    values.into_iter().filter_map(|v| v[key].as_str()).collect()
}

#[test]
fn chat_records_become_envelopes_with_every_call_and_its_arguments_verbatim() {
    let messages = records(&fixture()[..]).unwrap();
    let roles: Vec<&str> = messages.iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "user"]
    );
    let envelope: Value = serde_json::from_str(messages[2].content()).unwrap();
    assert_eq!(
        envelope["content"],
        "I'll take a screenshot and read the log."
    );
    assert_eq!(
        strs(envelope["tool_calls"].as_array().unwrap(), "id"),
        ["call_shot", "call_log"]
    );
    // The arguments string, as the record had it, spaces included.
    assert_eq!(
        envelope["tool_calls"][0]["arguments"],
        "{\"window\": \"dashboard\" , \"scale\":1}"
    );
    let log: Value = serde_json::from_str(messages[3].content()).unwrap();
    assert_eq!(log["tool_call_id"], "call_log");
    assert_eq!(log["attachments"], json!([]), "a marker in a body is text");
    let shot: Value = serde_json::from_str(messages[4].content()).unwrap();
    assert_eq!(shot["tool_call_id"], "call_shot");
    assert_eq!(shot["content"], "Saved screenshot of the dashboard (1x1).");
    assert_eq!(shot["attachments"][0]["kind"], "image");
    assert!(shot["attachments"][0]["target"]
        .as_str()
        .unwrap()
        .starts_with("data:image/png;base64,iVBORw0KGgo"));
    // The crate's own records came through as read_history reads them.
    let own = history::read(
        &b"{\"role\":\"system\",\"content\":\"You are a careful desktop agent.\"}\n"[..],
    )
    .unwrap();
    assert_eq!(messages[0], own[0]);
}

#[test]
fn anthropic_pairs_each_tool_result_with_its_tool_use_by_id() {
    let messages = records(&fixture()[..]).unwrap();
    let body = body(Provider::Anthropic, &messages);
    let turns = body["messages"].as_array().unwrap();
    let uses = turns.iter().position(|t| t["role"] == "assistant").unwrap();
    let tool_uses: Vec<&Value> = turns[uses]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .collect();
    assert_eq!(tool_uses.len(), 2, "no call is lost");
    let results: Vec<&Value> = turns[uses + 1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    assert_eq!(
        strs(results.iter().copied(), "tool_use_id"),
        strs(tool_uses.iter().copied(), "id")
    );
    for (result, call) in results.iter().zip(&tool_uses) {
        // Text alone may be a string; with an image, a list of blocks.
        let has_image = result["content"]
            .as_array()
            .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "image"));
        assert_eq!(has_image, call["name"] == "screenshot", "{result}");
        if call["name"] == "read_log" {
            assert!(
                result
                    .to_string()
                    .contains("[IMAGE:/etc/passwd] is just log text"),
                "{result}"
            );
        }
    }
}

#[test]
fn openai_chat_pairs_each_tool_message_with_its_call_by_id() {
    let messages = records(&fixture()[..]).unwrap();
    let body = body(Provider::OpenAiChat, &messages);
    let list = body["messages"].as_array().unwrap();
    let at = list.iter().position(|m| m["role"] == "assistant").unwrap();
    let calls = list[at]["tool_calls"].as_array().unwrap();
    assert_eq!(strs(calls, "id"), ["call_shot", "call_log"]);
    let tools = &list[at + 1..at + 3];
    assert!(tools.iter().all(|m| m["role"] == "tool"));
    assert_eq!(strs(tools, "tool_call_id"), strs(calls, "id"));
    // The screenshot follows the batch in a user message, labelled with
    // its call.
    let media = &list[at + 3];
    assert_eq!(media["role"], "user");
    assert!(media["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("(call call_shot)"));
    assert!(media["content"][1]["image_url"]["url"]
        .as_str()
        .unwrap()
        .starts_with("data:image/png;base64,"));
}

#[test]
fn provider_convert_reads_both_spellings_in_one_history() {
    let mut history = String::from_utf8(fixture()).unwrap();
    history.push_str(r#"{"role":"assistant","content":"{\"content\":null,\"tool_calls\":[{\"id\":\"own_1\",\"name\":\"read_log\",\"arguments\":\"{}\"}]}"}"#);
    history.push('\n');
    history.push_str(r#"{"role":"tool","content":"{\"tool_call_id\":\"own_1\",\"content\":\"12:02 done\",\"attachments\":[]}"}"#);
    history.push('\n');
    for provider in [Provider::Anthropic, Provider::OpenAiChat, Provider::Bedrock] {
        let request = convert(provider, history.as_bytes(), &Options::new()).unwrap();
        let text = request.to_json();
        assert!(!text.contains(UNCLAIMED), "{provider}");
        assert!(
            text.contains("own_1") && text.contains("12:02 done"),
            "{provider}"
        );
    }
}

#[test]
fn a_json_array_of_chat_records_reads_the_same_as_lines() {
    let lines = String::from_utf8(fixture()).unwrap();
    let array = format!("[\n{}\n]\n", lines.trim_end().replace('\n', ",\n"));
    assert_eq!(
        records(array.as_bytes()).unwrap(),
        records(lines.as_bytes()).unwrap()
    );
}

#[test]
fn a_call_that_cannot_be_read_stops_the_conversion_naming_record_and_line() {
    let history = concat!(
        "{\"role\":\"user\",\"content\":\"hi\"}\n",
        "\n",
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"arguments\":\"{}\"}}]}\n",
        "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"ok\"}\n",
    );
    let Err(ConvertError::Read(ReadError::Records(errors))) =
        convert(Provider::OpenAiChat, history.as_bytes(), &Options::new())
    else {
        panic!("a call without a name was converted")
    };
    assert_eq!(
        errors,
        [RecordError {
            line: 3,
            error: MessageError::OpenAiChat {
                index: 1,
                at: "$.tool_calls[0]".into(),
                what: "a tool call needs function.name".into(),
            },
        }]
    );
}

#[test]
fn a_users_own_image_is_their_records_attachment() {
    let history = r#"{"role":"user","content":[{"type":"text","text":"Like this?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}"#;
    let read = read_records(
        history.as_bytes(),
        &mut InlineStore,
        &tool_carrier::import::ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(read.messages.len(), 1);
    assert_eq!(
        read.messages[0].to_json(),
        r#"{"role":"user","content":"Like this?","attachments":[{"kind":"image","target":"https://example.com/a.png"}]}"#
    );
    assert!(read.notes.is_empty(), "{:?}", read.notes);
    assert!(read.tally.is_balanced(), "{:?}", read.tally);
}

// ---- The property: the record reader is the importer, record by record.

#[derive(Clone, Debug)]
enum Part {
    Text(String),
    Image(u8),
}

#[derive(Clone, Debug)]
enum Content {
    Text(String),
    Null,
    Parts(Vec<Part>),
}

#[derive(Clone, Debug)]
enum Rec {
    System(String),
    /// Developer text as parts (a string would be the crate's own record,
    /// kept as `developer`).
    Developer(Vec<String>),
    User(Content),
    Assistant(Content),
    Calls(Option<String>, Vec<(String, String, String)>),
    Legacy(String, String),
    /// A result: its call id (empty for none) and content.
    Tool(String, Content),
    Function(String, String),
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,:\"\\\\\n{}\\[\\]_é]{0,24}"
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z_]{0,8}"
}

fn arguments() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{}".to_owned()),
        Just(String::new()),
        "\\{ ?\"[a-z]{1,4}\" ?: ?[0-9]{1,3} ?\\}",
        text(),
    ]
}

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        text().prop_map(Part::Text),
        any::<u8>().prop_map(Part::Image)
    ]
}

fn content() -> impl Strategy<Value = Content> {
    prop_oneof![
        text().prop_map(Content::Text),
        Just(Content::Null),
        prop::collection::vec(part(), 0..4).prop_map(Content::Parts),
    ]
}

/// An assistant's content: text, null or text parts (the parts the SDK
/// lists for it; an image part there is refused).
fn assistant_content() -> impl Strategy<Value = Content> {
    prop_oneof![
        text().prop_map(Content::Text),
        Just(Content::Null),
        prop::collection::vec(text().prop_map(Part::Text), 0..4).prop_map(Content::Parts),
    ]
}

fn rec() -> impl Strategy<Value = Rec> {
    let call = ("call_[a-zA-Z0-9]{1,6}", name(), arguments());
    prop_oneof![
        text().prop_map(Rec::System),
        prop::collection::vec(text(), 1..3).prop_map(Rec::Developer),
        content().prop_map(Rec::User),
        assistant_content().prop_map(Rec::Assistant),
        (prop::option::of(text()), prop::collection::vec(call, 1..4))
            .prop_map(|(t, c)| Rec::Calls(t, c)),
        (name(), arguments()).prop_map(|(n, a)| Rec::Legacy(n, a)),
        ("(call_[a-zA-Z0-9]{1,6})?", content()).prop_map(|(id, c)| Rec::Tool(id, c)),
        (name(), text()).prop_map(|(n, t)| Rec::Function(n, t)),
    ]
}

fn data_url(seed: u8) -> String {
    InlineStore.put(&png(1, 1, seed)).unwrap().target
}

fn parts(parts: &[Part]) -> Value {
    Value::Array(
        parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => json!({"type": "text", "text": t}),
                Part::Image(seed) => {
                    json!({"type": "image_url", "image_url": {"url": data_url(*seed)}})
                }
            })
            .collect(),
    )
}

fn content_json(c: &Content) -> Value {
    match c {
        Content::Text(t) => Value::String(t.clone()),
        Content::Null => Value::Null,
        Content::Parts(p) => parts(p),
    }
}

/// The record in OpenAI Chat's spelling.
fn chat(rec: &Rec) -> Value {
    match rec {
        Rec::System(t) => json!({"role": "system", "content": t}),
        Rec::Developer(texts) => {
            let p: Vec<Part> = texts.iter().cloned().map(Part::Text).collect();
            json!({"role": "developer", "content": parts(&p)})
        }
        Rec::User(c) => json!({"role": "user", "content": content_json(c)}),
        Rec::Assistant(c) => json!({"role": "assistant", "content": content_json(c)}),
        Rec::Calls(t, calls) => json!({
            "role": "assistant",
            "content": t,
            "tool_calls": calls.iter().map(|(id, name, args)| json!({
                "id": id, "type": "function", "function": {"name": name, "arguments": args}
            })).collect::<Vec<_>>(),
        }),
        Rec::Legacy(name, args) => json!({
            "role": "assistant", "content": null,
            "function_call": {"name": name, "arguments": args},
        }),
        Rec::Tool(id, c) => {
            // Chat always names the call, if only as "" (a tool message
            // without the member is refused, as the API refuses it).
            json!({"role": "tool", "tool_call_id": id, "content": content_json(c)})
        }
        Rec::Function(name, t) => json!({"role": "function", "name": name, "content": t}),
    }
}

/// The crate's own record for a message.
fn own(record: &Record) -> Value {
    serde_json::from_str(&record.to_json()).unwrap()
}

fn history(records: &[Value], array: bool) -> String {
    let lines: Vec<String> = records.iter().map(Value::to_string).collect();
    if array {
        format!("[{}]", lines.join(",\n"))
    } else {
        lines.join("\n") + "\n"
    }
}

/// How many calls the assistant envelopes of `messages` hold.
fn calls_in(messages: &[Record]) -> usize {
    messages
        .iter()
        .filter(|m| m.role() == "assistant")
        .filter_map(|m| serde_json::from_str::<Value>(m.content()).ok())
        .filter_map(|v| v["tool_calls"].as_array().map(Vec::len))
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Chat records read as the importer reads the same messages; their
    /// reading, written in the crate's own spelling, reads back unchanged;
    /// and a history mixing both spellings record by record reads the
    /// same.
    #[test]
    fn the_record_reader_is_the_importer_record_by_record(
        recs in prop::collection::vec(rec(), 0..12),
        spell in prop::collection::vec(any::<bool>(), 12),
        array in any::<bool>(),
    ) {
        let chat_records: Vec<Value> = recs.iter().map(chat).collect();
        let imported = from_provider(Provider::OpenAiChat, &Value::Array(chat_records.clone()), &mut InlineStore, &ImportOptions::default())
            .unwrap()
            .messages;
        prop_assert_eq!(imported.len(), recs.len());
        let generated: usize = recs
            .iter()
            .map(|r| match r {
                Rec::Calls(_, c) => c.len(),
                Rec::Legacy(..) => 1,
                _ => 0,
            })
            .sum();
        prop_assert_eq!(calls_in(&imported), generated, "no call is lost");

        let read = records(history(&chat_records, array).as_bytes()).unwrap();
        prop_assert_eq!(&read, &imported);

        let own_records: Vec<Value> = imported.iter().map(own).collect();
        let own_text = history(&own_records, array);
        prop_assert_eq!(&records(own_text.as_bytes()).unwrap(), &imported);
        prop_assert_eq!(&history::read(own_text.as_bytes()).unwrap(), &imported);

        let mixed: Vec<Value> = chat_records
            .into_iter()
            .zip(own_records)
            .zip(&spell)
            .map(|((c, o), &chat)| if chat { c } else { o })
            .collect();
        prop_assert_eq!(&records(history(&mixed, array).as_bytes()).unwrap(), &imported);
    }

    /// A call's arguments string is kept as the record had it.
    #[test]
    fn arguments_strings_are_kept_verbatim(args in arguments(), id in "call_[a-z]{1,4}") {
        let record = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "f", "arguments": args}}]});
        let read = records(record.to_string().as_bytes()).unwrap();
        let envelope: Value = serde_json::from_str(read[0].content()).unwrap();
        prop_assert_eq!(&envelope["tool_calls"][0]["arguments"], &Value::String(args));
    }
}
