//! System text for OpenAI reasoning models: Chat Completions sends it as a
//! `developer` message ("With o1 models and newer, `developer` messages
//! replace the previous `system` messages"), by the API's facts
//! (`reasoning_developer_role`) and the model's (`reasoning`); every other
//! model, and Responses, whose reference ranks the two roles alike, keep
//! `system`.
#![cfg(feature = "media")]

use serde_json::Value;
use tool_carrier::facts::{Facts, Syntax};
use tool_carrier::provider::{build_request, Options, Provider};

fn history() -> Vec<(String, String)> {
    vec![
        ("system".to_owned(), "Be brief.".to_owned()),
        ("user".to_owned(), "Hi.".to_owned()),
        ("developer".to_owned(), "Answer in French.".to_owned()),
    ]
}

/// The roles of the messages (Chat) or input items (Responses) written.
fn roles(provider: Provider, options: Options) -> Vec<String> {
    let request = build_request(provider, &history(), &options).unwrap();
    let body: Value = serde_json::from_str(request.json()).unwrap();
    let list = body
        .get("messages")
        .or_else(|| body.get("input"))
        .and_then(Value::as_array)
        .unwrap();
    list.iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn chat_sends_a_reasoning_model_developer_messages() {
    for model in ["gpt-5.5", "o3", "o1-2024-12-17", "gpt-5-mini"] {
        assert_eq!(
            roles(Provider::OpenAiChat, Options::new().with_model(model)),
            ["developer", "user", "developer"],
            "{model}"
        );
    }
    // The default model is a reasoning model.
    assert!(Facts::builtin()
        .model(Provider::OpenAiChat, Provider::OpenAiChat.default_model())
        .and_then(|m| m.reasoning)
        .unwrap());
    assert_eq!(
        roles(Provider::OpenAiChat, Options::new()),
        ["developer", "user", "developer"]
    );
}

#[test]
fn other_models_and_apis_keep_system() {
    // Not reasoning models, or one the facts do not know.
    for model in ["gpt-4.1", "gpt-4o-mini", "my-finetune"] {
        assert_eq!(
            roles(Provider::OpenAiChat, Options::new().with_model(model)),
            ["system", "user", "system"],
            "{model}"
        );
    }
    // Responses ranks system and developer alike: system stays.
    assert_eq!(
        roles(
            Provider::OpenAiResponses,
            Options::new().with_model("gpt-5.5")
        ),
        ["system", "user", "system"]
    );
    // A compatible server is no OpenAI model.
    assert_eq!(
        roles(
            Provider::OpenAiCompatible,
            Options::new().with_model("gpt-5.5")
        ),
        ["system", "user", "system"]
    );
}

#[test]
fn the_facts_decide() {
    let facts = Facts::builtin();
    assert!(facts.api(Provider::OpenAiChat).reasoning_developer_role);
    assert!(
        !facts
            .api(Provider::OpenAiResponses)
            .reasoning_developer_role
    );
    assert!(!facts.api(Provider::Anthropic).reasoning_developer_role);
    // A user's facts turn it on for Responses, and off for a model.
    let mine = r#"
[apis.openai-responses]
reasoning_developer_role = true

[models."gpt-5.5"]
reasoning = false
"#;
    let facts = facts.layered(mine, Syntax::Toml, "mine.toml").unwrap();
    let with = |model: &str| Options::new().with_model(model).with_facts(facts.clone());
    assert_eq!(
        roles(Provider::OpenAiResponses, with("o3")),
        ["developer", "user", "developer"]
    );
    assert_eq!(
        roles(Provider::OpenAiChat, with("gpt-5.5")),
        ["system", "user", "system"]
    );
}
