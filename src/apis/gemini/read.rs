//! Gemini `generateContent` bodies (or their `contents`) as carrier
//! histories.
//!
//! | Gemini | carrier history |
//! |---|---|
//! | `systemInstruction` text | a `system` message |
//! | `user` text | a `user` message; `inlineData` stored (`fileData` kept) and declared as its `attachments` |
//! | `model` text and `functionCall` | an assistant envelope; a call without an id gets `call_M_N` |
//! | `functionResponse` | a `tool` carrier: `response.output` or `response.error` (or the response's JSON) the body, an `error` key kept as `is_error`, its `parts`' `inlineData` declared; a response without an id answers the turn's next call of that name |
//! | the labelled `user` content right after the responses (what `convert` writes for Gemini 2) | folded back into the results |
//! | other model parts (thoughts, code, `inlineData`) | kept as the envelope's `gemini_parts` member, with a note |
//! | a thought signature on a text part | kept in `gemini_parts` as an empty text part carrying it (`{"text":"","thoughtSignature":…}`), with a note |
//! | other parts beside the responses | a `user` message after them |
//! | thought signatures of calls | kept as the envelope's `gemini_thought_signatures` member (`{call id: signature}`), written back when converting for Gemini; the placeholder `convert` writes is its own, and left out |
//! | other parts of a user's turn | left out, with a note |
//!
//! Every content and part is first looked up in what the pinned
//! `google-genai` SDK lists ([`known`](super::known)): a part of no kind it
//! lists is refused (or, asked, kept with a note), and a member it does not
//! list is noted and not kept.

use std::borrow::Cow;

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use super::known;
use super::wire::{Body, Content, FunctionResponse, Item, Part, Response, Role};
use crate::media::{Holder, ProviderFile};
use crate::steps::audit::{audit, label_in, ImportOptions, Inner, Shape, Walk};
use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, body_or_list, function_tool, kind_of_inline, left_out, list, target, Batch,
    BodyOr, Call, ImportedHistory, Payload, UserText,
};
use crate::steps::wire::Keyed;

/// A body's lists as the reader reads them.
pub(crate) static SHAPE: Shape = Shape {
    sdk: known::SDK,
    members: &[("systemInstruction", &SYSTEM), ("contents", &CONTENTS)],
    bare: &CONTENTS,
};

static SYSTEM: Walk = Walk {
    list: &known::CONTENT,
    noun: None,
    inner: &[Inner::at("", "parts", &PART_LIST)],
    also: &[],
};

static CONTENTS: Walk = Walk {
    list: &known::CONTENT,
    noun: Some("content"),
    inner: &[
        Inner {
            tag: "",
            when: Some(("role", "model")),
            path: "parts",
            walk: &MODEL_PARTS,
        },
        Inner::at("", "parts", &PART_LIST),
    ],
    also: &[],
};

/// A model's parts: what is no text or call is kept whole.
static MODEL_PARTS: Walk = Walk::leaf(&known::PART, "part");

static PART_LIST: Walk = Walk {
    list: &known::PART,
    noun: Some("part"),
    inner: &[Inner::at("functionResponse", "functionResponse", &RESPONSE)],
    also: &[],
};

static RESPONSE: Walk = Walk {
    list: &known::FUNCTION_RESPONSE,
    noun: None,
    inner: &[Inner::at("", "parts", &RESPONSE_PARTS)],
    also: &[],
};

static RESPONSE_PARTS: Walk = Walk::leaf(&known::FUNCTION_RESPONSE_PART, "part");

/// What a tally counts a part as.
fn what(part: &Item<'_>) -> String {
    label_in(&known::PART, "part", &raw(part))
}

pub use crate::steps::envelope::GEMINI_SIGNATURES as SIGNATURES;

pub use crate::steps::envelope::GEMINI_PARTS as PARTS;

/// The placeholder signature `convert` writes on calls from elsewhere.
const PLACEHOLDER: &str = "skip_thought_signature_validator";

/// Read a `generateContent` request body (or a bare `contents` array),
/// as `options` say.
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Gemini's shape.
pub(crate) fn read(
    input: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut out = ImportedHistory::default();
    audit(input, &SHAPE, options, &mut out)?;
    let what = "a generateContent body or a list of contents";
    let (system, contents) = match body_or_list::<Body<'_>, Content<'_>>(input, "contents", what)? {
        BodyOr::Body(body) => (body.system_instruction, body.contents),
        BodyOr::List(contents) => (None, contents),
    };
    if let Some(system) = system {
        let mut text = Vec::new();
        for (p, part) in system.parts.iter().enumerate() {
            match text_of(part) {
                Some(t) => {
                    out.kept("text part");
                    text.push(t);
                }
                None => left_out(
                    &mut out,
                    0,
                    &format!("$.systemInstruction.parts[{p}]"),
                    &self::what(part),
                    "system text holds text alone",
                ),
            }
        }
        if !text.is_empty() {
            out.push("system", text.join("\n"));
        }
    }
    let mut batch = Batch::default();
    for (m, content) in contents.iter().enumerate() {
        let at = format!("$.contents[{m}]");
        out.kept("content");
        match content.role {
            Role::Model => model(m, &at, &content.parts, &mut batch, &mut out),
            Role::User | Role::Other => user(m, &at, &content.parts, &mut batch, store, &mut out)?,
        }
    }
    batch.flush(&mut out);
    Ok(out)
}

/// The text of a text part.
fn text_of<'p>(part: &'p Item<'_>) -> Option<&'p str> {
    match part {
        Keyed::Known(Part { text: Some(t), .. }) => Some(t),
        _ => None,
    }
}

/// The kind and payload of an `inlineData` part, or of a `fileData` one
/// (kept as the provider file it is).
fn inline<'p>(part: &'p Item<'_>) -> Option<(AttachmentKind, Payload<'p>)> {
    match part {
        Keyed::Known(Part {
            inline_data: Some(blob),
            ..
        }) => Some((
            kind_of_inline(&blob.mime_type),
            Payload::Base64(blob.data.text()),
        )),
        Keyed::Known(Part {
            file_data: Some(file),
            ..
        }) => Some((
            kind_of_inline(&file.mime_type),
            Payload::Held(ProviderFile {
                media_type: Some(file.mime_type.trim().to_ascii_lowercase()),
                ..ProviderFile::new(Holder::Gemini, &*file.file_uri)
            }),
        )),
        _ => None,
    }
}

fn response_of<'p, 'a>(part: &'p Item<'a>) -> Option<&'p FunctionResponse<'a>> {
    match part {
        Keyed::Known(Part {
            function_response: Some(r),
            ..
        }) => Some(r),
        _ => None,
    }
}

/// A part as JSON, as the body had it.
fn raw(part: &Item<'_>) -> Value {
    serde_json::to_value(part).unwrap_or(Value::Null)
}

/// A model content: its text and calls, and the parts of other kinds
/// (and thoughts) kept as they are.
fn model(m: usize, at: &str, parts: &[Item<'_>], batch: &mut Batch, out: &mut ImportedHistory) {
    batch.flush(out);
    batch.calls.clear();
    let mut text = Vec::new();
    let mut calls: Vec<Call> = Vec::new();
    let mut signatures = serde_json::Map::new();
    let mut others: Vec<Value> = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        let what = what(part);
        let (known, signature) = match part {
            Keyed::Known(k) => (Some(k), k.thought_signature.as_deref()),
            Keyed::Other(map) => (None, map.get("thoughtSignature").and_then(Value::as_str)),
            Keyed::Raw(_) => (None, None),
        };
        // A thought summary is the model's, not its answer.
        let thought = known.is_some_and(|k| k.thought == Some(true));
        let said = known.and_then(|k| k.text.as_deref());
        let call = known.and_then(|k| k.function_call.as_ref());
        match (said, call) {
            // An empty text part (the streamed form of a signature alone)
            // says nothing.
            (Some(""), _) if !thought => {}
            (Some(t), _) if !thought => text.push(t),
            (_, Some(f)) => {
                let id =
                    f.id.as_deref()
                        .map_or_else(|| format!("call_{m}_{p}"), str::to_owned);
                batch.calls.push((id.clone(), f.name.clone().into_owned()));
                calls.push(Call {
                    id,
                    name: f.name.clone().into_owned(),
                    arguments: f.args.0.as_text().into_owned(),
                });
            }
            _ => {}
        }
        let read = said.is_some() || call.is_some();
        // What `gemini_parts` keeps is not written back: noted.
        if !read {
            let mut part = raw(part);
            known::PART.listed_only(&mut part);
            out.noted(
                m,
                &what,
                format!(
                    "{at}.parts[{p}]: {} {what} is kept as the envelope's {PARTS}",
                    crate::steps::known::article(&what)
                ),
            );
            others.push(part);
        } else if thought {
            out.noted(
                m,
                &what,
                format!("{at}.parts[{p}]: a thought is kept as the envelope's {PARTS}"),
            );
            others.push(raw(part));
        } else {
            out.kept(&what);
        }
        match (signature, calls.last()) {
            (Some(s), Some(c)) if s != PLACEHOLDER && call.is_some() => {
                signatures.insert(c.id.clone(), Value::String(s.to_owned()));
            }
            // A text part's signature: kept on an empty text part of its
            // own (the form a stream gives it in), the text being the
            // envelope's. A thought or a part of another kind was kept
            // whole, its signature with it.
            (Some(s), _) if s != PLACEHOLDER && said.is_some() && !thought => {
                out.note(
                    m,
                    format!(
                        "{at}.parts[{p}]: a text part's thought signature is kept as the envelope's {PARTS}"
                    ),
                );
                others.push(signed_text(s));
            }
            _ => {}
        }
    }
    let text = text.join("\n");
    let mut extra = Vec::new();
    if !signatures.is_empty() {
        extra.push((SIGNATURES.to_owned(), Value::Object(signatures).to_string()));
    }
    if !others.is_empty() {
        extra.push((PARTS.to_owned(), Value::Array(others).to_string()));
    }
    if calls.is_empty() && extra.is_empty() {
        out.push("assistant", text);
    } else {
        out.push("assistant", assistant_envelope(&text, &calls, &extra));
    }
}

/// The part that keeps a text part's thought signature:
/// `{"text":"","thoughtSignature":…}`.
pub(crate) fn signed_text(signature: &str) -> Value {
    let mut part = serde_json::Map::new();
    part.insert("text".into(), Value::String(String::new()));
    part.insert(
        "thoughtSignature".into(),
        Value::String(signature.to_owned()),
    );
    Value::Object(part)
}

/// A response's text: the output or error written, or the response's JSON.
fn response_text<'r>(response: &'r Response<'_>) -> Cow<'r, str> {
    match response {
        Response::Output(o) => Cow::Borrowed(&o.output),
        Response::Error(e) => Cow::Borrowed(&e.error),
        Response::Other(value) => Cow::Owned(value.to_string()),
    }
}

/// Whether a response reports a failed call: it has the `error` key the
/// API documents for error details (`wire::Response`), alone or beside
/// other members.
fn failed(response: &Response<'_>) -> bool {
    match response {
        Response::Output(_) => false,
        Response::Error(_) => true,
        Response::Other(value) => value.get("error").is_some_and(|e| !e.is_null()),
    }
}

fn user(
    m: usize,
    at: &str,
    parts: &[Item<'_>],
    batch: &mut Batch,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    let responses: Vec<(usize, &FunctionResponse<'_>)> = parts
        .iter()
        .enumerate()
        .filter_map(|(p, part)| response_of(part).map(|r| (p, r)))
        .collect();
    if !responses.is_empty() {
        for (p, r) in responses {
            let pat = format!("{at}.parts[{p}].functionResponse");
            let answered = |id: &str| batch.results.iter().any(|(a, _)| a == id);
            let id = r.id.as_deref().map(str::to_owned).or_else(|| {
                batch
                    .calls
                    .iter()
                    .find(|(id, n)| *n == r.name && !answered(id))
                    .map(|(id, _)| id.clone())
            });
            out.kept("functionResponse part");
            let mut env = Envelope {
                call_id: id.clone(),
                ..Envelope::default()
            };
            if let Some(response) = &r.response {
                env.line(&response_text(response));
                env.is_error = failed(response);
            }
            for (i, part) in r.parts.iter().enumerate() {
                let iat = format!("{pat}.parts[{i}]");
                let what = label_in(&known::FUNCTION_RESPONSE_PART, "part", &raw(part));
                match inline(part) {
                    Some((kind, payload)) => {
                        out.kept(&what);
                        env.attachments
                            .push(crate::Attachment::new(kind, target(payload, &iat, store)?));
                    }
                    None => left_out(
                        out,
                        m,
                        &iat,
                        &what,
                        "a tool result holds text and attachments",
                    ),
                }
            }
            batch.results.push((id.unwrap_or_default(), env));
        }
        // Other parts beside the responses: the user's, after them.
        let others: Vec<(usize, &Item<'_>)> = parts
            .iter()
            .enumerate()
            .filter(|(_, part)| response_of(part).is_none())
            .collect();
        if others.is_empty() {
            return Ok(());
        }
        batch.flush(out);
        return user_parts(m, at, &others, store, out);
    }
    // The labelled media right after the responses.
    if !batch.results.is_empty() && parts.len().is_multiple_of(2) {
        let mut pairs = Vec::new();
        for (i, pair) in parts.chunks(2).enumerate() {
            match (text_of(&pair[0]), inline(&pair[1])) {
                (Some(text), Some((kind, payload))) => {
                    pairs.push((text, kind, payload, format!("{at}.parts[{}]", 2 * i + 1)))
                }
                _ => {
                    pairs.clear();
                    break;
                }
            }
        }
        if !pairs.is_empty() && batch.fold(pairs, "follows in the next user message", store)? {
            for part in parts {
                out.kept(&what(part));
            }
            batch.flush(out);
            return Ok(());
        }
    }
    batch.flush(out);
    let all: Vec<(usize, &Item<'_>)> = parts.iter().enumerate().collect();
    user_parts(m, at, &all, store, out)
}

/// A user's own parts as a user message: text, and media stored and
/// declared as its attachments.
fn user_parts(
    m: usize,
    at: &str,
    parts: &[(usize, &Item<'_>)],
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    let mut text = UserText::default();
    for &(p, part) in parts {
        let pat = format!("{at}.parts[{p}]");
        let what = what(part);
        if let Some(t) = text_of(part) {
            out.kept(&what);
            text.text(t);
        } else if let Some((kind, payload)) = inline(part) {
            let target = target(payload, &pat, store)?;
            text.media(out, &what, kind, target, None);
        } else {
            left_out(
                out,
                m,
                &pat,
                &what,
                "a user message holds text and its own media",
            );
        }
    }
    out.messages.push(text.into_record());
    Ok(())
}

/// The function declarations of a body, as function tools; other tools
/// (Google Search, code execution) are named and left out.
pub(crate) fn tool_definitions(body: &Value) -> (Vec<Value>, Vec<String>) {
    let mut tools = Vec::new();
    let mut left = Vec::new();
    for tool in list(body.get("tools")) {
        match tool.get("functionDeclarations").and_then(Value::as_array) {
            Some(decls) => tools.extend(decls.iter().map(|d| {
                let parameters = d
                    .get("parametersJsonSchema")
                    .or_else(|| d.get("parameters"));
                function_tool(&d["name"], d.get("description"), parameters)
            })),
            None => left.push(tool.to_string()),
        }
    }
    (tools, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    #[test]
    fn a_conversation_with_thoughts_and_kept_parts() {
        let body = json!({
            "systemInstruction": {"role": "system", "parts": [{"text": "Be brief."}]},
            "generationConfig": {"thinkingConfig": {"includeThoughts": true}},
            "contents": [
                {"parts": [{"text": "Look."}]},
                {"role": "model", "parts": [
                    {"text": "hm", "thought": true},
                    {"text": "Taking it."},
                    {"functionCall": {"name": "shot", "args": {"page": "a"}}, "thoughtSignature": "sig"},
                    {"executableCode": {"language": "PYTHON", "code": "1"}}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "shot", "response": {"output": "saved"},
                        "parts": [{"inlineData": {"mimeType": "image/gif", "data": GIF}}]}},
                    {"text": "And?"}]}
            ]
        });
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
        assert_eq!(h.messages[0].content(), "Be brief.");
        let a: Value = serde_json::from_str(h.messages[2].content()).unwrap();
        assert_eq!(a["content"], "Taking it.");
        assert_eq!(
            a["tool_calls"][0],
            json!({"id": "call_1_2", "name": "shot", "arguments": {"page": "a"}})
        );
        assert_eq!(a[SIGNATURES], json!({"call_1_2": "sig"}));
        assert_eq!(
            a[PARTS],
            json!([{"text": "hm", "thought": true}, {"executableCode": {"language": "PYTHON", "code": "1"}}])
        );
        let t: Value = serde_json::from_str(h.messages[3].content()).unwrap();
        assert_eq!(
            (t["tool_call_id"].as_str(), t["content"].as_str()),
            (Some("call_1_2"), Some("saved"))
        );
        assert_eq!(
            t["attachments"][0]["target"],
            format!("data:image/gif;base64,{GIF}")
        );
        assert_eq!(h.messages[4].content(), "And?");
        assert_eq!(h.notes.len(), 2);
    }

    /// The `error` key is a failed call (`wire::Response`), alone or beside
    /// other members; `output`, and an `error` of `null`, are not.
    #[test]
    fn an_error_key_reads_back_as_a_failed_result() {
        let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "Go."}]},
            {"role": "model", "parts": [
                {"functionCall": {"id": "a", "name": "f", "args": {}}},
                {"functionCall": {"id": "b", "name": "f", "args": {}}},
                {"functionCall": {"id": "c", "name": "f", "args": {}}},
                {"functionCall": {"id": "d", "name": "f", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "a", "name": "f", "response": {"error": "TimeoutError: 30 s"}}},
                {"functionResponse": {"id": "b", "name": "f", "response": {"output": "fine"}}},
                {"functionResponse": {"id": "c", "name": "f", "response": {"error": {"code": 7}, "output": "half"}}},
                {"functionResponse": {"id": "d", "name": "f", "response": {"error": null}}}]}
        ]});
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let tools: Vec<Value> = h
            .messages
            .iter()
            .filter(|m| m.role() == "tool")
            .map(|m| serde_json::from_str(m.content()).unwrap())
            .collect();
        let got: Vec<(&str, bool)> = tools
            .iter()
            .map(|t| (t["content"].as_str().unwrap(), t["is_error"] == true))
            .collect();
        assert_eq!(
            got,
            [
                ("TimeoutError: 30 s", true),
                ("fine", false),
                (r#"{"error":{"code":7},"output":"half"}"#, true),
                (r#"{"error":null}"#, false),
            ]
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
            err(json!({"messages": []})),
            "$: expected a generateContent body or a list of contents: no `contents` member"
        );
        assert_eq!(
            err(json!([{"role": "user"}])),
            "$[0]: missing field `parts`"
        );
        assert_eq!(
            err(
                json!({"contents": [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]})
            ),
            "$.contents[0].parts[0]: functionCall: missing field `name`"
        );
        assert_eq!(
            err(json!([{"parts": 7}])),
            "$[0].parts: invalid type: integer `7`, expected a sequence"
        );
        // A known part of a broken shape is refused, not kept as unknown.
        assert_eq!(
            err(json!([{"parts": [{"text": "a"}, {"inlineData": {"mimeType": "image/png"}}]}])),
            "$[0].parts[1]: inlineData: missing field `data`"
        );
        assert_eq!(
            err(
                json!([{"parts": [{"text": "a", "inlineData": {"mimeType": "image/png", "data": GIF}}]}])
            ),
            "$[0].parts[0]: a part holds both `inlineData` and `text` (one kind to a part); --keep-unknown keeps it as a note"
        );
        assert_eq!(
            err(json!([{"role": "user", "parts": [
                {"functionResponse": {"name": "f", "parts": [{"inlineData": {"mimeType": 7, "data": GIF}}]}}]}])),
            "$[0].parts[0]: functionResponse.parts[0]: inlineData.mimeType: invalid type: integer `7`, expected a string"
        );
    }
}
