//! The AI SDK's `UIMessage[]` (what `useChat` holds, and the SDK's guide
//! to persisting chats stores) as a carrier history, as the SDK's own
//! `convertToModelMessages` reads it without the app's tools.
//!
//! | `UIMessage` | carrier history |
//! |---|---|
//! | `system` text parts | a `system` record |
//! | `user` text and `file` parts | a `user` record, the files (by their `url`: a `data:` URL stored, another kept) its `attachments` |
//! | `assistant` parts, a step at a time (`step-start` begins one) | an assistant record of the step's text, `reasoning` (kept for the provider that signed it, as for `ModelMessage`) and tool calls, then a native carrier per call: `output-available` its `output` (a string as it is, anything else its JSON text), `output-error` its `errorText`, failed, `output-denied` a failed result saying so |
//! | a tool part still waiting (`input-streaming`, `input-available`, `approval-*`) | left out with its call, with a note: a call no result answers is refused by every API |
//! | provider-executed tool parts, `source-*`, `data-*`, `custom`, `reasoning-file`, `steering-message`, an assistant's files | left out, with a note |
//! | `metadata`, `providerMetadata` where no signature is read, `state`, `citations` | left out, with a note per kind |

use serde_json::Value;

use crate::steps::imported::{ImportError, UserText};

use super::super::build::{Answer, At, Build, Output};
use super::data::target;
use super::model::{kind, reasoning, whole, OPTIONS};

const ROLES: [&str; 3] = ["system", "user", "assistant"];

/// Read one `UIMessage`, at `at`.
pub(super) fn message(b: &mut Build<'_>, v: &Value, at: &At) -> Result<(), ImportError> {
    let role = b.str(v, at, "role")?;
    b.str(v, at, "id")?;
    b.others(v, at, &["id", "role", "parts", "metadata"]);
    if v.get("metadata").is_some() {
        b.aside(
            &at.key("metadata"),
            "metadata member",
            "the app's own data on a message, not sent to a model",
        );
    }
    let pat = at.key("parts");
    let parts = v
        .get("parts")
        .and_then(Value::as_array)
        .ok_or_else(|| ImportError::at(&pat.text(), "a UIMessage's parts must be a list"))?;
    match role {
        "system" | "user" => {
            b.kept(&format!("{role} message"));
            let mut user = UserText::default();
            for (i, part) in parts.iter().enumerate() {
                let at = pat.index(i);
                match kind(b, part, &at)? {
                    "text" => text(b, part, &at, |t| user.text(t))?,
                    "file" if role == "user" => {
                        b.others(
                            part,
                            &at,
                            &[
                                "type",
                                "mediaType",
                                "filename",
                                "url",
                                "providerReference",
                                "providerMetadata",
                            ],
                        );
                        metadata(b, part, &at);
                        if part.get("providerReference").is_some() {
                            let why = "the file as a provider holds it: its `url` is read";
                            b.aside(
                                &at.key("providerReference"),
                                "providerReference member",
                                why,
                            );
                        }
                        let url = part.get("url").unwrap_or(&Value::Null);
                        let target = target(b, url, &at.key("url"))?;
                        let mime = b.str(part, &at, "mediaType")?;
                        let name = part.get("filename").and_then(Value::as_str);
                        b.user_media(&mut user, "file part", whole(mime), target, name);
                    }
                    other => aside_part(b, &at, other)?,
                }
            }
            if role == "system" {
                b.push("system", user.into_text());
            } else {
                b.push_user(user);
            }
        }
        "assistant" => {
            b.kept("assistant message");
            let mut step = Step::default();
            for (i, part) in parts.iter().enumerate() {
                step.part(b, part, &pat.index(i))?;
            }
            step.push_to(b);
        }
        other => b.unknown(&at.key("role"), "message", other, &ROLES)?,
    }
    Ok(())
}

/// A text part's text, given to `to`.
fn text(
    b: &mut Build<'_>,
    part: &Value,
    at: &At,
    to: impl FnOnce(&str),
) -> Result<(), ImportError> {
    b.others(
        part,
        at,
        &["type", "text", "state", "citations", "providerMetadata"],
    );
    metadata(b, part, at);
    for (key, why) in [
        ("state", "whether it was still streaming, the UI's own"),
        (
            "citations",
            "the UI's sources for the text, not sent to a model",
        ),
    ] {
        if part.get(key).is_some() {
            b.aside(&at.member(key), &format!("{key} member"), why);
        }
    }
    b.kept("text part");
    to(b.str(part, at, "text")?);
    Ok(())
}

fn metadata(b: &mut Build<'_>, part: &Value, at: &At) {
    for key in [
        "providerMetadata",
        "callProviderMetadata",
        "resultProviderMetadata",
    ] {
        if part.get(key).is_some() {
            b.aside(&at.member(key), &format!("{key} member"), OPTIONS);
        }
    }
}

/// A part the carrier history has no place for.
fn aside_part(b: &mut Build<'_>, at: &At, kind: &str) -> Result<(), ImportError> {
    let why = match kind {
        "step-start" => return Ok(()),
        k if k.starts_with("data-") => "the app's own data, not sent to a model",
        "source-url" | "source-document" => {
            "a source the model cited, shown by the UI, not sent back"
        }
        "custom" | "reasoning-file" => {
            "one provider's own content, which the carrier history has no place for"
        }
        "steering-message" => "the UI's own note of a message sent while the model was working",
        "file" => "a file the model made: an assistant record holds text and calls",
        other => {
            let known = [
                "text",
                "reasoning",
                "file",
                "tool-NAME",
                "dynamic-tool",
                "step-start",
                "data-NAME",
                "source-url",
                "source-document",
                "custom",
                "reasoning-file",
                "steering-message",
            ];
            return b.unknown(at, "UIMessage part", other, &known);
        }
    };
    b.left(at, &format!("{kind} part"), why);
    Ok(())
}

/// An assistant's step: its answer, then its results.
#[derive(Default)]
struct Step {
    answer: Answer,
    results: Vec<Output>,
}

impl Step {
    fn part(&mut self, b: &mut Build<'_>, part: &Value, at: &At) -> Result<(), ImportError> {
        let kind = kind(b, part, at)?;
        match kind {
            "step-start" => {
                b.kept("step-start part");
                std::mem::take(self).push_to(b);
            }
            "text" => text(b, part, at, |t| self.answer.text(t))?,
            "reasoning" => {
                b.others(
                    part,
                    at,
                    &["type", "id", "text", "state", "providerMetadata"],
                );
                reasoning(b, part, at, "providerMetadata", &mut self.answer)?;
            }
            k if k.starts_with("tool-") || k == "dynamic-tool" => self.tool(b, part, at, kind)?,
            other => aside_part(b, at, other)?,
        }
        Ok(())
    }

    fn tool(
        &mut self,
        b: &mut Build<'_>,
        part: &Value,
        at: &At,
        kind: &str,
    ) -> Result<(), ImportError> {
        let name = match kind.strip_prefix("tool-") {
            Some(name) => name,
            None => b.str(part, at, "toolName")?,
        };
        let what = "tool part";
        if part.get("providerExecuted") == Some(&Value::Bool(true)) {
            b.left(at, what, "the provider ran the tool itself; such calls are the provider's, which the carrier history does not hold");
            return Ok(());
        }
        let state = b.str(part, at, "state")?;
        let id = b.str(part, at, "toolCallId")?;
        let mut result = Output::new(id, false);
        match state {
            "output-available" => match part.get("output") {
                Some(Value::String(s)) => result.text(s),
                Some(other) => result.text(&other.to_string()),
                None => return Err(ImportError::at(&at.key("output").text(), "missing")),
            },
            "output-error" => {
                result.failed();
                result.text(b.str(part, at, "errorText")?);
            }
            "output-denied" => {
                result.failed();
                let reason = part.pointer("/approval/reason").and_then(Value::as_str);
                result.text(&match reason {
                    Some(why) => format!("The tool's execution was denied: {why}"),
                    None => "The tool's execution was denied.".to_owned(),
                });
            }
            "input-streaming" | "input-available" | "approval-requested" | "approval-responded" => {
                b.left(
                    at,
                    "waiting tool part",
                    "a call no result answers yet, which every API refuses",
                );
                return Ok(());
            }
            other => {
                let known = [
                    "input-streaming",
                    "input-available",
                    "approval-requested",
                    "approval-responded",
                    "output-available",
                    "output-error",
                    "output-denied",
                ];
                return b.unknown(&at.key("state"), "tool part state", other, &known);
            }
        }
        b.others(
            part,
            at,
            &[
                "type",
                "toolName",
                "toolCallId",
                "title",
                "toolMetadata",
                "providerExecuted",
                "state",
                "input",
                "rawInput",
                "output",
                "errorText",
                "preliminary",
                "approval",
                "dynamic",
                "callProviderMetadata",
                "resultProviderMetadata",
            ],
        );
        let signature = part
            .pointer("/callProviderMetadata/google/thoughtSignature")
            .and_then(Value::as_str);
        match signature {
            Some(signature) => self.answer.gemini_signature(id, signature),
            None => metadata(b, part, at),
        }
        for (key, why) in [
            ("title", "the UI's title for the call"),
            ("toolMetadata", "the app's own data on the call"),
            (
                "approval",
                "the app's approval of the call, not the model's conversation",
            ),
        ] {
            if part.get(key).is_some() {
                b.aside(&at.member(key), &format!("{key} member"), why);
            }
        }
        let input = match part.get("input") {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => "{}".to_owned(),
        };
        b.kept(what);
        self.answer.call(id, name, input);
        self.results.push(result);
        Ok(())
    }

    fn push_to(self, b: &mut Build<'_>) {
        self.answer.push_to(b);
        for result in self.results {
            result.push_to(b);
        }
    }
}
