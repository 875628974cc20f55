//! `max_tokens` against the model's documented output limit, for every
//! API whose models the facts describe: over it the build refuses
//! (`BuildError::OutputTokens`, naming the limit and the page it was read
//! on), at it the body is built, for a model the facts do not know it is
//! sent with a note; and each API's self-check rule refuses a body that
//! asks for more (whoever wrote it).

use serde_json::json;
use tool_carrier::facts::Facts;
use tool_carrier::provider::{build_request, BuildError, Options, Params, Provider};
use tool_carrier::rules::{check, Target};

const HISTORY: [(&str, &str); 1] = [("user", "hi")];

/// A model each API serves whose output limit the facts hold, with it.
fn model_with_cap(provider: Provider) -> (String, u64) {
    let model = Facts::builtin()
        .models()
        .iter()
        .find(|m| m.apis.contains(&provider) && m.max_output.is_some())
        .unwrap_or_else(|| panic!("the facts hold no output limit for a {provider} model"));
    (model.id.clone(), model.max_output.unwrap())
}

/// The APIs whose models the facts give output limits for.
const CAPPED: [Provider; 6] = [
    Provider::Anthropic,
    Provider::OpenAiChat,
    Provider::OpenAiResponses,
    Provider::Gemini,
    Provider::Gemini2,
    Provider::Bedrock,
];

fn build(
    provider: Provider,
    model: &str,
    max_tokens: u32,
) -> Result<tool_carrier::provider::Request, BuildError> {
    let options = Options::new()
        .with_model(model)
        .with_params(Params::new().with_max_tokens(max_tokens));
    build_request(provider, &HISTORY, &options)
}

#[test]
fn over_the_models_output_limit_is_refused_naming_it_and_its_page() {
    for provider in CAPPED {
        let (model, cap) = model_with_cap(provider);
        let over = u32::try_from(cap + 1).unwrap();
        let err = build(provider, &model, over).expect_err("refused");
        let BuildError::OutputTokens {
            given,
            cap: said,
            page,
            ..
        } = &err
        else {
            panic!("{provider} {model}: {err}");
        };
        assert_eq!((*given, *said), (over, cap), "{provider}");
        let page = page
            .as_deref()
            .unwrap_or_else(|| panic!("{provider} {model}: no source"));
        assert!(page.starts_with("https://"), "{page}");
        assert!(page.contains(", read 20"), "{page}");
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "max_tokens {over} is over the {cap}-token output limit of "
            )),
            "{text}"
        );
        assert!(text.ends_with(&format!("({page})")), "{text}");
    }
}

#[test]
fn at_the_limit_the_body_is_built() {
    for provider in CAPPED {
        let (model, cap) = model_with_cap(provider);
        let request = build(provider, &model, u32::try_from(cap).unwrap())
            .unwrap_or_else(|e| panic!("{provider} {model}: {e}"));
        assert!(
            request
                .body
                .to_value()
                .to_string()
                .contains(&cap.to_string()),
            "{provider}: the limit is sent"
        );
        assert!(request.report.setting_notes.is_empty(), "{provider}");
    }
}

/// A model the facts do not describe: nothing to check against, so the
/// setting is sent as given, and the report says it was not checked.
#[test]
fn a_model_the_facts_do_not_know_is_sent_with_a_note() {
    let unknown = [
        (Provider::Anthropic, "claude-unreleased-9"),
        (Provider::OpenAiChat, "my-finetune"),
        (Provider::OpenAiResponses, "my-finetune"),
        (Provider::Gemini, "gemini-9-secret"),
        (Provider::Bedrock, "us.example.unknown-v1:0"),
        (Provider::Ollama, "qwen3-vl"),
        (Provider::OpenAiCompatible, "local-model"),
    ];
    for (provider, model) in unknown {
        let request = build(provider, model, 10_000_000)
            .unwrap_or_else(|e| panic!("{provider} {model}: {e}"));
        assert!(
            request.body.to_value().to_string().contains("10000000"),
            "{provider}"
        );
        assert_eq!(
            request.report.setting_notes,
            [format!(
                "max_tokens 10000000: sent as given: the facts hold no output limit for {model} to check it against"
            )],
            "{provider}"
        );
    }
}

/// The self-check reads the body, not the options: a body another
/// program wrote with too large a setting is refused by the API's rule.
#[test]
fn each_apis_rule_refuses_a_body_asking_for_more() {
    for provider in CAPPED {
        let (model, cap) = model_with_cap(provider);
        let body = build(provider, &model, u32::try_from(cap).unwrap())
            .unwrap()
            .body
            .to_value();
        let target = Target::new(provider, &model);
        assert!(check(&target, &body).is_empty(), "{provider}");
        let over = replace_number(&body, cap, cap + 1);
        let broken = check(&target, &over);
        assert_eq!(broken.len(), 1, "{provider}: {broken:?}");
        assert!(broken[0].rule.id.ends_with("-cap"), "{}", broken[0].rule.id);
        assert!(broken[0].rule.source.starts_with("https://"));
        assert!(
            broken[0]
                .to_string()
                .contains(&format!("over the {cap}-token output limit")),
            "{}",
            broken[0]
        );
    }
    // Chat's older spelling is held to the same limit.
    let (model, cap) = model_with_cap(Provider::OpenAiChat);
    let body = json!({"model": model, "max_tokens": cap + 1, "messages": [{"role": "user", "content": "hi"}]});
    let broken = check(&Target::new(Provider::OpenAiChat, &model), &body);
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!(broken[0].at, "$.max_tokens");
}

/// `body` with the number `from` replaced by `to` wherever it appears.
fn replace_number(body: &serde_json::Value, from: u64, to: u64) -> serde_json::Value {
    match body {
        serde_json::Value::Number(n) if n.as_u64() == Some(from) => to.into(),
        serde_json::Value::Array(items) => {
            items.iter().map(|v| replace_number(v, from, to)).collect()
        }
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), replace_number(v, from, to)))
            .collect(),
        other => other.clone(),
    }
}
