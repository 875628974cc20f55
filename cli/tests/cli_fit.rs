//! `tool-carrier fit` as a stranger runs it: in place on a transcript an
//! agent may be appending to, `--check`, `-o`, standard output, options
//! that contradict each other, and files that are no transcript.

#![cfg(unix)]

mod common;

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_tool-carrier");

fn run(dir: &Path, args: &[&str]) -> Output {
    common::run_in(dir, args, b"")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The Claude Code fixture (a 2880×1800 screenshot in a tool result) in
/// `dir`, as `name`.
fn transcript(dir: &Path, name: &str) -> String {
    let text =
        fs::read_to_string(common::repo().join("tests/data/agents/claude-code/session.jsonl"))
            .unwrap();
    fs::write(dir.join(name), &text).unwrap();
    text
}

#[test]
fn fit_in_place_then_check_says_nothing_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let before = transcript(dir.path(), "s.jsonl");
    // --check: exit 1, nothing written.
    let out = run(
        dir.path(),
        &["fit", "--provider", "anthropic", "--check", "s.jsonl"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert_eq!(
        fs::read_to_string(dir.path().join("s.jsonl")).unwrap(),
        before
    );
    // Standard output and -o write the same bytes.
    let to_stdout = run(dir.path(), &["fit", "--provider", "anthropic", "s.jsonl"]);
    assert_eq!(to_stdout.status.code(), Some(0), "{}", stderr(&to_stdout));
    let out = run(
        dir.path(),
        &["fit", "--provider", "anthropic", "s.jsonl", "-o", "o.jsonl"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = fs::read(dir.path().join("o.jsonl")).unwrap();
    assert_eq!(written, to_stdout.stdout);
    assert_ne!(written, before.as_bytes());
    // In place: the same bytes, then nothing left to do.
    let out = run(
        dir.path(),
        &["fit", "--provider", "anthropic", "--in-place", "s.jsonl"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 fitted, 0 left out"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(dir.path().join("s.jsonl")).unwrap(), written);
    let modified = fs::metadata(dir.path().join("s.jsonl"))
        .unwrap()
        .modified()
        .unwrap();
    let out = run(
        dir.path(),
        &["fit", "--provider", "anthropic", "--check", "s.jsonl"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Nothing to change: in place leaves the file as it is, not renamed.
    let out = run(
        dir.path(),
        &["fit", "--provider", "anthropic", "--in-place", "s.jsonl"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let again = fs::metadata(dir.path().join("s.jsonl"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(modified, again);
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temporary file left"
    );
}

/// An agent appends to the transcript while `fit --in-place` runs: the
/// run is refused (exit 2) and the file keeps what it had and every line
/// appended; or, appended during the rename, carried over (exit 1).
#[test]
fn say_scale_writes_the_scale_beside_the_resized_screenshot_once() {
    let dir = tempfile::tempdir().unwrap();
    transcript(dir.path(), "s.jsonl");
    let args = [
        "fit",
        "--provider",
        "anthropic",
        "--say-scale",
        "s.jsonl",
        "--in-place",
    ];
    let out = run(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fitted = fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    let said = r#"{"type":"text","text":"scaled from 2880×1800 to 2000×1250: multiply coordinates by 1.440"}"#;
    assert!(fitted.contains(said), "{}", stderr(&out));
    // Again: nothing left to fit, so nothing more said.
    let again = run(dir.path(), &args);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(
        fs::read_to_string(dir.path().join("s.jsonl")).unwrap(),
        fitted
    );
}

#[test]
fn a_transcript_appended_to_during_fit_in_place_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let before = transcript(dir.path(), "s.jsonl");
    let path = dir.path().join("s.jsonl");
    // What Claude Code appends as it works: file-history snapshots.
    let snapshot = before.lines().next().unwrap().to_owned();
    assert!(snapshot.contains("file-history-snapshot"));
    let stop = Arc::new(AtomicBool::new(false));
    let appender = {
        let (stop, path) = (stop.clone(), path.clone());
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let mut f = OpenOptions::new().append(true).open(&path).unwrap();
                let line = snapshot.replace(
                    "00000000-0000-4000-8000-000000000001",
                    &format!("appended-{n}"),
                );
                writeln!(f, "{line}").unwrap();
                n += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
            n
        })
    };
    let out = run(
        dir.path(),
        &["fit", "--provider", "anthropic", "--in-place", "s.jsonl"],
    );
    std::thread::sleep(Duration::from_millis(20));
    stop.store(true, Ordering::Relaxed);
    let appended = appender.join().unwrap();
    let err = stderr(&out);
    let after = fs::read_to_string(&path).unwrap();
    let ids: Vec<u32> = after
        .lines()
        .filter_map(|l| l.split("\"messageId\":\"appended-").nth(1))
        .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        ids,
        (0..appended).collect::<Vec<_>>(),
        "every appended line, once, in order: {err}"
    );
    match out.status.code() {
        Some(2) => {
            assert!(
                err.contains("the file changed while it was rewritten"),
                "{err}"
            );
            assert!(err.contains("s.jsonl is left as it was"), "{err}");
            assert!(after.starts_with(&before));
        }
        Some(1) => assert!(err.contains("carried over as written"), "{err}"),
        code => panic!("exit {code:?}: {err}"),
    }
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn fit_in_place_waits_for_a_lock_another_program_holds() {
    let dir = tempfile::tempdir().unwrap();
    let before = transcript(dir.path(), "s.jsonl");
    let holder = File::open(dir.path().join("s.jsonl")).unwrap();
    holder.lock().unwrap();
    let child = Command::new(BIN)
        .args(["fit", "--provider", "anthropic", "--in-place", "s.jsonl"])
        .current_dir(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        fs::read_to_string(dir.path().join("s.jsonl")).unwrap(),
        before
    );
    drop(holder);
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("waiting for s.jsonl: another program holds its lock"),
        "{err}"
    );
}

#[test]
fn what_fit_cannot_read_or_do_is_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    transcript(dir.path(), "s.jsonl");
    fs::write(dir.path().join("bin"), b"\x89PNG\r\n\x1a\n\0\0\xff\xfe").unwrap();
    fs::write(dir.path().join("text.txt"), "just some words\n").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["fit", "--provider", "anthropic", "bin", "-o", "out"],
            "not text",
        ),
        (
            &["fit", "--provider", "anthropic", "text.txt", "-o", "out"],
            "fitting text.txt",
        ),
        (
            &["fit", "--provider", "anthropic", "missing.jsonl"],
            "missing.jsonl",
        ),
        (
            &["fit", "--provider", "anthropic", "--in-place", "-"],
            "--in-place needs a FILE",
        ),
        (
            &[
                "fit",
                "--provider",
                "anthropic",
                "--check",
                "-o",
                "out",
                "s.jsonl",
            ],
            "cannot be used with",
        ),
        (
            &["fit", "--provider", "nobody", "s.jsonl"],
            "invalid value 'nobody'",
        ),
    ];
    for (args, says) in cases {
        let out = run(dir.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.path().join("out").exists(), "{args:?}");
    }
    // A file the wrong reader is asked to read names the reader.
    let out = run(
        dir.path(),
        &["fit", "--provider", "gemini", "--from", "codex", "s.jsonl"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Codex"), "{}", stderr(&out));
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        3,
        "nothing written"
    );
}
