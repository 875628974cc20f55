//! OpenAI responses, Chat Completions and Responses, non-streamed and
//! streamed, read into one assistant record; and a Responses turn's kept
//! items (reasoning with its `encrypted_content`) written back.
//!
//! The fixtures in `tests/data/responses/openai-chat/` and
//! `tests/data/responses/openai-responses/` are each a body and the event
//! stream of the same response, shaped as the API reference documents
//! them (each validates as the `openai` SDK's `ChatCompletion` /
//! `ChatCompletionChunk` and `Response` / `ResponseStreamEvent` models).
#![cfg(feature = "media")]

use serde_json::Value;
use tool_carrier::history::AssistantTurn;
use tool_carrier::import::{
    from_provider, from_response, read_response, response_form, response_stream, ImportOptions,
    ResponseError, ResponseForm,
};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::{build_request, Options, Provider};

const CHAT: [&str; 3] = ["tool_call", "parallel_calls", "refusal"];
const RESPONSES: [&str; 3] = ["reasoning_call", "web_search", "incomplete"];

fn fixture(api: &str, name: &str) -> String {
    let path = format!(
        "{}/tests/data/responses/{api}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn streamed(provider: Provider, chunks: &[&[u8]]) -> Result<AssistantTurn, ResponseError> {
    let mut stream = response_stream(provider)?;
    for chunk in chunks {
        stream.push(chunk)?;
    }
    stream.finish()
}

/// `(provider, fixture folder, names)`; OpenAI-compatible servers answer
/// as Chat does.
fn cases() -> [(Provider, &'static str, &'static [&'static str]); 3] {
    [
        (Provider::OpenAiChat, "openai-chat", &CHAT),
        (Provider::OpenAiCompatible, "openai-chat", &CHAT),
        (Provider::OpenAiResponses, "openai-responses", &RESPONSES),
    ]
}

#[test]
fn the_stream_and_the_body_give_the_same_record() {
    for (provider, api, names) in cases() {
        for name in names {
            let body_text = fixture(api, &format!("{name}.json"));
            let stream_text = fixture(api, &format!("{name}.sse"));
            assert_eq!(
                response_form(provider, &body_text),
                Some(ResponseForm::Body)
            );
            assert_eq!(
                response_form(provider, &stream_text),
                Some(ResponseForm::Stream)
            );
            let body = from_response(provider, &body_text).unwrap();
            let stream = streamed(provider, &[stream_text.as_bytes()]).unwrap();
            assert_eq!(stream.to_record(), body.to_record(), "{provider} {name}");
            let read = read_response(provider, ResponseForm::Stream, &stream_text).unwrap();
            assert_eq!(read, body, "{provider} {name}");
        }
    }
}

#[test]
fn what_the_chat_records_hold() {
    let turn = from_response(
        Provider::OpenAiChat,
        &fixture("openai-chat", "tool_call.json"),
    )
    .unwrap();
    assert_eq!(
        turn.to_json(),
        concat!(
            r#"{"content":null,"tool_calls":[{"id":"call_Wx7QhZ1pLk3TnB2v","name":"get_weather","arguments":{"location":"Paris, France","unit":"celsius"}}],"#,
            r#""stop_reason":"tool_calls","usage":{"prompt_tokens":82,"completion_tokens":18,"total_tokens":100,"#,
            r#""prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"#,
            r#""completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}"#
        )
    );
    let turn = from_response(
        Provider::OpenAiChat,
        &fixture("openai-chat", "parallel_calls.json"),
    )
    .unwrap();
    assert_eq!(turn.text(), "Recording the entry and reading the ledger.");
    let ids: Vec<&str> = turn.calls().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_Ledger01", "call_Ledger02"]);
    // The arguments as the model wrote them: key order, a 30-digit integer.
    assert_eq!(
        turn.calls()[0].arguments,
        r#"{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    );
    let turn = from_response(
        Provider::OpenAiChat,
        &fixture("openai-chat", "refusal.json"),
    )
    .unwrap();
    assert_eq!(
        turn.to_json(),
        concat!(
            r#"{"content":"I'm sorry, I can't help with that.","tool_calls":[],"refusal":"I'm sorry, I can't help with that.","#,
            r#""stop_reason":"stop","usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29}}"#
        )
    );
}

/// The reasoning item as the body wrote it (white space aside).
fn reasoning_item() -> String {
    let body = fixture("openai-responses", "reasoning_call.json");
    let start = body[..body.find(r#""id": "rs_"#).unwrap()]
        .rfind('{')
        .unwrap();
    // The item's text, white space outside its strings dropped.
    let (mut out, mut depth, mut in_string, mut escaped) = (String::new(), 0, false, false);
    for c in body[start..].chars() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            c if c.is_whitespace() => continue,
            _ => {}
        }
        out.push(c);
        if depth == 0 {
            return out;
        }
    }
    unreachable!("the item ends")
}

#[test]
fn what_the_responses_records_hold() {
    let turn = from_response(
        Provider::OpenAiResponses,
        &fixture("openai-responses", "reasoning_call.json"),
    )
    .unwrap();
    assert_eq!(turn.text(), "Recording the entry now.");
    assert_eq!(turn.calls()[0].id, "call_Ledger01");
    assert_eq!(
        turn.calls()[0].arguments,
        r#"{"zeta":"last key first","amount":123456789012345678901234567890,"nested":{"b":2,"a":[3,1,2]},"alpha":-0.0}"#
    );
    let members: Vec<&str> = turn.members().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(members, ["openai_items", "stop_reason", "usage"]);
    assert_eq!(turn.members()[0].1, format!("[{}]", reasoning_item()));
    assert_eq!(turn.members()[1].1, r#""completed""#);
    // The stream's added item held a cut encrypted_content: the done item's
    // is kept.
    let stream = streamed(
        Provider::OpenAiResponses,
        &[fixture("openai-responses", "reasoning_call.sse").as_bytes()],
    )
    .unwrap();
    assert!(stream.members()[0].1.contains("-_ZxCvBnM=="));

    let turn = from_response(
        Provider::OpenAiResponses,
        &fixture("openai-responses", "web_search.json"),
    )
    .unwrap();
    assert_eq!(turn.text(), "It is 14 °C in Paris now.");
    assert_eq!(
        turn.members()[0].1,
        r#"[{"id":"ws_0a1b2c3d4e5f60718293a4b5c6d7e8fc","type":"web_search_call","status":"completed","action":{"type":"search","query":"Paris weather today"}}]"#
    );
    let turn = from_response(
        Provider::OpenAiResponses,
        &fixture("openai-responses", "incomplete.json"),
    )
    .unwrap();
    assert_eq!(
        turn.members()[0],
        (
            "stop_reason".to_owned(),
            r#""max_output_tokens""#.to_owned()
        )
    );
}

#[test]
fn every_split_of_the_stream_gives_the_same_record() {
    for (provider, api, names) in cases() {
        for name in names {
            let text = fixture(api, &format!("{name}.sse"));
            let bytes = text.as_bytes();
            let expected = streamed(provider, &[bytes]).unwrap();
            for cut in (0..=bytes.len()).step_by(7) {
                let got = streamed(provider, &[&bytes[..cut], &bytes[cut..]]).unwrap();
                assert_eq!(got, expected, "{provider} {name} cut at {cut}");
            }
        }
    }
    // And a byte at a time.
    let text = fixture("openai-responses", "reasoning_call.sse");
    let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
    assert_eq!(
        streamed(Provider::OpenAiResponses, &bytes).unwrap(),
        streamed(Provider::OpenAiResponses, &[text.as_bytes()]).unwrap()
    );
}

#[test]
fn a_truncated_stream_says_what_it_lacks() {
    // Chat: cut anywhere before `[DONE]` is whole.
    let text = fixture("openai-chat", "parallel_calls.sse");
    let done = text.find("data: [DONE]").unwrap();
    for cut in (0..done + 8).step_by(13) {
        let err = streamed(Provider::OpenAiChat, &[&text.as_bytes()[..cut]]).unwrap_err();
        assert!(
            matches!(err, ResponseError::Truncated { .. }),
            "cut at {cut}: {err}"
        );
    }
    assert_eq!(
        streamed(Provider::OpenAiChat, &[&text.as_bytes()[..done]])
            .unwrap_err()
            .to_string(),
        "the stream ended early: it lacks data: [DONE]"
    );
    let finish = text.find(r#""finish_reason":"tool_calls""#).unwrap();
    let line = text[..finish].rfind("data:").unwrap();
    assert_eq!(
        streamed(Provider::OpenAiChat, &[&text.as_bytes()[..line]])
            .unwrap_err()
            .to_string(),
        "the stream ended early: it lacks finish_reason for choice 0 and data: [DONE]"
    );
    // Responses: cut anywhere before `response.completed` is whole.
    let text = fixture("openai-responses", "reasoning_call.sse");
    let completed = text.find("event: response.completed").unwrap();
    for cut in (0..completed).step_by(29) {
        let err = streamed(Provider::OpenAiResponses, &[&text.as_bytes()[..cut]]).unwrap_err();
        assert!(
            matches!(err, ResponseError::Truncated { .. }),
            "cut at {cut}: {err}"
        );
    }
    assert_eq!(
        streamed(Provider::OpenAiResponses, &[&text.as_bytes()[..completed]])
            .unwrap_err()
            .to_string(),
        "the stream ended early: it lacks response.completed (or response.incomplete)"
    );
    let inside = text.find("response.function_call_arguments.delta").unwrap();
    let err = streamed(Provider::OpenAiResponses, &[&text.as_bytes()[..inside]])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "the stream ended early: it lacks response.output_item.done for output item 2 and response.completed (or response.incomplete) (it stops inside the line "
        ),
        "{err}"
    );
}

#[test]
fn errors_from_the_provider() {
    let provider_error = |provider: Provider, text: &str| match from_response(provider, text) {
        Err(ResponseError::Provider { kind, message }) => (kind, message),
        other => panic!("{other:?}"),
    };
    let (kind, message) =
        provider_error(Provider::OpenAiChat, &fixture("openai-chat", "error.json"));
    assert_eq!(kind, "tokens (rate_limit_exceeded)");
    assert!(
        message.starts_with("Rate limit reached for gpt-5.5"),
        "{message}"
    );
    let err = streamed(
        Provider::OpenAiChat,
        &[fixture("openai-chat", "error.sse").as_bytes()],
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the provider answered with an error: server_error: The server had an error while processing your request. Sorry about that!"
    );
    let (kind, message) = provider_error(
        Provider::OpenAiResponses,
        &fixture("openai-responses", "error.json"),
    );
    assert_eq!(kind, "invalid_request_error");
    assert!(message.ends_with("(param: input)"), "{message}");
    let mut stream = response_stream(Provider::OpenAiResponses).unwrap();
    let err = stream
        .push(fixture("openai-responses", "error.sse").as_bytes())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the provider answered with an error: server_error: The model produced invalid content."
    );
    // It stays failed.
    assert_eq!(stream.finish().unwrap_err(), err);
}

#[test]
fn a_body_with_more_choices_reads_choice_zero() {
    let body: Value = serde_json::from_str(&fixture("openai-chat", "parallel_calls.json")).unwrap();
    let mut two = body.clone();
    let mut other = body["choices"][0].clone();
    other["index"] = 1.into();
    other["message"] = serde_json::json!({"role": "assistant", "content": "Another answer."});
    two["choices"] = Value::Array(vec![other, body["choices"][0].clone()]);
    let two = from_response(Provider::OpenAiChat, &two.to_string()).unwrap();
    assert_eq!(
        two,
        from_response(Provider::OpenAiChat, &body.to_string()).unwrap()
    );
    assert!(!two.to_json().contains("Another answer."));
}

fn record(turn: &AssistantTurn) -> (String, String) {
    let v: Value = serde_json::from_str(&turn.to_record()).unwrap();
    (
        v["role"].as_str().unwrap().to_owned(),
        v["content"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn a_reasoning_turn_goes_back_to_responses_with_its_item_first() {
    let turn = streamed(
        Provider::OpenAiResponses,
        &[fixture("openai-responses", "reasoning_call.sse").as_bytes()],
    )
    .unwrap();
    let history = vec![
        ("user".to_owned(), "Record it.".to_owned()),
        record(&turn),
        (
            "tool".to_owned(),
            r#"{"tool_call_id":"call_Ledger01","content":"recorded","attachments":[]}"#.to_owned(),
        ),
    ];
    let request = build_request(Provider::OpenAiResponses, &history, &Options::new()).unwrap();
    let json = request.json();
    // The item byte for byte, with its encrypted_content.
    assert!(json.contains(&reasoning_item()), "{json}");
    let body: Value = serde_json::from_str(json).unwrap();
    let kinds: Vec<&str> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap_or("message"))
        .collect();
    assert_eq!(
        kinds,
        [
            "message",
            "reasoning",
            "message",
            "function_call",
            "function_call_output"
        ]
    );
    assert_eq!(body["input"][3]["call_id"], "call_Ledger01");
    assert!(
        json.contains(r#"{\"zeta\":\"last key first\",\"amount\":123456789012345678901234567890,"#)
    );
    // Other APIs are not sent the item, as before.
    for provider in [Provider::OpenAiChat, Provider::Anthropic, Provider::Gemini] {
        let request = build_request(provider, &history, &Options::new()).unwrap();
        assert!(!request.json().contains("encrypted_content"), "{provider}");
        assert!(!request.json().contains("rs_0a1b2c3d"), "{provider}");
    }
}

#[test]
fn a_request_body_with_a_reasoning_item_converts_back_with_it_byte_identical() {
    // Written as the reader keeps an item it does not know (serde_json's
    // map: keys sorted, no white space), so its bytes are the body's own.
    let reasoning = r#"{"encrypted_content":"gAAAAABpKx9Qz3m8vL0aQx7_Rk2n==","id":"rs_68b1","summary":[{"text":"**Looking**","type":"summary_text"}],"type":"reasoning"}"#;
    let text = format!(
        r#"{{"model":"gpt-5.5","input":[
            {{"role":"user","content":"Look at the screen."}},
            {reasoning},
            {{"type":"function_call","call_id":"call_1","name":"screenshot","arguments":"{{}}"}},
            {{"type":"function_call_output","call_id":"call_1","output":"captured"}},
            {{"type":"message","role":"assistant","content":"Done."}}]}}"#
    );
    let body: Value = serde_json::from_str(&text).unwrap();
    let history = from_provider(
        Provider::OpenAiResponses,
        &body,
        &mut InlineStore,
        &ImportOptions::default(),
    )
    .unwrap();
    assert!(history.messages[1].content().contains(reasoning));
    let request = build_request(
        Provider::OpenAiResponses,
        &history.messages,
        &Options::new(),
    )
    .unwrap();
    let json = request.json();
    assert!(json.contains(reasoning), "{json}");
    let out: Value = serde_json::from_str(json).unwrap();
    assert_eq!(out["input"][1], body["input"][1]);
    assert_eq!(out["input"][2]["type"], "function_call");
    // And read back again, the same history.
    let again = from_provider(
        Provider::OpenAiResponses,
        &out,
        &mut InlineStore,
        &ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(again.messages, history.messages);
}

#[test]
fn output_only_members_are_left_out_of_a_kept_item() {
    let history = vec![
        ("user".to_owned(), "Go.".to_owned()),
        (
            "assistant".to_owned(),
            concat!(
                r#"{"content":"Done.","tool_calls":[],"openai_items":["#,
                r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},"#,
                r#"{"type":"custom_tool_call_output","call_id":"c1","output":"ok","status":"completed","created_by":"user_1"},"#,
                r#"{"type":"shell_call_output","call_id":"s1","output":[{"stdout":"","stderr":"","outcome":{"type":"exit","exit_code":0},"created_by":"x"}],"created_by":"x"}]}"#
            )
            .to_owned(),
        ),
    ];
    let request = build_request(Provider::OpenAiResponses, &history, &Options::new()).unwrap();
    let json = request.json();
    assert!(json.contains(
        r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},{"type":"custom_tool_call_output","call_id":"c1","output":"ok"},{"type":"shell_call_output","call_id":"s1","output":[{"stdout":"","stderr":"","outcome":{"type":"exit","exit_code":0}}]}"#
    ), "{json}");
}

/// Found by fuzzing `provider_response`: JSON whose number serde_json
/// cannot read (`1e999999`, valid JSON) went into a body raw, which the
/// rules' check could then not read back (a panic). Arguments holding one
/// are sent as text; kept items holding one are left out.
#[test]
fn a_number_out_of_range_never_breaks_a_body() {
    let chat = r#"{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1e999999}"}}]},"finish_reason":"tool_calls"}]}"#;
    let responses = r#"{"object":"response","status":"completed","output":[{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","n":1e999999}},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1e999999}"}]}"#;
    for (provider, text) in [
        (Provider::OpenAiChat, chat),
        (Provider::OpenAiResponses, responses),
    ] {
        let turn = from_response(provider, text).unwrap();
        assert_eq!(turn.calls()[0].arguments, r#"{"a":1e999999}"#);
        let history = vec![("user".to_owned(), "Go.".to_owned()), record(&turn)];
        for to in Provider::ALL {
            let request = build_request(to, &history, &Options::new()).unwrap();
            assert!(request.json().contains("1e999999"), "{provider} -> {to}");
            assert!(!request.json().contains("ws_1"), "{provider} -> {to}");
        }
    }
}
