//! Writing where agents and users point the command: a history an agent
//! is appending to (`--in-place`), devices and FIFOs (`-o`), a full disk,
//! the modes of new and replaced files. Devices are nodes made with
//! `mknod` in a temporary folder, never the machine's own.

#![cfg(unix)]

mod common;

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_tool-carrier");

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The shipped legacy history, its records repeated (with their ids made
/// unique) until the file holds at least `bytes`.
fn legacy_history(path: &Path, bytes: usize) -> usize {
    let sample = fs::read_to_string(common::repo().join("examples/legacy-history.jsonl")).unwrap();
    let mut out = String::with_capacity(bytes + sample.len());
    let mut records = 0;
    let mut round = 0;
    while out.len() < bytes {
        out.push_str(&sample.replace("call_1", &format!("call_r{round}")));
        records += sample.lines().count();
        round += 1;
    }
    fs::write(path, out).unwrap();
    records
}

/// A node made with `mknod` (root, or CAP_MKNOD); `None` where the
/// machine does not allow it, so the caller says why it skipped.
fn device(dir: &Path, name: &str, major: u32, minor: u32) -> Option<PathBuf> {
    let path = dir.join(name);
    let made = Command::new("mknod")
        .arg(&path)
        .args(["c", &major.to_string(), &minor.to_string()])
        .stderr(Stdio::null())
        .status()
        .ok()?;
    made.success().then_some(path)
}

/// An agent that appends one record every few milliseconds, opening the
/// file for each (`O_APPEND`) and taking no lock, as most agents write
/// their transcripts; it returns the ids it appended.
struct Agent {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<u32>>,
}

impl Agent {
    fn start(path: &Path, from: u32) -> Agent {
        let stop = Arc::new(AtomicBool::new(false));
        let path = path.to_owned();
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut ids = Vec::new();
            let mut id = from;
            while !stopping.load(Ordering::Relaxed) {
                let record =
                    format!("{{\"role\": \"user\", \"content\": \"appended record {id}\"}}\n");
                let mut file = File::options().append(true).open(&path).unwrap();
                file.write_all(record.as_bytes()).unwrap();
                drop(file);
                ids.push(id);
                id += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            ids
        });
        Agent { stop, thread }
    }

    fn stop(self) -> Vec<u32> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

fn appended_ids(path: &Path) -> BTreeSet<u32> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.split("appended record ").nth(1))
        .map(|rest| rest.trim_end_matches("\"}").parse().unwrap())
        .collect()
}

/// Five runs of `migrate --in-place` on a 64 MB history while an agent
/// appends: whatever each run ends with (rewritten, refused because the
/// file changed, or rewritten with the last bytes carried over), no record
/// is lost: every original record and every appended one is in the file.
#[test]
fn an_agent_appending_during_migrate_in_place_loses_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let records = legacy_history(&path, 64 << 20);
    let mut expected_ids = BTreeSet::new();
    let mut outcomes = Vec::new();
    for run_no in 0..5u32 {
        let before = fs::read_to_string(&path).unwrap().lines().count();
        let agent = Agent::start(&path, run_no * 1_000_000);
        let out = run(dir.path(), &["migrate", "--in-place", "history.jsonl"]);
        std::thread::sleep(Duration::from_millis(20));
        let ids = agent.stop();
        let code = out.status.code().unwrap();
        let err = stderr(&out);
        match code {
            0 | 1 => {}
            2 => assert!(
                err.contains("the file changed while it was rewritten"),
                "{err}"
            ),
            _ => panic!("exit {code}: {err}"),
        }
        outcomes.push(code);
        expected_ids.extend(ids.iter().copied());
        assert!(!ids.is_empty(), "the agent appended during the run");
        let after = fs::read_to_string(&path).unwrap();
        assert_eq!(
            after.lines().count(),
            before + ids.len(),
            "run {run_no} (exit {code}): {err}"
        );
        assert_eq!(appended_ids(&path), expected_ids, "run {run_no}: {err}");
        assert!(after.lines().count() >= records);
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }
    eprintln!("exit statuses of the five runs: {outcomes:?}");
}

/// With nothing writing, the same run rewrites the file and exits 0.
#[test]
fn a_quiet_history_is_migrated_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    legacy_history(&path, 4000);
    let out = run(dir.path(), &["migrate", "--in-place", "history.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let check = run(dir.path(), &["migrate", "--check", "history.jsonl"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
}

/// A program that holds the file's lock makes the run wait, and say so;
/// once it lets go, the run finishes.
#[test]
fn migrate_in_place_waits_for_a_lock_another_program_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    legacy_history(&path, 4000);
    let holder = File::open(&path).unwrap();
    holder.lock().unwrap();
    let child = Command::new(BIN)
        .args(["migrate", "--in-place", "history.jsonl"])
        .current_dir(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let unchanged = fs::read_to_string(&path).unwrap();
    assert!(
        unchanged.contains("call_r0"),
        "nothing rewritten while locked"
    );
    drop(holder);
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("tool-carrier: waiting for history.jsonl: another program holds its lock"),
        "{err}"
    );
}

/// `-o` a device is written into: the node stays a device. Writing to a
/// full one (a node of the kernel's `full` device, ENOSPC on every write)
/// fails with exit 2.
#[test]
fn migrate_to_a_device_writes_into_it_and_a_full_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (Some(null), Some(full)) = (
        device(dir.path(), "null", 1, 3),
        device(dir.path(), "full", 1, 7),
    ) else {
        eprintln!("skipped: mknod is not permitted here (needs root or CAP_MKNOD)");
        return;
    };
    let sample = common::repo().join("examples/legacy-history.jsonl");
    let sample = sample.to_str().unwrap();
    let out = run(dir.path(), &["migrate", sample, "-o", "null"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(fs::metadata(&null).unwrap().file_type().is_char_device());
    let out = run(dir.path(), &["migrate", sample, "-o", "full"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(fs::metadata(&full).unwrap().file_type().is_char_device());
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no file beside them"
    );
}

/// Standard output on a full device: every command's failed write is a
/// failed run, `--help` and `--version` included.
#[test]
fn a_failed_write_to_standard_output_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let Some(full) = device(dir.path(), "full", 1, 7) else {
        eprintln!("skipped: mknod is not permitted here (needs root or CAP_MKNOD)");
        return;
    };
    let sample = common::repo().join("examples/screenshot-round.jsonl");
    let sample = sample.to_str().unwrap();
    let examples = common::repo().join("examples");
    let cases: [&[&str]; 6] = [
        &["--help"],
        &["--version"],
        &["migrate", "--help"],
        &["inspect", sample],
        &["migrate", sample],
        &[
            "convert",
            "--provider",
            "anthropic",
            "--root",
            examples.to_str().unwrap(),
            sample,
        ],
    ];
    for args in cases {
        let out = Command::new(BIN)
            .args(args)
            .stdout(File::options().write(true).open(&full).unwrap())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
    }
}

/// `-o` a FIFO: its reader gets the whole result, and the FIFO stays.
#[test]
fn migrate_to_a_fifo_feeds_its_reader() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let sample = common::repo().join("examples/legacy-history.jsonl");
    let out = run(
        dir.path(),
        &["migrate", sample.to_str().unwrap(), "-o", "pipe"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let through = reader.join().unwrap();
    let to_stdout = run(dir.path(), &["migrate", sample.to_str().unwrap()]);
    assert_eq!(through, to_stdout.stdout);
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

/// A new `-o` file has the mode the umask gives; `--in-place` keeps the
/// file's mode, and its owner where the process may set it.
#[test]
fn new_files_follow_the_umask_and_replaced_ones_keep_mode_and_owner() {
    let dir = tempfile::tempdir().unwrap();
    let sample = common::repo().join("examples/legacy-history.jsonl");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 027 && exec '{BIN}' migrate '{}' -o new.jsonl",
            sample.display()
        ))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mode = fs::metadata(dir.path().join("new.jsonl")).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o640, "0666 less the umask 027");

    let path = dir.path().join("kept.jsonl");
    fs::copy(&sample, &path).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o604)).unwrap();
    let me = fs::metadata(&path).unwrap();
    // Root may give the file to another user; the run must keep that.
    let other = if me.uid() == 0 {
        std::os::unix::fs::chown(&path, Some(4321), Some(4321)).ok()
    } else {
        None
    };
    let out = run(dir.path(), &["migrate", "--in-place", "kept.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = fs::metadata(&path).unwrap();
    assert_eq!(after.mode() & 0o777, 0o604);
    if other.is_some() {
        assert_eq!((after.uid(), after.gid()), (4321, 4321));
    } else {
        assert_eq!((after.uid(), after.gid()), (me.uid(), me.gid()));
    }
    assert_ne!(after.ino(), me.ino(), "replaced by a rename");
}
