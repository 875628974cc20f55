//! Ollama chat (`POST /api/chat`).

use crate::json::tree::Json as Value;

use crate::steps::rule::{array, at, calls_answered_at, idx, string, Basis, Out, Rule, Target};

const API: &str =
    "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion";
const READ: &str = "2026-12-01";

pub(crate) static MESSAGES: Rule = Rule {
    id: "ollama/messages-present",
    says: "a chat request holds at least one message: with an empty `messages` list the server only loads the model and answers nothing",
    source: "https://github.com/ollama/ollama/blob/main/docs/api.md#load-a-model-1",
    read: READ,
    basis: Basis::Documented,
};
pub(crate) static IMAGES: Rule = Rule {
    id: "ollama/images-base64",
    says: "`images` holds base64-encoded images, without a data: prefix",
    source: API,
    read: READ,
    basis: Basis::Documented,
};
pub(crate) static TOOL_NAME: Rule = Rule {
    id: "ollama/tool-name",
    says: "a tool message names (tool_name) a function the assistant message before it called",
    source: API,
    read: READ,
    basis: Basis::Prudent,
};
pub(crate) static ARGUMENTS: Rule = Rule {
    id: "ollama/arguments-object",
    says: "tool call arguments are a JSON object",
    source: API,
    read: READ,
    basis: Basis::Documented,
};

pub(crate) static RULES: &[&Rule] = &[&MESSAGES, &IMAGES, &TOOL_NAME, &ARGUMENTS];

pub(crate) fn check(_: &Target<'_>, body: &Value, out: &mut Out) {
    crate::steps::rule::message_count(&MESSAGES, body, "messages", usize::MAX, out);
    let messages = array(body, "messages");
    for (m, message) in messages.iter().enumerate() {
        let path = idx("$.messages", m);
        for (i, image) in array(message, "images").iter().enumerate() {
            let ok = image
                .as_str()
                .and_then(crate::steps::rule::decoded_len)
                .is_some();
            if !ok {
                out.push(&IMAGES, idx(&at(&path, "images"), i), "not plain base64");
            }
        }
        for (c, call) in array(message, "tool_calls").iter().enumerate() {
            if !call["function"]["arguments"].is_object() {
                out.push(
                    &ARGUMENTS,
                    idx(&at(&path, "tool_calls"), c),
                    "arguments not an object",
                );
            }
        }
        if string(message, "role") == Some("tool") {
            let name = string(message, "tool_name").unwrap_or("");
            let called = calls_answered_at(messages, m)
                .iter()
                .any(|c| string(&c["function"], "name") == Some(name));
            if !called {
                out.push(&TOOL_NAME, path, format!("tool_name {name:?}"));
            }
        }
    }
}
