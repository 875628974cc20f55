//! Names kept: an attachment's original file name, declared on its
//! native record, reaches each provider's file-name fields and labels, and
//! an import of the body reads it back.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use serde_json::Value;
use support::{build, history, pdf, Fixture};
use tool_carrier::import::{from_provider, ImportOptions};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::Provider;
use tool_carrier::{parse_native_tool_carrier, Attachment, AttachmentKind};

const HASHED_PDF: &str =
    "media/11a6ea670000000000000000000000000000000000000000000000000c5dae31.pdf";
const HASH: &str = "11a6ea670000000000000000000000000000000000000000000000000c5dae31";

fn body(provider: Provider) -> (String, Value) {
    let fixture = Fixture::new();
    fixture.add(HASHED_PDF, &pdf("Invoice 7"));
    let request = build(
        provider,
        &history("tests/golden/named-pdf.jsonl"),
        &fixture.options(),
    );
    let mut out = Vec::new();
    request.write_compact(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let value = serde_json::from_str(&text).unwrap();
    (text, value)
}

/// Every attachment name the first tool result declares after an import
/// of `provider`'s body.
fn imported_names(provider: Provider) -> Vec<(AttachmentKind, Option<String>)> {
    let (_, value) = body(provider);
    let history = from_provider(
        provider,
        &value,
        &mut InlineStore,
        &ImportOptions::default(),
    )
    .unwrap();
    let tool = history
        .messages
        .iter()
        .find(|m| m.role() == "tool")
        .expect("a tool result");
    parse_native_tool_carrier(tool.content())
        .attachments
        .into_iter()
        .map(|a: Attachment<'_>| (a.kind, a.name.map(|n| n.into_owned())))
        .collect()
}

#[test]
fn no_body_names_an_attachment_by_its_hash() {
    for provider in Provider::ALL {
        let (text, _) = body(provider);
        let hashes = text.matches(HASH).count();
        assert_eq!(hashes, 0, "{provider}: a hash reached the body");
        assert!(
            !text.contains("characters)"),
            "{provider}: a data: URI in a label"
        );
    }
}

#[test]
fn openai_file_names_are_the_declared_names() {
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let (text, _) = body(provider);
        assert!(text.contains(r#""filename":"invoice.pdf""#), "{provider}");
        // A marker line can declare no name: the target's base name serves.
        assert!(text.contains(r#""filename":"notes.pdf""#), "{provider}");
    }
}

#[test]
fn bedrock_document_names_fit_the_documented_pattern() {
    let (_, value) = body(Provider::Bedrock);
    let mut names = Vec::new();
    for message in value["messages"].as_array().unwrap() {
        collect(message, &mut names);
    }
    assert_eq!(
        names,
        ["invoice", "Q3 report - final (v2)", "notes", "document"]
    );
    for name in &names {
        let ok = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '(' | ')' | '[' | ']'));
        assert!(ok && !name.contains("  ") && (1..=200).contains(&name.len()));
    }

    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(name) = m.get("document").and_then(|d| d["name"].as_str()) {
                    out.push(name.to_owned());
                }
                m.values().for_each(|x| collect(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
}

#[test]
fn anthropic_documents_are_titled_by_their_names() {
    let (text, _) = body(Provider::Anthropic);
    assert!(text.contains(r#""title":"invoice.pdf""#));
}

#[test]
fn labels_name_the_attachment() {
    let (text, _) = body(Provider::OpenAiChat);
    assert!(
        text.contains("Attachment of the read_files result (call call_1): document invoice.pdf")
    );
    assert!(text.contains("image Dashboard [before].png"));
}

#[test]
fn imports_keep_the_names() {
    use AttachmentKind::{Document, Image};
    let named = |k, n: &str| (k, Some(n.to_owned()));
    // Anthropic: the document title; the image has no name field.
    assert_eq!(
        imported_names(Provider::Anthropic),
        [
            named(Document, "invoice.pdf"),
            named(Document, "Q3 report — final  (v2).pdf"),
            (Image, None),
        ]
    );
    // Responses: `input_file.filename`; the image has no name field.
    assert_eq!(
        imported_names(Provider::OpenAiResponses),
        [
            named(Document, "invoice.pdf"),
            named(Document, "Q3 report — final  (v2).pdf"),
            (Image, None),
        ]
    );
    // Chat and Gemini 2 move media out of the result under a label: the
    // label gives every name back.
    for provider in [Provider::OpenAiChat, Provider::Gemini2] {
        assert_eq!(
            imported_names(provider),
            [
                named(Document, "invoice.pdf"),
                named(Document, "Q3 report — final  (v2).pdf"),
                named(Image, "Dashboard [before].png"),
            ],
            "{provider}"
        );
    }
    // Bedrock: the document's name, fitted to its pattern, with the format
    // as its extension.
    assert_eq!(
        imported_names(Provider::Bedrock),
        [
            named(Document, "invoice.pdf"),
            named(Document, "Q3 report - final (v2).pdf"),
            (Image, None),
        ]
    );
}
