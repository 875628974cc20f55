//! Tool declarations: definitions in every shape, minimal declarations
//! when none are given, typed tools, schemas fitted per provider, names
//! rewritten the same way in calls and declarations. Every body built
//! here also passes the API rules (`support::build`).
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::{json, Value};
use support::{build_lines, calls, history, line, result, strings, Fixture};
use tool_carrier::provider::{build_request, BuildError, Options, Provider, Tools};

fn tools(v: Value) -> Tools {
    Tools::from_value(&v).unwrap()
}

fn round(name: &str) -> String {
    [
        line("user", "Go."),
        calls(&[("c1", name)]),
        result("c1", "done", &[]),
    ]
    .concat()
}

/// The declared tool names of a body, for any provider's shape.
fn declared(provider: Provider, body: &Value) -> Vec<String> {
    let names = |list: &Value, pointer: &str| -> Vec<String> {
        list.as_array()
            .map(|l| {
                l.iter()
                    .filter_map(|t| t.pointer(pointer).and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    match provider {
        Provider::Anthropic | Provider::OpenAiResponses => names(&body["tools"], "/name"),
        Provider::OpenAiChat | Provider::Ollama | Provider::OpenAiCompatible => {
            names(&body["tools"], "/function/name")
        }
        Provider::Gemini | Provider::Gemini2 => {
            names(&body["tools"][0]["functionDeclarations"], "/name")
        }
        Provider::Bedrock => names(&body["toolConfig"]["tools"], "/toolSpec/name"),
    }
}

const SCHEMA: &str =
    r#"{"type": "object", "properties": {"page": {"type": "string"}}, "required": ["page"]}"#;

#[test]
fn the_four_shapes_declare_the_same_tool() {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    let shapes = [
        json!([{"type": "function", "function": {"name": "screenshot", "description": "Capture.", "parameters": schema}}]),
        json!([{"type": "function", "name": "screenshot", "description": "Capture.", "parameters": schema, "strict": false}]),
        json!([{"name": "screenshot", "description": "Capture.", "input_schema": schema}]),
        json!({"tools": [{"name": "screenshot", "description": "Capture.", "inputSchema": schema}]}),
    ];
    let fixture = Fixture::new();
    let messages = history("examples/screenshot-round.jsonl");
    for provider in Provider::ALL {
        let bodies: Vec<Value> = shapes
            .iter()
            .map(|shape| {
                let options = fixture.options().with_tools(tools(shape.clone()));
                support::build(provider, &messages, &options)
                    .body
                    .to_value()
            })
            .collect();
        assert!(bodies.windows(2).all(|w| w[0] == w[1]), "{provider}");
        assert_eq!(declared(provider, &bodies[0]), ["screenshot"], "{provider}");
        assert!(
            strings(&bodies[0]).contains(&"Capture.".to_owned()),
            "{provider}"
        );
    }
}

#[test]
fn without_definitions_every_called_tool_gets_a_minimal_declaration() {
    let history = [
        line("user", "Go."),
        calls(&[("c1", "screenshot"), ("c2", "read_file")]),
        result("c1", "a", &[]),
        result("c2", "b", &[]),
        calls(&[("c3", "screenshot")]),
        result("c3", "c", &[]),
    ]
    .concat();
    for provider in Provider::ALL {
        let request = build_lines(provider, &history, &Options::new());
        let body = &request.body.to_value();
        if provider == Provider::Ollama {
            // Ollama replays calls without declarations and cannot be told
            // not to call: nothing is declared.
            assert!(body.get("tools").is_none());
            assert!(request.report.stubbed.is_empty());
            continue;
        }
        assert_eq!(
            declared(provider, body),
            ["screenshot", "read_file"],
            "{provider}"
        );
        assert_eq!(
            request.report.stubbed,
            ["screenshot", "read_file"],
            "{provider}"
        );
        let told = match provider {
            Provider::Anthropic => body["tool_choice"] == json!({"type": "none"}),
            Provider::OpenAiChat | Provider::OpenAiResponses | Provider::OpenAiCompatible => {
                body["tool_choice"] == "none"
            }
            Provider::Gemini | Provider::Gemini2 => {
                body["toolConfig"]["functionCallingConfig"]["mode"] == "NONE"
            }
            // Converse's toolChoice has auto, any and tool only.
            Provider::Bedrock => body["toolConfig"].get("toolChoice").is_none(),
            Provider::Ollama => unreachable!(),
        };
        assert!(told, "{provider}: {body}");
        assert_eq!(request.report.choice_none, provider != Provider::Bedrock);
    }
}

#[test]
fn a_history_without_tool_calls_declares_nothing() {
    for provider in Provider::ALL {
        let request = build_lines(provider, &line("user", "hi"), &Options::new());
        assert!(
            declared(provider, &request.body.to_value()).is_empty(),
            "{provider}"
        );
        assert!(request.body.to_value().get("tool_choice").is_none());
        assert!(request.body.to_value().get("toolConfig").is_none());
    }
}

#[test]
fn a_called_tool_missing_from_the_definitions_is_declared_and_reported() {
    let defined = tools(json!([{"name": "other", "input_schema": {"type": "object"}}]));
    for provider in Provider::ALL {
        let request = build_lines(
            provider,
            &round("screenshot"),
            &Options::new().with_tools(defined.clone()),
        );
        if provider == Provider::Ollama {
            // Ollama replays calls without declarations: only what was
            // defined is declared.
            assert_eq!(declared(provider, &request.body.to_value()), ["other"]);
            assert!(request.report.stubbed.is_empty());
            continue;
        }
        assert_eq!(
            declared(provider, &request.body.to_value()),
            ["other", "screenshot"],
            "{provider}"
        );
        assert_eq!(request.report.stubbed, ["screenshot"]);
        assert!(!request.report.choice_none);
        assert!(request.body.to_value().get("tool_choice").is_none());
        assert!(request.report.tool_notes[0].contains("not among the definitions"));
    }
}

#[test]
fn names_are_rewritten_alike_in_calls_results_and_declarations() {
    let defined =
        tools(json!({"tools": [{"name": "fs.read file", "inputSchema": {"type": "object"}}]}));
    let history = round("fs.read file");
    for (provider, want) in [
        (Provider::Anthropic, "fs_read_file"),
        (Provider::OpenAiChat, "fs_read_file"),
        (Provider::OpenAiResponses, "fs_read_file"),
        (Provider::Bedrock, "fs_read_file"),
        (Provider::Gemini, "fs.read_file"),
        (Provider::Ollama, "fs.read file"),
    ] {
        let request = build_lines(
            provider,
            &history,
            &Options::new().with_tools(defined.clone()),
        );
        assert_eq!(
            declared(provider, &request.body.to_value()),
            [want],
            "{provider}"
        );
        let text = request.body.to_value().to_string();
        assert!(
            !text.contains("fs.read file") || provider == Provider::Ollama,
            "{provider}"
        );
    }
}

#[test]
fn openai_call_ids_over_40_characters_are_cut_consistently() {
    let long_a = format!("toolu_{}", "a".repeat(50));
    let long_b = format!("toolu_{}b", "a".repeat(50));
    let history = [
        line("user", "Go."),
        calls(&[(&long_a, "f"), (&long_b, "f")]),
        result(&long_b, "B", &[]),
        result(&long_a, "A", &[]),
    ]
    .concat();
    let request = build_lines(Provider::OpenAiChat, &history, &Options::new());
    let body = request.body.to_value();
    let messages = body["messages"].as_array().unwrap();
    let ids: Vec<&str> = messages[1]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(ids.iter().all(|id| id.chars().count() <= 40));
    assert_ne!(ids[0], ids[1]);
    assert_eq!(messages[2]["tool_call_id"], ids[0]);
    assert_eq!(messages[2]["content"], "A");
    assert_eq!(messages[3]["tool_call_id"], ids[1]);
}

#[test]
fn typed_tools_go_to_anthropic_as_they_are_and_elsewhere_as_functions() {
    let defined = tools(json!([{"type": "bash_20250124", "name": "bash"}]));
    let history = round("bash");
    // (Without a cache mark on the last tool, which is not the point here.)
    let anthropic = build_lines(
        Provider::Anthropic,
        &history,
        &Options::new()
            .with_tools(defined.clone())
            .with_cache_breakpoints(false),
    );
    assert_eq!(
        anthropic.body.to_value()["tools"],
        json!([{"type": "bash_20250124", "name": "bash"}])
    );
    for provider in [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
        Provider::Ollama,
    ] {
        let request = build_lines(
            provider,
            &history,
            &Options::new().with_tools(defined.clone()),
        );
        assert_eq!(
            declared(provider, &request.body.to_value()),
            ["bash"],
            "{provider}"
        );
        let text = request.body.to_value().to_string();
        assert!(
            text.contains("\"command\""),
            "{provider}: the documented input"
        );
        assert!(
            request.report.tool_notes[0].contains("as a plain function"),
            "{provider}"
        );
    }
}

#[test]
fn a_computer_tool_says_which_beta_it_needs() {
    let defined = tools(
        json!([{"type": "computer_20250124", "name": "computer", "display_width_px": 1280, "display_height_px": 800}]),
    );
    let request = build_lines(
        Provider::Anthropic,
        &round("computer"),
        &Options::new().with_tools(defined),
    );
    assert_eq!(
        request.headers,
        [("anthropic-beta", "computer-use-2025-01-24".to_owned())]
    );
    let plain = build_lines(Provider::Anthropic, &round("computer"), &Options::new());
    assert!(plain.headers.is_empty());
}

#[test]
fn claude_on_bedrock_gets_typed_tools_in_the_extra_fields() {
    let defined = tools(json!([
        {"type": "computer_20250124", "name": "computer", "display_width_px": 1280, "display_height_px": 800},
        {"name": "screenshot", "input_schema": {"type": "object"}}
    ]));
    let options = Options::new().with_tools(defined.clone());
    let claude = build_lines(Provider::Bedrock, &round("computer"), &options);
    let extra = &claude.body.to_value()["additionalModelRequestFields"];
    assert_eq!(extra["tools"][0]["type"], "computer_20250124");
    assert_eq!(extra["anthropic_beta"], json!(["computer-use-2025-01-24"]));
    assert_eq!(
        declared(Provider::Bedrock, &claude.body.to_value()),
        ["screenshot"]
    );
    // Only typed tools: toolConfig still needs one, and one name in both
    // lists would be refused, so it holds a placeholder.
    let only = tools(
        json!([{"type": "computer_20250124", "name": "computer", "display_width_px": 1, "display_height_px": 1}]),
    );
    let claude = build_lines(
        Provider::Bedrock,
        &round("computer"),
        &Options::new().with_tools(only),
    );
    assert_eq!(
        declared(Provider::Bedrock, &claude.body.to_value()),
        ["no_other_tools"]
    );
    // Any other model: plain functions, no extra fields.
    let llama = build_lines(
        Provider::Bedrock,
        &round("computer"),
        &options.with_model("us.meta.llama3-2-90b-instruct-v1:0"),
    );
    assert!(llama
        .body
        .to_value()
        .get("additionalModelRequestFields")
        .is_none());
    assert_eq!(
        declared(Provider::Bedrock, &llama.body.to_value()),
        ["computer", "screenshot"]
    );
}

#[test]
fn a_typed_tool_with_no_documented_input_is_refused_by_name_elsewhere() {
    let defined =
        tools(json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]));
    let history = round("web_search");
    let anthropic = build_request(
        Provider::Anthropic,
        &support::history_lines(&history),
        &Options::new().with_tools(defined.clone()),
    );
    assert!(anthropic.is_ok());
    for provider in [
        Provider::OpenAiChat,
        Provider::Gemini,
        Provider::Bedrock,
        Provider::Ollama,
    ] {
        let err = build_request(
            provider,
            &support::history_lines(&history),
            &Options::new().with_tools(defined.clone()),
        )
        .unwrap_err();
        assert!(matches!(err, BuildError::NoDeclaration { .. }));
        assert_eq!(
            err.to_string(),
            format!("tool web_search: Anthropic's web_search_20250305 cannot be declared for {provider}: Anthropic documents no input schema for it, and {provider} does not take Anthropic's typed tools")
        );
    }
}

#[test]
fn schemas_are_fitted_per_provider_and_what_is_left_out_is_reported() {
    let defined = tools(json!([{"name": "find", "input_schema": {
        "type": "object",
        "properties": {"tags": {"type": "array"}, "when": {"type": "string", "format": "date", "default": "today"}}
    }}]));
    let history = round("find");
    let ollama = build_lines(
        Provider::Ollama,
        &history,
        &Options::new().with_tools(defined.clone()),
    );
    assert_eq!(
        ollama.body.to_value()["tools"][0]["function"]["parameters"]["properties"]["when"],
        json!({"type": "string"})
    );
    let notes = &ollama.report.tool_notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`/properties/when/default` left out")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`/properties/when/format` left out")),
        "{notes:?}"
    );
    let chat = build_lines(
        Provider::OpenAiChat,
        &history,
        &Options::new().with_tools(defined.clone()),
    );
    assert_eq!(
        chat.body.to_value()["tools"][0]["function"]["parameters"]["properties"]["tags"],
        json!({"type": "array", "items": {}})
    );
    let anthropic = build_lines(
        Provider::Anthropic,
        &history,
        &Options::new().with_tools(defined),
    );
    assert_eq!(
        anthropic.body.to_value()["tools"][0]["input_schema"]["properties"]["tags"],
        json!({"type": "array"})
    );
    assert!(anthropic.report.tool_notes.is_empty());
}

#[test]
fn a_schema_that_is_not_an_object_is_refused_naming_the_tool() {
    let defined = tools(json!([{"name": "count", "input_schema": {"type": "integer"}}]));
    let err = build_request(
        Provider::Anthropic,
        &support::history_lines(&round("count")),
        &Options::new().with_tools(defined),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool count: the input schema must describe an object (`\"type\": \"object\"`), not \"integer\""
    );
}
