//! The caller's `response_format`: any JSON value is read or refused with
//! a reason, never a panic; one read is either refused for the provider
//! (the API or the model takes no such format, or the API's rules would
//! refuse the schema) or written with the schema exactly as given, in a
//! body that passes every rule of the API.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_carrier::provider::{build_request, BuildError, Options, Params, Provider};
use tool_carrier::rules::{check_json, Target};

/// Where the provider's body holds the schema, as a JSON value.
fn written(provider: Provider, body: &Value) -> Option<Value> {
    let at = match provider {
        Provider::Anthropic => "/output_config/format/schema",
        Provider::OpenAiChat | Provider::OpenAiCompatible => "/response_format/json_schema/schema",
        Provider::OpenAiResponses => "/text/format/schema",
        Provider::Gemini | Provider::Gemini2 => "/generationConfig/responseJsonSchema",
        Provider::Bedrock => {
            let text = body.pointer("/outputConfig/textFormat/structure/jsonSchema/schema")?;
            return serde_json::from_str(text.as_str()?).ok();
        }
        Provider::Ollama => "/format",
    };
    body.pointer(at).cloned()
}

fuzz_target!(|input: (u8, &str)| {
    let (which, text) = input;
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let mut params = Params::new();
    if let Err(e) = params.set("response_format", &value) {
        assert_eq!(e.key, "response_format");
        assert!(!e.problem.is_empty());
        return;
    }
    // `null` leaves the setting unset.
    let Some(format) = params.response_format.clone() else {
        assert!(value.is_null());
        return;
    };
    let provider = Provider::ALL[which as usize % Provider::ALL.len()];
    let options = Options::new().with_params(params);
    match build_request(provider, &[("user", "Answer in JSON.")], &options) {
        Ok(request) => {
            let body: Value = serde_json::from_str(request.json()).unwrap();
            if let Some(schema) = format.schema() {
                assert_eq!(
                    written(provider, &body),
                    Some(Value::Object(schema.schema.clone())),
                    "{provider}"
                );
            }
            let model = request.model.clone();
            assert!(check_json(&Target::new(provider, &model), request.json())
                .unwrap()
                .is_empty());
        }
        Err(BuildError::Unsupported { setting, .. }) => assert_eq!(setting, "response_format"),
        Err(BuildError::Refused { violation, .. }) => {
            let id = violation.rule.id;
            assert!(
                [
                    "schema",
                    "format",
                    "keywords",
                    "json",
                    "members",
                    "request-size"
                ]
                .iter()
                .any(|w| id.contains(w)),
                "{id}"
            );
        }
        Err(e) => panic!("{provider}: {e}"),
    }
});
