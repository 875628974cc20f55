//! URLs fetched on the caller's say (`Options::with_url_fetcher`): only
//! for a provider that takes no URL for the kind, the bytes then checked
//! and fitted as a local file's (the same body as from a file of those
//! bytes), a failure a note, nothing fetched without a fetcher.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tool_carrier::media::{MediaError, Policy};
use tool_carrier::provider::{build_request, NoteReason, Options, Provider};

fn history(target: &str) -> Vec<(&'static str, String)> {
    let envelope = serde_json::json!({
        "tool_call_id": "c1", "content": "shot",
        "attachments": [{"kind": "image", "target": target}],
    });
    vec![("user", "Look.".to_owned()), ("tool", envelope.to_string())]
}

/// A fetcher that answers `bytes` and counts its calls.
fn counting(bytes: Vec<u8>) -> (Arc<AtomicUsize>, Options) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let fetcher = move |_: &str| -> Result<Vec<u8>, MediaError> {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(bytes.clone())
    };
    (calls, Options::new().with_url_fetcher(Arc::new(fetcher)))
}

#[test]
fn a_fetched_image_is_sent_as_a_file_of_its_bytes_is() {
    let png = support::png(2400, 900, 9);
    let fixture = support::Fixture::new();
    fixture.add("shots/big.png", &png);
    for provider in [Provider::Gemini, Provider::Bedrock, Provider::Ollama] {
        let (calls, options) = counting(png.clone());
        let fetched =
            build_request(provider, &history("https://cdn.test/big.png"), &options).unwrap();
        let from_file =
            build_request(provider, &history("shots/big.png"), &fixture.options()).unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1, "{provider}");
        assert!(
            fetched.report.notes.is_empty(),
            "{provider}: {:?}",
            fetched.report.notes
        );
        // Fitted the same: the same body, but for the labels naming the
        // target.
        let strip = |json: &str, target: &str| json.replace(target, "TARGET");
        assert_eq!(
            strip(fetched.json(), "https://cdn.test/big.png"),
            strip(from_file.json(), "shots/big.png"),
            "{provider}"
        );
        assert_eq!(support::png_sizes(&fetched), [(2000, 750)], "{provider}");
    }
}

#[test]
fn a_provider_that_takes_urls_is_sent_the_url_unfetched() {
    for provider in [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
    ] {
        let (calls, options) = counting(support::png(4, 3, 1));
        let request =
            build_request(provider, &history("https://cdn.test/a.png"), &options).unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 0, "{provider}");
        assert!(
            request.json().contains("https://cdn.test/a.png"),
            "{provider}"
        );
        assert_eq!(request.report.urls, 1, "{provider}");
    }
}

#[test]
fn what_cannot_be_fetched_or_is_too_large_is_a_failed_note() {
    let refusing = |url: &str| -> Result<Vec<u8>, MediaError> {
        Err(MediaError::Refused {
            target: url.into(),
            reason: "not fetched: HTTP 404 Not Found".into(),
        })
    };
    let options = Options::new().with_url_fetcher(Arc::new(refusing));
    let request = build_request(
        Provider::Gemini,
        &history("https://cdn.test/a.png"),
        &options,
    )
    .unwrap();
    let note = &request.report.notes[0];
    assert!(
        note.text
            .ends_with("not attached: not fetched: HTTP 404 Not Found]"),
        "{}",
        note.text
    );
    assert_eq!(note.reason, NoteReason::Media);
    assert!(note.reason.is_failure());
    // --strict refuses it.
    let strict = Options::new()
        .with_url_fetcher(Arc::new(refusing))
        .with_strict(true);
    assert!(build_request(
        Provider::Gemini,
        &history("https://cdn.test/a.png"),
        &strict
    )
    .is_err());
    // Held to the policy's file limit whatever the fetcher returns.
    let (_, options) = counting(vec![0u8; 2048]);
    let options = options.with_policy(Policy::default().with_max_file_bytes(1024));
    let request = build_request(
        Provider::Gemini,
        &history("https://cdn.test/a.png"),
        &options,
    )
    .unwrap();
    assert!(
        request.report.notes[0]
            .text
            .contains("fetched 2048 bytes, over the 1024-byte limit"),
        "{}",
        request.report.notes[0].text
    );
}
