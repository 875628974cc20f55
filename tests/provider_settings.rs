//! The settings an agent loop sends (#45): `stream`, `store`,
//! `parallel_tool_calls`, `service_tier`, `verbosity`, `reasoning_summary`,
//! each where its API takes it and refused where it does not; and the
//! extra members a caller adds as given, merged into the body, never over
//! what the crate writes, and held to the API's SDK's member tables.

use proptest::prelude::*;
use serde_json::{json, Value};
use tool_carrier::provider::{
    build_request, BuildError, Extra, Options, Params, Provider, ReasoningSummary, Request, Tools,
    Verbosity,
};

const HISTORY: [(&str, &str); 1] = [("user", "hi")];

fn tools() -> Tools {
    Tools::from_json(
        r#"[{"name": "shot", "description": "Take one", "input_schema": {"type": "object", "properties": {}}}]"#,
    )
    .unwrap()
}

fn build(provider: Provider, options: Options) -> Result<Request, BuildError> {
    build_request(provider, &HISTORY, &options.with_tools(tools()))
}

fn body(provider: Provider, params: Params) -> Value {
    build(provider, Options::new().with_params(params))
        .unwrap_or_else(|e| panic!("{provider}: {e}"))
        .body
        .to_value()
}

/// A tier each API's literal lists.
fn tier(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "standard_only",
        Provider::Gemini | Provider::Gemini2 => "flex",
        Provider::Bedrock => "priority",
        _ => "flex",
    }
}

/// A setting's key, its params for a provider, and the providers that
/// take it.
type Case = (&'static str, fn(Provider) -> Params, &'static [Provider]);

/// Each new setting, and the providers that take it.
fn settings() -> Vec<Case> {
    use Provider::*;
    vec![
        (
            "stream",
            |_| Params::new().with_stream(true),
            &Provider::ALL,
        ),
        (
            "store",
            |_| Params::new().with_store(false),
            &[OpenAiChat, OpenAiResponses, Gemini, Gemini2],
        ),
        (
            "parallel_tool_calls",
            |_| Params::new().with_parallel_tool_calls(false),
            &[Anthropic, OpenAiChat, OpenAiResponses],
        ),
        (
            "service_tier",
            |p| Params::new().with_service_tier(tier(p)),
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
            "verbosity",
            |_| Params::new().with_verbosity(Verbosity::Low),
            &[OpenAiChat, OpenAiResponses],
        ),
        (
            "reasoning_summary",
            |_| Params::new().with_reasoning_summary(ReasoningSummary::Detailed),
            &[OpenAiResponses],
        ),
    ]
}

#[test]
fn each_setting_is_taken_where_its_api_takes_it_and_refused_elsewhere() {
    for (key, params, takers) in settings() {
        for provider in Provider::ALL {
            let result = build(provider, Options::new().with_params(params(provider)));
            if takers.contains(&provider) {
                assert!(result.is_ok(), "{key} {provider}: {}", result.unwrap_err());
            } else {
                match result {
                    Err(BuildError::Unsupported { setting, .. }) => {
                        assert_eq!(setting, key, "{provider}")
                    }
                    other => panic!("{key} {provider}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn each_setting_lands_where_its_api_documents_it() {
    use Provider::*;
    let b = body(
        Anthropic,
        Params::new()
            .with_stream(true)
            .with_service_tier("auto")
            .with_parallel_tool_calls(false),
    );
    assert_eq!(b["stream"], true);
    assert_eq!(b["service_tier"], "auto");
    assert_eq!(
        b["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
    let all_openai = Params::new()
        .with_stream(true)
        .with_store(false)
        .with_parallel_tool_calls(true)
        .with_service_tier("priority")
        .with_verbosity(Verbosity::High);
    let b = body(OpenAiChat, all_openai.clone());
    assert_eq!(b["stream"], true);
    assert_eq!(b["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        (&b["store"], &b["parallel_tool_calls"]),
        (&json!(false), &json!(true))
    );
    assert_eq!(
        (&b["service_tier"], &b["verbosity"]),
        (&json!("priority"), &json!("high"))
    );
    // A compatible server is asked for the stream alone.
    let b = body(OpenAiCompatible, Params::new().with_stream(true));
    assert_eq!(b["stream"], true);
    assert!(b.get("stream_options").is_none());
    let b = body(
        OpenAiResponses,
        all_openai.with_reasoning_summary(ReasoningSummary::Concise),
    );
    assert_eq!(b["text"], json!({"verbosity": "high"}));
    assert_eq!(b["reasoning"], json!({"summary": "concise"}));
    assert_eq!((&b["stream"], &b["store"]), (&json!(true), &json!(false)));
    for provider in [Gemini, Gemini2] {
        let b = body(
            provider,
            Params::new()
                .with_stream(true)
                .with_store(true)
                .with_service_tier("priority"),
        );
        assert_eq!(
            (&b["store"], &b["serviceTier"]),
            (&json!(true), &json!("priority"))
        );
        // Gemini streams at another URL: nothing in the body says so.
        assert!(b.get("stream").is_none());
    }
    let b = body(
        Bedrock,
        Params::new().with_stream(true).with_service_tier("flex"),
    );
    assert_eq!(b["serviceTier"], json!({"type": "flex"}));
    assert!(b.get("stream").is_none());
    // Ollama streams unless told not to: `false` by default, as given else.
    assert_eq!(body(Ollama, Params::new())["stream"], false);
    let b = body(Ollama, Params::new().with_stream(true));
    assert_eq!(b["stream"], true);
    assert!(
        b.get("options").is_none(),
        "no sampling setting: no options"
    );
}

#[test]
fn a_streamed_request_goes_where_its_api_streams() {
    let url = |provider, stream| {
        build(
            provider,
            Options::new().with_params(Params::new().with_stream(stream)),
        )
        .unwrap()
        .endpoint()
        .url
    };
    assert_eq!(
        url(Provider::Gemini, true),
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"
    );
    assert!(url(Provider::Gemini, false).ends_with(":generateContent"));
    assert!(url(Provider::Bedrock, true).ends_with("/converse-stream"));
    assert!(url(Provider::Bedrock, false).ends_with("/converse"));
    for provider in [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Ollama,
    ] {
        assert_eq!(url(provider, true), url(provider, false), "{provider}");
    }
}

#[test]
fn a_tier_the_api_does_not_list_is_refused_naming_the_ones_it_does() {
    let err = build(
        Provider::Anthropic,
        Options::new().with_params(Params::new().with_service_tier("flex")),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"Anthropic does not take the setting service_tier (no tier "flex": it takes "auto" or "standard_only")"#
    );
    let err = build(
        Provider::Bedrock,
        Options::new().with_params(Params::new().with_service_tier("auto")),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains(r#""priority", "default", "flex" or "reserved""#),
        "{err}"
    );
}

#[test]
fn parallel_tool_calls_without_tools_is_refused_by_the_rules() {
    for (provider, rule) in [
        (Provider::OpenAiChat, "openai-chat/parallel-needs-tools"),
        (
            Provider::OpenAiResponses,
            "openai-responses/parallel-needs-tools",
        ),
        (Provider::Anthropic, "anthropic/tool-choice-needs-tools"),
    ] {
        let options = Options::new().with_params(Params::new().with_parallel_tool_calls(false));
        match build_request(provider, &HISTORY, &options) {
            Err(BuildError::Refused { violation, .. }) => assert_eq!(violation.rule.id, rule),
            other => panic!("{provider}: {other:?}"),
        }
    }
}

fn extra(pairs: &[(&str, Value)]) -> Extra {
    pairs.iter().fold(Extra::new(), |e, (path, value)| {
        e.with(path, value.clone()).unwrap()
    })
}

fn with_extra(provider: Provider, pairs: &[(&str, Value)]) -> Result<Value, BuildError> {
    build(provider, Options::new().with_extra(extra(pairs))).map(|r| r.body.to_value())
}

#[test]
fn extra_members_land_where_their_path_says() {
    use Provider::*;
    for (provider, path, value, pointer) in [
        (
            Anthropic,
            "metadata.user_id",
            json!("u-7"),
            "/metadata/user_id",
        ),
        (
            Anthropic,
            "thinking",
            json!({"type": "disabled"}),
            "/thinking",
        ),
        (
            OpenAiChat,
            "metadata.anything",
            json!("x"),
            "/metadata/anything",
        ),
        (
            OpenAiChat,
            "safety_identifier",
            json!("u-7"),
            "/safety_identifier",
        ),
        (OpenAiResponses, "truncation", json!("auto"), "/truncation"),
        (
            Gemini,
            "generationConfig.responseMimeType",
            json!("application/json"),
            "/generationConfig/responseMimeType",
        ),
        (Gemini2, "labels.team", json!("a"), "/labels/team"),
        (
            Bedrock,
            "additionalModelRequestFields.anything.at.all",
            json!(1),
            "/additionalModelRequestFields/anything/at/all",
        ),
        (
            Bedrock,
            "performanceConfig.latency",
            json!("optimized"),
            "/performanceConfig/latency",
        ),
        (Ollama, "options.num_ctx", json!(8192), "/options/num_ctx"),
        (
            OpenAiCompatible,
            "repetition_penalty",
            json!(1.1),
            "/repetition_penalty",
        ),
    ] {
        let b = with_extra(provider, &[(path, value.clone())])
            .unwrap_or_else(|e| panic!("{provider} {path}: {e}"));
        assert_eq!(b.pointer(pointer), Some(&value), "{provider} {path}");
    }
}

#[test]
fn an_extra_member_the_sdk_does_not_list_is_refused_at_its_place() {
    use Provider::*;
    for (provider, path, rule, at) in [
        (Anthropic, "temprature", "anthropic/members", "$"),
        (
            Anthropic,
            "metadata.userid",
            "anthropic/members",
            "$.metadata",
        ),
        (
            OpenAiChat,
            "stream_options.include_usage_x",
            "openai-chat/members",
            "$.stream_options",
        ),
        (
            OpenAiResponses,
            "reasoning.budget",
            "openai-responses/members",
            "$.reasoning",
        ),
        (
            Gemini,
            "generationConfig.thinkingConfig.budget",
            "gemini/members",
            "$.generationConfig.thinkingConfig",
        ),
        (Gemini, "stream", "gemini/members", "$"),
        (
            Bedrock,
            "inferenceConfig.topK",
            "bedrock/members",
            "$.inferenceConfig",
        ),
        (Ollama, "keepalive", "ollama/members", "$"),
    ] {
        match with_extra(provider, &[(path, json!(1))]) {
            Err(BuildError::Refused { violation, .. }) => {
                assert_eq!(
                    (violation.rule.id, violation.at.as_str()),
                    (rule, at),
                    "{path}"
                )
            }
            other => panic!("{provider} {path}: {other:?}"),
        }
    }
}

#[test]
fn an_extra_that_is_no_object_where_the_sdk_types_one_is_refused() {
    for (provider, path, value) in [
        (Provider::Anthropic, "metadata", json!("")),
        (Provider::OpenAiChat, "stream_options", json!(true)),
        (Provider::Gemini, "generationConfig", json!([])),
        (Provider::Bedrock, "inferenceConfig", json!(1)),
    ] {
        match with_extra(provider, &[(path, value)]) {
            Err(BuildError::Refused { violation, .. }) => {
                assert!(violation.rule.id.ends_with("/members"), "{violation}");
                assert!(violation.detail.contains("is an object"), "{violation}");
            }
            other => panic!("{provider} {path}: {other:?}"),
        }
    }
    // A union of an object and a word takes the word.
    let b = with_extra(Provider::OpenAiChat, &[("service_tier", json!("flex"))]).unwrap();
    assert_eq!(b["service_tier"], "flex");
}

#[test]
fn what_the_crate_writes_is_never_replaced_by_an_extra() {
    // The members it writes from the history, the tools and the model.
    for (provider, member) in [
        (Provider::Anthropic, "messages"),
        (Provider::Anthropic, "tool_choice"),
        (Provider::OpenAiChat, "tools"),
        (Provider::OpenAiResponses, "input"),
        (Provider::Gemini, "contents"),
        (Provider::Gemini, "systemInstruction"),
        (Provider::Bedrock, "toolConfig"),
        (Provider::Ollama, "model"),
    ] {
        match with_extra(provider, &[(member, json!([]))]) {
            Err(BuildError::Extra(e)) => {
                assert_eq!(e.path, member);
                assert!(e.to_string().contains("members it owns"), "{e}");
            }
            other => panic!("{provider} {member}: {other:?}"),
        }
    }
    // A value it writes from a setting or a default.
    let err = with_extra(Provider::Ollama, &[("stream", json!(true))]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "extra member stream: the crate writes false there; set it with its parameter or leave it out"
    );
    let options = Options::new()
        .with_params(Params::new().with_max_tokens(100))
        .with_extra(extra(&[("max_tokens", json!(200))]));
    let err = build(Provider::Anthropic, options).unwrap_err();
    assert!(
        matches!(&err, BuildError::Extra(e) if e.path == "max_tokens"),
        "{err}"
    );
    // The same value is no conflict.
    let b = with_extra(Provider::Ollama, &[("stream", json!(false))]).unwrap();
    assert_eq!(b["stream"], false);
}

#[test]
fn extras_merge_into_objects_the_crate_writes() {
    let options = Options::new()
        .with_params(Params::new().with_max_tokens(100))
        .with_extra(extra(&[("generationConfig.candidateCount", json!(1))]));
    let b = build(Provider::Gemini, options).unwrap().body.to_value();
    assert_eq!(
        b["generationConfig"],
        json!({"maxOutputTokens": 100, "candidateCount": 1})
    );
}

/// Names no SDK lists at the top level of a body.
fn stranger() -> impl Strategy<Value = String> {
    "x_[a-z]{1,8}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// An extra into a free object: the body is the one written without
    /// it, the extra's tree merged in, whichever way it is written.
    #[test]
    fn the_body_is_the_base_with_the_extra_merged(
        // Values of the characters Bedrock's `requestMetadata` allows (its
        // rule refuses others).
        keys in proptest::collection::btree_map("[a-z]{1,6}", "[a-zA-Z0-9 :_@$#=/+,.-]{0,12}", 1..5),
        provider in prop_oneof![
            Just(Provider::OpenAiChat),
            Just(Provider::OpenAiResponses),
            Just(Provider::Bedrock),
        ],
    ) {
        let free = if provider == Provider::Bedrock { "requestMetadata" } else { "metadata" };
        let pairs: Vec<(String, Value)> = keys
            .into_iter()
            .map(|(k, v)| (format!("{free}.{k}"), Value::String(v)))
            .collect();
        let pairs: Vec<(&str, Value)> = pairs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let base = build(provider, Options::new()).unwrap().body.to_value();
        let request = build(provider, Options::new().with_extra(extra(&pairs))).unwrap();
        let mut expected = base;
        let tree = extra(&pairs).tree().clone();
        for (k, v) in tree.as_object().unwrap() {
            expected[k] = v.clone();
        }
        prop_assert_eq!(&request.body.to_value(), &expected);
        let compact: Value = serde_json::from_str(request.json()).unwrap();
        prop_assert_eq!(&compact, &expected);
        let mut pretty = Vec::new();
        request.write_pretty(&mut pretty).unwrap();
        prop_assert_eq!(&serde_json::from_slice::<Value>(&pretty).unwrap(), &expected);
    }

    /// A member no SDK lists is refused by every API with tables, and
    /// passes to an OpenAI-compatible server.
    #[test]
    fn a_stranger_is_refused_where_the_api_has_tables(name in stranger()) {
        for provider in Provider::ALL {
            let result = with_extra(provider, &[(name.as_str(), json!(true))]);
            if provider == Provider::OpenAiCompatible {
                prop_assert_eq!(&result.unwrap()[name.as_str()], &json!(true));
            } else {
                let refused = matches!(
                    &result,
                    Err(BuildError::Refused { violation, .. }) if violation.rule.id.ends_with("/members")
                );
                prop_assert!(refused, "{}: {:?}", provider, result);
            }
        }
    }
}
