//! Tool definitions: arbitrary text never panics the reader, and any set
//! it accepts is either refused by name for a provider or declared in a
//! body that passes every rule of that provider's API — with a history
//! that calls each defined tool.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tool_carrier::provider::{build_request, Options, Provider, Tools};
use tool_carrier::rules::{check_json, Target};

fuzz_target!(|text: &str| {
    let Ok(tools) = Tools::from_json(text) else {
        return;
    };
    let calls: Vec<_> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": format!("c{i}"), "name": t.name(), "arguments": "{}"}))
        .collect();
    let mut history = vec![("user".to_owned(), "Go.".to_owned())];
    if !calls.is_empty() {
        history.push((
            "assistant".to_owned(),
            json!({"content": null, "tool_calls": calls}).to_string(),
        ));
        for i in 0..calls.len() {
            history.push((
                "tool".to_owned(),
                json!({"tool_call_id": format!("c{i}"), "content": "ok", "attachments": []})
                    .to_string(),
            ));
        }
    }
    for provider in Provider::ALL {
        let options = Options::new().with_tools(tools.clone());
        let Ok(request) = build_request(provider, &history, &options) else {
            continue;
        };
        let mut body = Vec::new();
        request.write_compact(&mut body).unwrap();
        let broken =
            check_json(&Target::of(&request), std::str::from_utf8(&body).unwrap()).unwrap();
        assert!(broken.is_empty(), "{provider}: {broken:?}\n{text}");
    }
});
