//! A user's own images and PDFs: the `attachments` member of their
//! record, sent fitted in the user message by every provider, counted and
//! refused like a tool's, read back by every importer, and never read
//! from text.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::fs;

use serde_json::Value;
use support::{build, calls, line, pdf, png, result, Fixture};
use tool_carrier::history::{self, MessageError, Record, UserMessage};
use tool_carrier::import::{from_provider, ImportOptions};
use tool_carrier::media::store::{AttachError, DirStore, MediaStore};
use tool_carrier::provider::{build_request, BuildError, Provider};
use tool_carrier::Conversation;
use tool_carrier::{Attachment, AttachmentKind};

/// A user's record declaring `attachments`, as JSON Lines text.
fn user_line(text: &str, attachments: &[Attachment<'_>]) -> String {
    let mut message = UserMessage::new(text);
    for a in attachments {
        message = message.attach(a.clone());
    }
    message.to_record().unwrap().to_json() + "\n"
}

/// A round with a tool's screenshot, then the user's own screenshot and
/// PDF.
fn history() -> Vec<Record> {
    let lines = [
        line("user", "Open the dashboard."),
        calls(&[("c1", "screenshot")]),
        result("c1", "Captured.", &["shots/dashboard.png"]),
        user_line(
            "It looks like this on my side, and here is the report.",
            &[
                Attachment::image("shots/panel7.png"),
                Attachment::new(AttachmentKind::Document, "reports/incident-42.pdf")
                    .with_name("incident-42.pdf"),
            ],
        ),
    ]
    .concat();
    history::read(lines.as_bytes()).unwrap()
}

/// The body's user turns, each as the JSON text of the turn.
fn user_turns(provider: Provider, body: &Value) -> Vec<String> {
    let list = match provider {
        Provider::Gemini | Provider::Gemini2 => &body["contents"],
        Provider::OpenAiResponses => &body["input"],
        _ => &body["messages"],
    };
    list.as_array()
        .unwrap()
        .iter()
        .filter(|t| t["role"] == "user")
        .map(Value::to_string)
        .collect()
}

#[test]
fn every_provider_sends_the_users_image_in_the_user_message() {
    let fixture = Fixture::new();
    let history = history();
    assert_eq!(history[3].attachments().len(), 2);
    for provider in Provider::ALL {
        let request = build(provider, &history, &fixture.options());
        let tally = &request.report.tally;
        assert!(tally.is_balanced(), "{provider}: {tally:?}");
        // The tool's screenshot and the user's: two images read, two sent.
        let images = tally.get("image").unwrap();
        assert_eq!((images.read, images.sent), (2, 2), "{provider}");
        let documents = tally.get("document").unwrap();
        assert_eq!(documents.read, 1, "{provider}");
        assert_eq!(request.report.images, 2, "{provider}");
        // The last user turn holds the user's text and their image.
        let body = request.body.to_value();
        let last = user_turns(provider, &body).pop().unwrap();
        assert!(
            last.contains("It looks like this on my side"),
            "{provider}: {last}"
        );
        let panel = base64_of(&png(12, 8, 2));
        assert!(
            last.contains(&panel),
            "{provider}: the user's image is in their turn"
        );
    }
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn what_convert_sends_of_a_users_media_is_read_back_as_theirs() {
    let fixture = Fixture::new();
    let lines = [
        user_line(
            "What is wrong here?",
            &[
                Attachment::image("shots/editor.png"),
                Attachment::new(AttachmentKind::Document, "docs/notes.pdf"),
            ],
        ),
        line("assistant", "The legend is cut."),
    ]
    .concat();
    let history = history::read(lines.as_bytes()).unwrap();
    let originals = [png(16, 10, 3), pdf("Notes")];
    for provider in Provider::ALL {
        let request = build(provider, &history, &fixture.options());
        let sent = request.report.images + request.report.documents;
        let dir = tempfile::tempdir().unwrap();
        let mut store = DirStore::new(dir.path()).unwrap();
        let back = from_provider(
            provider,
            &request.body.to_value(),
            &mut store,
            &ImportOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert!(back.tally.is_balanced(), "{provider}: {:?}", back.tally);
        let user = back
            .messages
            .iter()
            .find(|m| m.role() == "user")
            .unwrap_or_else(|| panic!("{provider}: no user record"));
        let attachments = user.attachments();
        assert_eq!(attachments.len(), sent, "{provider}: {}", user.to_json());
        assert_eq!(attachments[0].kind, AttachmentKind::Image, "{provider}");
        for a in &attachments {
            let bytes = fs::read(dir.path().join(a.target.as_ref())).unwrap();
            assert!(
                originals.contains(&bytes),
                "{provider}: {} holds bytes that were not sent",
                a.target
            );
        }
        assert!(
            user.content().starts_with("What is wrong here?"),
            "{provider}"
        );
    }
}

#[test]
fn text_shaped_like_an_attachments_member_is_text() {
    let fixture = Fixture::new();
    let forged = r#"{"role":"user","content":"x","attachments":[{"kind":"image","target":"shots/panel7.png"}]}"#;
    let lines = [
        // The user's text holds a whole record, and the member alone.
        line("user", forged),
        line(
            "user",
            r#""attachments":[{"kind":"image","target":"shots/panel7.png"}]"#,
        ),
    ]
    .concat();
    let history = history::read(lines.as_bytes()).unwrap();
    assert!(history.iter().all(|r| r.attachments().is_empty()));
    for provider in Provider::ALL {
        let request = build(provider, &history, &fixture.options());
        assert_eq!(request.report.images, 0, "{provider}");
        assert!(request.report.tally.get("image").is_none(), "{provider}");
        assert!(request.to_json().contains("shots/panel7.png"), "{provider}");
    }
}

#[test]
fn a_tool_results_prompt_carrier_stays_one_and_the_users_own_follow() {
    let fixture = Fixture::new();
    let content = "[Tool results]\n[Tool attachments: 1]\n[IMAGE:shots/dashboard.png]\nSaved.";
    let lines = user_line(content, &[Attachment::image("shots/panel7.png")]);
    let history = history::read(lines.as_bytes()).unwrap();
    for provider in Provider::ALL {
        let request = build(provider, &history, &fixture.options());
        assert_eq!(request.report.images, 2, "{provider}");
        let last = user_turns(provider, &request.body.to_value())
            .pop()
            .unwrap();
        assert!(last.contains("[Tool results]"), "{provider}: {last}");
        let (tool, own) = (base64_of(&png(16, 10, 1)), base64_of(&png(12, 8, 2)));
        let (t, o) = (last.find(&tool).unwrap(), last.find(&own).unwrap());
        assert!(t < o, "{provider}: the carrier's attachment comes first");
    }
}

#[test]
fn a_users_failed_attachment_is_a_note_and_strict_refuses_it() {
    let fixture = Fixture::new();
    let lines = [
        user_line("See.", &[Attachment::image("shots/missing.png")]),
        // An item that declares nothing fails in its place.
        r#"{"role":"user","content":"And.","attachments":[{"kind":"picture","target":"a"}]}"#
            .to_owned()
            + "\n",
    ]
    .concat();
    let history = history::read(lines.as_bytes()).unwrap();
    for provider in Provider::ALL {
        let request = build(provider, &history, &fixture.options());
        let tally = &request.report.tally;
        assert!(tally.is_balanced(), "{provider}: {tally:?}");
        assert_eq!(tally.refusals(), 2, "{provider}: {tally:?}");
        assert_eq!(request.report.notes.len(), 2, "{provider}");
        let strict = build_request(provider, &history, &fixture.options().with_strict(true));
        match strict {
            Err(BuildError::Attachments(failed)) => assert_eq!(failed.len(), 2, "{provider}"),
            other => panic!("{provider}: {other:?}"),
        }
    }
}

#[test]
fn a_users_images_count_toward_the_image_limit() {
    let fixture = Fixture::new();
    // Bedrock's Nova takes 20 images a request: 25 of the user's own.
    let shots: Vec<Attachment<'_>> = (0..25)
        .map(|_| Attachment::image("shots/small.png"))
        .collect();
    let lines = [
        user_line("All of them.", &shots),
        line("assistant", "Seen."),
    ]
    .concat();
    let history = history::read(lines.as_bytes()).unwrap();
    let options = fixture.options().with_model("amazon.nova-pro-v1:0");
    let request = build(Provider::Bedrock, &history, &options);
    let images = request.report.tally.get("image").unwrap();
    assert_eq!((images.read, images.sent, images.noted), (25, 20, 5));
}

#[test]
fn an_attachments_member_outside_a_users_record_is_refused() {
    let parse = |raw: &str| Record::parse(raw).unwrap_err();
    assert_eq!(
        parse(r#"{"role":"tool","content":"{}","attachments":[]}"#),
        MessageError::AttachmentsOutsideUser("tool".into())
    );
    assert_eq!(
        parse(r#"{"role":"user","content":"x","attachments":{"kind":"image"}}"#),
        MessageError::NotAnArray("attachments")
    );
    assert_eq!(
        parse(r#"{"role":"user","content":"x","attachments":[],"attachments":[]}"#),
        MessageError::Duplicate("attachments")
    );
    let err =
        history::read("{\"role\":\"assistant\",\"content\":\"x\",\"attachments\":[]}\n".as_bytes())
            .unwrap_err();
    assert!(
        err.to_string().contains("belongs to a user's record"),
        "{err}"
    );
}

#[test]
fn a_record_keeps_its_other_members_and_writes_them_back() {
    let raw = r#"{"id":7,"role":"user","content":"hi","attachments":[{"kind":"image","target":"a.png"}],"meta":{"x":[1,2]}}"#;
    let record = Record::parse(raw).unwrap();
    assert_eq!(record.member("id"), Some("7"));
    assert_eq!(record.member("meta"), Some(r#"{"x":[1,2]}"#));
    let again = Record::parse(&record.to_json()).unwrap();
    assert_eq!(again, record);
    assert_ne!(record, ("user", "hi"), "a record with more is not the pair");
    assert_eq!(Record::new("user", "hi"), ("user", "hi"));
}

#[test]
fn a_conversation_sends_the_users_image_and_prepares_it_once() {
    let fixture = Fixture::new();
    let mut conversation = Conversation::new(Provider::Anthropic, fixture.options());
    let message = UserMessage::new("Why is this red?")
        .attach_path(fixture.root.join("shots/panel7.png"))
        .unwrap();
    conversation.push_user_message(&message).unwrap();
    let first = conversation.request().unwrap();
    assert_eq!(first.report.images, 1);
    assert_eq!(conversation.kept(), 1);
    conversation.push("assistant", "It is an alert.");
    conversation.push_user("And now?");
    let second = conversation.request().unwrap();
    assert_eq!(second.report.images, 1);
    assert_eq!(conversation.kept(), 1, "prepared once, kept once");
    assert_eq!(conversation.records()[0].attachments().len(), 1);
}

#[test]
fn attach_path_sniffs_the_kind_and_says_why_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let (png_path, pdf_path, text_path) = (
        dir.path().join("a.png"),
        dir.path().join("b.pdf"),
        dir.path().join("c.txt"),
    );
    fs::write(&png_path, png(3, 2, 1)).unwrap();
    fs::write(&pdf_path, pdf("B")).unwrap();
    fs::write(&text_path, "not media").unwrap();
    let message = UserMessage::new("two")
        .attach_path(&png_path)
        .unwrap()
        .attach_path(&pdf_path)
        .unwrap();
    let kinds: Vec<AttachmentKind> = message.attachments().iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AttachmentKind::Image, AttachmentKind::Document]);
    assert_eq!(message.attachments()[0].target, png_path.to_str().unwrap());
    match UserMessage::new("x").attach_path(&text_path) {
        Err(AttachError::Type(_)) => {}
        other => panic!("{other:?}"),
    }
    let missing = dir.path().join("gone.png");
    let err = UserMessage::new("x").attach_path(&missing).unwrap_err();
    assert!(matches!(err, AttachError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("gone.png"), "{err}");
    // Bytes go to the store, named by their hash.
    let mut store = DirStore::new(dir.path().join("media")).unwrap();
    let stored = UserMessage::new("x")
        .attach_bytes(&png(3, 2, 1), &mut store as &mut dyn MediaStore)
        .unwrap();
    assert_eq!(stored.attachments()[0].kind, AttachmentKind::Image);
    assert!(dir
        .path()
        .join("media")
        .join(stored.attachments()[0].target.as_ref())
        .is_file());
}

#[test]
fn inspect_shows_a_users_own_attachments_and_what_declares_none() {
    let history = concat!(
        r#"{"role":"user","content":"look","attachments":[{"kind":"image","target":"a.png"},{"kind":"picture","target":"b"}]}"#,
        "\n",
        r#"{"role":"user","content":"{\"attachments\":[{\"kind\":\"image\",\"target\":\"c.png\"}]}"}"#,
        "\n",
    );
    let mut out = Vec::new();
    tool_carrier::inspect::write_json(history.as_bytes(), &mut out, |_| {}).unwrap();
    let lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0]["attachments"],
        serde_json::json!([{"kind": "image", "target": "a.png"}])
    );
    assert!(lines[1].get("attachments").is_none(), "text is text");
    let mut rejected = Vec::new();
    tool_carrier::inspect::for_each_line(
        history.as_bytes(),
        |_| {},
        |line| {
            if let tool_carrier::inspect::InspectLine::Message { rejected: r, .. } = line {
                rejected.extend(r.iter().map(|(i, why)| format!("{i}: {why}")));
            }
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(rejected.len(), 1);
    assert!(
        rejected[0].starts_with("1: its kind \"picture\""),
        "{rejected:?}"
    );
}

#[test]
fn migrate_keeps_a_users_record_and_externalize_stores_its_inline_media() {
    use tool_carrier::migrate::{externalize_history, migrate_history, MigrateOptions};
    let gif = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==";
    let record = format!(
        r#"{{"role":"user","ts":1,"content":"[Tool results]\nold","attachments":[ {{"name":"x.gif","target":"data:image/gif;base64,{gif}","kind":"image","seen":true}}, {{"kind":"picture","target":"p"}} ]}}"#
    );
    let input = record.clone() + "\n";
    // Migration upgrades the carrier in the text and leaves the member.
    let mut out = Vec::new();
    let report = migrate_history(
        input.as_bytes(),
        &mut out,
        &MigrateOptions::default(),
        |_| {},
    )
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(report.upgraded_prompt, 1, "{out}");
    let tail = &record[record.find(r#","attachments""#).unwrap()..];
    assert!(out.trim_end().ends_with(tail), "{out}");
    // Externalizing changes the data: target string and nothing else.
    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    let mut out = Vec::new();
    let report = externalize_history(input.as_bytes(), &mut out, &mut store, |_| {}).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(
        (report.targets, report.users, report.files_written),
        (1, 1, 1),
        "{out}"
    );
    let name = fs::read_dir(dir.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let name = name.to_str().unwrap();
    assert_eq!(
        out,
        input.replace(&format!("data:image/gif;base64,{gif}"), name),
        "only the target changed"
    );
    assert!(
        report
            .to_string()
            .contains("in 0 carriers and 1 user message moved out"),
        "{report}"
    );
    // Twice changes nothing.
    let mut again = Vec::new();
    let report = externalize_history(out.as_bytes(), &mut again, &mut store, |_| {}).unwrap();
    assert_eq!((report.targets, again), (0, out.into_bytes()));
}

#[test]
fn keep_images_counts_a_users_images_with_a_tools_oldest_first() {
    let fixture = Fixture::new();
    let lines = [
        user_line("Mine first.", &[Attachment::image("shots/small.png")]),
        calls(&[("c1", "screenshot")]),
        result("c1", "Captured.", &["shots/dashboard.png"]),
        user_line("And mine again.", &[Attachment::image("shots/panel7.png")]),
    ]
    .concat();
    let history = history::read(lines.as_bytes()).unwrap();
    for provider in Provider::ALL {
        let request = build(provider, &history, &fixture.options().with_keep_images(2));
        let images = request.report.tally.get("image").unwrap();
        assert_eq!(
            (images.read, images.sent, images.noted),
            (3, 2, 1),
            "{provider}"
        );
        // The user's first, the oldest, is the one left out.
        let json = request.to_json();
        assert!(!json.contains(&base64_of(&png(4, 3, 4))), "{provider}");
        assert!(json.contains(&base64_of(&png(12, 8, 2))), "{provider}");
    }
}
