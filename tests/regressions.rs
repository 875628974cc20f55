//! One test per bug found (by fuzzing or otherwise), named after the bug.

use tool_carrier::{classify, rebuild_carrier, render_prompt_tool_carrier};

/// Found by the `classify` fuzz target: a declared prompt carrier whose
/// count line ends the content (no `\n`, empty body) re-rendered with a
/// trailing `\n`, so rebuilding it unchanged was not the identity.
#[test]
fn declared_prompt_carrier_without_final_newline_rebuilds_unchanged() {
    for content in [
        "[Tool results]\n[Tool attachments: 0]",
        "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/a.png]",
    ] {
        let parts = classify("user", content).unwrap();
        assert!(parts.declared);
        assert_eq!(parts.body, "");
        assert_eq!(
            rebuild_carrier("user", content, &parts, &parts.attachments).unwrap(),
            content
        );
        // Rendering is canonical: it writes the line feed.
        let rendered = render_prompt_tool_carrier(&parts.body, &parts.attachments).unwrap();
        assert_eq!(rendered, format!("{content}\n"));
    }
}

/// Found on a second reading: one item of the attachments array holding a
/// number too large for f64 or a lone surrogate made the whole envelope
/// legacy; the spec skips invalid items and keeps the carrier declared.
#[test]
fn an_odd_attachment_item_is_skipped_not_fatal() {
    use tool_carrier::{parse_native_tool_carrier, Attachment};
    for c in [
        r#"{"content":"b","attachments":[{"kind":"image","target":"/a.png"},1e400]}"#,
        r#"{"content":"b","attachments":[{"kind":"image","target":"/a.png"},"\ud800"]}"#,
        r#"{"content":"b","attachments":[{"kind":"image","target":"/a.png"},{"\ud800":1}]}"#,
        r#"{"content":"b","attachments":[{"kind":"image","target":"/a.png"},{"kind":"image","target":"\udc00"}]}"#,
    ] {
        let p = parse_native_tool_carrier(c);
        assert!(p.declared, "{c}");
        assert_eq!(p.body, "b");
        assert_eq!(p.attachments, [Attachment::image("/a.png")], "{c}");
    }
}

/// Found on a second reading: a non-array attachments value that serde_json
/// would refuse to decode (a lone surrogate, 1e400) is still just "not an
/// array": legacy with the member body, and migration leaves it with that
/// reason instead of calling it declared.
#[test]
fn an_odd_non_array_attachments_value_is_not_an_array() {
    use tool_carrier::migrate::{migrate_message, MessageMigration, MigrateOptions};
    use tool_carrier::parse_native_tool_carrier;
    use tool_carrier::Legacy;
    for c in [
        r#"{"content":"b","attachments":"\ud800"}"#,
        r#"{"content":"b","attachments":1e400}"#,
    ] {
        let p = parse_native_tool_carrier(c);
        assert!(!p.declared);
        assert_eq!(p.body, "b");
        assert_eq!(
            migrate_message("tool", c, &MigrateOptions::default()),
            MessageMigration::Left(Legacy::AttachmentsNotArray)
        );
    }
}

/// Found on a second reading: a form feed is not JSON white space, so a line
/// holding only one is a bad record, not a blank line.
#[test]
fn a_form_feed_line_is_a_bad_record() {
    let mut out = Vec::new();
    let s = tool_carrier::inspect::write_json(&b"\x0c\n"[..], &mut out, |_| {}).unwrap();
    assert_eq!(s.records, 1);
    assert_eq!(s.errors, 1);
}

/// Found by the `tools` fuzz target: a `$ref` inside a member that is not
/// a schema keyword (`propertie3`) was passed by the Gemini schema fitter
/// and flagged by the Gemini rule check. Both read only schema positions.
#[cfg(feature = "media")]
#[test]
fn a_ref_outside_schema_positions_is_neither_fitted_nor_flagged_for_gemini() {
    use tool_carrier::provider::{build_request, Options, Provider, Tools};
    use tool_carrier::rules::{check, Target};
    let tools = Tools::from_json(
        r##"[{"type":"function","function":{"name":"a","parameters":{"type":"object","propertie3":{"x":{"$ref":"#/$defs/x","title":"t"}},"properties":{"$ref":{"type":"string"}}}}}]"##,
    )
    .unwrap();
    let history = [
        (
            "assistant",
            r#"{"content":null,"tool_calls":[{"id":"c1","name":"a","arguments":"{}"}]}"#,
        ),
        (
            "tool",
            r#"{"tool_call_id":"c1","content":"ok","attachments":[]}"#,
        ),
    ];
    let request = build_request(
        Provider::Gemini,
        &history,
        &Options::new().with_tools(tools),
    )
    .unwrap();
    let schema =
        &request.body.to_value()["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"];
    assert_eq!(schema["propertie3"]["x"]["title"], "t");
    assert_eq!(schema["properties"]["$ref"]["type"], "string");
    assert_eq!(
        check(
            &Target::new(Provider::Gemini, &request.model),
            &request.body.to_value()
        ),
        []
    );
}

/// Found by the `tools` fuzz target: a typed tool under a name its type
/// does not fix (`{"type": "computer_20250124", "name": "web_s😀arch"}`) was
/// sent to Claude on Bedrock under that name, which no tool-name pattern
/// takes. Such a definition is refused, naming the name the type fixes.
#[cfg(feature = "media")]
#[test]
fn a_typed_tool_under_another_name_is_refused() {
    use tool_carrier::provider::{build_request, Options, Provider, Tools};
    let tools = Tools::from_json(r#"[{"type":"computer_20250124","name":"web_s\ud83d\ude00arch","display_width_px":1,"display_height_px":1}]"#).unwrap();
    let history = [("user", "hi")];
    for provider in Provider::ALL {
        let err = build_request(
            provider,
            &history,
            &Options::new().with_tools(tools.clone()),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool web_s😀arch: Anthropic's computer_20250124 is always named \"computer\""
        );
    }
}

/// Found by fuzzing `provider_import` with accounting: tool calls on a
/// message that is not an assistant's (Ollama's, Chat's) vanished without
/// a word. They are left out with a note, and counted.
#[test]
fn calls_on_a_message_that_is_not_an_assistants_are_noted() {
    use tool_carrier::import::{from_provider, ImportOptions};
    use tool_carrier::media::store::InlineStore;
    use tool_carrier::provider::Provider;
    let calls = serde_json::json!([{"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]);
    for (provider, body) in [
        (
            Provider::Ollama,
            serde_json::json!({"messages": [{"role": "user", "content": "Go.", "tool_calls": [{"function": {"name": "shot", "arguments": {}}}]}]}),
        ),
        (
            Provider::OpenAiChat,
            serde_json::json!({"messages": [{"role": "user", "content": "Go.", "tool_calls": calls}]}),
        ),
    ] {
        let h =
            from_provider(provider, &body, &mut InlineStore, &ImportOptions::default()).unwrap();
        assert!(h.tally.is_balanced(), "{provider}: {:?}", h.tally);
        // Ollama's SDK lets any message hold calls: left out by the
        // reader; Chat's lists them for an assistant's alone: an unlisted
        // member, noted.
        assert!(
            h.notes.iter().any(|n| n
                .text
                .ends_with("is left out: only an assistant's message calls tools")
                || n.text.starts_with(
                    "$.messages[0].tool_calls: a member the openai 3.57.0 types do not list"
                )),
            "{provider}: {:?}",
            h.notes
        );
    }
}

/// Found by fuzzing `provider_import` with accounting: a Chat tool call of
/// a kind the SDK does not list, read as `--keep-unknown` asks, was
/// counted as read under its kind and kept as a function's: it is noted
/// under its kind.
#[test]
fn a_chat_call_of_an_unlisted_kind_kept_as_asked_is_counted_under_its_kind() {
    use tool_carrier::import::{from_provider, ImportOptions};
    use tool_carrier::media::store::InlineStore;
    use tool_carrier::provider::Provider;
    let body = serde_json::json!({"messages": [{"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "function,x", "function": {"name": "shot", "arguments": "{}"}}]}]});
    assert!(from_provider(
        Provider::OpenAiChat,
        &body,
        &mut InlineStore,
        &ImportOptions::default()
    )
    .is_err());
    let keep = ImportOptions::new().with_keep_unknown(true);
    let h = from_provider(Provider::OpenAiChat, &body, &mut InlineStore, &keep).unwrap();
    assert!(h.tally.is_balanced(), "{:?}", h.tally);
    assert_eq!(
        h.tally.get("function,x tool call").map(|c| c.noted),
        Some(1)
    );
}

/// Found by fuzzing `provider_import` with accounting: a result block in
/// an assistant's turn (Bedrock's `toolResult`, Gemini's
/// `functionResponse`) is kept whole, and its content was counted as read
/// apart from it. What a turn keeps whole is counted once.
#[test]
fn a_result_in_an_assistants_turn_is_counted_once() {
    use tool_carrier::import::{from_provider, ImportOptions};
    use tool_carrier::media::store::InlineStore;
    use tool_carrier::provider::Provider;
    for (provider, body) in [
        (
            Provider::Bedrock,
            serde_json::json!({"messages": [{"role": "assistant", "content": [
                {"toolResult": {"toolUseId": "c", "content": [{"text": "x"}]}}]}]}),
        ),
        (
            Provider::Gemini,
            serde_json::json!({"contents": [{"role": "model", "parts": [
                {"functionResponse": {"name": "f", "response": {}, "parts": [{"inlineData": {"mimeType": "image/gif", "data": "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs="}}]}}]}]}),
        ),
    ] {
        let h =
            from_provider(provider, &body, &mut InlineStore, &ImportOptions::default()).unwrap();
        assert!(h.tally.is_balanced(), "{provider}: {:?}", h.tally);
    }
}

/// Found by the accounting property: a Gemini 3 turn whose own thought
/// signature was on a later call only went out with none on its first
/// call, which the API refuses (and so did the self-check: exit 4). The
/// first call gets the placeholder.
#[test]
fn a_gemini_turn_signed_on_a_later_call_only_still_signs_its_first() {
    use tool_carrier::provider::{build_request, Options, Provider};
    let history = [
        ("user", "Go."),
        (
            "assistant",
            r#"{"content":null,"tool_calls":[{"id":"c1","name":"f","arguments":"{}"},{"id":"c2","name":"f","arguments":"{}"}],"gemini_thought_signatures":{"c2":"CiQBown"}}"#,
        ),
        (
            "tool",
            r#"{"tool_call_id":"c1","content":"a","attachments":[]}"#,
        ),
        (
            "tool",
            r#"{"tool_call_id":"c2","content":"b","attachments":[]}"#,
        ),
    ];
    let request = build_request(Provider::Gemini, &history, &Options::new()).unwrap();
    let parts = &request.body.to_value()["contents"][1]["parts"];
    assert_eq!(
        parts[0]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
    assert_eq!(parts[1]["thoughtSignature"], "CiQBown");
}

/// Found by fuzzing `provider_import` with accounting: a Responses item
/// without a `type` holding a member no kind lists was counted as an item
/// reference and read as a message. An untyped item is the kind that has
/// the most of its members.
#[test]
fn an_untyped_responses_item_is_the_kind_it_most_resembles() {
    use tool_carrier::import::{from_provider, ImportOptions};
    use tool_carrier::media::store::InlineStore;
    use tool_carrier::provider::Provider;
    let body = serde_json::json!({"input": [
        {"role": "user", "content": [{"type": "input_text", "text": "x"}], "foo": 1},
        {"id": "msg_1"}]});
    let h = from_provider(
        Provider::OpenAiResponses,
        &body,
        &mut InlineStore,
        &ImportOptions::default(),
    )
    .unwrap();
    assert!(h.tally.is_balanced(), "{:?}", h.tally);
    assert_eq!(h.tally.get("message item").map(|c| c.read), Some(1));
    assert_eq!(h.tally.get("item_reference item").map(|c| c.read), Some(1));
}

/// Found by fuzzing `provider_import` with accounting: an item the
/// Responses reader keeps whole had the parts inside it counted apart.
#[test]
fn what_an_item_kept_whole_holds_is_counted_with_it() {
    use tool_carrier::import::{from_provider, ImportOptions};
    use tool_carrier::media::store::InlineStore;
    use tool_carrier::provider::Provider;
    let body = serde_json::json!({"input": [{"name": "user", "content": [{"type": "made_up"}]}]});
    let keep = ImportOptions::new().with_keep_unknown(true);
    let h = from_provider(Provider::OpenAiResponses, &body, &mut InlineStore, &keep).unwrap();
    assert!(h.tally.is_balanced(), "{:?}", h.tally);
}

/// Found by fuzzing `provider_import` with accounting: a Chat call whose
/// `type` is empty was counted under two names.
#[test]
fn a_chat_call_of_an_empty_type_is_counted_under_one_name() {
    use tool_carrier::import::{from_provider, ImportOptions};
    use tool_carrier::media::store::InlineStore;
    use tool_carrier::provider::Provider;
    let body = serde_json::json!([{"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "", "function": {"name": "f", "arguments": "{}"}}]}]);
    let keep = ImportOptions::new().with_keep_unknown(true);
    let h = from_provider(Provider::OpenAiChat, &body, &mut InlineStore, &keep).unwrap();
    assert!(h.tally.is_balanced(), "{:?}", h.tally);
}
