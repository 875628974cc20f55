//! The README's exit-status table, one test a row: each runs the command
//! on a shipped fixture and checks the status it documents (and, where a
//! row says so, that nothing was written).

mod common;

use common::run;

fn status(args: &[&str]) -> (i32, String, String) {
    let out = run(args, b"");
    (
        out.status.code().expect("exited"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const BROKEN: &str = "tests/data/adversarial/broken-attachments.jsonl";

/// `convert` for Anthropic of the history whose attachments fail, with
/// the fixtures' folder as the root.
fn convert_broken(extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "convert",
        "--provider",
        "anthropic",
        "--root",
        "tests/data/adversarial",
    ];
    args.extend_from_slice(extra);
    args.push(BROKEN);
    status(&args)
}
const ROUND: &str = "examples/screenshot-round.jsonl";

// ---- convert ----

#[test]
fn convert_0_the_body_is_written() {
    let (code, out, _) = status(&[
        "convert",
        "--provider",
        "anthropic",
        "--root",
        "examples",
        ROUND,
    ]);
    assert_eq!(code, 0);
    let body: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(body["messages"].is_array());
}

#[test]
fn convert_0_failed_attachments_are_notes_and_one_summary_line() {
    let (code, out, err) = convert_broken(&[]);
    assert_eq!(code, 0);
    assert!(
        out.contains("corrupt or truncated PNG"),
        "the notes are in the body"
    );
    let summary: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("declared attachments failed"))
        .collect();
    assert_eq!(
        summary,
        ["convert: 5 of 6 declared attachments failed and were sent as notes (2 corrupt or truncated PNG, 1 corrupt or truncated PDF, 1 cannot resolve, 1 outside the allowed folders); --strict refuses such a request"]
    );
}

#[test]
fn convert_1_records_that_are_not_messages() {
    let (code, out, err) = status(&[
        "convert",
        "--provider",
        "anthropic",
        "tests/data/adversarial/malformed.jsonl",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
}

#[test]
fn convert_2_a_file_that_cannot_be_read() {
    let (code, out, err) = status(&[
        "convert",
        "--provider",
        "anthropic",
        "no/such/history.jsonl",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("cannot open no/such/history.jsonl"), "{err}");
}

#[test]
fn convert_2_binary_input() {
    let (code, out, err) = status(&[
        "convert",
        "--provider",
        "anthropic",
        "tests/data/adversarial/random.bin",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("binary data at byte"), "{err}");
}

#[test]
fn convert_2_options_that_contradict_each_other() {
    for (args, says) in [
        (
            &["--keep-images", "2", "--evict-step", "5"][..],
            "--evict-step 5 is larger than --keep-images 2",
        ),
        (
            &["--keep-documents", "1", "--evict-step", "3"][..],
            "--evict-step 3 is larger than --keep-documents 1",
        ),
        (
            &["--family", "claude"][..],
            "--family names a Bedrock model's family",
        ),
    ] {
        let mut all = vec!["convert", "--provider", "anthropic", "--root", "examples"];
        all.extend_from_slice(args);
        all.push(ROUND);
        let (code, out, err) = status(&all);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert!(err.contains(says), "{err}");
    }
    let (code, _, err) = status(&[
        "convert",
        "--provider",
        "openai-compatible",
        "--no-vision",
        "--tool-images",
        "on",
        ROUND,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--tool-images on places images"), "{err}");
}

#[test]
fn convert_3_strict_and_attachments_failed() {
    let (code, out, err) = convert_broken(&["--strict"]);
    assert_eq!(code, 3);
    assert!(out.is_empty(), "nothing is written");
    assert!(err.contains("5 declared attachments failed"), "{err}");
    // Vision off is no failure.
    let (code, _, _) = status(&[
        "convert",
        "--strict",
        "--no-vision",
        "--provider",
        "anthropic",
        BROKEN,
    ]);
    assert_eq!(code, 0);
}

#[test]
fn convert_4_the_body_would_be_refused() {
    let (code, out, err) = status(&[
        "convert",
        "--provider",
        "anthropic",
        "tests/data/adversarial/empty.jsonl",
    ]);
    assert_eq!(code, 4);
    assert!(out.is_empty(), "nothing is written");
    assert!(
        err.contains("anthropic/message-count at $.messages"),
        "{err}"
    );
    assert!(
        err.contains("https://platform.claude.com/docs/en/api/messages"),
        "{err}"
    );
}

#[test]
fn convert_compact_writes_the_checked_bytes_on_one_line() {
    let (code, out, _) = status(&[
        "convert",
        "--compact",
        "--provider",
        "openai-chat",
        "--root",
        "examples",
        ROUND,
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1);
    let (_, pretty, _) = status(&[
        "convert",
        "--provider",
        "openai-chat",
        "--root",
        "examples",
        ROUND,
    ]);
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    let b: serde_json::Value = serde_json::from_str(&pretty).unwrap();
    assert_eq!(a, b);
}

// ---- inspect ----

#[test]
fn inspect_0_every_record_is_a_message() {
    assert_eq!(status(&["inspect", "examples/history.jsonl"]).0, 0);
}

#[test]
fn inspect_1_records_that_are_not_messages() {
    assert_eq!(
        status(&["inspect", "tests/data/adversarial/malformed.jsonl"]).0,
        1
    );
}

#[test]
fn inspect_2_the_run_could_not_finish() {
    assert_eq!(
        status(&["inspect", "tests/data/adversarial/random.bin"]).0,
        2
    );
    assert_eq!(status(&["inspect", "no/such/file.jsonl"]).0, 2);
}

// ---- migrate ----

#[test]
fn migrate_0_done() {
    assert_eq!(status(&["migrate", "examples/legacy-history.jsonl"]).0, 0);
}

#[test]
fn migrate_1_records_that_are_not_messages_or_check_finds_work() {
    assert_eq!(
        status(&["migrate", "tests/data/adversarial/malformed.jsonl"]).0,
        1
    );
    assert_eq!(
        status(&["migrate", "--check", "examples/legacy-history.jsonl"]).0,
        1
    );
}

#[test]
fn migrate_2_the_run_could_not_finish() {
    assert_eq!(
        status(&["migrate", "tests/data/adversarial/random.bin"]).0,
        2
    );
}

// ---- import ----

#[test]
fn import_0_imported() {
    assert_eq!(
        status(&["import", "--from", "mcp", "examples/mcp-results.jsonl"]).0,
        0
    );
}

#[test]
fn import_2_the_input_could_not_be_read() {
    assert_eq!(
        status(&[
            "import",
            "--from",
            "mcp",
            "tests/data/adversarial/random.bin"
        ])
        .0,
        2
    );
}

// ---- media ----

#[test]
fn media_0_every_file_described() {
    assert_eq!(status(&["media", "examples/shots/dashboard.png"]).0, 0);
}

#[test]
fn media_1_a_file_refused() {
    let (code, _, _) = status(&[
        "media",
        "examples/shots/dashboard.png",
        "tests/data/adversarial/truncated.png",
    ]);
    assert_eq!(code, 1);
}

#[test]
#[cfg(target_os = "linux")]
fn media_2_the_report_could_not_be_written() {
    let full = std::fs::File::create("/dev/full").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["media", "examples/shots/dashboard.png"])
        .current_dir(common::repo())
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn convert_4_a_body_that_fits_compact_but_not_indented() {
    // 300,000 one-letter messages for Claude on Bedrock (20 MB): about
    // 13 MB compact, over 30 MB indented.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chatty.jsonl");
    let mut text = String::new();
    for i in 0..300_000 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        text += &format!("{{\"role\":\"{role}\",\"content\":\"x\"}}\n");
    }
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap();
    let model = "anthropic.claude-sonnet-4-5-20250929-v1:0";
    let (code, out, err) = status(&["convert", "--provider", "bedrock", "--model", model, path]);
    assert_eq!(code, 4, "{err}");
    assert!(out.is_empty(), "nothing is written");
    assert!(err.contains("indented, the body is"), "{err}");
    assert!(err.contains("with --compact"), "{err}");
    let (code, out, _) = status(&[
        "convert",
        "--compact",
        "--provider",
        "bedrock",
        "--model",
        model,
        path,
    ]);
    assert_eq!(code, 0);
    assert!(out.len() < 20_000_000);
}
