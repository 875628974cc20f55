//! What depends on the model: where Bedrock and Gemini put a tool
//! result's media, how many images Anthropic takes, and how large they may
//! be when there are many. Every body also passes the API rules.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::Value;
use support::{build_lines, calls, history, line, pdf, png, png_sizes, result, Fixture};
use tool_carrier::facts::Family;
use tool_carrier::media::Policy;
use tool_carrier::provider::{Options, Provider};
use tool_carrier::roots::Roots;

const LLAMA: &str = "us.meta.llama3-2-90b-instruct-v1:0";
const PIXTRAL: &str = "mistral.pixtral-large-2502-v1:0";

/// Blocks of kind `kind` inside any `toolResult`, and directly in
/// messages.
fn bedrock_media(body: &Value, kind: &str) -> (usize, usize) {
    let mut inside = 0;
    let mut outside = 0;
    for message in body["messages"].as_array().unwrap() {
        for block in message["content"].as_array().unwrap() {
            if block.get(kind).is_some() {
                outside += 1;
            }
            if let Some(result) = block.get("toolResult") {
                inside += result["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|b| b.get(kind).is_some())
                    .count();
            }
        }
    }
    (inside, outside)
}

#[test]
fn other_bedrock_vision_models_get_the_images_after_the_results() {
    let fixture = Fixture::new();
    let messages = history("examples/screenshot-round.jsonl");
    for model in [LLAMA, PIXTRAL] {
        let request = support::build(
            Provider::Bedrock,
            &messages,
            &fixture.options().with_model(model),
        );
        assert_eq!(
            bedrock_media(&request.body.to_value(), "image"),
            (0, 2),
            "{model}"
        );
        // Same user message as the results: results first, then each
        // image after its label.
        let body = request.body.to_value();
        let last = body["messages"].as_array().unwrap().last().unwrap();
        let blocks = last["content"].as_array().unwrap();
        assert!(blocks[0].get("toolResult").is_some() && blocks[1].get("toolResult").is_some());
        assert!(blocks[2]["text"]
            .as_str()
            .unwrap()
            .contains("(call call_a)"));
        assert!(blocks[3].get("image").is_some());
        assert!(blocks[4]["text"]
            .as_str()
            .unwrap()
            .contains("(call call_b)"));
        assert!(blocks[5].get("image").is_some());
        let text = blocks[0]["toolResult"]["content"][0]["text"]
            .as_str()
            .unwrap();
        assert!(text.ends_with("[image shots/editor.png follows after the tool results]"));
    }
}

#[test]
fn claude_and_nova_on_bedrock_keep_the_images_inside_the_results() {
    let fixture = Fixture::new();
    let messages = history("examples/screenshot-round.jsonl");
    for model in [
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "eu.amazon.nova-lite-v1:0",
        "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0",
    ] {
        let request = support::build(
            Provider::Bedrock,
            &messages,
            &fixture.options().with_model(model),
        );
        assert_eq!(
            bedrock_media(&request.body.to_value(), "image"),
            (2, 0),
            "{model}"
        );
    }
}

#[test]
fn an_unrecognised_bedrock_id_gets_the_placement_every_model_takes_unless_told() {
    let fixture = Fixture::new();
    let messages = history("examples/screenshot-round.jsonl");
    let arn = "arn:aws:bedrock:us-west-2:111122223333:application-inference-profile/a1b2c3";
    let unknown = support::build(
        Provider::Bedrock,
        &messages,
        &fixture.options().with_model(arn),
    );
    assert_eq!(bedrock_media(&unknown.body.to_value(), "image"), (0, 2));
    let told = fixture
        .options()
        .with_model(arn)
        .with_family(Family::Claude);
    let request =
        tool_carrier::provider::build_request(Provider::Bedrock, &messages, &told).unwrap();
    assert_eq!(bedrock_media(&request.body.to_value(), "image"), (2, 0));
}

#[test]
fn documents_follow_the_results_too_each_with_text_beside_it() {
    let fixture = Fixture::new();
    let history = [
        line("user", "Read it."),
        calls(&[("c1", "fetch")]),
        line(
            "tool",
            r#"{"tool_call_id":"c1","content":"","attachments":[{"kind":"document","target":"reports/incident-42.pdf"}]}"#,
        ),
    ]
    .concat();
    for model in [LLAMA, "amazon.nova-pro-v1:0"] {
        let request = build_lines(
            Provider::Bedrock,
            &history,
            &fixture.options().with_model(model),
        );
        let want = if model == LLAMA { (0, 1) } else { (1, 0) };
        assert_eq!(
            bedrock_media(&request.body.to_value(), "document"),
            want,
            "{model}"
        );
    }
}

#[test]
fn gemini_nests_media_in_function_responses_only_from_gemini_3_on() {
    let fixture = Fixture::new();
    let messages = history("examples/screenshot-round.jsonl");
    let nested =
        |model: &str| {
            let request = support::build(
                Provider::Gemini,
                &messages,
                &fixture.options().with_model(model),
            );
            request.body.to_value().to_string().contains(
                "\"functionResponse\":{\"id\":\"call_a\",\"name\":\"screenshot\",\"parts\"",
            )
        };
    assert!(nested("gemini-3.8-flash"));
    assert!(nested("gemini-3.1-pro-preview"));
    assert!(!nested("gemini-2.5-flash-lite"));
}

#[test]
fn anthropic_takes_600_images_on_1m_context_models_and_100_elsewhere() {
    let fixture = Fixture::new();
    fixture.add("s.png", &png(4, 3, 7));
    let mut history = line("user", "Many.");
    for n in 0..101 {
        let id = format!("c{n}");
        history += &calls(&[(&id, "shot")]);
        history += &result(&id, "ok", &["s.png"]);
    }
    let small = build_lines(
        Provider::Anthropic,
        &history,
        &fixture.options().with_model("claude-haiku-4-5"),
    );
    assert_eq!(small.report.images, 100);
    assert_eq!(small.report.notes[0].index, 2, "the oldest is left out");
    let large = build_lines(
        Provider::Anthropic,
        &history,
        &fixture.options().with_model("claude-opus-4-7"),
    );
    assert_eq!(large.report.images, 101);
}

#[test]
fn more_than_20_images_at_anthropic_are_fitted_to_2000_pixels() {
    let fixture = Fixture::new();
    fixture.add("wide.png", &png(2400, 60, 3));
    let policy = Policy::default()
        .with_roots(Roots::new([&fixture.root]).unwrap())
        .with_max_dim(4000);
    // (Not fitted to what the model sees, which is not the point here.)
    let options = Options::new().with_policy(policy).with_fit_to_model(false);
    let rounds = |n: usize| {
        let mut history = line("user", "Wide shots.");
        for k in 0..n {
            let id = format!("c{k}");
            history += &calls(&[(&id, "shot")]);
            history += &result(&id, "ok", &["wide.png"]);
        }
        history
    };
    let widths = |request: &tool_carrier::provider::Request| -> Vec<u64> {
        let text = request.body.to_value().to_string();
        // The width is in each PNG's IHDR: decode each image's base64.
        use base64::Engine;
        let mut out = Vec::new();
        for part in text.split("\"data\":\"").skip(1) {
            let b64 = &part[..part.find('"').unwrap()];
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap();
            out.push(u64::from(u32::from_be_bytes(
                bytes[16..20].try_into().unwrap(),
            )));
        }
        out
    };
    let few = build_lines(Provider::Anthropic, &rounds(20), &options);
    assert!(
        widths(&few).iter().all(|&w| w == 2400),
        "20 images keep 8000 px"
    );
    let many = build_lines(Provider::Anthropic, &rounds(21), &options);
    let w = widths(&many);
    assert_eq!(w.len(), 21);
    assert!(w.iter().all(|&w| w == 2000), "{w:?}");
}

#[test]
fn images_are_sent_at_the_size_the_model_sees() {
    let fixture = Fixture::new();
    fixture.add("wide.png", &png(1700, 60, 1));
    fixture.add("big.png", &png(1200, 1100, 2));
    let history = [
        line("user", "Look."),
        calls(&[("c1", "shot")]),
        result("c1", "ok", &["wide.png", "big.png"]),
    ]
    .concat();
    let sizes = |provider: Provider, options: &Options| {
        png_sizes(&build_lines(provider, &history, options))
    };
    // Claude before 4.7: 1568 px on the long side and 1568 visual tokens
    // of 28 px at most, counted independently of the crate's own fitting.
    let claude = sizes(
        Provider::Anthropic,
        &fixture.options().with_model("claude-haiku-4-5"),
    );
    assert_eq!(claude[0], (1568, 55));
    let tokens = |(w, h): (u32, u32)| w.div_ceil(28) * h.div_ceil(28);
    let (w, h) = claude[1];
    assert!(
        tokens((w, h)) <= 1568 && tokens((w + 28, h + 28)) > 1568 && w <= 1568,
        "{w}×{h}"
    );
    let view = Provider::Anthropic.view("claude-haiku-4-5").unwrap();
    for &(w, h) in &claude {
        assert!(w.max(h) <= view.long_edge);
        assert!(view.patches(w, h) <= view.max_patches.unwrap());
    }
    // Claude on Bedrock is fitted the same way.
    let bedrock = fixture
        .options()
        .with_model("us.anthropic.claude-haiku-4-5-20251001-v1:0");
    assert_eq!(sizes(Provider::Bedrock, &bedrock), claude);
    // Claude 4.7 and later (the default, Sonnet 5.5): 2576 px and 4784
    // visual tokens, which both images are within.
    let high = sizes(Provider::Anthropic, &fixture.options());
    assert_eq!(high, [(1700, 60), (1200, 1100)]);
    // OpenAI's tile-based models: 768 px on the short side.
    let openai = sizes(
        Provider::OpenAiChat,
        &fixture.options().with_model("gpt-4.1"),
    );
    assert_eq!(openai, [(1700, 60), (838, 768)]);
    // The default, GPT-5.5, takes 10,000 patches and 6000 px: as sent.
    let default = sizes(Provider::OpenAiChat, &fixture.options());
    assert_eq!(default, [(1700, 60), (1200, 1100)]);
    // A patch-based model: as large as 1,536 patches of 32 px allow,
    // counted independently of the crate's own fitting.
    let patches = |(w, h): (u32, u32)| w.div_ceil(32) * h.div_ceil(32);
    fixture.add("tall.png", &png(1000, 1800, 3)); // 32 × 57 patches
    let tall = [
        line("user", "Look."),
        calls(&[("c1", "shot")]),
        result("c1", "ok", &["tall.png"]),
    ]
    .concat();
    let mini = png_sizes(&build_lines(
        Provider::OpenAiResponses,
        &tall,
        &fixture.options().with_model("gpt-5-mini"),
    ));
    let (w, h) = mini[0];
    assert!(patches((w, h)) <= 1536, "{w}×{h}");
    assert!(
        patches((w + 1, h + 1)) > 1536 && h > 1600,
        "{w}×{h} is not the largest"
    );
    // GPT-5.6 (Responses: Chat takes its tools only with reasoning off)
    // keeps images as sent: only the ceiling applies.
    let kept = sizes(
        Provider::OpenAiResponses,
        &fixture.options().with_model("gpt-5.6"),
    );
    assert_eq!(kept, [(1700, 60), (1200, 1100)]);
    // Gemini documents no such size: only the 2000 px ceiling applies.
    assert_eq!(
        sizes(Provider::Gemini, &fixture.options()),
        [(1700, 60), (1200, 1100)]
    );
    // Turned off, Claude gets what fits the ceiling.
    let off = fixture.options().with_fit_to_model(false);
    assert_eq!(sizes(Provider::Anthropic, &off), [(1700, 60), (1200, 1100)]);
    // The token estimate follows the size sent: both as they are for
    // Sonnet 5.5, ⌈1700/28⌉ × ⌈60/28⌉ + ⌈1200/28⌉ × ⌈1100/28⌉.
    let request = build_lines(Provider::Anthropic, &history, &fixture.options());
    assert_eq!(request.report.image_tokens, Some(61 * 3 + 43 * 40));
}

#[test]
fn on_bedrock_documents_count_with_images_toward_the_smaller_size() {
    // Claude's vision page: on Bedrock, PDFs count toward the "more than
    // 20" that holds each image to 2000 px. 18 images and 2 PDFs keep
    // 2400 px; a third PDF makes 21.
    let fixture = Fixture::new();
    fixture.add("wide.png", &png(2400, 60, 3));
    for i in 0..3 {
        fixture.add(&format!("doc{i}.pdf"), &pdf(&format!("doc {i}")));
    }
    let policy = Policy::default()
        .with_roots(Roots::new([&fixture.root]).unwrap())
        .with_max_dim(4000);
    let options = Options::new()
        .with_policy(policy)
        .with_fit_to_model(false)
        .with_model("us.anthropic.claude-sonnet-5");
    let rounds = |documents: usize| {
        let mut history = line("user", "Wide shots.");
        for k in 0..18 {
            let id = format!("c{k}");
            history += &calls(&[(&id, "shot")]);
            history += &result(&id, "ok", &["wide.png"]);
        }
        for k in 0..documents {
            let id = format!("d{k}");
            history += &calls(&[(&id, "read")]);
            let attachments =
                [serde_json::json!({"kind": "document", "target": format!("doc{k}.pdf")})];
            history += &line(
                "tool",
                &serde_json::json!({"tool_call_id": id, "content": "ok", "attachments": attachments})
                    .to_string(),
            );
        }
        history
    };
    let widths = |documents| -> Vec<u32> {
        let request = build_lines(Provider::Bedrock, &rounds(documents), &options);
        assert_eq!(request.report.documents, documents);
        png_sizes(&request).into_iter().map(|(w, _)| w).collect()
    };
    assert_eq!(widths(2), vec![2400; 18]);
    assert_eq!(widths(3), vec![2000; 18]);
}
