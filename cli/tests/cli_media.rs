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

#[test]
fn a_detail_level_fits_and_counts_the_image_as_convert_sends_it() {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("shot.png");
    image::RgbImage::from_fn(2880, 1800, |x, y| {
        image::Rgb([(x % 251) as u8, (y % 241) as u8, 90])
    })
    .save(&shot)
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["media", "--json"];
        args.extend_from_slice(extra);
        args.push(shot.to_str().unwrap());
        Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .args(&args)
            .output()
            .unwrap()
    };
    let json = |out: &std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let responses = ["--provider", "openai-responses", "--model", "gpt-5.4"];
    let at = |level: &str| json(&run(&[&responses[..], &["--detail", level]].concat()));
    // GPT-5.4 at auto is high: 2,500 patches of 32 px within 2048 px,
    // 1.2 tokens a patch; low is a 512 px version.
    let auto = json(&run(&responses));
    let (high, low, original) = (at("high"), at("low"), at("original"));
    assert_eq!(auto["final"], high["final"]);
    // `auto` given is sent, as `convert --detail auto` writes it.
    assert_eq!(at("auto")["provider"]["detail"], "auto");
    assert_eq!(auto["provider"]["tokens"], high["provider"]["tokens"]);
    assert!(auto["provider"].get("detail").is_none(), "{auto}");
    assert_eq!(low["provider"]["detail"], "low");
    assert_eq!(
        (
            low["final"]["width"].as_u64(),
            low["final"]["height"].as_u64()
        ),
        (Some(512), Some(320))
    );
    // 16 × 10 patches of 32 px, times 1.2.
    assert_eq!(low["provider"]["tokens"], 192);
    // Original: within 10,000 patches and 6000 px, but within the 2000 px
    // ceiling both commands keep by default: 63 × 40 patches, times 1.2.
    assert_eq!(original["final"]["width"], 2000);
    assert_eq!(original["provider"]["tokens"], 3024);
    // Past the ceiling, every pixel: 90 × 57 patches, times 1.2.
    let full = json(&run(&[
        &responses[..],
        &["--detail", "original", "--max-dim", "6000"],
    ]
    .concat()));
    assert_eq!(full["final"]["width"], 2880);
    assert_eq!(full["provider"]["tokens"], 6156);
    let tokens = |v: &serde_json::Value| v["provider"]["tokens"].as_u64().unwrap();
    assert!(tokens(&low) < tokens(&high) && tokens(&high) < tokens(&original));

    // What `convert --detail low` sends is what `media` showed: the same
    // size, and the same count in its report.
    let history = dir.path().join("h.jsonl");
    let call = serde_json::json!({"content": "", "tool_calls": [{"id": "c1", "name": "screenshot", "arguments": {}}]});
    let result = serde_json::json!({"tool_call_id": "c1", "content": "shot", "attachments": [{"kind": "image", "target": "shot.png"}]});
    std::fs::write(
        &history,
        [
            serde_json::json!({"role": "user", "content": "Look."}),
            serde_json::json!({"role": "assistant", "content": call.to_string()}),
            serde_json::json!({"role": "tool", "content": result.to_string()}),
        ]
        .map(|r| r.to_string())
        .join("\n"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(
            [
                &["convert", "--compact", "--root"][..],
                &[dir.path().to_str().unwrap()],
            ]
            .concat(),
        )
        .args(
            [
                &responses[..],
                &["--detail", "low", history.to_str().unwrap()],
            ]
            .concat(),
        )
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("image input tokens: 192 (the provider's own count)"),
        "{report}"
    );
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let url = body.to_string();
    let data = url
        .split("data:image/png;base64,")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the image inline");
    use base64::Engine as _;
    let png = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    let sent = image::load_from_memory(&png).unwrap();
    assert_eq!((sent.width(), sent.height()), (512, 320));

    // A level the model does not list: exit 2, naming the levels it takes.
    let out = run(&[
        "--provider",
        "openai-chat",
        "--model",
        "gpt-5.2",
        "--detail",
        "original",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("it takes low, high, auto"), "{err}");
    // An API without the setting: shown at its default, with a warning.
    let out = run(&["--provider", "anthropic", "--detail", "low"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let claude = json(&out);
    assert!(
        err.contains("image detail low: no effect: Anthropic has no per-image detail setting"),
        "{err}"
    );
    assert!(claude["provider"].get("detail").is_none());
    assert_eq!(
        claude["final"],
        json(&run(&["--provider", "anthropic"]))["final"]
    );
    // A PDF is sent the same at any level: none is shown.
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(
            [
                &["media", "--json"][..],
                &responses[..],
                &["--detail", "low"],
            ]
            .concat(),
        )
        .arg(example("reports/incident-42.pdf"))
        .output()
        .unwrap();
    let pdf = json(&out);
    assert!(pdf["provider"].get("detail").is_none(), "{pdf}");
    assert!(pdf["provider"]["tokens"].is_null());
    // --detail names a model's setting: without --provider it is a usage
    // error.
    assert_eq!(run(&["--detail", "low"]).status.code(), Some(2));
}
