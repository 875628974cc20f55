//! Images over a whole conversation: keep the newest N, keep within an
//! image-token budget, and leave the oldest out in steps so the request
//! before its last message stays the same from one turn to the next.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::Value;
use support::{build_lines, calls, line, png, result, Fixture};
use tool_carrier::provider::{build_request, BuildError, OptionsError};
use tool_carrier::provider::{NoteReason, Options, Provider};

/// The screenshot of round `i`: small, and different in every round.
fn shot(i: usize) -> Vec<u8> {
    png(8 + (i as u32 % 5), 6, i as u8)
}

/// A fixture holding `n` screenshots, and a history of `n` tool rounds,
/// one screenshot each (oldest first).
fn rounds(n: usize) -> (Fixture, Vec<String>) {
    let fixture = Fixture::new();
    let mut turns = vec![line("user", "Work through the screens.")];
    for i in 0..n {
        let target = format!("shots/round-{i:02}.png");
        fixture.add(&target, &shot(i));
        let id = format!("call_{i}");
        turns.push(calls(&[(&id, "screenshot")]) + &result(&id, &format!("round {i}"), &[&target]));
    }
    (fixture, turns)
}

/// Which rounds' screenshots a request sends, oldest first: those whose
/// bytes (sent unchanged, being small PNGs) are in the body.
fn sent(provider: Provider, history: &str, options: &Options) -> Vec<usize> {
    use base64::Engine;
    let text = build_lines(provider, history, options).to_json();
    (0..100)
        .filter(|&i| text.contains(&base64::engine::general_purpose::STANDARD.encode(shot(i))))
        .collect()
}

#[test]
fn keep_images_sends_exactly_the_newest_n_with_a_note_for_each_other() {
    let (fixture, turns) = rounds(30);
    let history = turns.concat();
    for provider in Provider::ALL {
        let options = fixture.options().with_keep_images(3);
        let request = build_lines(provider, &history, &options);
        assert_eq!(request.report.images, 3, "{provider}");
        assert_eq!(request.report.notes.len(), 27, "{provider}");
        assert!(request
            .report
            .notes
            .iter()
            .all(|n| n.reason == NoteReason::OverKeep));
        assert_eq!(
            request.report.notes[0].text,
            "[image shots/round-00.png omitted: only the 3 most recent images are kept]"
        );
        assert_eq!(
            sent(provider, &history, &options),
            [27, 28, 29],
            "{provider}"
        );
    }
}

#[test]
fn documents_are_kept_apart_from_images() {
    let fixture = Fixture::new();
    let mut history = line("user", "Read them.");
    for i in 0..4 {
        let id = format!("c{i}");
        history += &calls(&[(&id, "read")]);
        let envelope = serde_json::json!({
            "tool_call_id": id,
            "content": "page",
            "attachments": [
                {"kind": "image", "target": "shots/editor.png"},
                {"kind": "document", "target": "docs/notes.pdf"},
            ],
        });
        history += &line("tool", &envelope.to_string());
    }
    let options = fixture
        .options()
        .with_keep_images(10)
        .with_keep_documents(1);
    let request = build_lines(Provider::Anthropic, &history, &options);
    assert_eq!((request.report.images, request.report.documents), (4, 1));
    assert!(request
        .report
        .notes
        .iter()
        .all(|n| n.reason == NoteReason::OverKeep && n.target == "docs/notes.pdf"));
}

#[test]
fn an_image_token_budget_keeps_the_newest_that_fit() {
    let (fixture, turns) = rounds(12);
    let history = turns.concat();
    // Each 8..12 × 6 image is 1 Anthropic token (w × h / 750, rounded up).
    let options = fixture.options().with_image_tokens(5);
    let request = build_lines(Provider::Anthropic, &history, &options);
    assert_eq!(request.report.images, 5);
    assert!(request
        .report
        .notes
        .iter()
        .all(|n| n.reason == NoteReason::OverTokens));
    assert_eq!(request.report.image_tokens, Some(5));
    let history_lines = support::history_lines(&history);
    assert_eq!(
        tool_carrier::provider::history_image_tokens(Provider::Anthropic, &history_lines, &options)
            .unwrap(),
        Some(5)
    );
    assert_eq!(
        sent(Provider::Anthropic, &history, &options),
        (7..12).collect::<Vec<_>>()
    );
    // Gemini 2 counts 258 a small image: a budget of 600 keeps two.
    let options = fixture.options().with_image_tokens(600);
    let gemini = build_lines(Provider::Gemini2, &history, &options);
    assert_eq!(
        (gemini.report.images, gemini.report.image_tokens),
        (2, Some(516))
    );
    // Ollama documents no count: the budget counts Anthropic's, the report none.
    let options = fixture.options().with_image_tokens(5);
    let ollama = build_lines(Provider::Ollama, &history, &options);
    assert_eq!(
        (ollama.report.images, ollama.report.image_tokens),
        (5, None)
    );
}

#[test]
fn an_eviction_step_leaves_the_oldest_out_k_at_a_time() {
    let (fixture, turns) = rounds(13);
    let history = turns.concat();
    // 13 images, keep 10, step 5: 3 over, rounded up to 5: 8 are sent.
    let options = fixture.options().with_keep_images(10).with_evict_step(5);
    let request = build_lines(Provider::Anthropic, &history, &options);
    assert_eq!(request.report.images, 8);
    assert_eq!(request.report.notes.len(), 5);
    assert_eq!(
        request.report.notes[0].text,
        "[image shots/round-00.png omitted: at most the 10 most recent images are kept, the oldest left out 5 at a time]"
    );
    // Within the limit nothing is left out, whatever the step.
    let options = fixture.options().with_keep_images(13).with_evict_step(5);
    assert_eq!(
        build_lines(Provider::Anthropic, &history, &options)
            .report
            .images,
        13
    );
}

/// Whether `next` starts with `previous` less its last message: the top
/// level the same but for the conversation, and the conversation a prefix.
fn continues(provider: Provider, previous: &Value, next: &Value) -> bool {
    let key = match provider {
        Provider::Gemini | Provider::Gemini2 => "contents",
        Provider::OpenAiResponses => "input",
        _ => "messages",
    };
    let (mut a, mut b) = (previous.clone(), next.clone());
    let (Some(Value::Array(old)), Some(Value::Array(new))) = (
        a.as_object_mut().unwrap().remove(key),
        b.as_object_mut().unwrap().remove(key),
    ) else {
        panic!("no {key}");
    };
    a == b && old.len() <= new.len() + 1 && old[..old.len() - 1] == new[..old.len() - 1]
}

/// Convert the history after each turn; count the turns whose request does
/// not continue the previous one.
fn breaks(provider: Provider, turns: &[String], options: &Options) -> usize {
    let mut previous: Option<Value> = None;
    let mut broken = 0;
    for end in 2..=turns.len() {
        let body = build_lines(provider, &turns[..end].concat(), options)
            .body
            .to_value();
        if let Some(previous) = &previous {
            broken += usize::from(!continues(provider, previous, &body));
        }
        previous = Some(body);
    }
    broken
}

#[test]
fn with_a_step_the_request_prefix_changes_once_in_k_turns() {
    let (fixture, turns) = rounds(40);
    for provider in Provider::ALL {
        let stepped = fixture.options().with_keep_images(10).with_evict_step(5);
        let broken = breaks(provider, &turns, &stepped);
        // 39 turns follow a previous one; a step is taken at most every 5th.
        assert!(broken <= 39 / 5 + 1, "{provider}: {broken} breaks");
        assert!(broken >= 5, "{provider}: {broken} breaks: the steps happen");
        let exact = fixture.options().with_keep_images(10);
        // Without steps, every turn after the tenth image moves the boundary.
        assert_eq!(breaks(provider, &turns, &exact), 30, "{provider}");
    }
}

#[test]
fn a_step_larger_than_the_images_kept_is_refused() {
    let (fixture, turns) = rounds(5);
    let history = turns.concat();
    // 5 screenshots, keep 2, step 5: one step would leave out all five
    // while each note said two were kept.
    let options = fixture.options().with_keep_images(2).with_evict_step(5);
    let lines = support::history_lines(&history);
    let err = build_request(Provider::Anthropic, &lines, &options).unwrap_err();
    assert!(matches!(
        err,
        BuildError::Options(OptionsError::StepOverKeep {
            step: 5,
            keep: 2,
            what: "image"
        })
    ));
    let options = fixture.options().with_keep_documents(1).with_evict_step(2);
    assert!(build_request(Provider::Anthropic, &lines, &options).is_err());
    // Equal is fine: between 1 and 2 are sent.
    let options = fixture.options().with_keep_images(2).with_evict_step(2);
    let request = build_lines(Provider::Anthropic, &history, &options);
    assert!((1..=2).contains(&request.report.images));
}

#[test]
fn the_same_history_gives_the_same_bytes() {
    let (fixture, turns) = rounds(17);
    let history = turns.concat();
    let options = fixture.options().with_keep_images(6).with_evict_step(4);
    for provider in Provider::ALL {
        let a = build_lines(provider, &history, &options).to_json();
        let b = build_lines(provider, &history, &options).to_json();
        assert_eq!(a, b, "{provider}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 32, ..Default::default() })]

    /// With M images, keep N and step K: all M when M ≤ N, else between
    /// N − K + 1 and N, always the newest, and the rest noted.
    #[test]
    fn keep_and_step_send_the_newest_within_the_bounds(m in 0usize..16, n in 0usize..8, k in 1usize..6) {
        let (fixture, turns) = rounds(m);
        let history = turns.concat();
        // A step larger than what is kept is refused (its own test).
        let k = if n == 0 { k } else { k.min(n) };
        let options = fixture.options().with_keep_images(n).with_evict_step(k);
        let request = build_lines(Provider::Anthropic, &history, &options);
        let got = request.report.images;
        if m <= n {
            proptest::prop_assert_eq!(got, m);
        } else {
            proptest::prop_assert!(got <= n && got + k > n, "{} sent", got);
        }
        proptest::prop_assert_eq!(request.report.notes.len(), m - got);
        proptest::prop_assert_eq!(sent(Provider::Anthropic, &history, &options), (m - got..m).collect::<Vec<_>>());
    }
}

/// The JSON Pointers of every `key` member in `value`.
fn marks(value: &Value, key: &str, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == key {
                    out.push(format!("{at}/{k}"));
                }
                marks(v, key, format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                marks(v, key, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn marks_of(provider: Provider, history: &str, options: &Options, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    marks(
        &build_lines(provider, history, options).body.to_value(),
        key,
        String::new(),
        &mut out,
    );
    out
}

#[test]
fn anthropic_gets_cache_breakpoints_where_the_prefix_is_stable() {
    let (fixture, turns) = rounds(6);
    let history = line("system", "You operate a desktop.") + &turns.concat();
    let options = fixture.options().with_keep_images(3);
    let mut got = marks_of(Provider::Anthropic, &history, &options, "cache_control");
    got.sort();
    // The system text (covering the tools before it), the last message
    // before the first that sends an image (round 3's call), and the last
    // message.
    let body = build_lines(Provider::Anthropic, &history, &options)
        .body
        .to_value();
    let messages = body["messages"].as_array().unwrap();
    let last = messages.len() - 1;
    let content_last = |m: usize| messages[m]["content"].as_array().unwrap().len() - 1;
    let first_media = messages
        .iter()
        .position(|m| m.to_string().contains("\"type\":\"image\""))
        .unwrap();
    let mut want = vec![
        "/system/0/cache_control".to_owned(),
        format!(
            "/messages/{}/content/{}/cache_control",
            first_media - 1,
            content_last(first_media - 1)
        ),
        format!(
            "/messages/{last}/content/{}/cache_control",
            content_last(last)
        ),
    ];
    want.sort();
    assert_eq!(got, want);
    // Without system text, the last tool carries the first mark.
    let got = marks_of(
        Provider::Anthropic,
        &turns.concat(),
        &options,
        "cache_control",
    );
    assert!(
        got.contains(&"/tools/0/cache_control".to_owned()),
        "{got:?}"
    );
    // Off on request, and never for the APIs that cache on their own.
    let off = fixture
        .options()
        .with_keep_images(3)
        .with_cache_breakpoints(false);
    assert!(marks_of(Provider::Anthropic, &history, &off, "cache_control").is_empty());
    for provider in [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
        Provider::Ollama,
    ] {
        let text = build_lines(provider, &history, &options).to_json();
        assert!(
            !text.contains("cache_control") && !text.contains("cachePoint"),
            "{provider}"
        );
    }
}

#[test]
fn claude_on_bedrock_gets_cache_points_and_other_models_none() {
    let (fixture, turns) = rounds(4);
    // Claude Sonnet 4.5 caches prefixes of 1,024 tokens and more: a
    // system text of about 1,150 tokens puts every mark past it.
    let system = "You operate a desktop. ".repeat(200);
    let history = line("system", &system) + &turns.concat();
    let claude = fixture
        .options()
        .with_model("us.anthropic.claude-sonnet-4-5-20250929-v1:0");
    let got = marks_of(Provider::Bedrock, &history, &claude, "cachePoint");
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got.contains(&"/system/1/cachePoint".to_owned()), "{got:?}");
    // With a short system text and these small screenshots no prefix
    // reaches the minimum, and no point is placed.
    let short = line("system", "You operate a desktop.") + &turns.concat();
    assert!(marks_of(Provider::Bedrock, &short, &claude, "cachePoint").is_empty());
    let llama = fixture
        .options()
        .with_model("meta.llama3-2-90b-instruct-v1:0");
    assert!(marks_of(Provider::Bedrock, &history, &llama, "cachePoint").is_empty());
}
