//! A conversation held across turns gives, every turn, the body
//! `build_request` gives for the same records: when nothing changed, when
//! a screenshot file is rewritten or cut short after it was prepared, and
//! for another provider. What it keeps is what the last request used.
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod support;

use std::path::Path;

use tool_carrier::history::{AssistantTurn, ToolResult};
use tool_carrier::media::Policy;
use tool_carrier::provider::{build_request, NoteReason, Options, Provider};
use tool_carrier::roots::Roots;
use tool_carrier::Attachment;
use tool_carrier::Conversation;

fn options(dir: &Path) -> Options {
    Options::new().with_policy(Policy::default().with_roots(Roots::new([dir]).unwrap()))
}

fn save(dir: &Path, name: &str, seed: u64) {
    let png = support::png_rgb(&support::screenshot(1400, 900, seed));
    std::fs::write(dir.join(name), png).unwrap();
}

/// A round: the model calls `screenshot`, the tool answers with `name`.
fn round(c: &mut Conversation, n: usize, name: &str) {
    let id = format!("toolu_{n}");
    let call = AssistantTurn::new("")
        .call(&id, "screenshot", "{}")
        .unwrap();
    c.push_assistant(&call);
    let result = ToolResult::new(&id, "Captured.").attach(Attachment::image(name));
    c.push_result(&result).unwrap();
}

/// The conversation's body equals a fresh `build_request` of its records.
fn same_as_fresh(c: &Conversation, provider: Provider, dir: &Path) -> String {
    let kept = c.request_for(provider).unwrap();
    let fresh = build_request(provider, c.records(), &options(dir)).unwrap();
    assert_eq!(kept.json(), fresh.json(), "{provider}");
    assert_eq!(kept.report.notes, fresh.report.notes);
    kept.json().to_owned()
}

#[test]
fn every_turn_gives_the_body_build_request_gives() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Conversation::new(Provider::Anthropic, options(dir.path()));
    c.push_user("Watch the screen.");
    for n in 0..4 {
        let name = format!("shot-{n}.png");
        save(dir.path(), &name, n as u64);
        round(&mut c, n, &name);
        same_as_fresh(&c, Provider::Anthropic, dir.path());
        // Asked twice, the same bytes: the kept texts are the payloads.
        assert_eq!(c.request().unwrap().json(), c.request().unwrap().json());
    }
    assert_eq!(c.kept(), 4);
    // Another provider's limits prepare other payloads.
    same_as_fresh(&c, Provider::OpenAiResponses, dir.path());
    same_as_fresh(&c, Provider::Gemini, dir.path());
    same_as_fresh(&c, Provider::Anthropic, dir.path());
    // Undo two rounds: the two screenshots they held are let go.
    c.truncate(c.records().len() - 4);
    same_as_fresh(&c, Provider::Anthropic, dir.path());
    assert_eq!(c.kept(), 2);
}

#[test]
fn a_file_rewritten_after_it_was_prepared_is_prepared_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Conversation::new(Provider::Anthropic, options(dir.path()));
    c.push_user("Watch.");
    save(dir.path(), "shot.png", 1);
    round(&mut c, 0, "shot.png");
    let before = same_as_fresh(&c, Provider::Anthropic, dir.path());
    // The same name, other pixels (same size or not).
    save(dir.path(), "shot.png", 2);
    let after = same_as_fresh(&c, Provider::Anthropic, dir.path());
    assert_ne!(before, after);
}

#[test]
fn a_file_cut_short_after_it_was_prepared_is_never_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Conversation::new(Provider::Anthropic, options(dir.path()));
    c.push_user("Watch.");
    save(dir.path(), "shot.png", 3);
    round(&mut c, 0, "shot.png");
    assert_eq!(c.request().unwrap().report.images, 1);
    let whole = std::fs::read(dir.path().join("shot.png")).unwrap();
    std::fs::write(dir.path().join("shot.png"), &whole[..whole.len() / 2]).unwrap();
    let request = c.request().unwrap();
    assert_eq!(request.report.images, 0);
    assert_eq!(request.report.notes[0].reason, NoteReason::Media);
    same_as_fresh(&c, Provider::Anthropic, dir.path());
    assert_eq!(c.kept(), 0);
}

#[test]
fn a_response_is_read_and_appended_or_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Conversation::new(Provider::Anthropic, options(dir.path()));
    c.push_user("Hello.");
    let err = c
        .push_response(r#"{"model":"m","messages":[]}"#)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the response: neither a response body nor a stream of Anthropic"
    );
    let err = c
        .push_response(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
        .unwrap_err();
    assert!(err.to_string().contains("overloaded_error"));
    assert_eq!(c.records().len(), 1);
    let turn = c
        .push_response("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"type\":\"message\",\"content\":[]}}\n\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi.\"}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_stop\"}\n\n")
        .unwrap();
    assert_eq!(turn.text(), "Hi.");
    assert_eq!(c.records()[1], ("assistant".to_owned(), "Hi.".to_owned()));
}

/// The built-in resolver, counting what it reads.
struct Counting {
    inner: tool_carrier::media::DefaultResolver,
    reads: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl tool_carrier::media::Resolver for Counting {
    fn resolve(
        &self,
        target: &str,
    ) -> Result<tool_carrier::media::Source, tool_carrier::media::MediaError> {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.resolve(target)
    }

    fn stamp(&self, target: &str) -> Option<tool_carrier::media::Stamp> {
        self.inner.stamp(target)
    }
}

/// Options reading from `dir` through a [`Counting`] resolver, and its
/// count of reads.
fn counting(dir: &Path) -> (Options, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let reads = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let policy = Policy::default().with_roots(Roots::new([dir]).unwrap());
    let resolver = Counting {
        inner: tool_carrier::media::DefaultResolver::new(policy.clone()),
        reads: reads.clone(),
    };
    let options = Options::new().with_policy(policy).with_resolver(resolver);
    (options, reads)
}

#[test]
fn a_warm_turn_reads_only_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let (options, reads) = counting(dir.path());
    let mut c = Conversation::new(Provider::Anthropic, options);
    c.push_user("Watch.");
    let count = || reads.load(std::sync::atomic::Ordering::Relaxed);
    for n in 0..3 {
        let name = format!("shot-{n}.png");
        save(dir.path(), &name, 10 + n as u64);
        round(&mut c, n, &name);
        let before = count();
        c.request().unwrap();
        assert_eq!(
            count() - before,
            1,
            "turn {n}: only the new screenshot is read"
        );
    }
    let before = count();
    c.request().unwrap();
    assert_eq!(count(), before, "nothing changed: nothing read");
    // Touch one file: it alone is read again.
    save(dir.path(), "shot-1.png", 11);
    c.request().unwrap();
    assert_eq!(count() - before, 1);
}

/// With an uploads map, a warm turn reads no file it read before: the
/// conversation knows each file's hash by its stamp, asks the map again
/// every turn (a file uploaded since goes by reference at once), and its
/// bodies are still those `build_request` gives.
#[test]
fn uploads_are_looked_up_without_reading_again() {
    use tool_carrier::media::{ProviderFile, Uploads};
    let dir = tempfile::tempdir().unwrap();
    let (counted, reads) = counting(dir.path());
    let count = || reads.load(std::sync::atomic::Ordering::Relaxed);
    let uploads = |names: &[&str]| {
        names.iter().fold(Uploads::new(), |u, name| {
            let bytes = std::fs::read(dir.path().join(name)).unwrap();
            let target = format!("anthropic-file:file_{}", name.replace(['.', '-'], "_"));
            u.with(&bytes, ProviderFile::parse(&target).unwrap().unwrap())
                .unwrap()
        })
    };
    save(dir.path(), "shot-0.png", 20);
    save(dir.path(), "shot-1.png", 21);
    let given = counted.with_uploads(uploads(&["shot-0.png"]));
    let mut c = Conversation::new(Provider::Anthropic, given);
    c.push_user("Watch.");
    round(&mut c, 0, "shot-0.png");
    round(&mut c, 1, "shot-1.png");
    let first = c.request().unwrap();
    assert_eq!((first.report.files, first.report.images), (1, 1));
    assert_eq!(count(), 2, "each file read once");
    let fresh = |c: &Conversation| {
        let uploads = c.options().uploads().cloned().unwrap_or_default();
        let options = options(dir.path()).with_uploads(uploads);
        build_request(Provider::Anthropic, c.records(), &options).unwrap()
    };
    assert_eq!(first.json(), fresh(&c).json());
    // A warm turn: nothing read, the same body.
    let again = c.request().unwrap();
    assert_eq!(count(), 2, "nothing read again");
    assert_eq!(again.json(), first.json());
    // shot-1 uploaded since: it goes by reference, still unread.
    c.set_uploads(uploads(&["shot-0.png", "shot-1.png"]));
    let later = c.request().unwrap();
    assert_eq!((later.report.files, later.report.images), (2, 0));
    assert_eq!(count(), 2, "found by its known hash");
    assert!(later.json().contains("file_shot_1_png"), "{}", later.json());
    assert_eq!(later.json(), fresh(&c).json());
    // Rewritten: read once again, and no longer the uploaded bytes.
    save(dir.path(), "shot-1.png", 22);
    let changed = c.request().unwrap();
    assert_eq!(count(), 3);
    assert_eq!((changed.report.files, changed.report.images), (1, 1));
}
