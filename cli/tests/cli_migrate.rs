//! `tool-carrier migrate`: outputs, atomic in-place writes, --check, lifting.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    common::run(args, stdin)
}

fn example(name: &str) -> PathBuf {
    common::repo().to_path_buf().join("examples").join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const LEGACY: &str = concat!(
    "{\"role\":\"tool\",\"content\":\"{\\\"tool_call_id\\\":\\\"c1\\\",\\\"content\\\":\\\"out\\\"}\",\"ts\":1}\n",
    "{\"role\":\"user\",\"content\":\"[Tool results]\\nold body\"}\n",
    "{\"role\":\"tool\",\"content\":\"raw text\"}\n",
);

const MIGRATED: &str = concat!(
    "{\"role\":\"tool\",\"content\":\"{\\\"tool_call_id\\\":\\\"c1\\\",\\\"content\\\":\\\"out\\\",\\\"attachments\\\":[]}\",\"ts\":1}\n",
    "{\"role\":\"user\",\"content\":\"[Tool results]\\n[Tool attachments: 0]\\nold body\"}\n",
    "{\"role\":\"tool\",\"content\":\"raw text\"}\n",
);

#[test]
fn standard_input_to_standard_output_with_a_summary() {
    let out = run(&["migrate"], LEGACY.as_bytes());
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), MIGRATED);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("3 records read: 2 upgraded (1 native, 1 prompt)"),
        "{err}"
    );
    assert!(
        err.contains("record 2 (line 3): left: raw tool text, not a JSON envelope"),
        "{err}"
    );
}

#[test]
fn output_file_and_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("h.jsonl");
    fs::write(&input, LEGACY).unwrap();
    let out_path = dir.path().join("out.jsonl");
    let out = run(&["migrate", s(&input), "-o", s(&out_path)], b"");
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(fs::read_to_string(&out_path).unwrap(), MIGRATED);
    assert_eq!(
        fs::read_to_string(&input).unwrap(),
        LEGACY,
        "-o leaves the input alone"
    );

    let out = run(&["migrate", "--in-place", s(&input)], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read_to_string(&input).unwrap(), MIGRATED);
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temporary file left"
    );
}

#[test]
fn check_writes_nothing_and_says_whether_something_would_change() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("h.jsonl");
    fs::write(&input, LEGACY).unwrap();
    let out = run(&["migrate", "--check", s(&input)], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("2 would upgrade"));
    assert_eq!(fs::read_to_string(&input).unwrap(), LEGACY);

    fs::write(&input, MIGRATED).unwrap();
    let out = run(&["migrate", "--check", s(&input)], b"");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_json_array_stays_an_array() {
    let input = "[\n  {\"role\": \"user\", \"content\": \"[Tool results]\\nx\"},\n  {\"role\": \"system\", \"content\": \"s\"}\n]\n";
    let out = run(&["migrate"], input.as_bytes());
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "[\n  {\"role\": \"user\", \"content\": \"[Tool results]\\n[Tool attachments: 0]\\nx\"},\n  {\"role\": \"system\", \"content\": \"s\"}\n]\n"
    );
}

#[test]
fn bad_records_pass_through_and_are_reported() {
    let input = b"not json\n\xff\xfe\n{\"role\":\"user\",\"content\":\"[Tool results]\\n\"}\n";
    let out = run(&["migrate"], input);
    assert_eq!(out.status.code(), Some(1), "records that are not messages");
    assert_eq!(
        out.stdout,
        b"not json\n\xff\xfe\n{\"role\":\"user\",\"content\":\"[Tool results]\\n[Tool attachments: 0]\\n\"}\n"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("record 0 (line 1): not a message: invalid JSON"),
        "{err}"
    );
    assert!(
        err.contains("record 1 (line 2): not a message: invalid UTF-8 at byte 0"),
        "{err}"
    );
}

#[test]
fn in_place_needs_a_file_and_flags_conflict() {
    let out = run(&["migrate", "--in-place"], LEGACY.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("--in-place needs a FILE"));
    let out = run(&["migrate", "--in-place", "--check", "x"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["migrate", "--lift-markers"], b"");
    assert_eq!(out.status.code(), Some(2), "--lift-markers needs --root");
}

#[test]
fn a_run_killed_midway_leaves_the_original_intact() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.jsonl");
    let mut big = String::with_capacity(24 << 20);
    while big.len() < 20 << 20 {
        big.push_str(LEGACY);
    }
    fs::write(&input, &big).unwrap();
    let mut child = bin()
        .args(["migrate", "--in-place", s(&input)])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the temporary file exists and is being written, then kill.
    let start = Instant::now();
    let mut saw_temp = false;
    while start.elapsed() < Duration::from_secs(30) {
        let temps = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path() != input)
            .any(|e| e.metadata().map(|m| m.len() > 0).unwrap_or(false));
        if temps {
            saw_temp = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().ok();
    child.wait().unwrap();
    assert!(saw_temp, "the run finished before it could be interrupted");
    assert!(
        fs::read(&input).unwrap() == big.as_bytes(),
        "the original is whole"
    );
}

#[test]
fn lifting_is_opt_in_confined_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir_all(root.join("shots")).unwrap();
    let png = fs::read(example("shots/panel7.png")).unwrap();
    fs::write(root.join("shots/a.png"), &png).unwrap();
    fs::write(root.join("shots/notes.png"), b"text, not an image").unwrap();
    fs::write(dir.path().join("outside.png"), &png).unwrap();
    let content = "[Tool results]\n<tool_result>\n[IMAGE:shots/a.png]\n[IMAGE:../outside.png]\n[IMAGE:/etc/passwd]\n[IMAGE:missing.png]\n[IMAGE:shots/notes.png]\nsee [IMAGE:shots/a.png] inline\n[IMAGE:shots/a.png]\n</tool_result>";
    let history = format!(
        "{}\n{}\n{}\n",
        serde_json::json!({"role": "user", "content": content}),
        serde_json::json!({"role": "tool", "content": serde_json::json!({"content": "[IMAGE:shots/a.png]"}).to_string()}),
        serde_json::json!({"role": "tool", "content": serde_json::json!({"content": "[IMAGE:shots/a.png]", "attachments": []}).to_string()}),
    );

    // Without the flag nothing is lifted.
    let out = run(&["migrate"], history.as_bytes());
    let plain = String::from_utf8(out.stdout).unwrap();
    assert!(!plain.contains("[Tool attachments: 1]"));

    let out = run(
        &["migrate", "--lift-markers", "--root", s(&root)],
        history.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let prompt = lines[0]["content"].as_str().unwrap();
    assert_eq!(
        prompt,
        format!(
            "[Tool results]\n[Tool attachments: 1]\n[IMAGE:shots/a.png]\n{}",
            &content["[Tool results]\n".len()..]
        )
    );
    let native: serde_json::Value =
        serde_json::from_str(lines[1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        native["attachments"],
        serde_json::json!([{"kind": "image", "target": "shots/a.png"}])
    );
    let declared: serde_json::Value =
        serde_json::from_str(lines[2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        declared["attachments"],
        serde_json::json!([]),
        "declared carriers are never lifted"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("record 0 (line 1): lifted: image shots/a.png"),
        "{err}"
    );
    assert!(
        err.contains("record 1 (line 2): lifted: image shots/a.png"),
        "{err}"
    );
    assert_eq!(err.matches("lifted:").count(), 2, "{err}");
}

#[test]
fn the_shipped_legacy_example_migrates() {
    let out = run(&["migrate", s(&example("legacy-history.jsonl"))], b"");
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("2 upgraded (1 native, 1 prompt)"), "{err}");
    assert!(err.contains("[Tool results] prefix ends in CRLF"), "{err}");
}

#[cfg(unix)]
#[test]
fn in_place_through_a_symlink_rewrites_the_file_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.jsonl");
    let link = dir.path().join("link.jsonl");
    fs::write(&real, LEGACY).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = run(&["migrate", "--in-place", s(&link)], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), MIGRATED);
}
