//! Input that is not a clean history, for every subcommand: records that
//! are not messages, files that are no history, binary data, records too
//! long to hold, and runs ended by SIGINT or SIGTERM.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn run(args: &[&str], stdin: &[u8]) -> Output {
    common::run(args, stdin)
}

fn adversarial(name: &str) -> PathBuf {
    common::repo().join("tests/data/adversarial").join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// A legacy carrier migration upgrades, then records that are not messages.
const WITH_BAD_RECORDS: &str = concat!(
    "{\"role\":\"tool\",\"content\":\"{\\\"tool_call_id\\\":\\\"c1\\\",\\\"content\\\":\\\"out\\\"}\"}\n",
    "[1]\n",
    "not json\n",
);

#[test]
fn random_bin_is_the_documented_pseudo_random_bytes() {
    // xorshift64 (13, 7, 17) from 0x9E3779B97F4A7C15, 512 outputs written
    // little-endian: 4 KiB that are the same on every machine.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut bytes = Vec::with_capacity(4096);
    for _ in 0..512 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    assert_eq!(fs::read(adversarial("random.bin")).unwrap(), bytes);
}

#[test]
fn migrate_exits_1_when_records_are_not_messages_in_every_mode() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("h.jsonl");
    let reset = || fs::write(&input, WITH_BAD_RECORDS).unwrap();
    reset();
    let out_path = dir.path().join("out.jsonl");
    let media = dir.path().join("media");
    let modes: [Vec<&str>; 6] = [
        vec![],
        vec!["-o", s(&out_path)],
        vec!["--in-place"],
        vec!["--check"],
        vec!["--externalize", s(&media)],
        vec!["--externalize", s(&media), "--in-place"],
    ];
    for mode in &modes {
        reset();
        let mut args = vec!["migrate", s(&input)];
        args.extend(mode);
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("2 not messages"), "{mode:?}");
    }
    // The upgrade was written all the same, and the bad records kept.
    reset();
    let out = run(&["migrate", "--in-place", s(&input)], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = fs::read_to_string(&input).unwrap();
    assert!(text.contains("attachments"), "{text}");
    assert!(text.ends_with("[1]\nnot json\n"), "{text}");
    // A clean history still exits 0.
    let clean = "{\"role\":\"user\",\"content\":\"hi\"}\n";
    assert_eq!(run(&["migrate"], clean.as_bytes()).status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn a_png_given_to_migrate_in_place_is_refused_and_left_untouched() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let bytes = fs::read(common::repo().join("examples/shots/panel7.png")).unwrap();
    fs::write(&png, &bytes).unwrap();
    let inode = fs::metadata(&png).unwrap().ino();
    for mode in [
        &["--in-place"][..],
        &["--externalize", "media", "--in-place"],
    ] {
        let mut args = vec!["migrate", s(&png)];
        args.extend(mode);
        let out = common::run_in(dir.path(), &args, b"");
        assert_eq!(out.status.code(), Some(2), "{mode:?}");
        let err = stderr(&out);
        assert!(
            err.contains("not a JSON Lines history: binary data at byte 0"),
            "{err}"
        );
        assert!(err.contains("shot.png is left as it was"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(fs::metadata(&png).unwrap().ino(), inode, "same file");
        assert_eq!(fs::read(&png).unwrap(), bytes, "same bytes");
    }
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        names.iter().all(|n| n == "shot.png" || n == "media"),
        "{names:?}"
    );

    // Text in which no record is a message is no history either.
    let notes = dir.path().join("notes.txt");
    fs::write(&notes, "first line\nsecond line\n").unwrap();
    let inode = fs::metadata(&notes).unwrap().ino();
    let out = run(&["migrate", "--in-place", s(&notes)], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("not a history: none of its 2 records is a message"),
        "{err}"
    );
    assert_eq!(fs::metadata(&notes).unwrap().ino(), inode);
    assert_eq!(
        fs::read_to_string(&notes).unwrap(),
        "first line\nsecond line\n"
    );
    let copy = dir.path().join("copy.jsonl");
    let out = run(&["migrate", s(&notes), "-o", s(&copy)], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nothing is written to"), "{err}");
    assert!(!copy.exists());
}

#[test]
fn binary_input_stops_at_the_first_error_in_every_reader() {
    let random = adversarial("random.bin");
    let runs: [&[&str]; 6] = [
        &["inspect"],
        &["inspect", "--json"],
        &["migrate"],
        &["migrate", "--check"],
        &["convert", "--provider", "anthropic"],
        &["convert", "--provider", "openai-chat"],
    ];
    for args in runs {
        let mut args = args.to_vec();
        args.push(s(&random));
        let out = run(&args, b"");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        // The first record of random.bin has a byte that is not UTF-8 at 0.
        assert!(
            err.contains("not a JSON Lines history: binary data at byte 0"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Through standard input too, and past leading blank lines.
    let mut input = b"\n\n".to_vec();
    input.extend_from_slice(b"{\"role\":\"user\",\"content\":\"a\0\"}\n");
    let out = run(&["inspect", "--json"], &input);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("binary data at byte 29"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn empty_input_is_a_history_with_no_records() {
    let empty = adversarial("empty.jsonl");
    assert_eq!(fs::metadata(&empty).unwrap().len(), 0);
    for args in [
        &["inspect"][..],
        &["inspect", "--json"],
        &["migrate"],
        &["migrate", "--check"],
    ] {
        let mut args = args.to_vec();
        args.push(s(&empty));
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    let out = run(&["migrate"], b"");
    assert!(stderr(&out).starts_with("migrate: 0 records read"));
}

/// A history whose second record is `len` bytes long.
fn long_record_history(len: usize) -> Vec<u8> {
    let mut h =
        b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"".to_vec();
    let start = h.len() - "{\"role\":\"user\",\"content\":\"".len();
    h.resize(start + len - 2, b'x');
    h.extend_from_slice(b"\"}\n{\"role\":\"user\",\"content\":\"b\"}\n");
    h
}

#[test]
fn a_record_longer_than_the_limit_is_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let history = long_record_history((3 << 20) + 5);
    fs::write(&path, &history).unwrap();
    for args in [
        &["inspect"][..],
        &["inspect", "--json"],
        &["migrate"],
        &["migrate", "--check"],
        &["migrate", "--in-place"],
        &["convert", "--provider", "anthropic"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--max-record-mb", "1", s(&path)]);
        let out = run(&args, b"");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("record 1 (line 2) is longer than the 1 MiB limit"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(fs::read(&path).unwrap(), history, "--in-place left it");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    // Within the limit it reads.
    let out = run(&["inspect", "--max-record-mb", "4", s(&path)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The flag takes whole MiB from 1.
    let out = run(&["inspect", "--max-record-mb", "0", s(&path)], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn record_errors_are_counted_after_the_first_ten() {
    let mut input = String::from("{\"role\":\"user\",\"content\":\"hi\"}\n");
    for _ in 0..25 {
        input.push_str("{\"role\":\"user\"}\n");
    }
    let out = run(&["migrate"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.matches(": not a message: ").count(), 10, "{err}");
    assert!(
        err.ends_with("  … and 15 more records that are not messages\n"),
        "{err}"
    );

    let out = run(&["convert", "--provider", "anthropic"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.matches(": not a message: ").count(), 10, "{err}");
    assert!(
        err.contains("… and 15 more records that are not messages"),
        "{err}"
    );
    assert!(
        err.contains("nothing converted from standard input: 25 records are not messages"),
        "{err}"
    );
    assert!(err.lines().count() <= 12, "{err}");

    // inspect --json still writes one object a record.
    let out = run(&["inspect", "--json"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let errors = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"error\""))
        .count();
    assert_eq!(errors, 25);
}

/// The first part of `line` (split at ": ") that comes again in it.
fn repeated_part(line: &str) -> Option<&str> {
    let parts: Vec<&str> = line.split(": ").map(str::trim).collect();
    parts
        .iter()
        .enumerate()
        .find(|(i, p)| !p.is_empty() && parts[i + 1..].contains(p))
        .map(|(_, p)| *p)
}

#[test]
fn no_diagnostic_of_any_subcommand_repeats_a_prefix() {
    assert_eq!(
        repeated_part("record 3: not a message: not a message: x"),
        Some("not a message")
    );
    let malformed = adversarial("malformed.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("h.jsonl");
    let media = dir.path().join("media");
    let runs: Vec<Vec<&str>> = vec![
        vec!["inspect"],
        vec!["inspect", "--json"],
        vec!["migrate"],
        vec!["migrate", "--check"],
        vec!["migrate", "--in-place", s(&copy)],
        vec!["migrate", "--externalize", s(&media)],
        vec!["convert", "--provider", "anthropic"],
        vec!["convert", "--provider", "openai-chat"],
        vec!["import", "--from", "mcp"],
        vec!["import", "--from", "openai-chat"],
        vec!["media"],
    ];
    let mut seen_bad = 0;
    for args in &runs {
        fs::copy(&malformed, &copy).unwrap();
        let mut args = args.clone();
        if !args.contains(&s(&copy)) {
            args.push(s(&malformed));
        }
        let out = run(&args, b"");
        let err = stderr(&out);
        // inspect and media report on standard output.
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines = err
            .lines()
            .chain(if matches!(args[0], "inspect" | "media") {
                stdout.lines().collect()
            } else {
                Vec::new()
            });
        for line in lines {
            assert_eq!(repeated_part(line), None, "{args:?}: {line}");
            seen_bad += usize::from(line.contains("not a message"));
        }
    }
    assert!(
        seen_bad > 0,
        "the fixture has records that are not messages"
    );
}

/// The interrupted runs take turns: each writes a large input and its
/// output, and four at once once filled a small CI disk.
#[cfg(unix)]
static ONE_LARGE_RUN_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A child killed and waited for when dropped: a failed assertion does
/// not leave it writing once the next run has the turn.
#[cfg(unix)]
struct Reaped(std::process::Child);

#[cfg(unix)]
impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Ways an interrupted run can leave a file behind.
#[cfg(unix)]
fn interrupted(mode: &[&str], signal: &str, status: i32) {
    // A failed turn poisons the lock; the others still run.
    let _turn = ONE_LARGE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.jsonl");
    // About 80 MB of legacy carriers with long contents, to upgrade: a
    // debug build takes about 0.7 s over it, long enough to be signalled
    // mid-write even on a loaded machine.
    let native = serde_json::json!({"role": "tool", "content": serde_json::json!({"tool_call_id": "c1", "content": "x".repeat(60_000)}).to_string()}).to_string();
    let prompt = serde_json::json!({"role": "user", "content": format!("[Tool results]\n{}", "y".repeat(60_000))}).to_string();
    let mut big = Vec::with_capacity(84 << 20);
    while big.len() < 80 << 20 {
        big.extend_from_slice(native.as_bytes());
        big.push(b'\n');
        big.extend_from_slice(prompt.as_bytes());
        big.push(b'\n');
    }
    fs::write(&input, &big).unwrap();
    let mut args = vec!["migrate", s(&input)];
    args.extend(mode);
    let mut child = Reaped(
        Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .args(&args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let others = || -> Vec<(PathBuf, u64)> {
        fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path() != input && e.file_name() != "media")
            .map(|e| (e.path(), e.metadata().map_or(0, |m| m.len())))
            .collect()
    };
    // Wait until the temporary file is being written, then signal.
    let start = Instant::now();
    let mut writing = false;
    while start.elapsed() < Duration::from_secs(60) {
        if others().iter().any(|(_, len)| *len > 0) {
            writing = true;
            break;
        }
        if child.0.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(writing, "{mode:?}: the run ended before it wrote");
    let sent = Command::new("kill")
        .args([signal, &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let code = child.0.wait().unwrap().code();
    assert_eq!(code, Some(status), "{mode:?} {signal}");
    assert_eq!(others(), [], "{mode:?} {signal}: no temporary file is left");
    let media = dir.path().join("media");
    if media.exists() {
        let temps: Vec<_> = fs::read_dir(&media)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(temps.is_empty(), "{temps:?}");
    }
    assert!(fs::read(&input).unwrap() == big, "the input is unchanged");
}

#[cfg(unix)]
#[test]
fn sigint_during_migrate_in_place_removes_the_temporary_file() {
    interrupted(&["--in-place"], "-INT", 130);
}

#[cfg(unix)]
#[test]
fn sigterm_during_migrate_in_place_removes_the_temporary_file() {
    interrupted(&["--in-place"], "-TERM", 143);
}

#[cfg(unix)]
#[test]
fn sigterm_during_migrate_to_a_file_removes_the_temporary_file() {
    interrupted(&["-o", "out.jsonl"], "-TERM", 143);
}

#[cfg(unix)]
#[test]
fn sigint_during_externalize_in_place_removes_the_temporary_file() {
    interrupted(&["--externalize", "media", "--in-place"], "-INT", 130);
}
