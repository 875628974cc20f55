//! Ollama chat (`POST /api/chat`).

use crate::json::tree::Json as Value;

use crate::steps::path::Path;
use crate::steps::rule::{array, calls_answered_at, rule, string, Out, Rule, Target};

const API: &str =
    "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion";
const READ: &str = "2026-12-01";

rule!(MESSAGES, "ollama/messages-present", "a chat request holds at least one message: with an empty `messages` list the server only loads the model and answers nothing", "https://github.com/ollama/ollama/blob/main/docs/api.md#load-a-model-1", Documented);
rule!(
    IMAGES,
    "ollama/images-base64",
    "`images` holds base64-encoded images, without a data: prefix",
    API,
    Documented
);
rule!(
    TOOL_NAME,
    "ollama/tool-name",
    "a tool message names (tool_name) a function the assistant message before it called",
    API,
    Prudent
);
rule!(
    ARGUMENTS,
    "ollama/arguments-object",
    "tool call arguments are a JSON object",
    API,
    Documented
);

rule!(
    MEMBERS,
    "ollama/members",
    "every member of the body, and of the settings' objects in it, is one the official SDK's request types list (the API refuses an unknown parameter)",
    "https://pypi.org/project/ollama/ (the pinned SDK's ChatRequest)",
    Documented
);

rule!(
    FORMAT,
    "ollama/format",
    "`format` is \"json\" or a JSON Schema object (\"Format can be `json` or a JSON schema\"; anything else: \"invalid format\")",
    API,
    Documented,
    "2026-12-06"
);

pub(crate) static RULES: &[&Rule] = &[
    &MEMBERS, &MESSAGES, &IMAGES, &TOOL_NAME, &ARGUMENTS, &FORMAT,
];

pub(crate) fn check(_: &Target<'_>, body: &Value, out: &mut Out) {
    crate::steps::rule::members_listed(&MEMBERS, super::SPEC.members, super::SPEC.also, body, out);
    crate::steps::rule::message_count(&MESSAGES, body, "messages", usize::MAX, out);
    match body.get("format") {
        None | Some(Value::Object(_)) => {}
        Some(Value::String(word)) if word == "json" => {}
        Some(_) => out.push(&FORMAT, "$.format", "neither \"json\" nor a schema"),
    }
    let messages = array(body, "messages");
    let at_messages = Path::Root("$.messages");
    for (m, message) in messages.iter().enumerate() {
        let path = at_messages.index(m);
        for (i, image) in array(message, "images").iter().enumerate() {
            let ok = image
                .as_str()
                .and_then(crate::steps::rule::decoded_len)
                .is_some();
            if !ok {
                out.push(&IMAGES, path.key("images").index(i), "not plain base64");
            }
        }
        for (c, call) in array(message, "tool_calls").iter().enumerate() {
            if !call["function"]["arguments"].is_object() {
                out.push(
                    &ARGUMENTS,
                    path.key("tool_calls").index(c),
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
