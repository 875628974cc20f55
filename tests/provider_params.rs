//! Generation settings: each lands where its API documents it, in the
//! API's spelling; one an API (or the model) does not take is an error
//! naming it; out of the documented range, the body's own rules refuse it;
//! and any settings within the ranges give a body that passes them.

use proptest::prelude::*;
use serde_json::{json, Value};
use tool_carrier::provider::{build_request, BuildError, Effort, Options, Params, Provider};

const HISTORY: [(&str, &str); 1] = [("user", "hi")];

fn body(provider: Provider, model: &str, params: Params) -> Value {
    let options = Options::new().with_model(model).with_params(params);
    build_request(provider, &HISTORY, &options)
        .unwrap_or_else(|e| panic!("{provider} {model}: {e}"))
        .body
        .to_value()
}

fn error(provider: Provider, model: &str, params: Params) -> BuildError {
    let options = Options::new().with_model(model).with_params(params);
    build_request(provider, &HISTORY, &options).expect_err("refused")
}

fn sampling() -> Params {
    Params::new()
        .with_max_tokens(2000)
        .with_temperature(0.5)
        .with_top_p(0.9)
        .with_stop(["END"])
}

/// Sampling settings without `top_p`: Claude takes it or `temperature`.
fn claude_sampling() -> Params {
    let mut p = sampling();
    p.top_p = None;
    p
}

#[test]
fn anthropic_places_each_setting_at_the_top_level() {
    // Sonnet 4.6 takes sampling settings and a thinking budget.
    let b = body(
        Provider::Anthropic,
        "claude-sonnet-4-6",
        claude_sampling().with_top_k(40),
    );
    assert_eq!(b["max_tokens"], 2000);
    assert_eq!(b["temperature"], 0.5);
    assert_eq!(b["top_k"], 40);
    assert_eq!(b["stop_sequences"], json!(["END"]));
    let b = body(
        Provider::Anthropic,
        "claude-sonnet-4-6",
        Params::new().with_top_p(0.9),
    );
    assert_eq!(b["top_p"], 0.9);
    let b = body(
        Provider::Anthropic,
        "claude-sonnet-4-6",
        Params::new()
            .with_max_tokens(4000)
            .with_thinking_budget(2048),
    );
    assert_eq!(
        b["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    // Sonnet 5.5 thinks adaptively: an effort level.
    let b = body(
        Provider::Anthropic,
        "claude-sonnet-5-5",
        Params::new()
            .with_reasoning_effort(Effort::Low)
            .with_stop(["END"]),
    );
    assert_eq!(b["thinking"], json!({"type": "adaptive"}));
    assert_eq!(b["output_config"], json!({"effort": "low"}));
    assert_eq!(b["stop_sequences"], json!(["END"]));
}

#[test]
fn what_a_claude_model_refuses_is_an_error_naming_the_model() {
    let says = |provider, model, params, key: &str, why: &str| match error(provider, model, params)
    {
        BuildError::Unsupported {
            setting, why: said, ..
        } => {
            assert_eq!((setting, said.as_str()), (key, why), "{model}");
        }
        other => panic!("{model}: {other}"),
    };
    for (setting, params) in [
        ("temperature", Params::new().with_temperature(0.2)),
        ("top_p", Params::new().with_top_p(0.9)),
        ("top_k", Params::new().with_top_k(5)),
    ] {
        says(
            Provider::Anthropic,
            "claude-sonnet-5-5",
            params.clone(),
            setting,
            "Claude Sonnet 5.5 refuses sampling settings",
        );
        says(
            Provider::Anthropic,
            "claude-opus-4-7",
            params,
            setting,
            "Claude Opus 4.7 refuses sampling settings",
        );
    }
    says(
        Provider::Anthropic,
        "claude-opus-4-8",
        Params::new().with_thinking_budget(2048),
        "thinking_budget",
        "Claude Opus 4.8 thinks adaptively: give reasoning_effort instead",
    );
    says(
        Provider::Anthropic,
        "claude-sonnet-4-6",
        Params::new().with_reasoning_effort(Effort::High),
        "reasoning_effort",
        "Claude Sonnet 4.6 takes a thinking budget (thinking_budget), not an effort level",
    );
    for (provider, model) in [
        (Provider::Anthropic, "claude-sonnet-4-6"),
        (
            Provider::Bedrock,
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
    ] {
        says(
            provider,
            model,
            Params::new().with_temperature(0.5).with_top_p(0.9),
            "top_p",
            "Claude models take temperature or top_p, not both",
        );
    }
    // The same refusals through Bedrock, where the model is known.
    says(
        Provider::Bedrock,
        "us.anthropic.claude-opus-4-7",
        Params::new().with_temperature(0.2),
        "temperature",
        "Claude Opus 4.7 refuses sampling settings",
    );
}

#[test]
fn anthropic_max_tokens_defaults_to_the_models_output_limit() {
    // Sonnet 5.5 documents 128,000; a request without a stream is sent at
    // most 21,333, the most Anthropic's SDKs send without one.
    let b = body(Provider::Anthropic, "claude-sonnet-5-5", Params::new());
    assert_eq!(b["max_tokens"], 21333);
    let b = body(
        Provider::Anthropic,
        "claude-sonnet-5-5",
        Params::new().with_max_tokens(128_000),
    );
    assert_eq!(b["max_tokens"], 128000);
    // The facts give Claude 3 Haiku (retired) no output limit.
    let b = body(Provider::Anthropic, "claude-3-haiku", Params::new());
    assert_eq!(b["max_tokens"], 4096);
    // A model the facts do not know.
    let b = body(Provider::Anthropic, "claude-unknown-9", Params::new());
    assert_eq!(b["max_tokens"], 4096);
    let options = Options::new().with_max_tokens(77);
    let request = build_request(Provider::Anthropic, &HISTORY, &options).unwrap();
    assert_eq!(request.body.to_value()["max_tokens"], 77);
    // The others send none unless given.
    for provider in Provider::ALL {
        if provider == Provider::Anthropic {
            continue;
        }
        let request = build_request(provider, &HISTORY, &Options::new()).unwrap();
        let text = request.to_json();
        for key in [
            "max_tokens",
            "max_completion_tokens",
            "max_output_tokens",
            "maxTokens",
            "maxOutputTokens",
            "num_predict",
        ] {
            assert!(!text.contains(&format!("\"{key}\"")), "{provider}: {text}");
        }
    }
}

#[test]
fn openai_chat_and_compatible_servers_use_chats_names() {
    for provider in [Provider::OpenAiChat, Provider::OpenAiCompatible] {
        let b = body(
            provider,
            "gpt-5.5",
            sampling().with_seed(7).with_reasoning_effort(Effort::High),
        );
        assert_eq!(b["max_completion_tokens"], 2000, "{provider}");
        assert_eq!(b["temperature"], 0.5);
        assert_eq!(b["top_p"], 0.9);
        assert_eq!(b["stop"], json!(["END"]));
        assert_eq!(b["seed"], 7);
        assert_eq!(b["reasoning_effort"], "high");
        assert!(b.get("max_tokens").is_none());
    }
}

#[test]
fn openai_responses_uses_its_own_names() {
    let b = body(
        Provider::OpenAiResponses,
        "gpt-5.5",
        Params::new()
            .with_max_tokens(300)
            .with_temperature(1.5)
            .with_top_p(0.5)
            .with_reasoning_effort(Effort::Medium),
    );
    assert_eq!(b["max_output_tokens"], 300);
    assert_eq!(b["temperature"], 1.5);
    assert_eq!(b["top_p"], 0.5);
    assert_eq!(b["reasoning"], json!({"effort": "medium"}));
}

#[test]
fn gemini_places_settings_in_generation_config() {
    let b = body(
        Provider::Gemini,
        "gemini-3.8-flash",
        sampling()
            .with_top_k(20)
            .with_seed(3)
            .with_reasoning_effort(Effort::Low),
    );
    assert_eq!(
        b["generationConfig"],
        json!({
            "maxOutputTokens": 2000, "temperature": 0.5, "topP": 0.9, "topK": 20,
            "stopSequences": ["END"], "seed": 3, "thinkingConfig": {"thinkingLevel": "low"}
        })
    );
    let b = body(
        Provider::Gemini2,
        "gemini-2.5-flash",
        Params::new().with_thinking_budget(1024),
    );
    assert_eq!(
        b["generationConfig"],
        json!({"thinkingConfig": {"thinkingBudget": 1024}})
    );
    assert!(body(Provider::Gemini, "gemini-3.8-flash", Params::new())
        .get("generationConfig")
        .is_none());
}

#[test]
fn bedrock_places_settings_in_inference_config_and_claudes_own_fields() {
    let claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    let b = body(
        Provider::Bedrock,
        claude,
        claude_sampling()
            .with_top_k(30)
            .with_max_tokens(4000)
            .with_thinking_budget(1024),
    );
    assert_eq!(
        b["inferenceConfig"],
        json!({"maxTokens": 4000, "temperature": 0.5, "stopSequences": ["END"]})
    );
    assert_eq!(
        b["additionalModelRequestFields"],
        json!({"top_k": 30, "thinking": {"type": "enabled", "budget_tokens": 1024}})
    );
    let b = body(Provider::Bedrock, "amazon.nova-pro-v1:0", sampling());
    assert_eq!(b["inferenceConfig"]["maxTokens"], 2000);
    assert!(b.get("additionalModelRequestFields").is_none());
}

#[test]
fn ollama_places_settings_in_options() {
    let b = body(
        Provider::Ollama,
        "qwen3-vl",
        sampling().with_top_k(40).with_seed(-1),
    );
    assert_eq!(
        b["options"],
        json!({"num_predict": 2000, "temperature": 0.5, "top_p": 0.9, "top_k": 40,
               "stop": ["END"], "seed": -1})
    );
}

#[test]
fn a_setting_the_api_does_not_take_is_an_error_naming_it() {
    let cases: &[(Provider, &str, Params, &str)] = &[
        (
            Provider::Anthropic,
            "claude-sonnet-5-5",
            Params::new().with_seed(1),
            "seed",
        ),
        (
            Provider::Anthropic,
            "claude-sonnet-4-6",
            Params::new().with_reasoning_effort(Effort::Low),
            "reasoning_effort",
        ),
        (
            Provider::Anthropic,
            "claude-3-haiku",
            Params::new().with_thinking_budget(2048),
            "thinking_budget",
        ),
        (
            Provider::OpenAiChat,
            "gpt-5.5",
            Params::new().with_top_k(5),
            "top_k",
        ),
        (
            Provider::OpenAiChat,
            "gpt-5.5",
            Params::new().with_thinking_budget(2048),
            "thinking_budget",
        ),
        (
            Provider::OpenAiChat,
            "gpt-4.1",
            Params::new().with_reasoning_effort(Effort::Low),
            "reasoning_effort",
        ),
        (
            Provider::OpenAiCompatible,
            "any",
            Params::new().with_top_k(5),
            "top_k",
        ),
        (
            Provider::OpenAiResponses,
            "gpt-5.5",
            Params::new().with_stop(["x"]),
            "stop",
        ),
        (
            Provider::OpenAiResponses,
            "gpt-5.5",
            Params::new().with_seed(1),
            "seed",
        ),
        (
            Provider::OpenAiResponses,
            "gpt-5.5",
            Params::new().with_top_k(1),
            "top_k",
        ),
        (
            Provider::Gemini2,
            "gemini-2.5-flash",
            Params::new().with_reasoning_effort(Effort::High),
            "reasoning_effort",
        ),
        (
            Provider::Bedrock,
            "amazon.nova-pro-v1:0",
            Params::new().with_top_k(5),
            "top_k",
        ),
        (
            Provider::Bedrock,
            "amazon.nova-pro-v1:0",
            Params::new().with_thinking_budget(2048),
            "thinking_budget",
        ),
        (
            Provider::Bedrock,
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            Params::new().with_seed(1),
            "seed",
        ),
        (
            Provider::Ollama,
            "qwen3-vl",
            Params::new().with_reasoning_effort(Effort::Low),
            "reasoning_effort",
        ),
        (
            Provider::Ollama,
            "qwen3-vl",
            Params::new().with_thinking_budget(1),
            "thinking_budget",
        ),
    ];
    for (provider, model, params, key) in cases {
        match error(*provider, model, params.clone()) {
            BuildError::Unsupported { setting, api, .. } => {
                assert_eq!(setting, *key, "{provider}");
                assert_eq!(api, provider.display_name());
            }
            other => panic!("{provider} {key}: {other}"),
        }
        let message = error(*provider, model, params.clone()).to_string();
        assert!(message.contains(key), "{message}");
    }
}

fn refused_by(provider: Provider, model: &str, params: Params) -> &'static str {
    match error(provider, model, params) {
        BuildError::Refused { violation, .. } => violation.rule.id,
        other => panic!("{provider}: {other}"),
    }
}

#[test]
fn out_of_range_settings_are_refused_by_the_apis_rules() {
    let t = |x| Params::new().with_temperature(x);
    let sonnet = "claude-sonnet-4-6";
    assert_eq!(
        refused_by(Provider::Anthropic, sonnet, t(1.5)),
        "anthropic/temperature"
    );
    assert_eq!(
        refused_by(Provider::Anthropic, sonnet, Params::new().with_top_p(1.2)),
        "anthropic/temperature"
    );
    let thinking = |budget, max| {
        Params::new()
            .with_thinking_budget(budget)
            .with_max_tokens(max)
    };
    assert_eq!(
        refused_by(Provider::Anthropic, sonnet, thinking(1000, 4000)),
        "anthropic/thinking-budget"
    );
    assert_eq!(
        refused_by(Provider::Anthropic, sonnet, thinking(4000, 4000)),
        "anthropic/thinking-budget"
    );
    assert_eq!(
        refused_by(
            Provider::Anthropic,
            sonnet,
            thinking(2000, 4000).with_temperature(0.5)
        ),
        "anthropic/thinking-sampling"
    );
    assert_eq!(
        refused_by(
            Provider::Anthropic,
            sonnet,
            thinking(2000, 4000).with_top_p(0.5)
        ),
        "anthropic/thinking-sampling"
    );
    assert!(build_request(
        Provider::Anthropic,
        &HISTORY,
        &Options::new()
            .with_model(sonnet)
            .with_params(thinking(2000, 4000).with_top_p(0.95))
    )
    .is_ok());
    assert!(build_request(
        Provider::OpenAiChat,
        &HISTORY,
        &Options::new().with_params(t(2.0))
    )
    .is_ok());
    assert_eq!(
        refused_by(Provider::OpenAiChat, "gpt-5.5", t(2.5)),
        "openai-chat/sampling"
    );
    assert_eq!(
        refused_by(Provider::OpenAiChat, "gpt-5.5", t(-0.1)),
        "openai-chat/sampling"
    );
    assert_eq!(
        refused_by(
            Provider::OpenAiChat,
            "gpt-5.5",
            Params::new().with_stop(["a", "b", "c", "d", "e"])
        ),
        "openai-chat/sampling"
    );
    assert_eq!(
        refused_by(Provider::OpenAiResponses, "gpt-5.5", t(2.1)),
        "openai-responses/sampling"
    );
    assert_eq!(
        refused_by(Provider::Gemini, "gemini-3.8-flash", t(2.1)),
        "gemini/sampling"
    );
    assert_eq!(
        refused_by(
            Provider::Gemini,
            "gemini-3.8-flash",
            Params::new().with_stop(["1", "2", "3", "4", "5", "6"])
        ),
        "gemini/sampling"
    );
    assert_eq!(
        refused_by(
            Provider::Gemini,
            "gemini-3.8-flash",
            Params::new()
                .with_reasoning_effort(Effort::Low)
                .with_thinking_budget(1024)
        ),
        "gemini/thinking-level-or-budget"
    );
    let claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    assert_eq!(
        refused_by(Provider::Bedrock, claude, t(1.1)),
        "bedrock/inference-config"
    );
    assert_eq!(
        refused_by(Provider::Bedrock, claude, thinking(512, 4000)),
        "bedrock/thinking-budget"
    );
}

/// Settings within every range the API documents, and only ones it takes.
fn allowed(provider: Provider) -> impl Strategy<Value = Params> {
    let (t_max, stops) = match provider {
        Provider::Anthropic | Provider::Bedrock => (1.0, 4),
        Provider::Gemini | Provider::Gemini2 => (2.0, 5),
        Provider::OpenAiChat | Provider::OpenAiCompatible | Provider::OpenAiResponses => (2.0, 4),
        _ => (2.0, 4),
    };
    // Up to the model's documented output limit: over it is refused
    // (tests/provider_output_cap.rs).
    let cap = tool_carrier::facts::Facts::builtin()
        .model(provider, model_for(provider))
        .and_then(|m| m.max_output)
        .map_or(200_000, |cap| u32::try_from(cap).unwrap());
    (
        proptest::option::of(1u32..=cap),
        proptest::option::of(0.0..=t_max),
        proptest::option::of(0.0..=1.0f64),
        proptest::option::of(1u32..500),
        proptest::collection::vec("[a-z]{1,5}", 0..=stops),
        proptest::option::of(any::<i64>()),
        proptest::option::of(prop_oneof![
            Just(Effort::Low),
            Just(Effort::Medium),
            Just(Effort::High)
        ]),
        // A budget under max_tokens, so under the output limit too.
        proptest::option::of(1024u32..cap.min(100_000)),
    )
        .prop_map(move |(max, t, p, k, stop, seed, effort, budget)| {
            let mut params = Params::new().with_stop(stop);
            params.max_tokens = max;
            params.temperature = t;
            params.top_p = p;
            params.top_k = k;
            params.seed = seed;
            params.reasoning_effort = effort;
            params.thinking_budget = budget;
            let takes: &[&str] = match provider {
                Provider::Anthropic => &["top_k", "thinking_budget"],
                Provider::OpenAiChat | Provider::OpenAiCompatible => &["seed", "reasoning_effort"],
                Provider::OpenAiResponses => &["reasoning_effort"],
                Provider::Gemini | Provider::Gemini2 => {
                    &["top_k", "seed", "reasoning_effort", "thinking_budget"]
                }
                Provider::Bedrock => &["top_k", "thinking_budget"],
                _ => &["top_k", "seed"],
            };
            let keep = |key: &str| takes.contains(&key);
            if !keep("top_k") {
                params.top_k = None;
            }
            if !keep("seed") {
                params.seed = None;
            }
            if !keep("reasoning_effort") {
                params.reasoning_effort = None;
            }
            if !keep("thinking_budget") {
                params.thinking_budget = None;
            }
            if provider == Provider::OpenAiResponses {
                params.stop.clear();
            }
            if matches!(provider, Provider::Anthropic | Provider::Bedrock)
                && params.temperature.is_some()
            {
                params.top_p = None; // Claude takes one of them
            }
            if matches!(provider, Provider::Gemini | Provider::Gemini2)
                && params.reasoning_effort.is_some()
            {
                params.thinking_budget = None; // a level or a budget
            }
            if let Some(budget) = params.thinking_budget {
                if matches!(provider, Provider::Anthropic | Provider::Bedrock) {
                    // A budget under max_tokens, no temperature or top_k,
                    // top_p from 0.95.
                    params.max_tokens = Some(params.max_tokens.unwrap_or(0).max(budget + 1));
                    params.temperature = None;
                    params.top_k = None;
                    params.top_p = params.top_p.map(|p| 0.95 + p * 0.05);
                }
            }
            params
        })
}

fn model_for(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "claude-sonnet-4-6",
        Provider::Bedrock => "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        Provider::Gemini => "gemini-3.8-flash",
        Provider::Gemini2 => "gemini-3.8-flash",
        Provider::Ollama => "qwen3-vl",
        _ => "gpt-5.5",
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn allowed_settings_give_a_body_its_rules_accept(
        (provider, params) in prop_oneof![
            allowed(Provider::Anthropic).prop_map(|p| (Provider::Anthropic, p)),
            allowed(Provider::OpenAiChat).prop_map(|p| (Provider::OpenAiChat, p)),
            allowed(Provider::OpenAiCompatible).prop_map(|p| (Provider::OpenAiCompatible, p)),
            allowed(Provider::OpenAiResponses).prop_map(|p| (Provider::OpenAiResponses, p)),
            allowed(Provider::Gemini).prop_map(|p| (Provider::Gemini, p)),
            allowed(Provider::Gemini2).prop_map(|p| (Provider::Gemini2, p)),
            allowed(Provider::Bedrock).prop_map(|p| (Provider::Bedrock, p)),
            allowed(Provider::Ollama).prop_map(|p| (Provider::Ollama, p)),
        ]
    ) {
        let options = Options::new().with_model(model_for(provider)).with_params(params);
        // build_request checks the body against every rule of its API.
        let result = build_request(provider, &HISTORY, &options);
        prop_assert!(result.is_ok(), "{provider}: {}", result.unwrap_err());
    }
}
