//! The walk shared by every builder: history messages to a neutral
//! sequence of turns.
//!
//! * `system` (and `developer`) messages → [`Turn::System`].
//! * `user` messages → [`Turn::User`], or [`Turn::Carrier`] for a
//!   prompt-mode carrier (its declared attachments become slots) or a
//!   record with the user's own attachments (its `attachments` member's
//!   items become slots, after a carrier's).
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
//! Only a carrier's declared attachments and a user record's
//! `attachments` member become [`Slot`]s; a body or a user's text is text
//! and is never scanned.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::carrier::{checked_records, Carrier, TOOL_RESULTS_PREFIX};
use crate::history::AsRecord;
use crate::json::scan;
use crate::media::Prepared;

use super::envelope::KEPT;
use super::report::NoteReason;
pub(crate) use super::slot::{carrier_slots, item_slots, slots, Slot};
use super::wire::Arguments;
use crate::Role;

/// One step of the conversation, provider-neutral. `M` is what a declared
/// attachment holds: nothing (`()`) as the walk leaves it, a [`Media`]
/// once the media step has decided.
#[derive(Debug)]
pub(crate) enum Turn<'a, M = Media> {
    /// System text, and whether the caller marks it as the end of a prefix
    /// to cache (the record's `"cache": true`).
    System(&'a str, bool),
    /// User text, and whether the caller marks it.
    User(Cow<'a, str>, bool),
    /// Assistant text and tool calls.
    Assistant(AssistantTurn<'a>),
    /// The results of the preceding assistant turn's calls, in call order.
    Results(Vec<ToolResult<'a, M>>),
    /// A user message with attachments: a prompt-mode carrier, or a tool
    /// result no call claims.
    Carrier(UserCarrier<'a, M>),
}

/// An assistant message.
#[derive(Debug, Default)]
pub(crate) struct AssistantTurn<'a> {
    /// The history message it is, from 0.
    pub index: usize,
    /// Its text; `None` when there is none.
    pub text: Option<Cow<'a, str>>,
    /// Its tool calls, in order.
    pub calls: Vec<Call>,
    /// What the envelope kept as another API wrote it, each entry's JSON
    /// text as it holds it (a signed block goes back byte for byte), by
    /// member ([`KEPT`](super::envelope::KEPT)); the replay step leaves
    /// only what the request's API takes back.
    pub kept: Vec<Kept>,
    /// Ollama thinking ([`OLLAMA_THINKING`](super::envelope::OLLAMA_THINKING)).
    pub ollama_thinking: Option<String>,
    /// Members the envelope holds that are not what their name says (not a
    /// list of objects; thinking that is no string): left out, each to be
    /// noted.
    pub malformed: Vec<&'static str>,
    /// Whether the caller marks it as the end of a prefix to cache.
    pub cache: bool,
}

/// One entry an envelope kept, under its member.
#[derive(Debug)]
pub(crate) struct Kept {
    /// The envelope member (`anthropic_thinking`, `openai_items`, …).
    pub member: &'static str,
    /// The entry, as written.
    pub raw: Box<RawValue>,
}

impl AssistantTurn<'_> {
    /// The entries kept under `member`, in order, taken out of the turn.
    pub(crate) fn take(&mut self, member: &str) -> Vec<Box<RawValue>> {
        let (taken, rest): (Vec<Kept>, Vec<Kept>) = std::mem::take(&mut self.kept)
            .into_iter()
            .partition(|k| k.member == member);
        self.kept = rest;
        taken.into_iter().map(|k| k.raw).collect()
    }
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
    /// The Gemini thought signature the envelope kept for this call
    /// ([`import::GEMINI_SIGNATURES`](super::envelope::GEMINI_SIGNATURES)),
    /// for Gemini to be given back.
    pub signature: Option<String>,
}

/// The result of one call.
#[derive(Debug)]
pub(crate) struct ToolResult<'a, M = Media> {
    /// The id of the call it answers.
    pub call_id: String,
    /// The name of the tool called.
    pub name: String,
    /// The body (verbatim tool output).
    pub body: Cow<'a, str>,
    /// Its declared attachments.
    pub slots: Vec<Slot<'a, M>>,
    /// Whether the envelope says the tool failed (`"is_error": true`).
    pub is_error: bool,
    /// The history message it was read from; `None` for the result the
    /// walk writes for a call nobody answered.
    pub index: Option<usize>,
    /// Whether the caller marks it as the end of a prefix to cache.
    pub cache: bool,
}

/// A user message holding attachments.
#[derive(Debug)]
pub(crate) struct UserCarrier<'a, M = Media> {
    /// The text shown to the model.
    pub text: Cow<'a, str>,
    /// Its declared attachments.
    pub slots: Vec<Slot<'a, M>>,
    /// Whether it is a tool result no call claims, sent as a user's.
    pub unclaimed: bool,
    /// Whether the caller marks it as the end of a prefix to cache.
    pub cache: bool,
}

impl<'a> Turn<'a, ()> {
    /// This turn's declared attachments, in order.
    pub(crate) fn slots(&self) -> Box<dyn Iterator<Item = &Slot<'a, ()>> + '_> {
        match self {
            Turn::Results(results) => Box::new(results.iter().flat_map(|r| r.slots.iter())),
            Turn::Carrier(carrier) => Box::new(carrier.slots.iter()),
            Turn::System(..) | Turn::User(..) | Turn::Assistant(_) => Box::new(std::iter::empty()),
        }
    }

    /// The turn with each slot's media taken, in order, from `media`.
    pub(crate) fn with_media(self, media: &mut impl Iterator<Item = Media>) -> Turn<'a> {
        let mut fill = |slots: Vec<Slot<'a, ()>>| -> Vec<Slot<'a>> {
            slots
                .into_iter()
                .map(|slot| slot.with(media.next().expect("a media decision for every slot")))
                .collect()
        };
        match self {
            Turn::System(text, cache) => Turn::System(text, cache),
            Turn::User(text, cache) => Turn::User(text, cache),
            Turn::Assistant(a) => Turn::Assistant(a),
            Turn::Results(results) => Turn::Results(
                results
                    .into_iter()
                    .map(|r| ToolResult {
                        call_id: r.call_id,
                        name: r.name,
                        body: r.body,
                        slots: fill(r.slots),
                        is_error: r.is_error,
                        index: r.index,
                        cache: r.cache,
                    })
                    .collect(),
            ),
            Turn::Carrier(c) => Turn::Carrier(UserCarrier {
                text: c.text,
                slots: fill(c.slots),
                unclaimed: c.unclaimed,
                cache: c.cache,
            }),
        }
    }
}

/// What a declared attachment became.
#[derive(Clone, Debug)]
pub(crate) enum Media {
    /// Bytes to send inline (shared: a request that must shrink is
    /// written again from the same decisions, never prepared twice).
    Inline(Arc<Prepared>),
    /// An `http(s)` URL the provider fetches itself.
    Url(String),
    /// A file the request's provider already holds, sent by its id.
    File(Arc<crate::media::ProviderFile>),
    /// A note to send instead, and why.
    Note(NoteReason, String),
}

impl Media {
    /// Whether it goes to the provider as media (inline, by URL or by
    /// file id) rather than as a note.
    pub(crate) fn is_sent(&self) -> bool {
        !matches!(self, Media::Note(..))
    }
}

/// Text of the result given to a call nobody answered.
pub(crate) const NO_RESULT: &str = "[no result was recorded for this call]";

/// Walk `messages` into turns.
pub(crate) fn walk<M: AsRecord>(messages: &[M]) -> Vec<Turn<'_, ()>> {
    let mut turns = Vec::with_capacity(messages.len());
    let mut i = 0;
    while i < messages.len() {
        let (role, content) = (Role::parse(messages[i].role()), messages[i].content());
        if role != Role::Assistant {
            turns.push(single(i, role, &messages[i]));
            i += 1;
            continue;
        }
        let turn = AssistantTurn {
            cache: messages[i].cache(),
            ..assistant(i, content)
        };
        if turn.calls.is_empty() {
            turns.push(Turn::Assistant(turn));
            i += 1;
            continue;
        }
        // The window of this turn's results: up to the next assistant.
        let end = messages[i + 1..]
            .iter()
            .position(|m| Role::parse(m.role()) == Role::Assistant)
            .map_or(messages.len(), |p| i + 1 + p);
        let mut answers: Vec<Option<ToolResult<'_, ()>>> =
            turn.calls.iter().map(|_| None).collect();
        let mut after = Vec::new();
        for (j, m) in messages.iter().enumerate().take(end).skip(i + 1) {
            let (r, c) = (Role::parse(m.role()), m.content());
            if r != Role::Tool {
                after.push(single(j, r, m));
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
                        slots: carrier_slots(j, &carrier, c),
                        body: carrier.body,
                        is_error: carrier.is_error,
                        index: Some(j),
                        cache: m.cache(),
                    });
                }
                None => after.push(unclaimed(j, carrier, c, m.cache())),
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
                    is_error: false,
                    index: None,
                    cache: false,
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

/// The first message of a role the history does not have (roles are
/// compared exactly) whose content is shaped like tool calls or a tool
/// result: `(index, role, what it holds)`. Sent as the text of a user, it
/// would lose its calls or its attachments without a word.
pub(crate) fn misroled<M: AsRecord>(messages: &[M]) -> Option<(usize, String, &'static str)> {
    messages.iter().enumerate().find_map(|(i, m)| {
        let Role::Other(role) = Role::parse(m.role()) else {
            return None;
        };
        let content = m.content();
        let what = if envelope(i, content).is_some_and(|a| !a.calls.is_empty()) {
            "tool calls"
        } else {
            let carrier = Carrier::native(content);
            if carrier.is_declared() || carrier.call_id.is_some() {
                "a tool result"
            } else {
                return None;
            }
        };
        Some((i, role.to_owned(), what))
    })
}

/// A message that is not an assistant's, on its own.
fn single<'a, M: AsRecord>(index: usize, role: Role<'_>, message: &'a M) -> Turn<'a, ()> {
    let content = message.content();
    let cache = message.cache();
    match role {
        Role::System | Role::Developer => Turn::System(content, cache),
        Role::User => {
            // The user's own attachments: a member of the record, never
            // read from its text.
            let own = message
                .attachments_json()
                .map(|json| item_slots(index, checked_records(json)))
                .unwrap_or_default();
            match Carrier::prompt(content) {
                Some(carrier) => {
                    let text = if carrier.is_declared() {
                        // The count and marker lines are gone (the
                        // attachments travel as media); line 1 says what
                        // the text is.
                        Cow::Owned(format!("{TOOL_RESULTS_PREFIX}\n{}", carrier.body))
                    } else {
                        Cow::Borrowed(content)
                    };
                    let mut slots = slots(index, carrier.attachments());
                    slots.extend(own);
                    Turn::Carrier(UserCarrier {
                        text,
                        slots,
                        unclaimed: false,
                        cache,
                    })
                }
                None if !own.is_empty() => Turn::Carrier(UserCarrier {
                    text: Cow::Borrowed(content),
                    slots: own,
                    unclaimed: false,
                    cache,
                }),
                None => Turn::User(Cow::Borrowed(content), cache),
            }
        }
        Role::Tool => unclaimed(index, Carrier::native(content), content, cache),
        Role::Other(other) => Turn::User(Cow::Owned(format!("[{other}]\n{content}")), cache),
        // The walk takes assistant messages apart (their calls pair with
        // the results after them); as text here for completeness.
        Role::Assistant => Turn::Assistant(AssistantTurn {
            index,
            text: (!content.is_empty()).then_some(Cow::Borrowed(content)),
            cache,
            ..AssistantTurn::default()
        }),
    }
}

/// A tool result no call claims, labelled (with its call id when the
/// envelope names one).
fn unclaimed<'a>(
    index: usize,
    carrier: Carrier<'a>,
    content: &'a str,
    cache: bool,
) -> Turn<'a, ()> {
    let label = match carrier.call_id.as_deref() {
        Some(id) => format!("[Tool result for call {id}, which no tool call is waiting for]"),
        None => "[Tool result that no tool call is waiting for]".to_owned(),
    };
    Turn::Carrier(UserCarrier {
        slots: carrier_slots(index, &carrier, content),
        text: Cow::Owned(format!("{label}\n{}", carrier.body)),
        unclaimed: true,
        cache,
    })
}

/// An assistant message: a tool-call envelope, or text.
fn assistant(index: usize, content: &str) -> AssistantTurn<'_> {
    envelope(index, content).unwrap_or(AssistantTurn {
        index,
        text: (!content.is_empty()).then_some(Cow::Borrowed(content)),
        ..AssistantTurn::default()
    })
}

/// `{"content": <text|null>, "tool_calls": [{"id", "name", "arguments"}…]}`,
/// read with the envelope scanner (a repeated member is ambiguous, as in a
/// carrier). Anything else (other JSON, a call without a name, a
/// non-string content) is not an envelope, and the message stays text.
fn envelope(index: usize, content: &str) -> Option<AssistantTurn<'static>> {
    if !content.trim_start().starts_with('{') {
        return None;
    }
    const MEMBERS: [&str; 2 + KEPT.len() + 2] = {
        let mut names = ["content"; 2 + KEPT.len() + 2];
        names[1] = "tool_calls";
        let mut i = 0;
        while i < KEPT.len() {
            names[2 + i] = KEPT[i].0;
            i += 1;
        }
        names[2 + KEPT.len()] = super::envelope::GEMINI_SIGNATURES;
        names[3 + KEPT.len()] = super::envelope::OLLAMA_THINKING;
        names
    };
    let object = scan::pick(content, MEMBERS)?;
    let all: [usize; MEMBERS.len()] = std::array::from_fn(|i| i);
    if object.first_repeat(&all).is_some() {
        return None;
    }
    let picks = object.picks;
    let [text, calls] = [picks[0].clone(), picks[1].clone()];
    let [signatures, ollama_thinking] =
        [picks[2 + KEPT.len()].clone(), picks[3 + KEPT.len()].clone()];
    let mut malformed = Vec::new();
    // `{call id: signature}`; anything else is not Gemini's: left out,
    // and noted.
    let signatures: std::collections::HashMap<String, String> = match signatures.one() {
        None => Default::default(),
        Some(m) => serde_json::from_str(&content[m.value]).unwrap_or_else(|_| {
            malformed.push(super::envelope::GEMINI_SIGNATURES);
            Default::default()
        }),
    };
    // Entries that are not a list of objects are not what the member says
    // (Anthropic's blocks, Bedrock's, Responses' items): left out, and
    // noted; so are entries holding a number serde_json cannot read
    // (`1e999999`), which no body could carry raw.
    let fits = |b: &RawValue| b.get().starts_with('{') && crate::json::numbers_fit(b.get());
    let mut kept = Vec::new();
    for (i, &(member, _)) in KEPT.iter().enumerate() {
        let Some(m) = picks[2 + i].clone().one() else {
            continue;
        };
        match serde_json::from_str::<Vec<Box<RawValue>>>(&content[m.value]) {
            Ok(entries) if entries.iter().all(|b| fits(b)) => {
                kept.extend(entries.into_iter().map(|raw| Kept { member, raw }));
            }
            _ => malformed.push(member),
        }
    }
    let ollama_thinking = match ollama_thinking.one() {
        None => None,
        Some(m) => serde_json::from_str::<String>(&content[m.value])
            .map_err(|_| malformed.push(super::envelope::OLLAMA_THINKING))
            .ok(),
    };
    let calls = &content[calls.one()?.value];
    let items = calls.starts_with('[').then(|| scan::array(calls))??;
    let text = match text.one() {
        None => None,
        Some(m) => match content.as_bytes()[m.value.start] {
            b'n' => None,
            b'"' => Some(m.decoded?).filter(|t| !t.is_empty()),
            _ => return None,
        },
    };
    let mut calls = items
        .into_iter()
        .enumerate()
        .map(|(n, span)| call(index, n, &calls[span]))
        .collect::<Option<Vec<Call>>>()?;
    for call in &mut calls {
        call.signature = signatures.get(&call.id).cloned();
    }
    Some(AssistantTurn {
        index,
        text: text.map(|t| Cow::Owned(t.into_owned())),
        calls,
        kept,
        ollama_thinking,
        malformed,
        cache: false,
    })
}

/// One call: `{"id", "name", "arguments"}`, or OpenAI's nesting
/// `{"id", "function": {"name", "arguments"}}` (the call's own members win).
fn call(index: usize, n: usize, raw: &str) -> Option<Call> {
    const NAMES: [&str; 4] = ["id", "name", "arguments", "function"];
    /// A member's raw value and, for a string, its decoded text.
    type Field<'a> = Option<(&'a str, Option<Cow<'a, str>>)>;
    fn fields<'a>(src: &'a str) -> Option<[Field<'a>; 4]> {
        if !src.starts_with('{') {
            return None;
        }
        let object = scan::pick(src, NAMES)?;
        if object.first_repeat(&[0, 1, 2, 3]).is_some() {
            return None;
        }
        Some(
            object
                .picks
                .map(|p| p.one().map(|m| (&src[m.value.clone()], m.decoded))),
        )
    }
    let [id, name, arguments, function] = fields(raw)?;
    let nested = match function {
        Some((f, _)) if f.starts_with('{') => fields(f)?,
        _ => [None, None, None, None],
    };
    let [nested_id, nested_name, nested_arguments, _] = nested;
    let (id, name, arguments) = (
        id.or(nested_id),
        name.or(nested_name),
        arguments.or(nested_arguments),
    );
    let name = match name {
        Some((_, Some(name))) => name.into_owned(),
        _ => return None,
    };
    let id = match id {
        Some((_, Some(id))) if !id.is_empty() => id.into_owned(),
        _ => format!("call_{index}_{n}"),
    };
    let arguments = match arguments {
        None => Arguments::None,
        Some((raw, _)) if !raw.starts_with('"') => Arguments::from_raw(raw),
        // A string that does not decode (a lone surrogate) is no text.
        Some((_, decoded)) => Arguments::Text(decoded?.into_owned()),
    };
    Some(Call {
        id,
        name,
        arguments,
        signature: None,
    })
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
