//! Nothing read is dropped: every reader and every conversion accounts
//! for what it read, and the accounts agree with the bodies.
//!
//! Generated histories (calls, results with attachments, results nobody
//! called for, calls nobody answered, attachment records the grammar
//! skips, and entries assistant messages kept as each API wrote them) go
//! to every provider's body; each body is read back by its own reader and
//! converted for every provider again. Every tally balances, and its
//! counts are the ones counted independently in the bodies: calls,
//! results, images, and each kept entry's marker.

#[path = "provider_support/mod.rs"]
mod support;

use proptest::prelude::*;
use serde_json::{json, Value};

use tool_carrier::history::{AsRecord, Record};
use tool_carrier::import::{from_provider, ImportOptions};
use tool_carrier::media::store::{InlineStore, MediaStore};
use tool_carrier::provider::{build_request, Options, Provider, Request, Tally};

/// One round: an assistant's calls and what answers them.
#[derive(Clone, Debug)]
struct Round {
    text: Option<String>,
    /// Each call, answered or not, its result's attachments.
    calls: Vec<(bool, Vec<Att>)>,
    /// Entries the envelope kept, each with a marker of its own.
    kept: Vec<Keep>,
    /// A result nobody called for, after the batch.
    stray: bool,
    /// The user's own attachments on their message after the round.
    own: Vec<Att>,
}

#[derive(Clone, Debug)]
enum Att {
    Png(u8),
    Url,
    /// A record the grammar skips.
    Invalid(u8),
}

#[derive(Clone, Copy, Debug)]
enum Keep {
    Thinking,
    /// A thinking block with a member no SDK lists (Cline's `call_id`).
    ThinkingWithCallId,
    ServerToolUse,
    Reasoning,
    /// An item of no kind the Responses SDK lists (a Codex rollout line).
    SessionMeta,
    CustomToolCall,
    BedrockReasoning,
    GeminiThought,
    OllamaThinking,
    Signature,
}

fn att() -> impl Strategy<Value = Att> {
    prop_oneof![
        6 => any::<u8>().prop_map(Att::Png),
        2 => Just(Att::Url),
        1 => (0u8..5).prop_map(Att::Invalid),
    ]
}

fn keep() -> impl Strategy<Value = Keep> {
    prop_oneof![
        Just(Keep::Thinking),
        Just(Keep::ThinkingWithCallId),
        Just(Keep::ServerToolUse),
        Just(Keep::Reasoning),
        Just(Keep::SessionMeta),
        Just(Keep::CustomToolCall),
        Just(Keep::BedrockReasoning),
        Just(Keep::GeminiThought),
        Just(Keep::OllamaThinking),
        Just(Keep::Signature),
    ]
}

fn round() -> impl Strategy<Value = Round> {
    (
        prop::option::of("[a-z ]{1,12}"),
        prop::collection::vec(
            (
                prop::bool::weighted(0.9),
                prop::collection::vec(att(), 0..3),
            ),
            1..4,
        ),
        prop::collection::vec(keep(), 0..3),
        prop::bool::weighted(0.15),
        prop::collection::vec(att(), 0..3),
    )
        .prop_map(|(text, calls, kept, stray, own)| Round {
            text,
            calls,
            kept,
            stray,
            own,
        })
}

/// The marker of kept entry `k` of round `r`: a string no body holds
/// unless the entry was sent.
fn marker(r: usize, k: usize) -> String {
    format!("MARKx{r}x{k}x")
}

/// The history of `rounds`, in the crate's own grammar, and how many
/// markers it holds.
fn history(rounds: &[Round]) -> (Vec<Record>, usize) {
    let mut h = vec![Record::new("user", "Go on.")];
    let mut markers = 0;
    for (r, round) in rounds.iter().enumerate() {
        let ids: Vec<String> = (0..round.calls.len())
            .map(|c| format!("call_{r}_{c}"))
            .collect();
        let mut envelope = json!({
            "content": round.text,
            "tool_calls": ids.iter().map(|id| json!({"id": id, "name": "shot", "arguments": "{}"})).collect::<Vec<_>>(),
        });
        let mut signatures = serde_json::Map::new();
        for (k, keep) in round.kept.iter().enumerate() {
            let m = marker(r, k);
            let (member, entry) = match keep {
                Keep::Thinking => (
                    "anthropic_thinking",
                    json!({"type": "thinking", "thinking": "t", "signature": m}),
                ),
                Keep::ThinkingWithCallId => (
                    "anthropic_thinking",
                    json!({"type": "thinking", "thinking": "t", "signature": m, "call_id": "x"}),
                ),
                Keep::ServerToolUse => (
                    "anthropic_blocks",
                    json!({"type": "server_tool_use", "id": format!("srvtoolu_{m}"), "name": "web_search", "input": {}}),
                ),
                Keep::Reasoning => (
                    "openai_items",
                    json!({"type": "reasoning", "id": format!("rs_{m}"), "summary": [], "encrypted_content": m}),
                ),
                Keep::SessionMeta => (
                    "openai_items",
                    json!({"type": "session_meta", "payload": m}),
                ),
                Keep::CustomToolCall => (
                    "openai_items",
                    json!({"type": "custom_tool_call", "call_id": format!("ctc_{m}"), "name": "apply_patch", "input": m}),
                ),
                Keep::BedrockReasoning => (
                    "bedrock_blocks",
                    json!({"reasoningContent": {"reasoningText": {"text": m, "signature": "c2ln"}}}),
                ),
                Keep::GeminiThought => ("gemini_parts", json!({"text": m, "thought": true})),
                Keep::OllamaThinking => {
                    // One to a message.
                    if envelope.get("ollama_thinking").is_some() {
                        continue;
                    }
                    envelope["ollama_thinking"] = Value::String(m);
                    markers += 1;
                    continue;
                }
                Keep::Signature => {
                    let id = &ids[k % ids.len()];
                    if signatures.contains_key(id) {
                        continue;
                    }
                    signatures.insert(id.clone(), Value::String(m));
                    markers += 1;
                    continue;
                }
            };
            markers += 1;
            envelope
                .as_object_mut()
                .unwrap()
                .entry(member)
                .or_insert_with(|| json!([]))
                .as_array_mut()
                .unwrap()
                .push(entry);
        }
        if !signatures.is_empty() {
            envelope["gemini_thought_signatures"] = Value::Object(signatures);
        }
        h.push(Record::new("assistant", envelope.to_string()));
        for (c, (answered, atts)) in round.calls.iter().enumerate() {
            if !answered {
                continue;
            }
            let result = json!({"tool_call_id": ids[c], "content": format!("result {r} {c}"), "attachments": declared(atts)});
            h.push(Record::new("tool", result.to_string()));
        }
        if round.stray {
            let result = json!({"tool_call_id": format!("stray_{r}"), "content": "stray", "attachments": []});
            h.push(Record::new("tool", result.to_string()));
        }
        let user = if round.own.is_empty() {
            Record::new("user", "Next.")
        } else {
            let record =
                json!({"role": "user", "content": "Next.", "attachments": declared(&round.own)});
            Record::parse(&record.to_string()).unwrap()
        };
        h.push(user);
    }
    (h, markers)
}

/// The attachment objects declaring `atts`.
fn declared(atts: &[Att]) -> Vec<Value> {
    atts.iter()
        .map(|a| match a {
            Att::Png(seed) => json!({"kind": "image", "target": InlineStore.put(&support::png(2, 2, *seed)).unwrap().target}),
            Att::Url => json!({"kind": "image", "target": "https://example.com/a.png"}),
            Att::Invalid(0) => json!({"kind": "IMAGE", "target": "a.png"}),
            Att::Invalid(1) => json!({"kind": "screenshot", "target": "a.png"}),
            Att::Invalid(2) => json!({"kind": "image"}),
            Att::Invalid(3) => json!({"kind": "image", "target": 5}),
            Att::Invalid(_) => json!({"kind": "image", "target": ""}),
        })
        .collect()
}

/// Every value of `v`, depth first.
fn values(v: &Value) -> Vec<&Value> {
    let mut out = vec![v];
    match v {
        Value::Array(items) => items.iter().for_each(|i| out.extend(values(i))),
        Value::Object(map) => map.values().for_each(|i| out.extend(values(i))),
        _ => {}
    }
    out
}

fn typed(v: &Value, tag: &str) -> usize {
    values(v)
        .into_iter()
        .filter(|x| x.get("type").and_then(Value::as_str) == Some(tag))
        .count()
}

fn keyed(v: &Value, key: &str) -> usize {
    values(v)
        .into_iter()
        .filter(|x| x.get(key).is_some_and(Value::is_object))
        .count()
}

/// Calls, results and images in `provider`'s body, counted by the API's
/// own shapes.
fn counts(provider: Provider, body: &Value) -> (usize, usize, usize) {
    let messages = |role: &str| {
        body["messages"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == role).count())
    };
    let calls_lists = || {
        body["messages"].as_array().map_or(0, |m| {
            m.iter()
                .filter_map(|m| m["tool_calls"].as_array())
                .map(Vec::len)
                .sum()
        })
    };
    match provider {
        Provider::Anthropic => (
            typed(body, "tool_use"),
            typed(body, "tool_result"),
            typed(body, "image"),
        ),
        Provider::OpenAiChat | Provider::OpenAiCompatible => {
            (calls_lists(), messages("tool"), typed(body, "image_url"))
        }
        Provider::OpenAiResponses => (
            typed(body, "function_call"),
            typed(body, "function_call_output"),
            typed(body, "input_image"),
        ),
        Provider::Gemini | Provider::Gemini2 => (
            keyed(body, "functionCall"),
            keyed(body, "functionResponse"),
            keyed(body, "inlineData"),
        ),
        Provider::Bedrock => (
            keyed(body, "toolUse"),
            keyed(body, "toolResult"),
            values(body)
                .into_iter()
                .filter(|x| x.get("image").is_some_and(|i| i.get("format").is_some()))
                .count(),
        ),
        Provider::Ollama => (
            calls_lists(),
            messages("tool"),
            body["messages"].as_array().map_or(0, |m| {
                m.iter()
                    .filter_map(|m| m["images"].as_array())
                    .map(Vec::len)
                    .sum()
            }),
        ),
    }
}

fn sent(tally: &Tally, what: &str) -> usize {
    tally.get(what).map_or(0, |c| c.sent)
}

/// The rows of kept entries (everything but calls, results and
/// attachments).
fn kept_sent(tally: &Tally) -> usize {
    tally
        .rows()
        .iter()
        .filter(|r| {
            !matches!(
                r.what.as_str(),
                "call"
                    | "result"
                    | "image"
                    | "document"
                    | "audio attachment"
                    | "video attachment"
                    | "attachment record"
            )
        })
        .map(|r| r.sent)
        .sum()
}

/// What the calls of `history` leave unanswered (a made-up result each).
fn unanswered<M: AsRecord>(history: &[M]) -> usize {
    let mut calls = Vec::new();
    let mut answered = Vec::new();
    for m in history {
        let v: Value = serde_json::from_str(m.content()).unwrap_or(Value::Null);
        match m.role() {
            "assistant" => calls.extend(
                v["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| c["id"].as_str().unwrap_or("").to_owned()),
            ),
            "tool" => answered.push(v["tool_call_id"].as_str().unwrap_or("").to_owned()),
            _ => {}
        }
    }
    calls.iter().filter(|c| !answered.contains(c)).count()
}

fn build<M: AsRecord + std::fmt::Debug>(provider: Provider, history: &[M]) -> Request {
    build_request(provider, history, &Options::new())
        .unwrap_or_else(|e| panic!("{provider}: {e}\n{history:#?}"))
}

/// The checks on one conversion of `history` (holding `markers` kept
/// entries' markers) for `provider`.
fn accounted<M: AsRecord + std::fmt::Debug>(
    provider: Provider,
    history: &[M],
    markers: usize,
) -> Value {
    let request = build(provider, history);
    let tally = &request.report.tally;
    let body = request.body.to_value();
    assert!(tally.is_balanced(), "{provider}: {tally:?}");
    let (calls, results, images) = counts(provider, &body);
    assert_eq!(sent(tally, "call"), calls, "{provider}: calls");
    assert_eq!(
        sent(tally, "result") + unanswered(history),
        results,
        "{provider}: results"
    );
    assert_eq!(sent(tally, "image"), images, "{provider}: images");
    let json = request.json();
    let found = (0..200)
        .flat_map(|r| (0..3).map(move |k| marker(r, k)))
        .filter(|m| json.contains(m.as_str()))
        .count();
    let kept = tally
        .rows()
        .iter()
        .filter(|r| {
            r.what.ends_with(" block")
                || r.what.ends_with(" item")
                || r.what.ends_with(" part")
                || r.what == "thinking text"
                || r.what == "thought signature"
        })
        .map(|r| r.read)
        .sum::<usize>();
    assert!(
        kept <= markers,
        "{provider}: {kept} kept entries read, {markers} written"
    );
    assert_eq!(
        kept_sent(tally),
        found,
        "{provider}: kept entries sent\n{json}"
    );
    // Every refusal is said, and --strict refuses exactly then.
    let failures = request.report.failures().count()
        + request
            .report
            .replay_notes
            .iter()
            .filter(|n| n.failure)
            .count();
    assert_eq!(tally.refusals(), failures, "{provider}: refusals");
    let strict = build_request(provider, history, &Options::new().with_strict(true));
    assert_eq!(strict.is_err(), failures > 0, "{provider}: --strict");
    body
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

/// A history converted for `from`, read back by `from`'s reader, and the
/// reading converted for every provider: every account balances and
/// agrees with the bodies.
fn every_provider_from(from: Provider, rounds: &[Round]) {
    let (history, markers) = history(rounds);
    let body = accounted(from, &history, markers);
    let imported = from_provider(from, &body, &mut InlineStore, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{from} reads its own body: {e}"));
    assert!(imported.tally.is_balanced(), "{from}: {:?}", imported.tally);
    let (calls, _, _) = counts(from, &body);
    assert_eq!(
        calls_in(&imported.messages),
        calls,
        "{from}: calls read back"
    );
    for to in Provider::ALL {
        accounted(to, &imported.messages, markers);
    }
}

macro_rules! readers {
    ($($name:ident: $provider:expr),* $(,)?) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(32))]
            $(
                #[test]
                fn $name(rounds in prop::collection::vec(round(), 1..4)) {
                    every_provider_from($provider, &rounds);
                }
            )*
        }
    };
}

readers!(
    anthropic_bodies_account_for_everything_everywhere: Provider::Anthropic,
    openai_chat_bodies_account_for_everything_everywhere: Provider::OpenAiChat,
    openai_responses_bodies_account_for_everything_everywhere: Provider::OpenAiResponses,
    gemini_bodies_account_for_everything_everywhere: Provider::Gemini,
    gemini_2_bodies_account_for_everything_everywhere: Provider::Gemini2,
    bedrock_bodies_account_for_everything_everywhere: Provider::Bedrock,
    ollama_bodies_account_for_everything_everywhere: Provider::Ollama,
    openai_compatible_bodies_account_for_everything_everywhere: Provider::OpenAiCompatible,
);
