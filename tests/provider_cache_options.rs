//! Prompt-cache options: the TTL on every breakpoint where the API takes
//! one, no breakpoint before the model's minimum cacheable prefix, and
//! OpenAI's cache parameters sent only to the APIs that take them.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::Value;
use support::{build_lines, calls, line, png, result, Fixture};
use tool_carrier::history;
use tool_carrier::provider::{
    build_request, BuildError, CacheTtl, Options, Params, Provider, Retention,
};

/// Text of about `tokens` tokens at four characters a token.
fn text_of(tokens: usize) -> String {
    "word ".repeat(tokens * 4 / 5)
}

/// A system text, one tool round, and a closing user message.
fn history(system_tokens: usize) -> String {
    line("system", &text_of(system_tokens))
        + &line("user", "Check the badge.")
        + &calls(&[("call_1", "screenshot")])
        + &result("call_1", "It reads: passing.", &[])
        + &line("user", "Thanks.")
}

/// Every `cache_control` (Anthropic) or `cachePoint` (Bedrock) object in
/// the body, in order.
fn marks(body: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<Value>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "cache_control" || k == "cachePoint" {
                        out.push(x.clone());
                    }
                    walk(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(body, &mut out);
    out
}

const BEDROCK_CLAUDE: &str = "us.anthropic.claude-sonnet-5";

#[test]
fn every_breakpoint_carries_the_ttl_given() {
    let fixture = Fixture::new();
    for (provider, model) in [
        (Provider::Anthropic, "claude-sonnet-4-6"),
        (Provider::Bedrock, BEDROCK_CLAUDE),
    ] {
        for ttl in [CacheTtl::OneHour, CacheTtl::FiveMinutes] {
            let options = fixture.options().with_model(model).with_cache_ttl(ttl);
            let request = build_lines(provider, &history(2000), &options);
            let marks = marks(&request.body.to_value());
            // The system text and the last message.
            assert_eq!(marks.len(), 2, "{provider}");
            // One TTL for all: "longer TTL before shorter" cannot break.
            for m in &marks {
                assert_eq!(m["ttl"], ttl.name(), "{provider}");
            }
        }
        // Without a TTL, none is written (the five-minute default).
        let request = build_lines(
            provider,
            &history(2000),
            &fixture.options().with_model(model),
        );
        assert!(marks(&request.body.to_value())
            .iter()
            .all(|m| m.get("ttl").is_none()));
    }
}

#[test]
fn no_breakpoint_before_the_models_minimum_prefix() {
    let fixture = Fixture::new();
    // Claude Sonnet 4.6 caches from 1,024 tokens, Opus 4.6 from 4,096.
    for (provider, model, min) in [
        (Provider::Anthropic, "claude-sonnet-4-6", 1024),
        (Provider::Anthropic, "claude-opus-4-6", 4096),
        (Provider::Bedrock, BEDROCK_CLAUDE, 1024),
    ] {
        let options = fixture.options().with_model(model);
        let count = |tokens: usize| {
            marks(
                &build_lines(provider, &history(tokens), &options)
                    .body
                    .to_value(),
            )
            .len()
        };
        // Well short: no mark at all.
        assert_eq!(count(min / 4), 0, "{model}");
        // The system text alone is past the minimum: it and the last
        // message are marked.
        assert_eq!(count(min + 100), 2, "{model}");
    }
    // A model whose minimum the data does not give is marked as before.
    let options = fixture.options().with_model("claude-sonnet-5-5");
    let request = build_lines(Provider::Anthropic, &history(10), &options);
    assert_eq!(marks(&request.body.to_value()).len(), 2);
}

#[test]
fn images_count_toward_the_cached_prefix() {
    let fixture = Fixture::new();
    // 1092×1092 is 1521 tokens for Claude Sonnet 4.6 (39 × 39 patches).
    fixture.add("shots/big.png", &png(1092, 1092, 3));
    let lines = line("user", "Look.")
        + &calls(&[("call_1", "screenshot")])
        + &result("call_1", "Here.", &["shots/big.png"])
        + &line("user", "Thanks.");
    let options = fixture.options().with_model("claude-sonnet-4-6");
    let with_image = build_lines(Provider::Anthropic, &lines, &options);
    assert_eq!(with_image.report.image_tokens, Some(1521));
    assert_eq!(marks(&with_image.body.to_value()).len(), 1);
    // The same history without vision is all short text: no mark.
    let without = build_lines(Provider::Anthropic, &lines, &options.with_vision(false));
    assert!(marks(&without.body.to_value()).is_empty());
}

#[test]
fn a_ttl_where_the_api_has_none_is_refused_and_says_why() {
    let messages = history::read(history(10).as_bytes()).unwrap();
    let options = Options::new().with_cache_ttl(CacheTtl::OneHour);
    for provider in [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
        Provider::Ollama,
    ] {
        let err = build_request(provider, &messages, &options).unwrap_err();
        assert!(
            matches!(
                err,
                BuildError::Unsupported {
                    setting: "cache_ttl",
                    ..
                }
            ),
            "{provider}: {err}"
        );
        assert!(
            err.to_string()
                .contains("only Anthropic and Claude on Bedrock"),
            "{err}"
        );
    }
    // Bedrock models other than Claude get no cache points, and no TTL.
    let nova = options.with_model("amazon.nova-pro-v1:0");
    let err = build_request(Provider::Bedrock, &messages, &nova).unwrap_err();
    assert!(err.to_string().contains("only for Claude models"), "{err}");
}

#[test]
fn bedrock_keeps_the_one_hour_ttl_for_claude_4_5_and_later() {
    // Past every model's minimum prefix (Haiku 4.5's is 4,096 tokens).
    let messages = history::read(history(5000).as_bytes()).unwrap();
    let hour = || Options::new().with_cache_ttl(CacheTtl::OneHour);
    for older in [
        "anthropic.claude-sonnet-4-20250514-v1:0",
        "us.anthropic.claude-opus-4-1-20250805-v1:0",
        "anthropic.claude-3-7-sonnet-20250219-v1:0",
        "anthropic.claude-3-5-haiku-20241022-v1:0",
        // Served on Bedrock though the facts list them for Anthropic only.
        "anthropic.claude-3-5-sonnet-20241022-v2:0",
        "anthropic.claude-3-haiku-20240307-v1:0",
    ] {
        let err =
            build_request(Provider::Bedrock, &messages, &hour().with_model(older)).unwrap_err();
        assert!(
            matches!(
                err,
                BuildError::Unsupported {
                    setting: "cache_ttl",
                    ..
                }
            ),
            "{older}: {err}"
        );
        assert!(
            err.to_string()
                .contains("a one-hour TTL is for Claude 4.5 and later"),
            "{err}"
        );
        // With no breakpoints written the TTL has no effect: a note, as
        // for any model.
        let off = Options::new()
            .with_cache_ttl(CacheTtl::OneHour)
            .with_cache_breakpoints(false)
            .with_model(older);
        let request = build_request(Provider::Bedrock, &messages, &off).unwrap();
        assert!(request.report.setting_notes[0].starts_with("cache TTL 1h: no effect"));
        // Five minutes, said or not, is every cacheable model's.
        let five = Options::new()
            .with_cache_ttl(CacheTtl::FiveMinutes)
            .with_model(older);
        build_request(Provider::Bedrock, &messages, &five).unwrap();
    }
    for newer in [
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "global.anthropic.claude-haiku-4-5-20251001-v1:0",
        "anthropic.claude-opus-4-6-v1",
        BEDROCK_CLAUDE,
    ] {
        let request =
            build_request(Provider::Bedrock, &messages, &hour().with_model(newer)).unwrap();
        let body: Value = serde_json::from_str(request.json()).unwrap();
        let points = marks(&body);
        assert!(!points.is_empty(), "{newer}");
        assert!(
            points.iter().all(|p| p["ttl"] == "1h"),
            "{newer}: {points:?}"
        );
    }
    // The same older model on Anthropic's own API keeps the hour.
    build_request(
        Provider::Anthropic,
        &messages,
        &hour().with_model("claude-sonnet-4-20250514"),
    )
    .unwrap();
}

#[test]
fn a_ttl_without_breakpoints_is_noted() {
    let messages = history::read(history(2000).as_bytes()).unwrap();
    let options = Options::new()
        .with_model("claude-sonnet-4-6")
        .with_cache_ttl(CacheTtl::OneHour)
        .with_cache_breakpoints(false);
    let request = build_request(Provider::Anthropic, &messages, &options).unwrap();
    assert!(marks(&request.body.to_value()).is_empty());
    assert_eq!(
        request.report.setting_notes,
        ["cache TTL 1h: no effect: no cache breakpoints are written (they are turned off)"]
    );
}

#[test]
fn openai_cache_parameters_go_to_chat_and_responses_only() {
    let messages = history::read(history(10).as_bytes()).unwrap();
    let params = Params::new()
        .with_prompt_cache_key("agent-7")
        .with_prompt_cache_retention(Retention::Hours24);
    let options = Options::new().with_params(params.clone());
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let body = build_request(provider, &messages, &options)
            .unwrap()
            .body
            .to_value();
        assert_eq!(body["prompt_cache_key"], "agent-7", "{provider}");
        assert_eq!(body["prompt_cache_retention"], "24h", "{provider}");
    }
    for provider in [
        Provider::Anthropic,
        Provider::Bedrock,
        Provider::Gemini,
        Provider::Ollama,
        Provider::OpenAiCompatible,
    ] {
        let err = build_request(provider, &messages, &options).unwrap_err();
        assert!(
            matches!(
                err,
                BuildError::Unsupported {
                    setting: "prompt_cache_key",
                    ..
                }
            ),
            "{provider}: {err}"
        );
    }
    // GPT-5.5 and later take `24h` only; GPT-5.4 either.
    let in_memory = params.with_prompt_cache_retention(Retention::InMemory);
    let on = |model: &str| {
        build_request(
            Provider::OpenAiResponses,
            &messages,
            &Options::new()
                .with_model(model)
                .with_params(in_memory.clone()),
        )
    };
    let err = on("gpt-5.5").unwrap_err();
    assert_eq!(
        err.to_string(),
        "OpenAI does not take the setting prompt_cache_retention (gpt-5.5 takes prompt_cache_retention 24h only)"
    );
    assert!(on("gpt-6-astra").is_err());
    assert_eq!(
        on("gpt-5.4").unwrap().body.to_value()["prompt_cache_retention"],
        "in_memory"
    );
}
