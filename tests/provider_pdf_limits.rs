//! The PDF limits the APIs state: pages a request (Anthropic 100 or 600
//! by the model's context, OpenAI and Bedrock 100, Gemini 1000), summed
//! over the request's documents, the oldest left out with a note; an
//! encrypted PDF not sent where the API refuses it (Anthropic); a page
//! count that cannot be read cheaply sent with a caveat; and each API's
//! self-check refusing a body that breaks them, whoever wrote it.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use base64::Engine;
use serde_json::json;
use support::{build_lines, calls, line, pdf_pages, Fixture};
use tool_carrier::provider::{build_request, BuildError, NoteReason, Provider};
use tool_carrier::rules::{check, Target};

/// Two rounds, each reading one document: `older` then `newer`.
fn two_documents(older: &str, newer: &str) -> String {
    let round = |id: &str, target: &str| {
        let declared = json!({"tool_call_id": id, "content": "read", "attachments": [{"kind": "document", "target": target}]});
        [
            calls(&[(id, "read_file")]),
            line("tool", &declared.to_string()),
        ]
        .concat()
    };
    [
        line("user", "Read them."),
        round("c1", older),
        round("c2", newer),
    ]
    .concat()
}

fn fixture() -> Fixture {
    let fixture = Fixture::new();
    fixture.add("p80.pdf", &pdf_pages("Eighty", 80, false));
    fixture.add("p30.pdf", &pdf_pages("Thirty", 30, false));
    fixture.add("p500.pdf", &pdf_pages("Five hundred", 500, false));
    fixture.add("p700.pdf", &pdf_pages("Seven hundred", 700, false));
    fixture.add("locked.pdf", &pdf_pages("Locked", 2, true));
    fixture
}

/// (provider, model, its page limit a request).
const LIMITS: [(Provider, &str, usize); 6] = [
    (Provider::Anthropic, "claude-haiku-4-5", 100),
    (Provider::Anthropic, "claude-sonnet-5-5", 600),
    (Provider::OpenAiChat, "gpt-5.5", 100),
    (Provider::OpenAiResponses, "gpt-5.5", 100),
    (Provider::Gemini, "gemini-3.8-flash", 1000),
    (Provider::Bedrock, "us.anthropic.claude-sonnet-5", 100),
];

fn documents_sent(body: &serde_json::Value) -> usize {
    body.to_string().matches("JVBERi0").count()
}

#[test]
fn pages_are_summed_and_the_oldest_documents_over_the_limit_left_out() {
    let fixture = fixture();
    for (older, newer, total) in [
        ("p80.pdf", "p30.pdf", 110),
        ("p500.pdf", "p30.pdf", 530),
        ("p700.pdf", "p30.pdf", 730),
    ] {
        let lines = two_documents(older, newer);
        for (provider, model, limit) in LIMITS {
            let options = fixture.options().with_model(model);
            let request = build_lines(provider, &lines, &options);
            let body = request.body.to_value();
            let notes = &request.report.notes;
            if total <= limit {
                assert_eq!(documents_sent(&body), 2, "{provider} {model} {total}");
                assert!(notes.is_empty(), "{provider} {model}: {notes:?}");
            } else {
                assert_eq!(documents_sent(&body), 1, "{provider} {model} {total}");
                assert_eq!(notes.len(), 1, "{provider} {model}: {notes:?}");
                assert_eq!(notes[0].target, older, "the older one goes");
                assert_eq!(notes[0].reason, NoteReason::OverPages);
                assert!(!notes[0].reason.is_failure());
                assert!(
                    notes[0]
                        .text
                        .contains(&format!("takes at most {limit} PDF pages")),
                    "{}",
                    notes[0].text
                );
            }
        }
    }
}

/// One document over the limit on its own is left out too; a newer one
/// within it is kept before it.
#[test]
fn a_single_document_over_the_limit_is_left_out() {
    let fixture = fixture();
    let lines = two_documents("p30.pdf", "p700.pdf");
    let options = fixture.options().with_model("gpt-5.5");
    let request = build_lines(Provider::OpenAiChat, &lines, &options);
    // Newest first: the 700 pages do not fit, and everything older goes.
    assert_eq!(documents_sent(&request.body.to_value()), 0);
    assert_eq!(request.report.notes.len(), 2);
}

#[test]
fn an_encrypted_pdf_is_not_sent_where_the_api_refuses_it() {
    let fixture = fixture();
    let lines = two_documents("p30.pdf", "locked.pdf");
    for (provider, model, _) in LIMITS {
        let options = fixture.options().with_model(model);
        let request = build_lines(provider, &lines, &options);
        let body = request.body.to_value();
        if provider == Provider::Anthropic {
            assert_eq!(documents_sent(&body), 1, "{model}");
            let note = &request.report.notes[0];
            assert_eq!(note.target, "locked.pdf");
            assert_eq!(note.reason, NoteReason::NotTaken);
            assert!(
                note.reason.is_failure(),
                "an attachment that cannot be sent"
            );
            assert!(
                note.text.contains(
                    "it is encrypted (password-protected), and Anthropic refuses encrypted PDFs"
                ),
                "{}",
                note.text
            );
            // --strict refuses the request.
            let strict = build_request(
                provider,
                &support::history_lines(&lines),
                &fixture.options().with_model(model).with_strict(true),
            );
            assert!(matches!(strict, Err(BuildError::Attachments(_))), "{model}");
        } else {
            // The others document nothing about encryption: sent.
            assert_eq!(documents_sent(&body), 2, "{provider}");
            assert!(request.report.notes.is_empty(), "{provider}");
        }
    }
}

/// A page tree in a compressed object stream: the count is not read, so
/// the document is sent and the report says it went unchecked.
#[test]
fn an_unread_page_count_is_sent_with_a_caveat() {
    let fixture = fixture();
    let compressed = b"%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 3 /First 20 /Filter /FlateDecode /Length 4 >>\nstream\nx\x9c\x03\x00\nendstream\nendobj\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 2 >>\nstartxref\n120\n%%EOF\n";
    fixture.add("packed.pdf", compressed);
    let lines = two_documents("p30.pdf", "packed.pdf");
    let options = fixture.options().with_model("claude-haiku-4-5");
    let request = build_lines(Provider::Anthropic, &lines, &options);
    assert_eq!(documents_sent(&request.body.to_value()), 2);
    assert_eq!(
        request.report.caveats,
        ["message 4: document packed.pdf sent, its page count unread (its page tree is compressed): an Anthropic request takes at most 100 PDF pages"]
    );
    // Gemini's limit is far, but a limit: the caveat is given there too.
    let request = build_lines(Provider::Gemini, &lines, &fixture.options());
    assert_eq!(request.report.caveats.len(), 1);
}

/// The self-check reads the body: a request another program wrote with
/// too many pages, or an encrypted PDF for Anthropic, breaks the API's
/// rule.
#[test]
fn each_apis_rule_refuses_a_body_over_its_pdf_limits() {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let long = b64(&pdf_pages("Long", 150, false));
    let locked = b64(&pdf_pages("Locked", 2, true));
    let bodies = [
        (
            Provider::Anthropic,
            "claude-haiku-4-5",
            json!({"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": long}},
            {"type": "text", "text": "Read."}]}]}),
        ),
        (
            Provider::OpenAiChat,
            "gpt-5.5",
            json!({"model": "gpt-5.5", "messages": [{"role": "user", "content": [
            {"type": "file", "file": {"filename": "long.pdf", "file_data": format!("data:application/pdf;base64,{long}")}},
            {"type": "text", "text": "Read."}]}]}),
        ),
        (
            Provider::OpenAiResponses,
            "gpt-5.5",
            json!({"model": "gpt-5.5", "input": [{"role": "user", "content": [
            {"type": "input_file", "filename": "long.pdf", "file_data": format!("data:application/pdf;base64,{long}")},
            {"type": "input_text", "text": "Read."}]}]}),
        ),
        (
            Provider::Bedrock,
            "us.anthropic.claude-sonnet-5",
            json!({"messages": [{"role": "user", "content": [
            {"document": {"format": "pdf", "name": "long", "source": {"bytes": long}}},
            {"text": "Read."}]}]}),
        ),
    ];
    for (provider, model, body) in bodies {
        let broken = check(&Target::new(provider, model), &body);
        let ids: Vec<&str> = broken.iter().map(|v| v.rule.id).collect();
        assert!(
            ids.iter().any(|id| id.ends_with("/pdf-pages")),
            "{provider}: {ids:?}"
        );
    }
    // Gemini takes 1000: 150 pages pass, 1100 do not.
    let gemini = |pages: u32| {
        let data = b64(&pdf_pages("P", pages, false));
        json!({"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "application/pdf", "data": data}}, {"text": "Read."}]}]})
    };
    let target = Target::new(Provider::Gemini, "gemini-3.8-flash");
    assert!(!check(&target, &gemini(150))
        .iter()
        .any(|v| v.rule.id == "gemini/pdf-pages"));
    assert!(check(&target, &gemini(1100))
        .iter()
        .any(|v| v.rule.id == "gemini/pdf-pages"));
    let body = json!({"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": locked}},
        {"type": "text", "text": "Read."}]}]});
    let broken = check(&Target::new(Provider::Anthropic, "claude-haiku-4-5"), &body);
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!(broken[0].rule.id, "anthropic/pdf-not-encrypted");
    assert_eq!(broken[0].at, "$.messages[0].content[0].source.data");
}

/// Options are not needed for the limit: the defaults hold it.
#[test]
fn the_default_model_of_each_api_has_its_limit() {
    let fixture = fixture();
    let lines = two_documents("p80.pdf", "p30.pdf");
    for (provider, sent) in [
        (Provider::Anthropic, 2),
        (Provider::OpenAiChat, 1),
        (Provider::OpenAiResponses, 1),
        (Provider::Gemini, 2),
        (Provider::Bedrock, 1),
    ] {
        let request = build_lines(provider, &lines, &fixture.options());
        assert_eq!(documents_sent(&request.body.to_value()), sent, "{provider}");
    }
}
