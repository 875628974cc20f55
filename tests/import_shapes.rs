//! Shapes the importers must read exactly: what folds back, what stays a
//! user message, and nothing lost beside tool results.
#![cfg(feature = "media")]

use serde_json::{json, Value};
use tool_carrier::import::{from_provider, ImportOptions, ImportedHistory};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::Provider;
use tool_carrier::AttachmentKind;

const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

fn read(provider: Provider, body: Value) -> ImportedHistory {
    from_provider(provider, &body, &mut InlineStore, &ImportOptions::default()).unwrap()
}

fn envelopes(h: &ImportedHistory) -> Vec<Value> {
    h.messages
        .iter()
        .filter(|m| m.role() == "tool")
        .map(|m| serde_json::from_str(m.content()).unwrap())
        .collect()
}

#[test]
fn ollama_images_go_to_the_result_that_says_they_follow() {
    let h = read(
        Provider::Ollama,
        json!([
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "shot", "arguments": {}}},
                {"function": {"name": "shot", "arguments": {}}}]},
            {"role": "tool", "tool_name": "shot", "content": "nothing"},
            {"role": "tool", "tool_name": "shot", "content": "saved\n[image b.png follows in the next user message]"},
            {"role": "user", "content": "Attachment of the shot result (call orig_b): image b.png", "images": [GIF]}
        ]),
    );
    let e = envelopes(&h);
    assert_eq!(e[0]["attachments"], json!([]));
    assert_eq!(e[1]["content"], "saved");
    assert_eq!(e[1]["attachments"].as_array().unwrap().len(), 1);
    assert_eq!(h.messages.len(), 3, "the media message is folded");
}

#[test]
fn a_label_whose_result_does_not_say_its_medium_follows_is_no_fold() {
    let h = read(
        Provider::OpenAiChat,
        json!([
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_a", "content": "saved"},
            {"role": "user", "content": [
                {"type": "text", "text": "Attachment of the shot result (call call_a): image whatever.png"},
                {"type": "image_url", "image_url": {"url": format!("data:image/gif;base64,{GIF}")}}]}
        ]),
    );
    assert_eq!(envelopes(&h)[0]["attachments"], json!([]));
    // The image stays with the user's message that holds it.
    let user = h.messages.last().unwrap();
    assert_eq!(user.role(), "user");
    assert_eq!(user.attachments().len(), 1);
    assert!(h.notes.is_empty(), "{:?}", h.notes);
}

#[test]
fn media_inside_a_chat_tool_message_is_declared_on_it() {
    let h = read(
        Provider::OpenAiCompatible,
        json!([
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": [
                {"type": "text", "text": "ok"},
                {"type": "image_url", "image_url": {"url": format!("data:image/gif;base64,{GIF}")}}]}
        ]),
    );
    let e = envelopes(&h);
    assert_eq!(e[0]["content"], "ok");
    assert_eq!(e[0]["attachments"][0]["kind"], "image");
}

#[test]
fn gemini_parts_beside_the_responses_are_the_users_after_them() {
    let h = read(
        Provider::Gemini,
        json!({"contents": [
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "shot", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "c1", "name": "shot", "response": {"output": "ok"}}},
                {"inlineData": {"mimeType": "image/gif", "data": GIF}},
                {"text": "now click it"}]}
        ]}),
    );
    let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["assistant", "tool", "user"]);
    let user = &h.messages[2];
    assert_eq!(user.content(), "now click it");
    assert_eq!(user.attachments()[0].kind, AttachmentKind::Image);
    assert!(h.notes.is_empty(), "{:?}", h.notes);
}

#[test]
fn bedrock_labels_before_the_results_are_the_users() {
    let h = read(
        Provider::Bedrock,
        json!({"messages": [
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c1", "name": "shot", "input": {}}}]},
            {"role": "user", "content": [
                {"text": "Attachment of the shot result (call c1): image a.png"},
                {"image": {"format": "gif", "source": {"bytes": GIF}}},
                {"toolResult": {"toolUseId": "c1", "content": [{"text": "ok\n[image a.png follows after the tool results]"}]}}]}
        ]}),
    );
    let e = envelopes(&h);
    assert_eq!(e[0]["attachments"], json!([]));
    assert_eq!(h.messages.last().unwrap().role(), "user");
}
