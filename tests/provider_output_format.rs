//! The caller's `response_format` (#45): JSON mode or a JSON Schema,
//! written where each API documents it, refused where the API or the
//! model (by its facts) does not take it, and sent with a note where the
//! facts say nothing of the model.

use serde_json::{json, Value};
use tool_carrier::provider::{
    build_request, BuildError, Options, OutputSchema, Params, Provider, Request, ResponseFormat,
};

fn verdict() -> OutputSchema {
    let schema = json!({"type": "object", "additionalProperties": false,
        "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    OutputSchema::new(schema.as_object().unwrap().clone()).with_name("verdict")
}

fn build(
    provider: Provider,
    model: Option<&str>,
    format: ResponseFormat,
) -> Result<Request, BuildError> {
    let mut options = Options::new().with_params(Params::new().with_response_format(format));
    if let Some(model) = model {
        options = options.with_model(model);
    }
    // JSON mode at OpenAI needs the word in the messages.
    build_request(provider, &[("user", "Answer in JSON: ok?")], &options)
}

fn body(provider: Provider, model: Option<&str>, format: ResponseFormat) -> Value {
    build(provider, model, format)
        .unwrap_or_else(|e| panic!("{provider}: {e}"))
        .body
        .to_value()
}

#[test]
fn a_schema_is_written_where_each_api_documents_it() {
    use Provider::*;
    let schema = json!({"additionalProperties": false, "properties": {"ok": {"type": "boolean"}},
                        "required": ["ok"], "type": "object"});
    let cases: Vec<(Provider, &str, Value)> = vec![
        (
            Anthropic,
            "/output_config",
            json!({"format": {"type": "json_schema", "schema": schema}}),
        ),
        (
            OpenAiChat,
            "/response_format",
            json!({"type": "json_schema", "json_schema": {"name": "verdict", "schema": schema}}),
        ),
        (
            OpenAiResponses,
            "/text",
            json!({"format": {"type": "json_schema", "name": "verdict", "schema": schema}}),
        ),
        (
            Gemini,
            "/generationConfig",
            json!({"responseMimeType": "application/json", "responseJsonSchema": schema}),
        ),
        (
            Gemini2,
            "/generationConfig",
            json!({"responseMimeType": "application/json", "responseJsonSchema": schema}),
        ),
        (
            Bedrock,
            "/outputConfig",
            json!({"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {
                "name": "verdict", "schema": serde_json::to_string(&schema).unwrap()}}}}),
        ),
        (Ollama, "/format", schema.clone()),
    ];
    for (provider, at, expected) in cases {
        let b = body(provider, None, ResponseFormat::Schema(verdict()));
        assert_eq!(b.pointer(at), Some(&expected), "{provider}");
    }
}

#[test]
fn json_mode_where_an_api_has_one_and_refused_where_it_takes_a_schema_only() {
    use Provider::*;
    for (provider, at, expected) in [
        (
            OpenAiChat,
            "/response_format",
            json!({"type": "json_object"}),
        ),
        (
            OpenAiResponses,
            "/text",
            json!({"format": {"type": "json_object"}}),
        ),
        (
            Gemini,
            "/generationConfig",
            json!({"responseMimeType": "application/json"}),
        ),
        (Ollama, "/format", json!("json")),
    ] {
        let b = body(provider, None, ResponseFormat::Json);
        assert_eq!(b.pointer(at), Some(&expected), "{provider}");
    }
    for provider in [Anthropic, Bedrock] {
        let err = build(provider, None, ResponseFormat::Json).unwrap_err();
        let text = err.to_string();
        assert!(matches!(
            err,
            BuildError::Unsupported {
                setting: "response_format",
                ..
            }
        ));
        assert!(text.contains("no JSON mode: give a JSON Schema"), "{text}");
    }
    // No profile says what a compatible server takes.
    let err = build(OpenAiCompatible, None, ResponseFormat::Json).unwrap_err();
    assert!(matches!(
        err,
        BuildError::Unsupported {
            setting: "response_format",
            ..
        }
    ));
}

#[test]
fn a_model_whose_facts_say_it_takes_no_schema_is_refused_naming_it() {
    use Provider::*;
    for (provider, model, name) in [
        (Anthropic, "claude-sonnet-4-20250514", "Claude Sonnet 4"),
        (Anthropic, "claude-opus-4-1", "Claude Opus 4.1"),
        (Bedrock, "us.amazon.nova-pro-v1:0", "Amazon Nova Pro"),
        (
            Bedrock,
            "anthropic.claude-3-7-sonnet-20250219-v1:0",
            "Claude Sonnet 3.7",
        ),
        (OpenAiChat, "gpt-4o-2024-05-13", "gpt-4o-2024-05-13"),
    ] {
        let err = build(provider, Some(model), ResponseFormat::Schema(verdict())).unwrap_err();
        let text = err.to_string();
        assert!(
            text.ends_with(&format!(
                "does not take the setting response_format (the facts say {name} takes no JSON Schema for its answer)"
            )),
            "{provider} {model}: {text}"
        );
    }
    // JSON mode asks nothing of the model's schema support.
    body(OpenAiChat, Some("gpt-4o-2024-05-13"), ResponseFormat::Json);
    // The models since take it.
    for (provider, model) in [
        (Anthropic, "claude-haiku-4-5"),
        (Anthropic, "claude-sonnet-4-5-20250929"),
        (Bedrock, "global.anthropic.claude-opus-4-6-v1"),
        (OpenAiChat, "gpt-4o-2024-08-06"),
        (OpenAiResponses, "gpt-5.5"),
        (Gemini2, "gemini-2.5-flash"),
    ] {
        let request = build(provider, Some(model), ResponseFormat::Schema(verdict()))
            .unwrap_or_else(|e| panic!("{provider} {model}: {e}"));
        assert!(
            request.report.setting_notes.is_empty(),
            "{provider} {model}"
        );
    }
}

#[test]
fn a_model_the_facts_say_nothing_of_is_sent_with_a_note() {
    let request = build(
        Provider::Bedrock,
        Some("us.meta.llama4-maverick-17b-instruct-v1:0"),
        ResponseFormat::Schema(verdict()),
    )
    .unwrap();
    assert!(request.body.to_value().get("outputConfig").is_some());
    assert_eq!(
        request.report.setting_notes,
        ["response_format: sent as given: the facts do not say whether us.meta.llama4-maverick-17b-instruct-v1:0 takes a JSON Schema for its answer"]
    );
    // Ollama's server holds any model to the schema: nothing to say.
    let request = build(
        Provider::Ollama,
        Some("llama3.2"),
        ResponseFormat::Schema(verdict()),
    )
    .unwrap();
    assert!(request.report.setting_notes.is_empty());
}

#[test]
fn a_schema_its_api_would_refuse_is_refused_by_the_self_check() {
    use Provider::*;
    // No additionalProperties: false, and a numeric constraint.
    let open = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}});
    let format = ResponseFormat::Schema(OutputSchema::new(open.as_object().unwrap().clone()));
    for (provider, rule) in [
        (Anthropic, "anthropic/output-schema"),
        (Bedrock, "bedrock/output-schema"),
    ] {
        let err = build(provider, None, format.clone()).unwrap_err();
        let BuildError::Refused { violation, .. } = &err else {
            panic!("{provider}: {err}");
        };
        assert_eq!(violation.rule.id, rule, "{provider}");
    }
    // OpenAI holds a schema to its strict subset only when asked.
    body(OpenAiChat, None, format.clone());
    let strict = ResponseFormat::Schema(
        OutputSchema::new(open.as_object().unwrap().clone()).with_strict(true),
    );
    let err = build(OpenAiResponses, None, strict).unwrap_err();
    assert!(
        err.to_string().contains("openai-responses/strict-schema"),
        "{err}"
    );
    // JSON mode without the word JSON in the messages.
    let options =
        Options::new().with_params(Params::new().with_response_format(ResponseFormat::Json));
    let err = build_request(OpenAiChat, &[("user", "ok?")], &options).unwrap_err();
    assert!(
        err.to_string().contains("openai-chat/json-mode-word"),
        "{err}"
    );
}

#[test]
fn the_setting_reads_from_params_as_the_command_gives_it() {
    let params = Params::from_json(&json!({"response_format": {
        "schema": {"type": "object"}, "name": "x", "description": "d", "strict": false}}))
    .unwrap();
    let ResponseFormat::Schema(s) = params.response_format.unwrap() else {
        panic!("a schema")
    };
    assert_eq!(
        (s.name.as_str(), s.description.as_deref(), s.strict),
        ("x", Some("d"), Some(false))
    );
    let err = Params::from_json(&json!({"response_format": {"schema": {}, "type": "json_schema"}}))
        .unwrap_err();
    assert_eq!(err.key, "response_format");
    assert!(
        err.problem.contains("no member \"type\""),
        "{}",
        err.problem
    );
}
