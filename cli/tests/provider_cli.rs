//! `tool-carrier convert`: the body on standard output, the summary and
//! notes on standard error, exit codes.

mod common;

#[path = "../../tests/provider_support/mod.rs"]
mod support;

use std::process::Output;

use serde_json::Value;
use support::{history, manifest_dir, Fixture};
use tool_carrier::provider::Provider;

fn tool_carrier(args: &[&str], stdin: &[u8]) -> Output {
    common::run_in(manifest_dir(), args, stdin)
}

#[test]
fn the_body_is_what_the_library_builds() {
    let fixture = Fixture::new();
    let root = fixture.root.to_str().unwrap();
    for provider in Provider::ALL {
        let out = tool_carrier(
            &[
                "convert",
                "--provider",
                provider.name(),
                "--root",
                root,
                "examples/history.jsonl",
            ],
            b"",
        );
        assert!(
            out.status.success(),
            "{provider}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let body: Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = support::build(
            provider,
            &history("examples/history.jsonl"),
            &fixture.options(),
        );
        assert_eq!(body, want.body.to_value(), "{provider}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with(&format!("convert: {} (", want.endpoint())),
            "{err}"
        );
        assert!(err.contains(&want.report.to_string()), "{err}");
    }
}

#[test]
fn notes_are_listed_on_standard_error() {
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "anthropic",
            "examples/screenshot-round.jsonl",
        ],
        b"",
    );
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("0 images, 0 documents, 0 URLs sent; 2 notes"),
        "{err}"
    );
    assert!(err.contains(
        "  message 3: [image shots/editor.png not attached: local files are not allowed (no roots configured)]"
    ));
}

#[test]
fn standard_input_model_and_no_vision() {
    let input = std::fs::read(manifest_dir().join("examples/screenshot-round.jsonl")).unwrap();
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "openai-chat",
            "--model",
            "gpt-test",
            "--no-vision",
            "--root",
            "examples",
            "-",
        ],
        &input,
    );
    assert!(out.status.success());
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["model"], "gpt-test");
    let tool = &body["messages"][3];
    assert_eq!(
        tool["content"],
        "Captured the editor view.\n[image shots/editor.png omitted: this model cannot view attachments]"
    );
    assert_eq!(
        body["messages"].as_array().unwrap().len(),
        5,
        "no media message"
    );
}

#[test]
fn records_that_are_not_messages_stop_the_conversion() {
    let input = b"{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"user\"}\nnot json\n";
    let out = tool_carrier(&["convert", "--provider", "ollama"], input);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("line 2: not a message: no \"content\" member"),
        "{err}"
    );
    assert!(err.contains("line 3: not a message: invalid JSON"), "{err}");
    assert!(
        err.contains("nothing converted from standard input: 2 records are not messages"),
        "{err}"
    );
}

#[test]
fn unknown_providers_and_missing_roots_are_refused() {
    let out = tool_carrier(
        &["convert", "--provider", "openai", "examples/history.jsonl"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("possible values: anthropic, openai-chat")
    );
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "gemini",
            "--root",
            "no/such/folder",
            "examples/history.jsonl",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("tool-carrier: --root: root no/such/folder:"));
}

#[test]
fn tools_from_a_file_are_declared_and_their_fitting_reported() {
    for provider in Provider::ALL {
        let out = tool_carrier(
            &[
                "convert",
                "--provider",
                provider.name(),
                "--root",
                "examples",
                "--tools",
                "examples/tools.json",
                "examples/screenshot-round.jsonl",
            ],
            b"",
        );
        assert!(out.status.success(), "{provider}");
        let body: Value = serde_json::from_slice(&out.stdout).unwrap();
        let text = body.to_string();
        assert!(
            text.contains("Capture one page of the app under test"),
            "{provider}"
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("  tools: 2 declared\n"), "{provider}: {err}");
        if provider == Provider::Ollama {
            assert!(err.contains("`/additionalProperties` left out"), "{err}");
        }
        match provider {
            Provider::Anthropic => assert!(!err.contains("bash_20250124"), "{err}"),
            // Claude on Bedrock takes the typed tool itself.
            Provider::Bedrock => assert!(
                err.contains("bash_20250124 sent as it is in additionalModelRequestFields"),
                "{err}"
            ),
            _ => assert!(
                err.contains("bash_20250124 declared for"),
                "{provider}: {err}"
            ),
        }
    }
}

#[test]
fn without_tools_the_stand_ins_are_named_on_standard_error() {
    let run = |provider: &str| {
        let out = tool_carrier(
            &[
                "convert",
                "--provider",
                provider,
                "examples/screenshot-round.jsonl",
            ],
            b"",
        );
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(run("anthropic").contains(
        "  tools: no --tools given; minimal declarations for screenshot (the model is told not to call them)"
    ));
    assert!(run("bedrock").contains(
        "  tools: no --tools given; minimal declarations for screenshot (this API cannot be told not to call them)"
    ));
    assert!(!run("ollama").contains("tools:"));
}

#[test]
fn bad_tool_files_and_undeclarable_tools_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("tools.json");
    std::fs::write(&bad, r#"[{"name": "x"}]"#).unwrap();
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "anthropic",
            "--tools",
            bad.to_str().unwrap(),
            "examples/history.jsonl",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(&format!("tool-carrier: --tools {}: tool definition 0 (x): not a tool definition of a known shape", bad.display())), "{err}");
    std::fs::write(
        &bad,
        r#"[{"type": "code_execution_20250825", "name": "code_execution"}]"#,
    )
    .unwrap();
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "gemini",
            "--tools",
            bad.to_str().unwrap(),
            "examples/history.jsonl",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot convert examples/history.jsonl for gemini: tool code_execution: Anthropic's code_execution_20250825 cannot be declared for gemini"), "{err}");
}

#[test]
fn a_family_can_be_given_for_an_unrecognised_bedrock_model() {
    let arn = "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/p1";
    let run = |extra: &[&str]| {
        let mut args = vec![
            "convert",
            "--provider",
            "bedrock",
            "--root",
            "examples",
            "--model",
            arn,
        ];
        args.extend_from_slice(extra);
        args.push("examples/screenshot-round.jsonl");
        let out = tool_carrier(&args, b"");
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let nested = |body: &str| {
        let body: Value = serde_json::from_str(body).unwrap();
        body["messages"][2]["content"][0]["toolResult"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b.get("image").is_some())
    };
    assert!(!nested(&run(&[])));
    assert!(nested(&run(&["--family", "claude"])));
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "bedrock",
            "--family",
            "llama",
            "examples/history.jsonl",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn keep_images_and_evict_step_reach_the_library() {
    let fixture = Fixture::new();
    let root = fixture.root.to_str().unwrap();
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "convert",
            "--provider",
            "anthropic",
            "--root",
            root,
            "examples/screenshot-round.jsonl",
        ];
        a.extend_from_slice(extra);
        tool_carrier(&a, b"")
    };
    let out = args(&["--keep-images", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("1 image, 0 documents, 0 URLs sent; 1 note"),
        "{err}"
    );
    assert!(
        err.contains("only the 1 most recent images are kept"),
        "{err}"
    );
    assert!(err.contains("image input tokens: "), "{err}");
    let want = support::build(
        Provider::Anthropic,
        &history("examples/screenshot-round.jsonl"),
        &fixture.options().with_keep_images(1),
    );
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body, want.body.to_value());
    // A step of 0 is refused by the command (the library takes it as 1).
    assert_eq!(args(&["--evict-step", "0"]).status.code(), Some(2));
    let out = args(&["--image-tokens", "0"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("0 images"), "{err}");
}

#[test]
fn a_cache_dir_is_reused_and_changes_no_byte() {
    let fixture = Fixture::new();
    fixture.add("wide.png", &support::png(1700, 40, 7));
    let history = [
        support::line("user", "Shot."),
        support::calls(&[("c1", "shot")]),
        support::result("c1", "ok", &["wide.png"]),
    ]
    .concat();
    let cache = tempfile::tempdir().unwrap();
    let run = |cache_args: &[&str]| {
        let mut args = vec![
            "convert",
            "--provider",
            "anthropic",
            "--root",
            fixture.root.to_str().unwrap(),
        ];
        args.extend_from_slice(cache_args);
        let out = tool_carrier(&args, history.as_bytes());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let dir = cache.path().to_str().unwrap();
    let plain = run(&[]);
    let cold = run(&["--cache-dir", dir]);
    let entries = || walk(cache.path());
    assert_eq!(entries().len(), 1);
    let warm = run(&["--cache-dir", dir]);
    assert_eq!(cold, plain);
    assert_eq!(warm, plain);
    // A damaged entry is a miss, and is written again.
    std::fs::write(&entries()[0], b"damaged").unwrap();
    assert_eq!(run(&["--cache-dir", dir]), plain);
    assert_ne!(std::fs::read(&entries()[0]).unwrap(), b"damaged");
}

/// An entry cut short (a full disk, a copy interrupted) or with a byte
/// changed is never sent: the image is prepared again, the entry replaced,
/// and the report says so.
#[test]
fn a_cache_entry_cut_short_or_changed_is_prepared_again() {
    let fixture = Fixture::new();
    fixture.add("noise.png", &support::noise_png(300, 200));
    let history = [
        support::line("user", "Shot."),
        support::calls(&[("c1", "shot")]),
        support::result("c1", "ok", &["noise.png"]),
    ]
    .concat();
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().to_str().unwrap();
    let run = |cache_args: &[&str]| {
        let mut args = vec![
            "convert",
            "--provider",
            "anthropic",
            "--root",
            fixture.root.to_str().unwrap(),
        ];
        args.extend_from_slice(cache_args);
        let out = tool_carrier(&args, history.as_bytes());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        (out.stdout, err)
    };
    let (plain, _) = run(&[]);
    let (cold, err) = run(&["--cache-dir", dir]);
    assert_eq!(cold, plain);
    assert!(!err.contains("not whole"), "{err}");
    let entry = walk(cache.path()).remove(0);
    let whole = std::fs::read(&entry).unwrap();
    assert!(
        whole.len() > 3000,
        "the fixture's entry is {} bytes",
        whole.len()
    );
    let mut flipped = whole.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    for damaged in [whole[..whole.len() - 3000].to_vec(), flipped] {
        std::fs::write(&entry, &damaged).unwrap();
        let (body, err) = run(&["--cache-dir", dir]);
        assert_eq!(body, plain, "the damaged payload is not sent");
        assert!(
            err.contains("1 entry was not whole (cut short, changed or of an older version): prepared again from its source and replaced"),
            "{err}"
        );
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            whole,
            "the entry is replaced"
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn profiles_by_name_and_from_files_with_overrides() {
    let fixture = Fixture::new();
    let root = fixture.root.to_str().unwrap();
    let convert = |extra: &[&str]| {
        let mut args = vec!["convert", "--provider", "openai-compatible", "--root", root];
        args.extend_from_slice(extra);
        args.push("examples/screenshot-round.jsonl");
        tool_carrier(&args, b"")
    };
    // A built-in name, and the library's body for it.
    let out = convert(&["--profile", "mistral"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    let options = fixture
        .options()
        .with_profile(tool_carrier::facts::Profile::builtin("mistral").unwrap());
    let want = support::build(
        Provider::OpenAiCompatible,
        &history("examples/screenshot-round.jsonl"),
        &options,
    );
    assert_eq!(body, want.body.to_value());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("convert: POST https://api.mistral.ai/v1/chat/completions (mistral-medium-latest, profile mistral)"),
        "{err}"
    );

    // A TOML file, then overrides.
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("box.toml");
    std::fs::write(
        &toml,
        "name = \"box\"\nbase_url = \"http://box:9000/v1\"\nuser_after_tool = true\nimage_types = [\"png\"]\n",
    )
    .unwrap();
    let toml = toml.to_str().unwrap();
    let out = convert(&["--profile", toml]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("convert: POST http://box:9000/v1/chat/completions (default, profile box)"),
        "{err}"
    );
    let out = convert(&[
        "--profile",
        toml,
        "--base-url",
        "http://other:1/v1/",
        "--vision",
        "off",
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("convert: POST http://other:1/v1/chat/completions"),
        "{err}"
    );
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!body.to_string().contains("image_url"));
    let out = convert(&["--profile", toml, "--tool-images", "on"]);
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert!(messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .all(|m| m["content"].to_string().contains("image_url")));

    // The example profile shipped with the crate, every key set.
    let out = convert(&["--profile", "examples/profile.toml"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("convert: POST http://gpu-box:8000/v1/chat/completions (Qwen/Qwen2.5-VL-72B-Instruct, profile gpu-box)"), "{err}");

    // A bad key, in TOML and in JSON: the key is named.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "vision = \"yes\"\n").unwrap();
    let out = convert(&["--profile", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("profile key `vision`: expected true or false, found the string \"yes\""),
        "{err}"
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"max_images": "8"}"#).unwrap();
    let err = String::from_utf8(convert(&["--profile", bad.to_str().unwrap()]).stderr).unwrap();
    assert!(err.contains("profile key `max_images`"), "{err}");
    let err = String::from_utf8(convert(&["--profile", "nope"]).stderr).unwrap();
    assert!(err.contains("unknown profile \"nope\""), "{err}");

    // The profile flags belong to openai-compatible.
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "openai-chat",
            "--vision",
            "on",
            "examples/history.jsonl",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("--vision on is for --provider openai-compatible, not openai-chat"));
}

#[test]
fn uploads_send_uploaded_media_by_reference_and_a_bad_map_stops() {
    let fixture = Fixture::new();
    let root = fixture.root.to_str().unwrap();
    let shot = std::fs::read(fixture.root.join("shots/dashboard.png")).unwrap();
    let name = tool_carrier::media::store::file_name(&shot);
    let hash = name.split('.').next().unwrap();
    let map = fixture.root.join("uploads.json");
    std::fs::write(
        &map,
        format!(r#"{{"{hash}": ["anthropic-file:file_011Dashboard"]}}"#),
    )
    .unwrap();
    let args = |map: &str| {
        vec![
            "convert".to_owned(),
            "--provider".to_owned(),
            "anthropic".to_owned(),
            "--root".to_owned(),
            root.to_owned(),
            "--uploads".to_owned(),
            map.to_owned(),
            "examples/history.jsonl".to_owned(),
        ]
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        tool_carrier(&args, b"")
    };
    let out = run(args(map.to_str().unwrap()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let body = String::from_utf8(out.stdout).unwrap();
    assert!(body.contains(r#""file_id": "file_011Dashboard""#), "{body}");
    assert!(
        err.contains("header anthropic-beta: files-api-2025-04-14"),
        "{err}"
    );
    assert!(err.contains("provider file"), "{err}");

    std::fs::write(&map, r#"{"abc": ["anthropic-file:f"]}"#).unwrap();
    let out = run(args(map.to_str().unwrap()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains(
            r#"uploads.json: "abc": a key is the SHA-256 of the file's bytes, 64 hex digits"#
        ),
        "{err}"
    );
}
