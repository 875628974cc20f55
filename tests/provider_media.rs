//! What becomes of declared attachments: one test per rule.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::Value;
use support::{build_lines, calls, line, png, result, strings, Fixture, GIF};
use tool_carrier::history;
use tool_carrier::media::{Loaded, MediaError, Origin, Source};
use tool_carrier::provider::{Options, Provider, Request};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// One call whose result declares `targets` (as images unless a target
/// ends in `.pdf`).
fn one_round(targets: &[&str], body: &str) -> String {
    let attachments: Vec<Value> = targets
        .iter()
        .map(|t| {
            let kind = if t.ends_with(".pdf") {
                "document"
            } else {
                "image"
            };
            serde_json::json!({"kind": kind, "target": t})
        })
        .collect();
    let carrier =
        serde_json::json!({"tool_call_id": "c1", "content": body, "attachments": attachments});
    [
        line("user", "Go."),
        calls(&[("c1", "read")]),
        line("tool", &carrier.to_string()),
    ]
    .concat()
}

/// Every `(media type, base64)` sent inline, in the body's order, for any
/// provider's shape.
fn inline_media(provider: Provider, body: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    fn walk(provider: Provider, v: &Value, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                let found = match provider {
                    Provider::Anthropic
                        if m.get("type").and_then(Value::as_str) == Some("base64") =>
                    {
                        Some((
                            m["media_type"].as_str().unwrap().to_owned(),
                            m["data"].as_str().unwrap().to_owned(),
                        ))
                    }
                    Provider::Gemini | Provider::Gemini2 if m.contains_key("mimeType") => Some((
                        m["mimeType"].as_str().unwrap().to_owned(),
                        m["data"].as_str().unwrap().to_owned(),
                    )),
                    Provider::Bedrock if m.contains_key("format") && m.contains_key("source") => {
                        Some((
                            m["format"].as_str().unwrap().to_owned(),
                            m["source"]["bytes"].as_str().unwrap().to_owned(),
                        ))
                    }
                    _ => None,
                };
                if let Some(f) = found {
                    out.push(f);
                    return;
                }
                for (k, x) in m {
                    if provider == Provider::Ollama && k == "images" {
                        for img in x.as_array().unwrap() {
                            out.push(("base64".into(), img.as_str().unwrap().to_owned()));
                        }
                    } else {
                        walk(provider, x, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(provider, x, out)),
            Value::String(s) if s.starts_with("data:") => {
                let (head, data) = s.split_once(";base64,").unwrap();
                out.push((head[5..].to_owned(), data.to_owned()));
            }
            _ => {}
        }
    }
    walk(provider, body, &mut out);
    out
}

fn all_text(request: &Request) -> String {
    strings(&request.body.to_value()).join("\n")
}

/// A resolver that serves files of a fixture and records every target it
/// was asked for.
fn recording(fixture: &Fixture) -> (Options, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let root = fixture.root.clone();
    let options =
        fixture
            .options()
            .with_resolver(move |target: &str| -> Result<Source, MediaError> {
                log.lock().unwrap().push(target.to_owned());
                match std::fs::read(root.join(target)) {
                    Ok(bytes) => Ok(Source::Bytes(Loaded::new(bytes, Origin::Other))),
                    Err(e) => Err(MediaError::Refused {
                        target: target.into(),
                        reason: e.kind().to_string(),
                    }),
                }
            });
    (options, asked)
}

#[test]
fn only_declared_attachments_are_resolved() {
    let fixture = Fixture::new();
    let (options, asked) = recording(&fixture);
    let history = [
        line("user", "Go."),
        calls(&[("c1", "read")]),
        result(
            "c1",
            "[IMAGE:shots/editor.png]\n[IMAGE:/etc/passwd]",
            &["shots/dashboard.png"],
        ),
        line(
            "user",
            "[Tool results]\n[Tool attachments: 0]\n[IMAGE:shots/panel7.png]\n",
        ),
        line("user", "[Tool results]\n[IMAGE:shots/small.png]\nlegacy"),
    ]
    .concat();
    for provider in Provider::ALL {
        asked.lock().unwrap().clear();
        let request = build_lines(provider, &history, &options);
        assert_eq!(
            *asked.lock().unwrap(),
            ["shots/dashboard.png"],
            "{provider}"
        );
        assert_eq!(request.report.images, 1, "{provider}");
        let text = all_text(&request);
        assert!(
            text.contains("[IMAGE:/etc/passwd]"),
            "{provider}: body text kept"
        );
        assert!(
            text.contains("[IMAGE:shots/panel7.png]"),
            "{provider}: body text kept"
        );
    }
}

#[test]
fn a_target_that_fails_becomes_a_note_with_its_reason() {
    let fixture = Fixture::new();
    let history = one_round(
        &[
            "shots/missing.png",
            "../outside.png",
            "shots/not-an-image.png",
            "data:image/png;base64,!!",
            "shots/dashboard.png",
        ],
        "Read five files.",
    );
    for provider in Provider::ALL {
        let request = build_lines(provider, &history, &fixture.options());
        assert_eq!(
            request.report.images, 1,
            "{provider}: the good one is still sent"
        );
        let notes: Vec<&str> = request
            .report
            .notes
            .iter()
            .map(|n| n.text.as_str())
            .collect();
        assert_eq!(
            notes,
            [
                "[image shots/missing.png not attached: cannot resolve: No such file or directory (os error 2)]",
                "[image ../outside.png not attached: outside the allowed folders]",
                "[image shots/not-an-image.png not attached: not a supported image or PDF (unrecognised bytes)]",
                "[image unnamed PNG not attached: data: URI: payload is not canonical base64 (Invalid symbol 33, offset 0.)]",
            ],
            "{provider}"
        );
        let text = all_text(&request);
        for note in notes {
            assert!(text.contains(note), "{provider}: {note} is in the request");
        }
        assert!(request.report.notes.iter().all(|n| n.index == 2));
    }
}

#[test]
fn without_roots_no_local_file_is_read() {
    let history = one_round(&["/etc/hostname"], "x");
    let request = build_lines(Provider::Anthropic, &history, &Options::new());
    assert_eq!(
        request.report.notes[0].text,
        "[image /etc/hostname not attached: local files are not allowed (no roots configured)]"
    );
}

#[test]
fn vision_off_turns_every_attachment_into_a_note_naming_its_target() {
    let fixture = Fixture::new();
    let (options, asked) = recording(&fixture);
    let options = options.with_vision(false);
    let history = one_round(
        &[
            "shots/dashboard.png",
            "reports/incident-42.pdf",
            "https://x.test/a.png",
        ],
        "done",
    );
    for provider in Provider::ALL {
        let request = build_lines(provider, &history, &options);
        assert!(
            asked.lock().unwrap().is_empty(),
            "{provider}: nothing loaded"
        );
        assert_eq!(
            (
                request.report.images,
                request.report.documents,
                request.report.urls
            ),
            (0, 0, 0)
        );
        assert!(
            inline_media(provider, &request.body.to_value()).is_empty(),
            "{provider}"
        );
        let text = all_text(&request);
        for target in [
            "shots/dashboard.png",
            "reports/incident-42.pdf",
            "https://x.test/a.png",
        ] {
            assert!(
                text.contains(&format!(
                    "{target} omitted: this model cannot view attachments]"
                )),
                "{provider}: {target}"
            );
        }
    }
}

#[test]
fn http_targets_are_url_sources_for_anthropic_and_openai_and_notes_elsewhere() {
    let history = one_round(
        &["https://example.com/a.png", "https://example.com/b.pdf"],
        "fetched",
    );
    let url = "https://example.com/a.png";
    let cases: [(Provider, &str, usize); 7] = [
        (
            Provider::Anthropic,
            "/messages/2/content/0/content/1/source/url",
            2,
        ),
        (
            Provider::OpenAiChat,
            "/messages/3/content/1/image_url/url",
            1,
        ),
        (Provider::OpenAiResponses, "/input/2/output/1/image_url", 2),
        (Provider::Gemini, "", 0),
        (Provider::Gemini2, "", 0),
        (Provider::Bedrock, "", 0),
        (Provider::Ollama, "", 0),
    ];
    for (provider, pointer, urls) in cases {
        let request = build_lines(provider, &history, &Options::new());
        assert_eq!(request.report.urls, urls, "{provider}");
        if urls > 0 {
            assert_eq!(
                request
                    .body
                    .to_value()
                    .pointer(pointer)
                    .and_then(Value::as_str),
                Some(url),
                "{provider}"
            );
        } else {
            let text = all_text(&request);
            assert!(
                text.contains("[image https://example.com/a.png not attached:"),
                "{provider}"
            );
            assert!(
                text.contains("does not take image URLs here]"),
                "{provider}"
            );
        }
    }
    // The PDF URL: Anthropic and Responses take it, Chat Completions does not.
    let chat = build_lines(Provider::OpenAiChat, &history, &Options::new());
    assert!(all_text(&chat).contains("[document https://example.com/b.pdf not attached: OpenAI does not take document URLs here]"));
    let responses = build_lines(Provider::OpenAiResponses, &history, &Options::new());
    assert_eq!(
        responses
            .body
            .to_value()
            .pointer("/input/2/output/2/file_url")
            .unwrap(),
        "https://example.com/b.pdf"
    );
}

#[test]
fn bedrock_keeps_the_newest_20_images_and_notes_the_oldest() {
    let fixture = Fixture::new();
    let (options, asked) = recording(&fixture);
    let mut history = line("user", "Take 25 shots.");
    for n in 0..25 {
        let id = format!("c{n}");
        history += &calls(&[(&id, "screenshot")]);
        history += &result(&id, &format!("shot {n}"), &["shots/small.png"]);
    }
    let request = build_lines(Provider::Bedrock, &history, &options);
    assert_eq!(request.report.images, 20);
    assert_eq!(
        asked.lock().unwrap().len(),
        20,
        "the omitted ones are never loaded"
    );
    let noted: Vec<usize> = request.report.notes.iter().map(|n| n.index).collect();
    assert_eq!(noted, [2, 4, 6, 8, 10], "the five oldest, in history order");
    assert_eq!(
        request.report.notes[0].text,
        "[image shots/small.png omitted: a Bedrock request takes at most 20 images; the oldest are left out]"
    );
    // Anthropic takes 100: all 25 are sent.
    assert_eq!(
        build_lines(Provider::Anthropic, &history, &options)
            .report
            .images,
        25
    );
}

#[test]
fn bedrock_keeps_the_newest_5_documents() {
    let fixture = Fixture::new();
    let targets = ["docs/notes.pdf"; 7];
    let request = build_lines(
        Provider::Bedrock,
        &one_round(&targets, "seven"),
        &fixture.options(),
    );
    assert_eq!(request.report.documents, 5);
    assert_eq!(request.report.notes.len(), 2);
    let names: Vec<String> = strings(&request.body.to_value())
        .into_iter()
        .filter(|s| s.starts_with("notes"))
        .collect();
    assert_eq!(
        names,
        ["notes", "notes (2)", "notes (3)", "notes (4)", "notes (5)"]
    );
}

#[test]
fn the_request_size_limit_drops_the_oldest_attachments_first() {
    let fixture = Fixture::new();
    // 1250×1240 RGB, stored: ~4.65 MB raw, ~6.2 MB of base64 each. Gemini
    // keeps 95 MB of inline data: the newest fifteen fit.
    fixture.add("big.png", &png(1250, 1240, 9));
    let mut history = line("user", "Seventeen big shots.");
    for n in 0..17 {
        let id = format!("c{n}");
        history += &calls(&[(&id, "screenshot")]);
        history += &result(&id, "big", &["big.png"]);
    }
    let request = build_lines(Provider::Gemini, &history, &fixture.options());
    assert_eq!(request.report.images, 15);
    let noted: Vec<usize> = request.report.notes.iter().map(|n| n.index).collect();
    assert_eq!(noted, [2, 4]);
    assert!(request.report.notes[0]
        .text
        .contains("the Gemini request size limit is reached"));
    let total: usize = inline_media(Provider::Gemini, &request.body.to_value())
        .iter()
        .map(|(_, d)| d.len())
        .sum();
    assert!(total <= 95_000_000, "{total}");
}

#[test]
fn anthropic_images_fit_5_mb_of_base64() {
    let fixture = Fixture::new();
    // ~5.9 MB raw, ~7.9 MB as base64: over the cap until re-encoded.
    fixture.add("wide.png", &png(1400, 1400, 7));
    let request = build_lines(
        Provider::Anthropic,
        &one_round(&["wide.png"], "x"),
        &fixture.options(),
    );
    let media = inline_media(Provider::Anthropic, &request.body.to_value());
    assert_eq!(media.len(), 1);
    assert!(media[0].1.len() <= 5 * 1024 * 1024, "{}", media[0].1.len());
    // Bedrock measures raw bytes: 3.75 MB.
    let request = build_lines(
        Provider::Bedrock,
        &one_round(&["wide.png"], "x"),
        &fixture.options(),
    );
    let media = inline_media(Provider::Bedrock, &request.body.to_value());
    assert!(B64.decode(&media[0].1).unwrap().len() <= 3_750_000);
}

fn encode(image: &image::DynamicImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn sample(width: u32, height: u32) -> image::DynamicImage {
    image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 7) as u8, (y * 5) as u8, 90])
    }))
}

/// Each format in, what each provider gets.
#[test]
fn each_provider_gets_only_image_types_it_takes() {
    let fixture = Fixture::new();
    fixture.add("f/a.gif", GIF);
    fixture.add(
        "f/b.jpg",
        &encode(&sample(20, 10), image::ImageFormat::Jpeg),
    );
    fixture.add(
        "f/c.webp",
        &encode(&sample(20, 10), image::ImageFormat::WebP),
    );
    fixture.add("f/d.bmp", &encode(&sample(20, 10), image::ImageFormat::Bmp));
    let history = one_round(
        &["f/a.gif", "f/b.jpg", "f/c.webp", "f/d.bmp"],
        "four formats",
    );
    let expected: [(Provider, [&str; 4]); 7] = [
        (
            Provider::Anthropic,
            ["image/gif", "image/jpeg", "image/webp", "image/png"],
        ),
        (
            Provider::OpenAiChat,
            ["image/png", "image/jpeg", "image/webp", "image/png"],
        ),
        (
            Provider::OpenAiResponses,
            ["image/png", "image/jpeg", "image/webp", "image/png"],
        ),
        (
            Provider::Gemini,
            ["image/png", "image/jpeg", "image/webp", "image/png"],
        ),
        (
            Provider::Gemini2,
            ["image/png", "image/jpeg", "image/webp", "image/png"],
        ),
        (Provider::Bedrock, ["gif", "jpeg", "webp", "png"]),
        (Provider::Ollama, ["base64"; 4]),
    ];
    for (provider, types) in expected {
        let request = build_lines(provider, &history, &fixture.options());
        let media = inline_media(provider, &request.body.to_value());
        let got: Vec<&str> = media.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(got, types, "{provider}");
        for (_, data) in &media {
            let bytes = B64.decode(data).unwrap();
            let image = image::load_from_memory(&bytes).unwrap();
            let format = image::guess_format(&bytes).unwrap();
            if provider == Provider::Ollama {
                assert!(matches!(
                    format,
                    image::ImageFormat::Png | image::ImageFormat::Jpeg
                ));
            }
            assert!(image.width() > 0);
        }
    }
    // The GIF converted for Gemini keeps its pixel.
    let request = build_lines(Provider::Gemini, &history, &fixture.options());
    let (_, gif_as_png) = &inline_media(Provider::Gemini, &request.body.to_value())[0];
    let pixel = image::load_from_memory(&B64.decode(gif_as_png).unwrap())
        .unwrap()
        .to_rgba8();
    assert_eq!(pixel.get_pixel(0, 0).0, [255, 255, 255, 255]);
}

#[test]
fn an_image_within_the_limits_is_sent_byte_for_byte() {
    let fixture = Fixture::new();
    let jpeg = encode(&sample(30, 20), image::ImageFormat::Jpeg);
    fixture.add("a.jpg", &jpeg);
    for provider in Provider::ALL {
        let request = build_lines(provider, &one_round(&["a.jpg"], "x"), &fixture.options());
        let media = inline_media(provider, &request.body.to_value());
        assert_eq!(B64.decode(&media[0].1).unwrap(), jpeg, "{provider}");
    }
}

#[test]
fn large_images_are_resized_to_fit_2000_pixels() {
    let fixture = Fixture::new();
    fixture.add("long.png", &png(2400, 60, 3));
    let request = build_lines(
        Provider::OpenAiChat,
        &one_round(&["long.png"], "x"),
        &fixture.options(),
    );
    let (_, data) = &inline_media(Provider::OpenAiChat, &request.body.to_value())[0];
    let image = image::load_from_memory(&B64.decode(data).unwrap()).unwrap();
    assert_eq!((image.width(), image.height()), (2000, 50));
}

#[test]
fn declared_kinds_must_match_the_bytes() {
    let fixture = Fixture::new();
    let carrier = serde_json::json!({"tool_call_id": "c1", "content": "", "attachments": [
        {"kind": "image", "target": "docs/notes.pdf"},
        {"kind": "document", "target": "shots/small.png"},
        {"kind": "audio", "target": "a.ogg"},
        {"kind": "video", "target": "v.mp4"},
    ]});
    let history = [
        line("user", "x"),
        calls(&[("c1", "t")]),
        line("tool", &carrier.to_string()),
    ]
    .concat();
    let request = build_lines(Provider::Anthropic, &history, &fixture.options());
    let notes: Vec<&str> = request
        .report
        .notes
        .iter()
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(
        notes,
        [
            "[image docs/notes.pdf not attached: it is a PDF; declare it as a document]",
            "[document shots/small.png not attached: it is an image (image/png), not a PDF]",
            "[audio a.ogg not sent: audio attachments are not supported]",
            "[video v.mp4 not sent: video attachments are not supported]",
        ]
    );
}

#[test]
fn pdfs_are_documents_where_the_provider_takes_them_and_notes_elsewhere() {
    let fixture = Fixture::new();
    let history = one_round(&["reports/incident-42.pdf"], "report");
    for provider in Provider::ALL {
        let request = build_lines(provider, &history, &fixture.options());
        if provider == Provider::Ollama {
            assert_eq!(request.report.documents, 0);
            assert_eq!(
                request.report.notes[0].text,
                "[document reports/incident-42.pdf not attached: Ollama takes no documents here]"
            );
        } else if provider == Provider::OpenAiCompatible {
            // The generic profile takes no PDFs (no server but OpenRouter
            // documents OpenAI's `file` parts).
            assert_eq!(request.report.documents, 0);
            assert_eq!(
                request.report.notes[0].text,
                "[document reports/incident-42.pdf not attached: OpenAI-compatible takes no documents here]"
            );
        } else {
            assert_eq!(request.report.documents, 1, "{provider}");
        }
    }
    let chat = build_lines(Provider::OpenAiChat, &history, &fixture.options());
    let chat = chat.body.to_value();
    let file = chat.pointer("/messages/3/content/1/file").unwrap();
    assert_eq!(file["filename"], "incident-42.pdf");
    assert!(file["file_data"]
        .as_str()
        .unwrap()
        .starts_with("data:application/pdf;base64,JVBER"));
}

#[test]
fn a_callers_resolver_is_used_for_every_target() {
    let options = Options::new().with_resolver(|target: &str| -> Result<Source, MediaError> {
        match target {
            "blob:7" => Ok(Source::Bytes(Loaded::new(png(3, 2, 1), Origin::Other))),
            _ => Err(MediaError::Refused {
                target: target.into(),
                reason: "not in the store".into(),
            }),
        }
    });
    let request = build_lines(
        Provider::Anthropic,
        &one_round(&["blob:7", "blob:8"], "x"),
        &options,
    );
    assert_eq!(request.report.images, 1);
    assert_eq!(
        request.report.notes[0].text,
        "[image blob:8 not attached: not in the store]"
    );
}

#[test]
fn moved_media_are_labelled_with_their_tool_and_call() {
    let fixture = Fixture::new();
    let history = [
        line("user", "Two shots."),
        calls(&[("call_a", "screenshot"), ("call_b", "capture")]),
        result("call_a", "one", &["shots/editor.png"]),
        result("call_b", "two", &["shots/dashboard.png"]),
    ]
    .concat();
    let chat = build_lines(Provider::OpenAiChat, &history, &fixture.options());
    let chat = chat.body.to_value();
    let parts = chat
        .pointer("/messages/4/content")
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(
        parts[0]["text"],
        "Attachment of the screenshot result (call call_a): image shots/editor.png"
    );
    assert_eq!(parts[1]["type"], "image_url");
    assert_eq!(
        parts[2]["text"],
        "Attachment of the capture result (call call_b): image shots/dashboard.png"
    );
    let ollama = build_lines(Provider::Ollama, &history, &fixture.options());
    let ollama = ollama.body.to_value();
    let user = ollama.pointer("/messages/4").unwrap();
    assert_eq!(
        user["content"],
        "Attachment of the screenshot result (call call_a): image shots/editor.png\n\
         Attachment of the capture result (call call_b): image shots/dashboard.png"
    );
    assert_eq!(user["images"].as_array().unwrap().len(), 2);
    for provider in [Provider::OpenAiChat, Provider::Ollama, Provider::Gemini2] {
        let text = all_text(&build_lines(provider, &history, &fixture.options()));
        assert!(
            text.contains("one\n[image shots/editor.png follows in the next user message]"),
            "{provider}"
        );
    }
}

/// Bodies for `.ci/conformance`, beyond the golden files: every image type
/// through every provider. Written when `TOOL_CARRIER_CONFORMANCE_OUT`
/// names a folder.
#[test]
fn conformance_bodies_for_every_format() {
    let fixture = Fixture::new();
    fixture.add("f/a.gif", GIF);
    fixture.add(
        "f/b.jpg",
        &encode(&sample(20, 10), image::ImageFormat::Jpeg),
    );
    fixture.add(
        "f/c.webp",
        &encode(&sample(20, 10), image::ImageFormat::WebP),
    );
    fixture.add("f/d.bmp", &encode(&sample(20, 10), image::ImageFormat::Bmp));
    fixture.add("f/e.png", &png(2100, 30, 2));
    let history = [
        line("system", "Formats."),
        line("user", "[Tool results]\n[Tool attachments: 2]\n[IMAGE:f/a.gif]\n[DOCUMENT:docs/notes.pdf]\nprompt mode"),
        calls(&[("c1", "read"), ("c2", "fetch")]),
        result("c1", "all formats", &["f/a.gif", "f/b.jpg", "f/c.webp", "f/d.bmp", "f/e.png"]),
        result("c2", "remote", &["https://example.com/x.png"]),
    ]
    .concat();
    let messages = history::read(history.as_bytes()).unwrap();
    let out = std::env::var_os("TOOL_CARRIER_CONFORMANCE_OUT").map(std::path::PathBuf::from);
    for provider in Provider::ALL {
        let request = support::build(provider, &messages, &fixture.options());
        assert!(request.report.images >= 6, "{provider}: {}", request.report);
        if let Some(dir) = &out {
            std::fs::create_dir_all(dir).unwrap();
            let file =
                std::fs::File::create(dir.join(format!("{}__formats.json", provider.name())))
                    .unwrap();
            request.write_pretty(file).unwrap();
        }
    }
}

#[test]
fn each_note_says_why_in_a_type_a_program_can_match() {
    use tool_carrier::provider::NoteReason;
    let fixture = Fixture::new();
    let history = one_round(
        &[
            "shots/dashboard.png",
            "missing.png",
            "reports/incident-42.pdf",
            "shots/small.png",
        ],
        "x",
    ) + &line(
        "tool",
        r#"{"content":"stray","attachments":[{"kind":"audio","target":"a.wav"},{"kind":"image","target":"reports/incident-42.pdf"}]}"#,
    );
    let reasons = |provider, options: &Options| -> Vec<NoteReason> {
        build_lines(provider, &history, options)
            .report
            .notes
            .iter()
            .map(|n| n.reason)
            .collect()
    };
    assert_eq!(
        reasons(Provider::Ollama, &fixture.options()),
        [
            NoteReason::Media,
            NoteReason::NotTaken,
            NoteReason::KindNotSent,
            NoteReason::WrongKind
        ]
    );
    let off = reasons(Provider::Anthropic, &fixture.options().with_vision(false));
    assert_eq!(off[..4], [NoteReason::VisionOff; 4]);
    assert_eq!(off[4], NoteReason::KindNotSent);
}
