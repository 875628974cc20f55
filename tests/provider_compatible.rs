//! OpenAI-compatible servers: each capability a profile states, shown on
//! the body it gives. Every body built here also passes the rule checks
//! for its profile (`support::build`), which are written apart from the
//! builder; the last tests show those checks refuse a body built for
//! another profile.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::{json, Value};
use support::{build_lines, calls, line, pdf, png, png_sizes, result, Fixture, GIF};
use tool_carrier::facts::Profile;
use tool_carrier::media::Measure;
use tool_carrier::provider::{NoteReason, Options, Provider};

/// The assistant text a profile that needs one puts between a tool result
/// and a user message.
const BRIDGE: &str = "(tool results received)";
use tool_carrier::rules::{check, Target};

fn profile(name: &str) -> Profile {
    Profile::builtin(name).unwrap()
}

/// A round of two screenshots and the user's next question.
fn round(fixture: &Fixture) -> String {
    fixture.add("a.png", &png(40, 30, 1));
    fixture.add("b.png", &png(40, 30, 2));
    [
        line("user", "Look at both."),
        calls(&[("call_a", "shot"), ("call_b", "shot")]),
        result("call_a", "first", &["a.png"]),
        result("call_b", "second", &["b.png"]),
        line("user", "Which is darker?"),
    ]
    .concat()
}

fn body(profile: Profile, fixture: &Fixture, history: &str) -> Value {
    let options = fixture.options().with_profile(profile);
    build_lines(Provider::OpenAiCompatible, history, &options)
        .body
        .to_value()
}

fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect()
}

fn image_parts(message: &Value) -> usize {
    message["content"].as_array().map_or(0, |parts| {
        parts.iter().filter(|p| p["type"] == "image_url").count()
    })
}

#[test]
fn images_go_after_the_results_unless_the_profile_takes_them_inside() {
    let fixture = Fixture::new();
    let history = round(&fixture);
    let after = body(profile("vllm"), &fixture, &history);
    assert_eq!(
        roles(&after),
        ["user", "assistant", "tool", "tool", "user", "user"]
    );
    let messages = after["messages"].as_array().unwrap();
    assert!(messages[2]["content"].is_string());
    assert_eq!(image_parts(&messages[4]), 2);

    let mut inside = profile("llama-cpp");
    inside.images_in_tool_messages = true;
    let inside = body(inside, &fixture, &history);
    assert_eq!(
        roles(&inside),
        ["user", "assistant", "tool", "tool", "user"]
    );
    let messages = inside["messages"].as_array().unwrap();
    for (m, text) in [(2, "first"), (3, "second")] {
        assert_eq!(messages[m]["content"][0]["text"], text);
        assert_eq!(image_parts(&messages[m]), 1);
    }
    assert_eq!(messages[4]["content"], "Which is darker?");
}

#[test]
fn a_bridge_goes_between_a_tool_message_and_a_user_message_where_needed() {
    let fixture = Fixture::new();
    let history = round(&fixture);
    let bridged = body(profile("mistral"), &fixture, &history);
    assert_eq!(
        roles(&bridged),
        [
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "user",
            "user"
        ]
    );
    assert_eq!(bridged["messages"][4]["content"], BRIDGE);
    // Without images the bridge still keeps the user question off the tool.
    let bare = [
        calls(&[("c1", "shot")]),
        result("c1", "done", &[]),
        line("user", "Next?"),
    ]
    .concat();
    let bridged = body(profile("mistral"), &fixture, &bare);
    assert_eq!(roles(&bridged), ["assistant", "tool", "assistant", "user"]);
    let direct = body(profile("vllm"), &fixture, &bare);
    assert_eq!(roles(&direct), ["assistant", "tool", "user"]);
}

#[test]
fn a_profile_without_vision_turns_images_into_notes_and_can_be_overridden() {
    let fixture = Fixture::new();
    let history = round(&fixture);
    let mut text_only = profile("deepseek");
    text_only.vision = false;
    let options = fixture.options().with_profile(text_only);
    let request = build_lines(Provider::OpenAiCompatible, &history, &options);
    let text = request.body.to_value().to_string();
    assert!(!text.contains("image_url"), "{text}");
    assert_eq!(request.report.notes.len(), 2);
    assert!(request
        .report
        .notes
        .iter()
        .all(|n| n.reason == NoteReason::VisionOff));
    // deepseek-flash takes images: `--vision on`.
    let mut on = profile("deepseek");
    on.vision = true;
    let options = fixture
        .options()
        .with_profile(on)
        .with_model("deepseek-flash");
    let request = build_lines(Provider::OpenAiCompatible, &history, &options);
    assert!(request.body.to_value().to_string().contains("image_url"));
}

#[test]
fn a_per_image_cap_forces_a_smaller_image() {
    let fixture = Fixture::new();
    fixture.add("big.png", &support::noise_png(400, 300));
    let history = [calls(&[("c1", "shot")]), result("c1", "ok", &["big.png"])].concat();
    let roomy = png_sizes(&build_lines(
        Provider::OpenAiCompatible,
        &history,
        &fixture.options().with_profile(profile("generic")),
    ));
    assert_eq!(roomy, [(400, 300)]);
    let mut tight = profile("generic");
    tight.max_image_bytes = Some(60_000);
    tight.measure = Measure::Base64;
    let request = build_lines(
        Provider::OpenAiCompatible,
        &history,
        &fixture.options().with_profile(tight),
    );
    let sizes = png_sizes(&request);
    assert_eq!(sizes.len(), 1);
    assert!(sizes[0].0 < 400 && sizes[0].1 < 300, "{sizes:?}");
    for s in support::strings(&request.body.to_value()) {
        if let Some(b64) = s.strip_prefix("data:image/png;base64,") {
            assert!(b64.len() <= 60_000, "{}", b64.len());
        }
    }
}

#[test]
fn counts_types_urls_and_pdfs_follow_the_profile() {
    let fixture = Fixture::new();
    let mut history = String::new();
    for i in 0..10 {
        fixture.add(&format!("s{i}.png"), &png(8, 8, i));
        history += &calls(&[(&format!("c{i}"), "shot")]);
        history += &result(&format!("c{i}"), "ok", &[&format!("s{i}.png")]);
    }
    // Mistral: at most 8 images, the oldest left out.
    let options = fixture.options().with_profile(profile("mistral"));
    let request = build_lines(Provider::OpenAiCompatible, &history, &options);
    assert_eq!(png_sizes(&request).len(), 8);
    assert!(request
        .report
        .notes
        .iter()
        .all(|n| n.reason == NoteReason::OverCount));
    assert_eq!(request.report.notes.len(), 2);

    // A GIF is sent as PNG where GIF is not listed.
    fixture.add("dot.gif", GIF);
    let gif = [calls(&[("g", "shot")]), result("g", "ok", &["dot.gif"])].concat();
    let text = body(profile("xai"), &fixture, &gif).to_string();
    assert!(text.contains("data:image/png;base64,") && !text.contains("image/gif"));

    // Image URLs only where the profile takes them.
    let url = [
        calls(&[("u", "shot")]),
        result("u", "ok", &["https://example.com/a.png"]),
    ]
    .concat();
    assert!(body(profile("groq"), &fixture, &url)
        .to_string()
        .contains("\"url\":\"https://example.com/a.png\""));
    let options = fixture.options().with_profile(profile("ollama-openai"));
    let request = build_lines(Provider::OpenAiCompatible, &url, &options);
    assert_eq!(request.report.notes.len(), 1);
    assert!(!request
        .body
        .to_value()
        .to_string()
        .contains("\"image_url\""));

    // PDFs as `file` parts only where the profile takes them.
    fixture.add("r.pdf", &pdf("R"));
    let doc = [
        calls(&[("d", "read")]),
        line(
            "tool",
            &json!({"tool_call_id": "d", "content": "ok", "attachments": [{"kind": "document", "target": "r.pdf"}]}).to_string(),
        ),
    ]
    .concat();
    let routed = body(profile("openrouter"), &fixture, &doc);
    assert!(routed
        .to_string()
        .contains("\"file_data\":\"data:application/pdf;base64,"));
    let options = fixture.options().with_profile(profile("vllm"));
    let request = build_lines(Provider::OpenAiCompatible, &doc, &options);
    assert!(!request.body.to_value().to_string().contains("\"file\""));
    assert_eq!(request.report.notes.len(), 1);
}

#[test]
fn mistral_ids_are_nine_letters_or_digits_and_stay_paired() {
    let fixture = Fixture::new();
    let history = round(&fixture);
    let b = body(profile("mistral"), &fixture, &history);
    let messages = b["messages"].as_array().unwrap();
    let ids: Vec<&str> = messages[1]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
    for (i, id) in ids.iter().enumerate() {
        assert!(
            id.len() == 9 && id.bytes().all(|c| c.is_ascii_alphanumeric()),
            "{id}"
        );
        assert_eq!(messages[2 + i]["tool_call_id"], *id);
    }
    // The labels of the moved images name the rewritten ids.
    assert!(b.to_string().contains(&format!("(call {})", ids[0])));
}

#[test]
fn a_server_without_tools_gets_the_calls_and_results_as_text() {
    let fixture = Fixture::new();
    let history = round(&fixture);
    let mut p = profile("generic");
    p.tools = false;
    let b = body(p, &fixture, &history);
    assert!(b.get("tools").is_none() && b.get("tool_choice").is_none());
    assert_eq!(roles(&b), ["user", "assistant", "user", "user"]);
    let messages = b["messages"].as_array().unwrap();
    assert_eq!(
        messages[1]["content"],
        "[called shot (call call_a) with {}]\n[called shot (call call_b) with {}]"
    );
    let parts = messages[2]["content"].as_array().unwrap();
    assert_eq!(parts[0]["text"], "[result of shot (call call_a)]\nfirst");
    assert_eq!(parts[1]["type"], "image_url");
    assert_eq!(parts[2]["text"], "[result of shot (call call_b)]\nsecond");
    assert_eq!(parts[3]["type"], "image_url");
}

#[test]
fn the_endpoint_is_the_profiles_base_url() {
    let mut p = profile("vllm");
    p.base_url = "http://gpu-box:9000/v1".into();
    let request = tool_carrier::provider::build_request(
        Provider::OpenAiCompatible,
        &[("user", "hi")],
        &Options::new().with_profile(p),
    )
    .unwrap();
    assert_eq!(
        request.endpoint().to_string(),
        "POST http://gpu-box:9000/v1/chat/completions"
    );
    assert_eq!(request.model, "Qwen/Qwen2.5-VL-7B-Instruct");
    let generic = tool_carrier::provider::build_request(
        Provider::OpenAiCompatible,
        &[("user", "hi")],
        &Options::new(),
    )
    .unwrap();
    assert_eq!(generic.profile.as_ref().unwrap().name, "generic");
}

/// Which rules a body breaks when checked for `against`.
fn broken(body: &Value, against: &Profile) -> Vec<&'static str> {
    let target = Target::new(Provider::OpenAiCompatible, "m").with_profile(against);
    let mut ids: Vec<&str> = check(&target, body).iter().map(|v| v.rule.id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

#[test]
fn the_profile_checks_refuse_a_body_built_for_another_server() {
    let fixture = Fixture::new();
    let history = round(&fixture);
    // vLLM's body: a user message right after a tool message, and ids
    // Mistral refuses.
    let vllm = body(profile("vllm"), &fixture, &history);
    assert_eq!(
        broken(&vllm, &profile("mistral")),
        [
            "openai-compatible/tool-call-id",
            "openai-compatible/user-after-tool"
        ]
    );
    let mut text_only = profile("vllm");
    text_only.vision = false;
    assert_eq!(broken(&vllm, &text_only), ["openai-compatible/no-vision"]);
    // Images inside tool messages, for a server that takes them after.
    let mut inside = profile("llama-cpp");
    inside.images_in_tool_messages = true;
    let inside = body(inside, &fixture, &history);
    assert_eq!(
        broken(&inside, &profile("vllm")),
        ["openai-compatible/media-placement"]
    );
    // Over a count, and tool traffic for a server without tools.
    let mut two = profile("vllm");
    two.max_images = Some(1);
    assert_eq!(broken(&vllm, &two), ["openai-compatible/image-caps"]);
    let mut no_tools = profile("vllm");
    no_tools.tools = false;
    assert!(broken(&vllm, &no_tools).contains(&"openai-compatible/no-tools"));
    // A URL for a server that takes inline images only; a PNG where only
    // JPEG is listed.
    let mut jpeg_only = profile("vllm");
    jpeg_only.image_types = vec![tool_carrier::media::MediaType::Jpeg];
    assert_eq!(broken(&vllm, &jpeg_only), ["openai-compatible/image-types"]);
    // Each body passes for its own profile.
    assert!(broken(&vllm, &profile("vllm")).is_empty());
}
