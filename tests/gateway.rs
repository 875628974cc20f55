//! The gateway's decisions, without a transport: which requests carry a
//! conversation for each API, the model each names, a body fitted and
//! checked for it (only the payloads change; the oldest over the count
//! left out a step at a time), and every refusal in the API's own shape.
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod media;

use base64::Engine;
use proptest::prelude::*;
use serde_json::{json, Value};
use tool_carrier::gateway::{apis, Gateway, GatewayError};
use tool_carrier::provider::{Options, Provider};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

fn gateway(api: Provider) -> Gateway {
    Gateway::new(api, Options::new()).unwrap()
}

fn small_png(seed: u64) -> String {
    B64.encode(media::png_rgb(&media::noise_rgb(8, 8, seed)))
}

#[test]
fn each_api_says_which_requests_carry_a_conversation() {
    let names: Vec<&str> = apis().map(Provider::name).collect();
    assert_eq!(
        names,
        ["anthropic", "openai-chat", "openai-responses", "gemini"]
    );
    let cases: [(Provider, &str, &[&str], &[&str]); 4] = [
        (
            Provider::Anthropic,
            "https://api.anthropic.com",
            &[
                "/v1/messages",
                "/v1/messages?beta=true",
                "/v1/messages/count_tokens",
                "/proxy/v1/messages",
            ],
            &[
                "/v1/messages/batches",
                "/v1/models",
                "/v1/my_messages",
                "/v1/files",
            ],
        ),
        (
            Provider::OpenAiChat,
            "https://api.openai.com",
            &[
                "/v1/chat/completions",
                "/openai/v1/chat/completions?api-version=1",
            ],
            &[
                "/v1/chat/completions/abc",
                "/v1/completions",
                "/v1/responses",
            ],
        ),
        (
            Provider::OpenAiResponses,
            "https://api.openai.com",
            &["/v1/responses", "/v1/responses/input_tokens"],
            &[
                "/v1/responses/resp_1",
                "/v1/responses/resp_1/cancel",
                "/v1/chat/completions",
            ],
        ),
        (
            Provider::Gemini,
            "https://generativelanguage.googleapis.com",
            &[
                "/v1beta/models/gemini-3-pro-preview:generateContent",
                "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=K",
            ],
            &[
                "/v1beta/models/gemini-3-pro-preview:countTokens",
                "/v1beta/models",
                "/v1beta/files",
            ],
        ),
    ];
    for (api, upstream, routed, passed) in cases {
        let g = gateway(api);
        assert_eq!((g.api(), g.upstream()), (api, upstream));
        for path in routed {
            assert!(g.route("POST", path).is_some(), "{api} {path}");
            assert!(g.route("GET", path).is_none(), "{api} GET {path}");
        }
        for path in passed {
            assert!(g.route("POST", path).is_none(), "{api} {path}");
        }
    }
    for api in [
        Provider::Bedrock,
        Provider::Ollama,
        Provider::OpenAiCompatible,
    ] {
        assert!(matches!(
            Gateway::new(api, Options::new()),
            Err(GatewayError::NoGateway(p)) if p == api
        ));
    }
    assert!(matches!(
        Gateway::new(
            Provider::Anthropic,
            Options::new().with_keep_images(1).with_evict_step(2)
        ),
        Err(GatewayError::Options(_))
    ));
}

/// An Anthropic conversation of `n` rounds, each a screenshot in a tool
/// result.
fn rounds(n: usize) -> Value {
    let mut messages = vec![json!({"role": "user", "content": "Work."})];
    for i in 0..n {
        let id = format!("toolu_{i}");
        messages.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "shot", "input": {}}]}));
        messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": small_png(i as u64)}}
        ]}]}));
    }
    json!({"model": "claude-sonnet-4-5", "max_tokens": 256, "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "tools": [{"name": "shot", "input_schema": {"type": "object"}}], "messages": messages})
}

#[test]
fn the_oldest_over_the_kept_go_a_step_at_a_time_and_the_prefix_holds() {
    let options = Options::new().with_keep_images(4).with_evict_step(3);
    let g = Gateway::new(Provider::Anthropic, options).unwrap();
    let route = g.route("POST", "/v1/messages").unwrap();
    let mut prefixes = Vec::new();
    for n in 5..=10 {
        let body = rounds(n).to_string();
        let passed = g.fit(&route, body.as_bytes()).unwrap();
        let report = passed.report();
        let out = String::from_utf8(passed.bytes().to_vec()).unwrap();
        let left = report.left_out();
        assert_eq!(left, (n - 4).div_ceil(3) * 3, "{n}: {report}");
        // What comes before the first kept image: what a prompt cache
        // keeps from turn to turn.
        let first_kept = out.find("\"data\"").unwrap();
        prefixes.push((left, out[..first_kept].to_owned()));
    }
    for pair in prefixes.windows(2) {
        if pair[0].0 == pair[1].0 {
            assert_eq!(
                pair[0].1, pair[1].1,
                "the same images left out, the same prefix"
            );
        }
    }
}

#[test]
fn the_model_is_the_requests_own_and_picks_the_rules() {
    // Gemini 2.5 takes no image inside a function response; Gemini 3 does.
    let body = json!({"contents": [
        {"role": "user", "parts": [{"text": "Look."}]},
        {"role": "model", "parts": [{"functionCall": {"name": "shot", "args": {}}, "thoughtSignature": "c2ln"}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "shot", "response": {"ok": true},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": small_png(1)}}]}}]}
    ], "tools": [{"functionDeclarations": [{"name": "shot", "parameters": {"type": "object"}}]}]})
    .to_string();
    let g = gateway(Provider::Gemini);
    let three = g
        .route(
            "POST",
            "/v1beta/models/gemini-3-pro-preview:generateContent",
        )
        .unwrap();
    let passed = g.fit(&three, body.as_bytes()).unwrap();
    assert_eq!(passed.model(), "gemini-3-pro-preview");
    let two = g
        .route("POST", "/v1beta/models/gemini-2.5-flash:generateContent")
        .unwrap();
    let refused = g.fit(&two, body.as_bytes()).unwrap_err();
    assert_eq!(refused.status(), 400);
    assert!(
        refused
            .message()
            .contains("gemini/media-in-function-response"),
        "{refused}"
    );
    let nameless = g.route("POST", "/v1beta/models/:generateContent").unwrap();
    assert!(g
        .fit(&nameless, body.as_bytes())
        .unwrap_err()
        .message()
        .contains("names no model"));
}

#[test]
fn every_refusal_is_in_the_apis_shape() {
    type Shape = fn(&Value) -> bool;
    let shapes: [(Provider, &str, Shape); 4] = [
        (Provider::Anthropic, "/v1/messages", |v| {
            v["type"] == "error" && v["error"]["type"] == "invalid_request_error"
        }),
        (Provider::OpenAiChat, "/v1/chat/completions", |v| {
            v["error"]["type"] == "invalid_request_error" && v["error"]["param"].is_null()
        }),
        (Provider::OpenAiResponses, "/v1/responses", |v| {
            v["error"]["type"] == "invalid_request_error" && v["error"]["code"].is_null()
        }),
        (
            Provider::Gemini,
            "/v1beta/models/gemini-3-pro-preview:generateContent",
            |v| v["error"]["code"] == 400 && v["error"]["status"] == "INVALID_ARGUMENT",
        ),
    ];
    for (api, path, shape) in shapes {
        let g = gateway(api);
        let route = g.route("POST", path).unwrap();
        for body in [&b"not json"[..], b"{}", b"{\"model\": 7}", b"[1]"] {
            let refused = g.fit(&route, body).unwrap_err();
            let v: Value = serde_json::from_slice(refused.body()).unwrap();
            assert!(shape(&v), "{api}: {v}");
            assert_eq!(refused.status(), 400);
            let said = v["error"]["message"].as_str().unwrap();
            assert_eq!(said, refused.message());
        }
        for (status, name) in [(413, "Payload Too Large"), (502, "Bad Gateway")] {
            let r = g.refusal(status, "why".into());
            assert_eq!((r.status(), r.reason()), (status, name));
            let v: Value = serde_json::from_slice(r.body()).unwrap();
            assert_eq!(v["error"]["message"], "why", "{api}");
        }
    }
}

#[test]
fn a_token_count_needs_no_max_tokens_but_a_message_does() {
    let g = gateway(Provider::Anthropic);
    let body =
        json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hi"}]})
            .to_string();
    let count = g.route("POST", "/v1/messages/count_tokens").unwrap();
    assert!(g.fit(&count, body.as_bytes()).is_ok());
    let create = g.route("POST", "/v1/messages").unwrap();
    let refused = g.fit(&create, body.as_bytes()).unwrap_err();
    assert!(
        refused.message().contains("anthropic/max-tokens"),
        "{refused}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A path is routed only when it ends with one of the API's endpoints
    /// at a segment's start; whatever the path, routing never panics.
    #[test]
    fn routing_reads_only_the_paths_end(head in "[a-z0-9/._:-]{0,24}", query in "[a-z=&]{0,8}") {
        let g = gateway(Provider::Anthropic);
        let path = format!("{head}/v1/messages?{query}");
        prop_assert!(g.route("POST", &path).is_some());
        let glued = format!("{head}x_messages?{query}");
        prop_assert!(g.route("POST", &glued).is_none());
        let gemini = gateway(Provider::Gemini);
        let _ = gemini.route("POST", &format!("/models/{head}:generateContent"));
    }
}

#[test]
fn with_say_scale_each_api_hears_an_images_scale_beside_it() {
    let shot = B64.encode(media::png_rgb(&media::screenshot(2880, 1800, 3)));
    let url = format!("data:image/png;base64,{shot}");
    let cases = [
        (
            Provider::Anthropic,
            "/v1/messages",
            json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
                {"role": "user", "content": "Take a screenshot."},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": shot}}]}]}
            ], "tools": [{"name": "shot", "input_schema": {"type": "object"}}]}),
            r#"{"type":"text","text":"scaled from 2880×1800 to "#,
        ),
        (
            Provider::OpenAiChat,
            "/v1/chat/completions",
            json!({"model": "gpt-5.1", "messages": [{"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": url}}]}]}),
            r#"{"type":"text","text":"scaled from 2880×1800 to "#,
        ),
        (
            Provider::OpenAiResponses,
            "/v1/responses",
            json!({"model": "gpt-5.1", "input": [{"type": "message", "role": "user", "content": [
                {"type": "input_image", "image_url": url}]}]}),
            r#"{"type":"input_text","text":"scaled from 2880×1800 to "#,
        ),
        (
            Provider::Gemini,
            "/v1beta/models/gemini-3-pro-preview:generateContent",
            json!({"contents": [{"role": "user", "parts": [
                {"inlineData": {"mimeType": "image/png", "data": shot}}]}]}),
            r#"{"text":"scaled from 2880×1800 to "#,
        ),
    ];
    for (api, path, body, said) in cases {
        let body = body.to_string();
        let options = Options::new().with_say_scale(true);
        let g = Gateway::new(api, options).unwrap();
        let route = g.route("POST", path).unwrap();
        let passed = g.fit(&route, body.as_bytes()).unwrap();
        let out = std::str::from_utf8(passed.bytes()).unwrap();
        assert_eq!(out.matches(said).count(), 1, "{api}: {out:.300}");
        let image = out
            .find("iVBOR")
            .unwrap_or_else(|| panic!("{api}: no PNG left"));
        assert!(
            image < out.find(said).unwrap(),
            "{api}: said after the image"
        );
        // Without it, nothing is said.
        let plain = gateway(api).fit(&route, body.as_bytes()).unwrap();
        assert!(!String::from_utf8_lossy(plain.bytes()).contains("scaled from"));
    }
}
