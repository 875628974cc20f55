//! `tool-carrier media`: one report a file, refusals named, exit codes.

mod common;

use std::process::Command;

fn example(name: &str) -> String {
    common::repo()
        .to_path_buf()
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn json_reports_one_object_a_file_and_refusals_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.png");
    std::fs::write(&text, "not an image, whatever the extension says").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args([
            "media",
            "--json",
            &example("shots/panel7.png"),
            text.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["original"]["media_type"], "image/png");
    assert_eq!(lines[0]["original"]["width"], 48);
    assert_eq!(lines[0]["resized"], false);
    assert_eq!(lines[0]["reencoded"], false);
    assert_eq!(lines[0]["base64_len"], 8612);
    assert_eq!(lines[0]["estimates"]["chars"], 4800);
    assert_eq!(lines[1]["path"], text.to_str().unwrap());
    assert!(lines[1]["error"].as_str().unwrap().contains("unrecognised"));
}

#[test]
fn the_sentence_form_names_the_file() {
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["media", &example("shots/editor.png")])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("editor.png: image/png, 64×40"), "{text}");
    assert!(text.contains("Sent unchanged"), "{text}");
}

#[test]
fn no_file_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .arg("media")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn budgets_are_named_by_provider() {
    let run = |budget: &str| {
        Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .args([
                "media",
                "--json",
                "--budget",
                budget,
                &example("shots/editor.png"),
            ])
            .output()
            .unwrap()
    };
    for name in tool_carrier::provider::Provider::NAMES {
        let out = run(name);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The names of the provider table, not a list of the command's own.
    let out = run("openai");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("openai-chat"));
}

#[test]
fn a_provider_shows_what_its_model_would_get() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.png");
    image::RgbImage::from_fn(1700, 60, |x, y| {
        image::Rgb([(x % 251) as u8, (y * 4) as u8, 90])
    })
    .save(&wide)
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["media", "--json"];
        args.extend_from_slice(extra);
        args.push(wide.to_str().unwrap());
        let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    // Without a provider: the 2000 px ceiling, which this image is within.
    assert_eq!(run(&[])["final"]["width"], 1700);
    // Claude before 4.7 processes at most 1568 px on the long side.
    let claude = run(&["--provider", "anthropic", "--model", "claude-haiku-4-5"]);
    assert_eq!(
        (
            claude["final"]["width"].as_u64(),
            claude["final"]["height"].as_u64()
        ),
        (Some(1568), Some(55))
    );
    // With its own count of the image as sent: ⌈1568 / 28⌉ × ⌈55 / 28⌉
    // visual tokens.
    let cost = &run(&["--provider", "anthropic", "--model", "claude-haiku-4-5"])["provider"];
    assert_eq!(cost["name"], "anthropic");
    assert_eq!(cost["model"], "claude-haiku-4-5");
    assert_eq!(cost["tokens"], 56 * 2);
    // The default, Claude Sonnet 5.5, processes up to 2576 px: as sent,
    // ⌈1700 / 28⌉ × ⌈60 / 28⌉ visual tokens.
    let default = run(&["--provider", "anthropic"]);
    assert_eq!(default["final"]["width"], 1700);
    assert_eq!(default["provider"]["model"], "claude-sonnet-5-5");
    assert_eq!(default["provider"]["tokens"], 61 * 3);
    assert!(run(&["--provider", "ollama"])["provider"]["tokens"].is_null());
    assert!(run(&[]).get("provider").is_none());
    // OpenAI caps the short side only; Gemini documents no size.
    assert_eq!(run(&["--provider", "openai-chat"])["final"]["width"], 1700);
    assert_eq!(
        run(&["--provider", "gemini", "--model", "gemini-3.8-flash"])["final"]["width"],
        1700
    );
}
