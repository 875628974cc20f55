//! The replay step: what an assistant turn kept as an API wrote it
//! (thinking and reasoning with their signatures, server tools' items,
//! computer calls) goes back only to an API whose table row takes it back
//! ([`Replay`]), and only once checked against that API's SDK tables: an
//! entry of a kind the API does not list, or holding a member it does not
//! list (Cline's `call_id` on a block), is never sent.
//!
//! What is not sent is left out with a note ([`ReplayNote`]), counted:
//! the model's reasoning written by another API is left out by design
//! (noted); anything else that does not go back — another API's server
//! tool call, an entry of a kind or with a member the API does not list —
//! is a failure (refused), which `--strict` refuses.
//!
//! An image inside an entry sent back (a computer call's screenshot) is
//! fitted like any other attachment and counted as sent.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::Value;

use super::envelope::{GEMINI_SIGNATURES, KEPT, OLLAMA_THINKING};
use super::known::{List, Refusal};
use super::report::ReplayNote;
use super::tally::Tally;
use super::walk::{AssistantTurn, Turn};
use crate::media::{MediaError, Prepared};

/// What an API takes back of what an envelope keeps under one member.
pub(crate) struct Replay {
    /// The envelope member (`anthropic_thinking`, `openai_items`, …).
    pub member: &'static str,
    /// The list an entry must be of in the API's SDK tables (`None` for a
    /// member that is no list: Ollama's thinking, Gemini's signatures).
    pub list: Option<&'static List>,
    /// The SDK the list comes from (`anthropic 2.14.0`).
    pub sdk: &'static str,
    /// The kinds taken back; `None` for every kind of the list.
    pub kinds: Option<&'static [&'static str]>,
    /// Why no entry of the member goes back, where none does (the API's
    /// own entries it is not given again).
    pub refuse: Option<&'static str>,
    /// Whether an entry (its tag, itself) is the model's reasoning, left
    /// out by design where it cannot go back.
    pub reasoning: fn(&str, &Value) -> bool,
    /// Where an entry of a kind holds an image as a `data:` URL, by JSON
    /// pointer: fitted like any attachment.
    pub media: &'static [(&'static str, &'static str)],
    /// The entry as the API takes it back, before it is checked: less the
    /// members only its responses carry (Responses' `created_by`).
    pub normalize: fn(Box<RawValue>) -> Box<RawValue>,
    /// Whether the model (by its id) is given the member back (Gemini's
    /// signatures: Gemini 3 and later).
    pub for_model: fn(&str) -> bool,
}

/// Every model is given the member back.
pub(crate) fn any_model(_: &str) -> bool {
    true
}

/// An entry taken back as it was kept.
pub(crate) fn as_kept(raw: Box<RawValue>) -> Box<RawValue> {
    raw
}

/// No entry is reasoning.
pub(crate) fn no_reasoning(_: &str, _: &Value) -> bool {
    false
}

/// The rows of every API, to learn what an entry another API wrote is.
pub(crate) type Rows<'a> = &'a [&'static [Replay]];

/// An image a replayed entry holds, fitted.
pub(crate) type Fit<'a> = &'a dyn Fn(&[u8]) -> Result<Arc<Prepared>, MediaError>;

/// What the replay step did, for the report.
#[derive(Default)]
pub(crate) struct Replayed {
    /// Each entry left out.
    pub notes: Vec<ReplayNote>,
    /// What was read and what became of it.
    pub tally: Tally,
    /// Images fitted inside entries sent back.
    pub images: Vec<Arc<Prepared>>,
}

impl Replayed {
    /// Add to `report` what was left out, the counts, and the images
    /// fitted inside entries sent back (with their input tokens, by the
    /// provider's count).
    pub(crate) fn into_report(
        self,
        facts: &crate::facts::Facts,
        provider: crate::facts::Provider,
        model: &str,
        detail: crate::facts::Detail,
        report: &mut super::report::Report,
    ) {
        report.replay_notes.extend(self.notes);
        report.tally.extend(&self.tally);
        for image in &self.images {
            report.images += 1;
            if let (Some(w), Some(h)) = (image.width, image.height) {
                let tokens = facts.image_tokens_at(provider, model, detail, w, h);
                report.image_tokens = match (report.image_tokens, tokens) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
            }
        }
    }
}

/// The tag of an entry: its `type`, or the one member it is keyed by.
fn tag(raw: &Value) -> String {
    match raw {
        Value::Object(map) => map
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| map.keys().next().cloned())
            .unwrap_or_else(|| "untyped".into()),
        _ => "untyped".into(),
    }
}

/// What an entry of `member` is called (`reasoning item`).
fn label(member: &str, tag: &str) -> String {
    let noun = KEPT
        .iter()
        .find(|(m, _)| *m == member)
        .map_or("entry", |(_, noun)| *noun);
    format!("{tag} {noun}")
}

/// Leave in each assistant turn of `turns` only what `takes` (the
/// request's API) takes back, checked; note and count the rest. `rows`
/// are every API's, to tell reasoning from other entries.
pub(crate) fn replay(
    turns: &mut [Turn<'_, ()>],
    takes: &[Replay],
    model: &str,
    rows: Rows<'_>,
    api: &str,
    fit: Fit<'_>,
) -> Replayed {
    let mut out = Replayed::default();
    let takes: Vec<&Replay> = takes.iter().filter(|r| (r.for_model)(model)).collect();
    for turn in turns {
        if let Turn::Assistant(a) = turn {
            one(a, &takes, rows, api, fit, &mut out);
        }
    }
    out
}

fn one(
    turn: &mut AssistantTurn<'_>,
    takes: &[&Replay],
    rows: Rows<'_>,
    api: &str,
    fit: Fit<'_>,
    out: &mut Replayed,
) {
    let index = turn.index;
    for member in std::mem::take(&mut turn.malformed) {
        let what = format!("{member} member");
        out.tally.read(&what, 1);
        out.tally.refused(&what);
        out.notes.push(ReplayNote {
            index,
            what,
            failure: true,
            text: format!("the envelope's {member} is not what the member holds (a list of objects, a string): left out"),
        });
    }
    let kept = std::mem::take(&mut turn.kept);
    for mut kept in kept {
        let row = takes.iter().find(|r| r.member == kept.member);
        if let Some(row) = row {
            kept.raw = (row.normalize)(kept.raw);
        }
        let value: Value = serde_json::from_str(kept.raw.get()).unwrap_or(Value::Null);
        let tag = tag(&value);
        let what = label(kept.member, &tag);
        out.tally.read(&what, 1);
        let verdict = match row {
            Some(row) => check(row, &value, &tag, api, fit, out),
            None => Err(format!(
                "it was written by another API, which {api} cannot be given"
            )),
        };
        match verdict {
            Ok(Some(raw)) => {
                out.tally.sent(&what);
                turn.kept.push(super::walk::Kept {
                    member: kept.member,
                    raw,
                });
            }
            Ok(None) => {
                out.tally.sent(&what);
                turn.kept.push(kept);
            }
            Err(why) => {
                let reasoning = rows
                    .iter()
                    .flat_map(|r| r.iter())
                    .any(|r| r.member == kept.member && (r.reasoning)(&tag, &value));
                // Another API's reasoning goes nowhere else, by design;
                // anything else left out is lost to the model.
                let failure = !reasoning || row.is_some();
                if failure {
                    out.tally.refused(&what);
                } else {
                    out.tally.noted(&what);
                }
                out.notes.push(ReplayNote {
                    index,
                    what: what.clone(),
                    failure,
                    text: format!("{} {what} is left out: {why}", super::known::article(&what)),
                });
            }
        }
    }
    let signed = turn.calls.iter().filter(|c| c.signature.is_some()).count();
    if signed > 0 {
        let what = "thought signature";
        out.tally.read(what, signed);
        if takes.iter().any(|r| r.member == GEMINI_SIGNATURES) {
            out.tally.sent_n(what, signed);
        } else {
            for call in turn.calls.iter_mut().filter(|c| c.signature.is_some()) {
                call.signature = None;
                out.tally.noted(what);
            }
            out.notes.push(ReplayNote {
                index,
                what: what.into(),
                failure: false,
                text: format!("{signed} thought signature(s) are left out: {api} is not given them for this model"),
            });
        }
    }
    if turn.ollama_thinking.is_some() {
        let what = "thinking text";
        out.tally.read(what, 1);
        if takes.iter().any(|r| r.member == OLLAMA_THINKING) {
            out.tally.sent(what);
        } else {
            turn.ollama_thinking = None;
            out.tally.noted(what);
            out.notes.push(ReplayNote {
                index,
                what: what.into(),
                failure: false,
                text: format!(
                    "the thinking text another API wrote is left out: {api} cannot be given it"
                ),
            });
        }
    }
}

/// Whether `value` (tagged `tag`) goes back to the API of `row`: as it is
/// (`None`), with its images fitted (the entry written anew), or not, and
/// why.
fn check(
    row: &Replay,
    value: &Value,
    tag: &str,
    api: &str,
    fit: Fit<'_>,
    out: &mut Replayed,
) -> Result<Option<Box<RawValue>>, String> {
    if let Some(why) = row.refuse {
        return Err(why.to_owned());
    }
    let Some(list) = row.list else {
        return Ok(None);
    };
    if let Err(why) = list.check(value) {
        let noun = label(row.member, "");
        return Err(Refusal {
            why: &why,
            list,
            sdk: row.sdk,
            noun: noun.trim(),
        }
        .to_string());
    }
    if row.kinds.is_some_and(|kinds| !kinds.contains(&tag)) {
        return Err(format!(
            "{api} is given back only its {}",
            row.kinds.unwrap_or_default().join(", ")
        ));
    }
    let pointers: Vec<&str> = row
        .media
        .iter()
        .filter(|(kind, _)| *kind == tag)
        .map(|(_, pointer)| *pointer)
        .collect();
    let mut value = value.clone();
    let mut fitted = Vec::new();
    for pointer in pointers {
        let Some(Value::String(url)) = value.pointer_mut(pointer) else {
            continue;
        };
        if !crate::media::data_uri::is_data_uri(url) {
            // A URL or a file id: the API reads it itself.
            continue;
        }
        let bytes = crate::media::data_uri::decode_data_uri(url, usize::MAX)
            .map_err(|e| format!("its image at {pointer} cannot be read: {e}"))?
            .1;
        let prepared = fit(&bytes).map_err(|e| format!("its image at {pointer}: {e}"))?;
        *url = prepared.data_url().to_string();
        fitted.push(prepared);
    }
    if fitted.is_empty() {
        return Ok(None);
    }
    out.images.extend(fitted);
    let raw = RawValue::from_string(value.to_string()).map_err(|e| e.to_string())?;
    Ok(Some(raw))
}
