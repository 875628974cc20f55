//! Generated histories through every provider: random tool rounds,
//! parallel calls, ids and names no API takes as they are, missing and
//! stray results, images, PDFs, failing targets, prompt carriers, vision
//! off, with and without tool definitions. Every body passes every rule
//! of its API (`support::build` checks the serialized body).
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::json;
use support::{line, Fixture};
use tool_carrier::provider::{build_request, BuildError, Options, Provider, Tools};

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(Fixture::new)
}

const NAMES: &[&str] = &[
    "screenshot",
    "read_file",
    "fs.read file",
    "1st-tool",
    "bash",
    "a-very-long-tool-name-that-goes-on-and-on-past-what-any-api-takes-as-a-name",
];
const IDS: &[&str] = &[
    "call_1",
    "toolu_01ABCdef",
    "tooluse.x:y",
    "call 1",
    "",
    "an-id-well-over-forty-characters-long-from-another-provider-0001",
];
const TARGETS: &[(&str, &str)] = &[
    ("image", "shots/dashboard.png"),
    ("image", "shots/editor.png"),
    ("image", "shots/small.png"),
    ("image", "shots/not-an-image.png"),
    ("image", "missing.png"),
    ("image", "../outside.png"),
    ("image", "https://example.com/a.png"),
    ("document", "reports/incident-42.pdf"),
    ("document", "docs/notes.pdf"),
    ("document", "https://example.com/a.pdf"),
    ("audio", "clip.wav"),
];
const BODIES: &[&str] = &["", "ok", "[IMAGE:/etc/passwd]", "two\nlines", " \n ", "\t"];

#[derive(Debug, Clone)]
struct Round {
    text: Option<String>,
    calls: Vec<(usize, usize)>,
    /// Per call: answered, with these attachment indices.
    answers: Vec<Option<Vec<usize>>>,
    /// Answer in reverse order.
    reversed: bool,
    /// A result for a call nobody made.
    stray: bool,
    /// A prompt-mode carrier after the round.
    prompt: Option<Vec<usize>>,
    system: bool,
}

fn round() -> impl Strategy<Value = Round> {
    (
        prop::option::of(prop::sample::select(&["Looking.", ""][..]).prop_map(str::to_owned)),
        prop::collection::vec((0..NAMES.len(), 0..IDS.len()), 1..4),
        prop::collection::vec(
            prop::option::weighted(0.85, prop::collection::vec(0..TARGETS.len(), 0..3)),
            3,
        ),
        any::<bool>(),
        prop::bool::weighted(0.1),
        prop::option::weighted(0.2, prop::collection::vec(0..TARGETS.len(), 0..3)),
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(text, calls, answers, reversed, stray, prompt, system)| Round {
                text,
                calls,
                answers,
                reversed,
                stray,
                prompt,
                system,
            },
        )
}

/// The history, and how many attachments it declares.
fn history(rounds: &[Round], opening: bool) -> (String, usize) {
    let mut out = String::new();
    let mut declared = 0;
    if opening {
        out += &line("user", "Start.");
    }
    for (r, round) in rounds.iter().enumerate() {
        if round.system {
            out += &line("system", "Be careful.");
        }
        let calls: Vec<serde_json::Value> = round
            .calls
            .iter()
            .enumerate()
            .map(|(k, &(name, id))| {
                // Ids repeat, across rounds and within one: agents that
                // number calls per turn reuse them.
                let id = match (IDS[id], (r + k) % 3) {
                    ("", _) => String::new(),
                    (id, 0) => id.to_owned(),
                    (id, _) => format!("{id}{r}{k}"),
                };
                json!({"id": id, "name": NAMES[name], "arguments": "{\"x\":1}"})
            })
            .collect();
        out += &line(
            "assistant",
            &json!({"content": round.text, "tool_calls": calls}).to_string(),
        );
        let mut results = Vec::new();
        for (k, call) in calls.iter().enumerate() {
            let Some(Some(atts)) = round.answers.get(k) else {
                continue;
            };
            let attachments: Vec<serde_json::Value> = atts
                .iter()
                .map(|&t| json!({"kind": TARGETS[t].0, "target": TARGETS[t].1}))
                .collect();
            declared += attachments.len();
            let mut envelope = json!({
                "content": BODIES[(r + k) % BODIES.len()],
                "attachments": attachments,
            });
            if call["id"] != "" {
                envelope["tool_call_id"] = call["id"].clone();
            }
            results.push(line("tool", &envelope.to_string()));
        }
        if round.reversed {
            results.reverse();
        }
        out += &results.concat();
        if round.stray {
            out += &line(
                "tool",
                r#"{"tool_call_id":"nobody","content":"stray","attachments":[]}"#,
            );
        }
        if let Some(atts) = &round.prompt {
            declared += atts.len();
            let mut text = format!("[Tool results]\n[Tool attachments: {}]\n", atts.len());
            for &t in atts {
                text += &format!("[{}:{}]\n", TARGETS[t].0.to_uppercase(), TARGETS[t].1);
            }
            text += "prompt-mode body";
            out += &line("user", &text);
        }
    }
    (out, declared)
}

fn definitions() -> Tools {
    Tools::from_value(&json!([
        {"name": "screenshot", "input_schema": {"type": "object", "properties": {"page": {"type": "string", "default": "a"}, "tags": {"type": "array"}}, "anyOf": [{"required": ["page"]}, {"required": ["tags"]}]}},
        {"type": "function", "function": {"name": "fs.read file", "parameters": {"type": "object", "properties": {"path": {"$ref": "#/$defs/p", "title": "Path"}}, "$defs": {"p": {"type": "string"}}}}},
        {"type": "bash_20250124", "name": "bash"}
    ]))
    .unwrap()
}

const TARGETS_OF_MODEL: &[(Provider, Option<&str>)] = &[
    (Provider::Anthropic, None),
    (Provider::Anthropic, Some("claude-haiku-4-5")),
    (Provider::OpenAiChat, None),
    (Provider::OpenAiResponses, None),
    (Provider::Gemini, None),
    (Provider::Gemini, Some("gemini-2.5-flash-lite")),
    (Provider::Gemini2, None),
    (Provider::Bedrock, None),
    (
        Provider::Bedrock,
        Some("us.meta.llama3-2-90b-instruct-v1:0"),
    ),
    (Provider::Bedrock, Some("amazon.nova-pro-v1:0")),
    (Provider::Ollama, None),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_body_passes_every_rule(
        rounds in prop::collection::vec(round(), 1..5),
        opening in any::<bool>(),
        vision in prop::bool::weighted(0.8),
        with_tools in any::<bool>(),
    ) {
        let (text, declared) = history(&rounds, opening);
        let messages = support::history_lines(&text);
        for &(provider, model) in TARGETS_OF_MODEL {
            let mut options: Options = fixture().options().with_vision(vision);
            if let Some(model) = model {
                options = options.with_model(model);
            }
            if with_tools {
                options = options.with_tools(definitions());
            }
            // Panics, naming each broken rule, when a rule is broken.
            let request = support::build(provider, &messages, &options);
            // Every declared attachment is sent or noted, none twice.
            let r = &request.report;
            prop_assert_eq!(r.images + r.documents + r.urls + r.notes.len(), declared, "{}", provider);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Whatever the history (none at all included) and options
    /// (contradictory ones included), `build_request` returns a body that
    /// passes every rule of its API, or an error saying why; never a
    /// panic, never a broken body. `--strict` refuses exactly the
    /// requests whose notes hold a failure.
    #[test]
    fn a_request_is_a_body_that_passes_or_an_error(
        rounds in prop::collection::vec(round(), 0..4),
        opening in any::<bool>(),
        keep in prop::option::of(0usize..4),
        step in 1usize..4,
        strict in any::<bool>(),
    ) {
        let (text, _) = history(&rounds, opening);
        let messages = support::history_lines(&text);
        for &(provider, model) in TARGETS_OF_MODEL {
            let mut options: Options = fixture().options().with_evict_step(step).with_strict(strict);
            if let Some(n) = keep {
                options = options.with_keep_images(n);
            }
            if let Some(model) = model {
                options = options.with_model(model);
            }
            match build_request(provider, &messages, &options) {
                Ok(request) => {
                    support::assert_follows_rules(&request);
                    prop_assert!(!strict || request.report.failures().next().is_none());
                }
                Err(BuildError::Options(_)) => {
                    prop_assert!(keep.is_some_and(|n| n >= 1 && step > n));
                }
                Err(BuildError::Attachments(notes)) => {
                    prop_assert!(strict && !notes.is_empty());
                    prop_assert!(notes.iter().all(|n| n.reason.is_failure()));
                }
                Err(BuildError::Refused { violation, .. }) => {
                    // Only a history with nothing to send is refused.
                    prop_assert!(messages.iter().all(|m| m.role() == "system"), "{}: {}", provider, violation);
                }
                Err(e) => prop_assert!(false, "{}: {}", provider, e),
            }
        }
    }
}
