//! Provider-side files: targets naming a file a provider holds, the
//! uploads map, and imports that keep such references.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::{json, Value};
use support::{build, build_lines, lit, png, Fixture};
use tool_carrier::import::{from_provider, ImportOptions};
use tool_carrier::media::store::InlineStore;
use tool_carrier::media::{ProviderFile, Uploads};
use tool_carrier::parse_native_tool_carrier;
use tool_carrier::provider::{Options, Provider};

/// A call, and its result declaring `attachments` (JSON records).
fn round(attachments: &str) -> String {
    let call = json!({"content": null, "tool_calls": [{"id": "call_1", "name": "shot", "arguments": "{}"}]});
    let result =
        format!(r#"{{"tool_call_id":"call_1","content":"done","attachments":{attachments}}}"#);
    format!(
        "{{\"role\":\"user\",\"content\":\"go\"}}\n{{\"role\":\"assistant\",\"content\":{}}}\n{{\"role\":\"tool\",\"content\":{}}}\n",
        lit(&call.to_string()),
        lit(&result)
    )
}

fn body(
    provider: Provider,
    lines: &str,
    options: &Options,
) -> (Value, tool_carrier::provider::Request) {
    let request = build_lines(provider, lines, options);
    let value = serde_json::from_str(&request.to_json()).unwrap();
    (value, request)
}

#[test]
fn anthropic_refers_to_its_files_and_asks_for_the_beta() {
    let fixture = Fixture::new();
    let lines = round(
        r#"[{"kind":"image","target":"anthropic-file:file_1"},{"kind":"document","target":"anthropic-file:file_2"}]"#,
    );
    let (value, request) = body(Provider::Anthropic, &lines, &fixture.options());
    let text = value.to_string();
    assert!(
        text.contains(r#"{"file_id":"file_1","type":"file"}"#)
            || text.contains(r#"{"type":"file","file_id":"file_1"}"#),
        "{text}"
    );
    assert!(text.contains(r#""file_id":"file_2""#));
    assert_eq!(request.report.files, 2);
    assert_eq!(
        request.headers,
        [("anthropic-beta", "files-api-2025-04-14".to_owned())]
    );
    // Without a file, no header.
    let plain = build_lines(Provider::Anthropic, &round("[]"), &fixture.options());
    assert!(plain.headers.is_empty());
}

#[test]
fn another_providers_file_becomes_a_note_saying_so() {
    let fixture = Fixture::new();
    let lines = round(r#"[{"kind":"image","target":"openai-file:file-1","name":"shot.png"}]"#);
    for provider in [
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Bedrock,
        Provider::Ollama,
    ] {
        let request = build_lines(provider, &lines, &fixture.options());
        let note = &request.report.notes[0].text;
        assert_eq!(
            note,
            &format!(
                "[image shot.png not attached: it is a file OpenAI holds, which {} cannot read]",
                provider.display_name()
            )
        );
        assert!(!request.to_json().contains("file-1"), "{provider}");
    }
}

#[test]
fn a_resolver_that_has_the_bytes_sends_another_providers_file_inline() {
    let fixture = Fixture::new();
    let bytes = png(4, 3, 9);
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = calls.clone();
    let resolver = move |target: &str| -> Result<
        tool_carrier::media::Source,
        tool_carrier::media::MediaError,
    > {
        assert_eq!(target, "openai-file:file-1");
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(tool_carrier::media::Source::Bytes(
            tool_carrier::media::Loaded::new(bytes.clone(), tool_carrier::media::Origin::Other),
        ))
    };
    let options = fixture.options().with_resolver(resolver);
    let lines = round(r#"[{"kind":"image","target":"openai-file:file-1"}]"#);
    let request = build_lines(Provider::Anthropic, &lines, &options);
    assert_eq!((request.report.images, request.report.files), (1, 0));
    // Asked once: the bytes that show it can be sent are those sent.
    assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 1);
    // To OpenAI itself it stays a reference, never resolved.
    let responses = build_lines(Provider::OpenAiResponses, &lines, &options);
    assert_eq!((responses.report.images, responses.report.files), (0, 1));
    assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 1);
}

#[test]
fn what_a_provider_cannot_take_by_reference_is_a_note() {
    let fixture = Fixture::new();
    const NOVA: &str = "us.amazon.nova-pro-v1:0";
    let cases = [
        (
            Provider::OpenAiChat,
            None,
            r#"[{"kind":"image","target":"openai-file:file-1"}]"#,
            "OpenAI Chat takes no image by file id (Responses does)",
        ),
        (
            Provider::Gemini,
            None,
            r#"[{"kind":"image","target":"gemini-file:https://g/files/a"}]"#,
            "Gemini needs the media type of the file: gemini-file:image/png;…",
        ),
        // Claude (the default) on Bedrock reads no S3 media.
        (
            Provider::Bedrock,
            None,
            r#"[{"kind":"image","target":"bedrock-file:image/png;s3://bucket/a.png"}]"#,
            "on Bedrock only the Amazon Nova models read media from S3",
        ),
        (
            Provider::Bedrock,
            Some(NOVA),
            r#"[{"kind":"image","target":"bedrock-file:s3://bucket/a.png"}]"#,
            "Bedrock needs the media type of the file: bedrock-file:image/png;…",
        ),
        (
            Provider::Bedrock,
            Some(NOVA),
            r#"[{"kind":"image","target":"bedrock-file:image/bmp;s3://bucket/a.bmp"}]"#,
            "Bedrock takes no image/bmp file here",
        ),
        (
            Provider::Anthropic,
            None,
            r#"[{"kind":"image","target":"gemini-file:files/a"}]"#,
            "a Gemini file is named by its https:// or gs:// URI",
        ),
    ];
    for (provider, model, attachments, why) in cases {
        let options = match model {
            Some(model) => fixture.options().with_model(model),
            None => fixture.options(),
        };
        let request = build_lines(provider, &round(attachments), &options);
        let note = &request.report.notes[0].text;
        assert!(
            note.ends_with(&format!("not attached: {why}]")),
            "{provider}: {note}"
        );
    }
    // A document by file id to Chat is a `file` part.
    let request = build_lines(
        Provider::OpenAiChat,
        &round(r#"[{"kind":"document","target":"openai-file:file-9","name":"q3.pdf"}]"#),
        &fixture.options(),
    );
    assert!(request
        .to_json()
        .contains(r#"{"type":"file","file":{"file_id":"file-9"}}"#));
    // Nova on Bedrock reads S3 media.
    let request = build_lines(
        Provider::Bedrock,
        &round(r#"[{"kind":"image","target":"bedrock-file:image/png;s3://bucket/a.png"}]"#),
        &fixture.options().with_model(NOVA),
    );
    assert_eq!(request.report.files, 1);
    assert!(request
        .to_json()
        .contains(r#"{"s3Location":{"uri":"s3://bucket/a.png"}}"#));
}

#[test]
fn the_uploads_map_sends_uploaded_media_by_reference_to_its_holder_only() {
    let fixture = Fixture::new();
    // A 1600×1000 screenshot, within every provider's size.
    let big = png(1600, 1000, 3);
    fixture.add("shots/big.png", &big);
    // A 4000×3000 one: past the 2000 px every image is fitted within
    // (Anthropic refuses such in a request of more than 20 images).
    let huge = png(4000, 3000, 4);
    fixture.add("shots/huge.png", &huge);
    let uploads = Uploads::new()
        .with(
            &huge,
            ProviderFile::parse("anthropic-file:file_huge")
                .unwrap()
                .unwrap(),
        )
        .unwrap()
        .with(
            &big,
            ProviderFile::parse("anthropic-file:file_big")
                .unwrap()
                .unwrap(),
        )
        .unwrap()
        .with(
            &big,
            ProviderFile::parse("gemini-file:https://g/files/big")
                .unwrap()
                .unwrap(),
        )
        .unwrap();
    let options = fixture.options().with_uploads(uploads);
    let lines = round(r#"[{"kind":"image","target":"shots/big.png"}]"#);
    let anthropic = build_lines(Provider::Anthropic, &lines, &options);
    assert_eq!((anthropic.report.images, anthropic.report.files), (0, 1));
    assert!(anthropic.to_json().contains(r#""file_id":"file_big""#));
    // Gemini gets the media type from the bytes.
    let gemini = build_lines(Provider::Gemini, &lines, &options);
    assert!(gemini
        .to_json()
        .contains(r#"{"fileData":{"mimeType":"image/png","fileUri":"https://g/files/big"}}"#));
    // OpenAI has no file in the map: inline, resized as ever.
    let openai = build_lines(Provider::OpenAiResponses, &lines, &options);
    assert_eq!((openai.report.images, openai.report.files), (1, 0));
    assert!(openai.to_json().len() > 1000);
    // Other bytes are not in the map.
    let small = build_lines(
        Provider::Anthropic,
        &round(r#"[{"kind":"image","target":"shots/small.png"}]"#),
        &options,
    );
    assert_eq!((small.report.images, small.report.files), (1, 0));
    // Uploaded too large: prepared and sent inline, fitted.
    let huge = build_lines(
        Provider::Anthropic,
        &round(r#"[{"kind":"image","target":"shots/huge.png"}]"#),
        &options,
    );
    assert_eq!((huge.report.images, huge.report.files), (1, 0));
    assert!(!huge.to_json().contains("file_huge"));
    // Cut short, even uploaded: never sent, by reference or inline.
    let cut = &png(300, 200, 5)[..400];
    fixture.add("shots/cut.png", cut);
    let file = ProviderFile::parse("anthropic-file:file_cut")
        .unwrap()
        .unwrap();
    let options = fixture
        .options()
        .with_uploads(Uploads::new().with(cut, file).unwrap());
    let request = build_lines(
        Provider::Anthropic,
        &round(r#"[{"kind":"image","target":"shots/cut.png"}]"#),
        &options,
    );
    assert_eq!((request.report.images, request.report.files), (0, 0));
    assert!(!request.to_json().contains("file_cut"));
    assert_eq!(request.report.notes.len(), 1);
}

/// The first tool result's attachment targets after an import of `body`.
fn imported(provider: Provider, body: &Value) -> Vec<String> {
    let history =
        from_provider(provider, body, &mut InlineStore, &ImportOptions::default()).unwrap();
    let tool = history
        .messages
        .iter()
        .find(|m| m.role() == "tool")
        .unwrap();
    parse_native_tool_carrier(tool.content())
        .attachments
        .iter()
        .map(|a| a.target.clone().into_owned())
        .collect()
}

#[test]
fn imports_keep_provider_files() {
    let call = |p: Provider| match p {
        Provider::Anthropic => {
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "f", "input": {}}]})
        }
        _ => unreachable!(),
    };
    let anthropic = json!([call(Provider::Anthropic), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": [
        {"type": "image", "source": {"type": "file", "file_id": "file_1"}},
        {"type": "document", "source": {"type": "file", "file_id": "file_2"}, "title": "a.pdf"}]}]}]);
    assert_eq!(
        imported(Provider::Anthropic, &anthropic),
        ["anthropic-file:file_1", "anthropic-file:file_2"]
    );

    let responses = json!([{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": [
            {"type": "input_image", "file_id": "file-1", "detail": "auto"},
            {"type": "input_file", "file_id": "file-2"}]}]);
    assert_eq!(
        imported(Provider::OpenAiResponses, &responses),
        ["openai-file:file-1", "openai-file:file-2"]
    );

    let chat = json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "file", "file": {"file_id": "file-3"}}]}]);
    assert_eq!(
        imported(Provider::OpenAiChat, &chat),
        ["openai-file:file-3"]
    );

    let gemini = json!([{"role": "model", "parts": [{"functionCall": {"id": "c", "name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "c", "name": "f", "response": {"output": "ok"},
            "parts": [{"fileData": {"mimeType": "image/png", "fileUri": "https://g/files/a"}}]}}]}]);
    assert_eq!(
        imported(Provider::Gemini, &gemini),
        ["gemini-file:image/png;https://g/files/a"]
    );

    let bedrock = json!([{"role": "assistant", "content": [{"toolUse": {"toolUseId": "c", "name": "f", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "c", "content": [
            {"image": {"format": "png", "source": {"s3Location": {"uri": "s3://bucket/a.png"}}}},
            {"document": {"format": "pdf", "name": "q3", "source": {"s3Location": {"uri": "s3://bucket/q3.pdf", "bucketOwner": "123456789012"}}}}]}}]}]);
    assert_eq!(
        imported(Provider::Bedrock, &bedrock),
        [
            "bedrock-file:image/png;s3://bucket/a.png",
            "bedrock-file:application/pdf;123456789012@s3://bucket/q3.pdf"
        ]
    );
}

#[test]
fn a_reference_goes_back_to_its_provider_as_it_came() {
    // convert → import → convert gives the same body, for each holder's own
    // provider.
    let fixture = Fixture::new();
    // The whole golden history: the tool round, and the prompt carrier
    // that follows (read back as the user's own attachments).
    let lines =
        std::fs::read_to_string(support::manifest_dir().join("tests/golden/file-references.jsonl"))
            .unwrap();
    for provider in [
        Provider::Anthropic,
        Provider::OpenAiResponses,
        Provider::Gemini,
        Provider::Bedrock,
    ] {
        let first = build_lines(provider, &lines, &fixture.options());
        let body: Value = serde_json::from_str(&first.to_json()).unwrap();
        let history =
            from_provider(provider, &body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let again = build(provider, &history.messages, &fixture.options());
        let files = |r: &tool_carrier::provider::Request| r.report.files;
        assert_eq!(files(&again), files(&first), "{provider}");
        assert_eq!(again.to_json(), first.to_json(), "{provider}");
    }
}
