//! Image detail levels (`Options::with_detail`): what each API is sent,
//! the size images are fitted to and the tokens counted at each level,
//! and what happens where a model or an API does not take the level.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::Value;
use support::{build_lines, calls, line, png, png_sizes, result, Fixture};
use tool_carrier::facts::Detail;
use tool_carrier::provider::{build_request, BuildError, Options, Provider, Request};

/// One screenshot round with a 2880×1800 image.
fn round(fixture: &Fixture) -> String {
    fixture.add("shots/retina.png", &png(2880, 1800, 7));
    line("user", "Is the badge green?")
        + &calls(&[("call_1", "screenshot")])
        + &result("call_1", "Took it.", &["shots/retina.png"])
}

fn convert(provider: Provider, model: &str, detail: Option<Detail>) -> Request {
    let fixture = Fixture::new();
    let lines = round(&fixture);
    let mut options = fixture.options().with_model(model);
    if let Some(detail) = detail {
        options = options.with_detail(detail);
    }
    build_lines(provider, &lines, &options)
}

/// Every value of `key` in the body, depth first.
fn values_of(v: &Value, key: &str) -> Vec<Value> {
    let mut out = Vec::new();
    fn walk(v: &Value, key: &str, out: &mut Vec<Value>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == key {
                        out.push(x.clone());
                    }
                    walk(x, key, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
            _ => {}
        }
    }
    walk(v, key, &mut out);
    out
}

#[test]
fn openai_parts_carry_the_level_and_images_are_fitted_and_counted_at_it() {
    // GPT-5.5: low is the 512 px version, 16 × 10 patches × 1.2 = 192
    // tokens; high 2,500 patches within 2048 px (63 × 39 patches); auto
    // (= original) the default policy's 2000 px ceiling.
    let cases = [
        (Some(Detail::Low), (512, 320), 192),
        (Some(Detail::High), (1997, 1248), 2_949),
        (None, (2000, 1250), 3_024),
    ];
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        for (detail, size, tokens) in cases {
            let request = convert(provider, "gpt-5.5", detail);
            assert_eq!(png_sizes(&request), [size], "{provider} {detail:?}");
            assert_eq!(
                request.report.image_tokens,
                Some(tokens),
                "{provider} {detail:?}"
            );
            let details = values_of(&request.body.to_value(), "detail");
            let want: Vec<Value> = match (provider, detail) {
                (_, Some(d)) => vec![d.name().into()],
                // Responses says `auto`; Chat names none, which is `auto`.
                (Provider::OpenAiResponses, None) => vec!["auto".into()],
                _ => vec![],
            };
            assert_eq!(details, want, "{provider} {detail:?}");
        }
    }
    // A tile-based model at low: the base tokens alone, within 512 px.
    let request = convert(Provider::OpenAiChat, "gpt-4o", Some(Detail::Low));
    assert_eq!(png_sizes(&request), [(512, 320)]);
    assert_eq!(request.report.image_tokens, Some(85));
}

#[test]
fn gemini_3_parts_carry_a_media_resolution_and_its_token_count() {
    for (detail, level, tokens) in [
        (Some(Detail::Low), Some("MEDIA_RESOLUTION_LOW"), 280),
        (Some(Detail::High), Some("MEDIA_RESOLUTION_HIGH"), 1120),
        (
            Some(Detail::Original),
            Some("MEDIA_RESOLUTION_ULTRA_HIGH"),
            2240,
        ),
        (Some(Detail::Auto), None, 1120),
        (None, None, 1120),
    ] {
        let request = convert(Provider::Gemini, "gemini-3.5-flash", detail);
        let body = request.body.to_value();
        let levels: Vec<Value> = values_of(&body, "mediaResolution");
        let want: Vec<Value> = level
            .map(|l| serde_json::json!({"level": l}))
            .into_iter()
            .collect();
        assert_eq!(levels, want, "{detail:?}");
        assert_eq!(request.report.image_tokens, Some(tokens), "{detail:?}");
        // On the part that holds the image, nested in the response.
        if level.is_some() {
            let part = &values_of(&body, "functionResponse")[0]["parts"][0];
            assert!(part.get("inlineData").is_some() && part.get("mediaResolution").is_some());
        }
    }
}

#[test]
fn a_level_the_model_does_not_take_is_refused_with_the_levels_it_takes() {
    let fixture = Fixture::new();
    let lines = round(&fixture);
    let history = support::history_lines(&lines);
    let options = fixture
        .options()
        .with_model("gpt-5.2")
        .with_detail(Detail::Original);
    let err = build_request(Provider::OpenAiResponses, &history, &options).unwrap_err();
    assert!(
        matches!(&err, BuildError::Detail { levels, .. } if levels == &["low", "high", "auto"])
    );
    assert_eq!(
        err.to_string(),
        "gpt-5.2 on openai-responses does not take image detail original: it takes low, high, auto"
    );
}

#[test]
fn apis_without_a_detail_setting_are_sent_none_and_told_so() {
    for (provider, model) in [
        (Provider::Anthropic, "claude-sonnet-4-6"),
        (
            Provider::Bedrock,
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        (Provider::Ollama, "qwen3-vl"),
        (Provider::OpenAiCompatible, "local"),
        (Provider::Gemini2, "gemini-2.5-flash"),
    ] {
        let with = convert(provider, model, Some(Detail::Low));
        let without = convert(provider, model, None);
        assert_eq!(with.body.to_value(), without.body.to_value(), "{provider}");
        assert_eq!(
            with.report.image_tokens, without.report.image_tokens,
            "{provider}"
        );
        assert_eq!(with.report.setting_notes.len(), 1, "{provider}");
        assert!(
            with.report.setting_notes[0].starts_with("image detail low: no effect: "),
            "{}",
            with.report.setting_notes[0]
        );
        assert!(without.report.setting_notes.is_empty());
    }
}

#[test]
fn the_options_say_which_level_was_given() {
    assert_eq!(Options::new().detail(), None);
    assert_eq!(
        Options::new().with_detail(Detail::High).detail(),
        Some(Detail::High)
    );
}
