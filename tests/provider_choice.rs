//! The caller's `tool_choice`, `user` and `metadata` (#45): each written
//! as its API spells it, refused where the API has no such setting, and a
//! choice the request could not honour refused before anything is sent.

use serde_json::{json, Value};
use tool_carrier::provider::{
    build_request, BuildError, Options, Params, Provider, Request, ToolChoice, Tools,
};

/// A tool whose name no API takes as it is (`.`), and one that needs no
/// change.
fn tools() -> Tools {
    Tools::from_json(
        r#"[{"name": "web.search", "description": "Search", "input_schema": {"type": "object"}},
            {"name": "shot", "description": "Take one", "input_schema": {"type": "object"}}]"#,
    )
    .unwrap()
}

fn build(provider: Provider, model: Option<&str>, params: Params) -> Result<Request, BuildError> {
    let mut options = Options::new().with_tools(tools()).with_params(params);
    if let Some(model) = model {
        options = options.with_model(model);
    }
    build_request(provider, &[("user", "hi")], &options)
}

fn body(provider: Provider, params: Params) -> Value {
    build(provider, None, params)
        .unwrap_or_else(|e| panic!("{provider}: {e}"))
        .body
        .to_value()
}

fn choice(provider: Provider, choice: ToolChoice) -> Value {
    let b = body(provider, Params::new().with_tool_choice(choice));
    let at = match provider {
        Provider::Gemini | Provider::Gemini2 => "/toolConfig/functionCallingConfig",
        Provider::Bedrock => "/toolConfig/toolChoice",
        _ => "/tool_choice",
    };
    b.pointer(at).cloned().unwrap_or(Value::Null)
}

#[test]
fn each_choice_is_spelled_as_its_api_spells_it() {
    use Provider::*;
    use ToolChoice::*;
    let named = || Tool("web.search".into());
    // The name sent is the one the tool is declared under.
    let cases: Vec<(Provider, ToolChoice, Value)> = vec![
        (Anthropic, Auto, json!({"type": "auto"})),
        (Anthropic, None, json!({"type": "none"})),
        (Anthropic, Required, json!({"type": "any"})),
        (
            Anthropic,
            named(),
            json!({"type": "tool", "name": "web_search"}),
        ),
        (OpenAiChat, Auto, json!("auto")),
        (OpenAiChat, None, json!("none")),
        (OpenAiChat, Required, json!("required")),
        (
            OpenAiChat,
            named(),
            json!({"type": "function", "function": {"name": "web_search"}}),
        ),
        (OpenAiResponses, Required, json!("required")),
        (
            OpenAiResponses,
            named(),
            json!({"type": "function", "name": "web_search"}),
        ),
        (Gemini, Auto, json!({"mode": "AUTO"})),
        (Gemini, None, json!({"mode": "NONE"})),
        (Gemini, Required, json!({"mode": "ANY"})),
        // Gemini takes dots in a name.
        (
            Gemini2,
            named(),
            json!({"mode": "ANY", "allowedFunctionNames": ["web.search"]}),
        ),
        (Bedrock, Auto, json!({"auto": {}})),
        (Bedrock, Required, json!({"any": {}})),
        (Bedrock, named(), json!({"tool": {"name": "web_search"}})),
    ];
    for (provider, given, want) in cases {
        assert_eq!(choice(provider, given.clone()), want, "{provider} {given}");
    }
    // The declared name is the same one.
    let b = body(Anthropic, Params::new().with_tool_choice(named()));
    assert_eq!(b["tools"][0]["name"], "web_search");
}

#[test]
fn anthropic_says_parallel_use_beside_its_choice() {
    let b = body(
        Provider::Anthropic,
        Params::new()
            .with_tool_choice(ToolChoice::Required)
            .with_parallel_tool_calls(false),
    );
    assert_eq!(
        b["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
}

#[test]
fn each_setting_is_refused_where_the_api_has_none() {
    use Provider::*;
    let takers: [(&str, Params, &[Provider]); 3] = [
        (
            "tool_choice",
            Params::new().with_tool_choice(ToolChoice::Auto),
            &[
                Anthropic,
                OpenAiChat,
                OpenAiResponses,
                Gemini,
                Gemini2,
                Bedrock,
            ],
        ),
        (
            "user",
            Params::new().with_user("u-7"),
            &[Anthropic, OpenAiChat, OpenAiResponses],
        ),
        (
            "metadata",
            Params::new().with_metadata([("run", "nightly")]),
            &[OpenAiChat, OpenAiResponses, Bedrock],
        ),
    ];
    for (key, params, takers) in takers {
        for provider in Provider::ALL {
            match build(provider, Option::None, params.clone()) {
                Ok(_) => assert!(takers.contains(&provider), "{key} {provider} was taken"),
                Err(BuildError::Unsupported { setting, .. }) => {
                    assert_eq!(setting, key, "{provider}");
                    assert!(!takers.contains(&provider), "{key} {provider} was refused");
                }
                Err(e) => panic!("{key} {provider}: {e}"),
            }
        }
    }
}

#[test]
fn bedrock_has_no_none_and_names_a_tool_for_claude_and_nova_only() {
    let none = Params::new().with_tool_choice(ToolChoice::None);
    let err = build(Provider::Bedrock, None, none).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Bedrock does not take the setting tool_choice (Converse's toolChoice is auto, any or one tool: there is no none)"
    );
    let named = Params::new().with_tool_choice(ToolChoice::Tool("shot".into()));
    let llama = "us.meta.llama3-3-70b-instruct-v1:0";
    assert!(matches!(
        build(Provider::Bedrock, Some(llama), named.clone()),
        Err(BuildError::Unsupported {
            setting: "tool_choice",
            ..
        })
    ));
    assert!(build(Provider::Bedrock, Some("us.amazon.nova-pro-v1:0"), named).is_ok());
}

#[test]
fn a_choice_the_request_cannot_honour_is_refused_before_anything_is_sent() {
    let given = |choice| Params::new().with_tool_choice(choice);
    // A tool no definition names.
    let err = build(
        Provider::OpenAiChat,
        None,
        given(ToolChoice::Tool("search".into())),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool_choice tool search: no tool of that name is defined (defined: web.search, shot)"
    );
    // `none` beside parallel_tool_calls.
    let err = build(
        Provider::Anthropic,
        None,
        given(ToolChoice::None).with_parallel_tool_calls(true),
    )
    .unwrap_err();
    assert!(matches!(err, BuildError::ToolChoice { .. }), "{err}");
    // No tools at all.
    let options = Options::new().with_params(given(ToolChoice::Required));
    let err = build_request(Provider::OpenAiResponses, &[("user", "hi")], &options).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool_choice required: no tools are declared (give their definitions)"
    );
    // Only stand-ins for the calls the history makes.
    let history = [
        ("user", "hi"),
        (
            "assistant",
            r#"{"content":null,"tool_calls":[{"id":"c1","name":"shot","arguments":"{}"}]}"#,
        ),
        ("tool", r#"{"tool_call_id":"c1","content":"ok"}"#),
    ];
    for provider in [Provider::Anthropic, Provider::Gemini] {
        let err = build_request(provider, &history, &options).unwrap_err();
        assert!(
            err.to_string().contains("declared only as stand-ins"),
            "{provider}: {err}"
        );
        // `none` agrees with them.
        let none = Options::new().with_params(given(ToolChoice::None));
        assert!(
            build_request(provider, &history, &none).is_ok(),
            "{provider}"
        );
    }
}

#[test]
fn the_users_id_and_metadata_land_where_each_api_keeps_them() {
    let params = || Params::new().with_user("u-7");
    let b = body(Provider::Anthropic, params());
    assert_eq!(b["metadata"], json!({"user_id": "u-7"}));
    let with_metadata = || params().with_metadata([("run", "nightly"), ("job", "7")]);
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let b = body(provider, with_metadata());
        assert_eq!(b["safety_identifier"], "u-7", "{provider}");
        assert_eq!(b["metadata"], json!({"job": "7", "run": "nightly"}));
        assert!(b.get("user").is_none(), "{provider}");
    }
    let b = body(
        Provider::Bedrock,
        Params::new().with_metadata([("run", "nightly")]),
    );
    assert_eq!(b["requestMetadata"], json!({"run": "nightly"}));
    // Held to the APIs' limits by their rules.
    let long = "x".repeat(513);
    let err = build(
        Provider::OpenAiChat,
        None,
        Params::new().with_metadata([("run", long.as_str())]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("openai-chat/metadata"), "{err}");
    let err = build(
        Provider::Bedrock,
        None,
        Params::new().with_metadata([("no <tags>", "v")]),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("bedrock/request-metadata"),
        "{err}"
    );
}

#[test]
fn the_settings_read_as_the_command_gives_them() {
    let params = Params::from_json(&json!({
        "tool_choice": {"tool": "shot"}, "user": "u-7", "metadata": {"run": "nightly"}
    }))
    .unwrap();
    assert_eq!(
        params,
        Params::new()
            .with_tool_choice(ToolChoice::Tool("shot".into()))
            .with_user("u-7")
            .with_metadata([("run", "nightly")])
    );
    for (bad, says) in [
        (json!({"tool_choice": "any"}), "parameter tool_choice: expected \"auto\", \"none\", \"required\" or {\"tool\": NAME}, got \"any\""),
        (json!({"user": ""}), "parameter user: expected a user's id, got \"\""),
        (json!({"metadata": {"n": 7}}), "parameter metadata: expected an object of strings, got {\"n\":7}"),
    ] {
        assert_eq!(Params::from_json(&bad).unwrap_err().to_string(), says);
    }
}
