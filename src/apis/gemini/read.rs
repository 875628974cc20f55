//! Gemini `generateContent` bodies (or their `contents`) as carrier
//! histories.
//!
//! | Gemini | carrier history |
//! |---|---|
//! | `systemInstruction` text | a `system` message |
//! | `user` text | a `user` message; `inlineData` stored and named in the text, with a note |
//! | `model` text and `functionCall` | an assistant envelope; a call without an id gets `call_M_N` |
//! | `functionResponse` | a `tool` carrier: `response.output` (or the response's JSON) the body, its `parts`' `inlineData` declared; a response without an id answers the turn's next call of that name |
//! | the labelled `user` content right after the responses (what `convert` writes for Gemini 2) | folded back into the results |
//! | other model parts (thoughts, code, `inlineData`) | kept as the envelope's `gemini_parts` member, with a note |
//! | other parts beside the responses | a `user` message after them |
//! | thought signatures of calls | kept as the envelope's `gemini_thought_signatures` member (`{call id: signature}`), written back when converting for Gemini; the placeholder `convert` writes is its own, and left out |

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, function_tool, kind_of_inline, list, messages_of, str_of, target,
    user_media, Batch, Call, ImportedHistory, Payload,
};

pub use crate::steps::envelope::GEMINI_SIGNATURES as SIGNATURES;

/// The member of the assistant envelope that keeps other model parts.
pub const PARTS: &str = "gemini_parts";

/// The placeholder signature `convert` writes on calls from elsewhere.
const PLACEHOLDER: &str = "skip_thought_signature_validator";

/// Read a `generateContent` request body (or a bare `contents` array).
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Gemini's shape.
pub fn from_gemini(
    input: &Value,
    store: &mut dyn MediaStore,
) -> Result<ImportedHistory, ImportError> {
    let contents = messages_of(input, "contents").ok_or_else(|| {
        ImportError::at("$", "expected a generateContent body or a list of contents")
    })?;
    let mut out = ImportedHistory::default();
    if let Some(parts) = input
        .pointer("/systemInstruction/parts")
        .and_then(Value::as_array)
    {
        let text: Vec<&str> = parts.iter().filter_map(|p| str_of(p, "text")).collect();
        if !text.is_empty() {
            out.push("system", text.join("\n"));
        }
    }
    let mut batch = Batch::default();
    for (m, content) in contents.iter().enumerate() {
        let at = format!("$.contents[{m}]");
        let parts = content
            .get("parts")
            .and_then(Value::as_array)
            .ok_or_else(|| ImportError::at(&format!("{at}.parts"), "expected a list of parts"))?;
        match str_of(content, "role").unwrap_or("user") {
            "model" => {
                batch.flush(&mut out);
                batch.calls.clear();
                let mut text = Vec::new();
                let mut calls: Vec<Call> = Vec::new();
                let mut signatures = serde_json::Map::new();
                let mut others: Vec<Value> = Vec::new();
                for (p, part) in parts.iter().enumerate() {
                    if let Some(t) = str_of(part, "text") {
                        text.push(t);
                    } else if let Some(f) = part.get("functionCall") {
                        let name = str_of(f, "name").ok_or_else(|| {
                            ImportError::at(
                                &format!("{at}.parts[{p}]"),
                                "a functionCall needs a name",
                            )
                        })?;
                        let id =
                            str_of(f, "id").map_or_else(|| format!("call_{m}_{p}"), str::to_owned);
                        batch.calls.push((id.clone(), name.to_owned()));
                        calls.push(Call {
                            id,
                            name: name.to_owned(),
                            arguments: f.get("args").map_or("{}".into(), Value::to_string),
                        });
                    }
                    if str_of(part, "text").is_none() && part.get("functionCall").is_none() {
                        out.note(m, format!("{at}.parts[{p}]: a part of another kind is kept as the envelope's {PARTS}"));
                        others.push(part.clone());
                    } else if part.get("thought") == Some(&Value::Bool(true)) {
                        // A thought summary is the model's, not its answer.
                        text.pop();
                        out.note(
                            m,
                            format!("{at}.parts[{p}]: a thought is kept as the envelope's {PARTS}"),
                        );
                        others.push(part.clone());
                    }
                    match (str_of(part, "thoughtSignature"), calls.last()) {
                        (Some(s), Some(call))
                            if s != PLACEHOLDER && part.get("functionCall").is_some() =>
                        {
                            signatures.insert(call.id.clone(), Value::String(s.to_owned()));
                        }
                        (Some(s), _) if s != PLACEHOLDER => {
                            out.note(m, format!("{at}.parts[{p}]: a thought signature on a part that is no call is left out"));
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
            _ => user(m, &at, parts, &mut batch, store, &mut out)?,
        }
    }
    batch.flush(&mut out);
    Ok(out)
}

fn inline<'v>(part: &'v Value) -> Option<(AttachmentKind, Payload<'v>)> {
    let d = part.get("inlineData")?;
    let kind = kind_of_inline(str_of(d, "mimeType").unwrap_or(""));
    Some((kind, Payload::Base64(str_of(d, "data")?)))
}

fn user(
    m: usize,
    at: &str,
    parts: &[Value],
    batch: &mut Batch,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    let responses: Vec<(usize, &Value)> = parts
        .iter()
        .enumerate()
        .filter_map(|(p, part)| part.get("functionResponse").map(|r| (p, r)))
        .collect();
    if !responses.is_empty() {
        for (p, r) in responses {
            let pat = format!("{at}.parts[{p}].functionResponse");
            let name = str_of(r, "name").unwrap_or("");
            let answered = |id: &str| batch.results.iter().any(|(a, _)| a == id);
            let id = str_of(r, "id").map(str::to_owned).or_else(|| {
                batch
                    .calls
                    .iter()
                    .find(|(id, n)| n == name && !answered(id))
                    .map(|(id, _)| id.clone())
            });
            let mut env = Envelope {
                call_id: id.clone(),
                ..Envelope::default()
            };
            if let Some(resp) = r.get("response") {
                match str_of(resp, "output") {
                    Some(output) if resp.as_object().is_some_and(|o| o.len() == 1) => {
                        env.line(output)
                    }
                    _ => env.line(&resp.to_string()),
                }
            }
            for (i, part) in r
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let iat = format!("{pat}.parts[{i}]");
                if let Some((kind, payload)) = inline(part) {
                    env.attachments
                        .push(crate::Attachment::new(kind, target(payload, &iat, store)?));
                }
            }
            batch.results.push((id.unwrap_or_default(), env));
        }
        // Other parts beside the responses: the user's, after them.
        let others: Vec<(usize, &Value)> = parts
            .iter()
            .enumerate()
            .filter(|(_, part)| part.get("functionResponse").is_none())
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
            match (str_of(&pair[0], "text"), inline(&pair[1])) {
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
            batch.flush(out);
            return Ok(());
        }
    }
    batch.flush(out);
    let all: Vec<(usize, &Value)> = parts.iter().enumerate().collect();
    user_parts(m, at, &all, store, out)
}

/// A user's own parts as a user message: text, and media stored and named.
fn user_parts(
    m: usize,
    at: &str,
    parts: &[(usize, &Value)],
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    let mut text = Vec::new();
    for &(p, part) in parts {
        let pat = format!("{at}.parts[{p}]");
        if let Some(t) = str_of(part, "text") {
            text.push(t.to_owned());
        } else if let Some((kind, payload)) = inline(part) {
            let target = target(payload, &pat, store)?;
            text.push(user_media(out, m, &pat, kind, &target));
        } else {
            out.note(m, format!("{pat}: a part of another kind is kept as text"));
            text.push(part.to_string());
        }
    }
    out.push("user", text.join("\n"));
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
