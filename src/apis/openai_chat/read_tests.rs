//! The tests of the Chat reader: the media message folded back, what Chat
//! allows read, what it does not refused naming its path.

use super::*;
use crate::media::store::InlineStore;
use serde_json::json;

const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

fn batch(media_message: Value) -> Value {
    json!([
        {"role": "user", "content": "Look."},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "shot", "arguments": "{\"p\":1}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "saved\n[image a.png follows in the next user message]"},
        media_message,
        {"role": "user", "content": "Next?"}
    ])
}

fn media_message() -> Value {
    json!({"role": "user", "content": [
        {"type": "text", "text": "Attachment of the shot result (call call_a): image a.png"},
        {"type": "image_url", "image_url": {"url": format!("data:image/gif;base64,{GIF}")}}]})
}

#[test]
fn the_media_message_is_folded_back_into_its_result() {
    let h = read(
        &batch(media_message()),
        &mut InlineStore,
        &ImportOptions::default(),
    )
    .unwrap();
    let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    let t: Value = serde_json::from_str(h.messages[2].content()).unwrap();
    assert_eq!(t["content"], "saved");
    assert_eq!(
        t["attachments"][0]["target"],
        format!("data:image/gif;base64,{GIF}")
    );
    let a: Value = serde_json::from_str(h.messages[1].content()).unwrap();
    assert_eq!(a["tool_calls"][0]["arguments"], "{\"p\":1}");
    assert!(h.notes.is_empty());
}

#[test]
fn after_a_bridge_too_and_nothing_that_does_not_match_exactly() {
    let mut with_bridge = batch(media_message());
    with_bridge
        .as_array_mut()
        .unwrap()
        .insert(3, json!({"role": "assistant", "content": BRIDGE}));
    let h = read(&with_bridge, &mut InlineStore, &ImportOptions::default()).unwrap();
    assert_eq!(h.messages.len(), 4);
    // A bridge before a plain user message is left out as well.
    let plain = json!([
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
        {"role": "assistant", "content": BRIDGE},
        {"role": "user", "content": "Next?"}
    ]);
    let h = read(&plain, &mut InlineStore, &ImportOptions::default()).unwrap();
    let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["assistant", "tool", "user"]);
    // Another call id, another tool name, an extra part: a user message.
    for edit in [
        (
            "Attachment of the shot result (call call_z): image a.png",
            2,
        ),
        (
            "Attachment of the read result (call call_a): image a.png",
            2,
        ),
        ("Here is a.png", 2),
    ] {
        let mut m = media_message();
        m["content"][0]["text"] = edit.0.into();
        let h = read(&batch(m), &mut InlineStore, &ImportOptions::default()).unwrap();
        assert_eq!(h.messages.len(), 5, "{}", edit.0);
        let t: Value = serde_json::from_str(h.messages[2].content()).unwrap();
        assert_eq!(t["attachments"], json!([]));
        // The image stays, the user's own.
        let own: usize = h.messages.iter().map(|m| m.attachments().len()).sum();
        assert_eq!(own, 1, "{}", edit.0);
        assert!(h.notes.is_empty(), "{:?}", h.notes);
    }
}

#[test]
fn what_chat_allows_is_read_as_before() {
    let body = json!({"model": "gpt-5", "tools": [{"type": "function"}], "messages": [
        {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "name": "ann", "content": [
            {"type": "text", "text": "Look"},
            {"type": "image_url", "image_url": "https://x/a.png"},
            {"type": "input_audio", "input_audio": {"data": "AAA", "format": "wav"}}]},
        {"role": "assistant", "content": null, "refusal": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": null},
        {"role": "assistant", "content": null, "function_call": {"name": "g"}},
        {"role": "function", "name": "g", "content": [{"type": "text", "text": "done"}]}
    ]});
    let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
    let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "tool"]
    );
    assert_eq!(h.messages[0].content(), "Be brief.");
    // The user's audio has no place in a carrier history: left out with
    // a note, never written into the text; the participant's name is
    // not kept either, and said so.
    assert_eq!(h.messages[1].content(), "Look");
    assert_eq!(
        h.messages[1].attachments(),
        [crate::Attachment::image("https://x/a.png")]
    );
    let notes: Vec<&str> = h.notes.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(
        notes,
        [
            "$.messages[1].name: the participant's name \"ann\" is not kept",
            "$.messages[1].content[2]: an input_audio part is left out: a user message holds text and its own images and files",
        ]
    );
    assert!(h.tally.is_balanced(), "{:?}", h.tally);
    assert_eq!(
        h.tally.summary("kept").to_string(),
        "read 1 developer message, 3 text parts, 1 user message, 1 image_url part, \
         1 input_audio part, 2 assistant messages, 1 function tool call, 1 tool message, \
         1 function message: kept 1 developer message, 3 text parts, 1 user message, \
         1 image_url part, 2 assistant messages, 1 function tool call, 1 tool message, \
         1 function message; noted 1 input_audio part"
    );
    assert_eq!(
        h.messages[2].content(),
        r#"{"content":null,"tool_calls":[{"id":"c1","name":"f","arguments":{"a":1}}]}"#
    );
    assert_eq!(
        h.messages[4].content(),
        r#"{"content":null,"tool_calls":[{"id":"call_4_0","name":"g","arguments":{}}]}"#
    );
    assert_eq!(
        h.messages[5].content(),
        r#"{"content":"done","attachments":[]}"#
    );
}

#[test]
fn bad_shapes_name_their_path() {
    let err = |v: Value| {
        read(&v, &mut InlineStore, &ImportOptions::default())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(json!(1)),
        "$: expected a Chat Completions body or a list of messages"
    );
    assert_eq!(
        err(json!({"model": "m"})),
        "$: expected a Chat Completions body or a list of messages: no `messages` member"
    );
    assert_eq!(err(json!([{"content": "x"}])), "$[0]: missing field `role`");
    assert_eq!(
        err(json!({"messages": [{"role": "critic", "content": "x"}]})),
        "$.messages[0].role: unknown variant `critic`, expected one of \
         `system`, `developer`, `user`, `assistant`, `tool`, `function`"
    );
    assert_eq!(
        err(json!([{"role": "tool", "tool_call_id": "c", "content": {"x": 1}}])),
        "$[0].content: content is neither text, null nor a list of parts"
    );
    assert_eq!(
        err(json!([{"role": "assistant", "content": "x", "tool_calls": {"id": "a"}}])),
        "$[0].tool_calls: tool_calls is not a list"
    );
    assert_eq!(
        err(json!([{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}])),
        "$[0].tool_calls[0]: missing field `id`"
    );
    assert_eq!(
        err(json!([{"role": "assistant", "tool_calls": [{"id": "a", "function": {}}]}])),
        "$.messages[0].tool_calls[0]: a tool call needs function.name"
    );
    assert_eq!(
        err(json!([{"role": "assistant", "function_call": {"arguments": "{}"}}])),
        "$.messages[0].function_call: a function call needs a name"
    );
    assert_eq!(
        err(
            json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png,abc"}}]}])
        ),
        "$.messages[0].content[0]: a data: URL that is not base64"
    );
    // A known part of a broken shape is refused, not kept as unknown.
    assert_eq!(
        err(
            json!([{"role": "user", "content": [{"type": "file", "file": {"filename": "f.pdf"}}]}])
        ),
        "$.messages[0].content[0]: a file part needs file_data or file_id"
    );
    assert_eq!(
        err(json!([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}])),
        "$[0].content[0]: missing field `url`"
    );
}
