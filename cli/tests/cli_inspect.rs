//! `tool-carrier inspect`: the grammar vectors, formats, errors and exit codes.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The grammar's test vectors, kept in the repository (`tests/data/`) so the
/// suite needs nothing beside the checkout.
fn vector(name: &str) -> PathBuf {
    common::repo().join("tests/data").join(name)
}

fn tool_carrier(args: &[&str], stdin: Option<&[u8]>) -> Output {
    common::run(args, stdin.unwrap_or_default())
}

fn json_lines(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn grammar_vectors_match_the_expected_output() {
    let input = vector("grammar.jsonl");
    let expected =
        std::fs::read(vector("grammar.expected.jsonl")).expect("tests/data/grammar.expected.jsonl");
    let out = tool_carrier(&["inspect", "--json", input.to_str().unwrap()], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = json_lines(&out.stdout);
    let want = json_lines(&expected);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "record {i}");
    }
}

#[test]
fn shipped_example_history_inspects_cleanly() {
    let example = common::repo().to_path_buf().join("examples/history.jsonl");
    let out = tool_carrier(&["inspect", example.to_str().unwrap()], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("native declared"));
    assert!(table.contains("prompt declared"));
}

#[test]
fn standard_input_and_dash_are_the_same() {
    let input = b"{\"role\":\"user\",\"content\":\"[Tool results]\\n[Tool attachments: 0]\\nx\"}\n";
    let a = tool_carrier(&["inspect", "--json"], Some(input));
    let b = tool_carrier(&["inspect", "--json", "-"], Some(input));
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(
        json_lines(&a.stdout)[0]["carrier"]["body"],
        Value::String("x".into())
    );
}

#[test]
fn a_json_array_reads_like_json_lines() {
    let lines =
        b"{\"role\":\"tool\",\"content\":\"raw\"}\n{\"role\":\"user\",\"content\":\"hi\"}\n";
    let array = b"[\n  {\"role\":\"tool\",\"content\":\"raw\"},\n  {\"role\":\"user\",\"content\":\"hi\"}\n]\n";
    let a = tool_carrier(&["inspect", "--json"], Some(lines));
    let b = tool_carrier(&["inspect", "--json"], Some(array));
    assert!(a.status.success() && b.status.success());
    assert_eq!(json_lines(&a.stdout), json_lines(&b.stdout));
}

#[test]
fn bad_records_are_reported_in_place_and_exit_1() {
    let input = b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\"\n[1]\n\xff\n{\"role\":\"tool\",\"content\":\"b\"}\n";
    let out = tool_carrier(&["inspect", "--json"], Some(input));
    assert_eq!(out.status.code(), Some(1));
    let got = json_lines(&out.stdout);
    assert_eq!(got.len(), 5);
    assert_eq!(got[1]["index"], 1);
    assert_eq!(
        got[1]["error"],
        "line 2: invalid JSON at column 14: EOF while parsing an object"
    );
    assert_eq!(got[2]["error"], "line 3: expected a JSON object");
    assert_eq!(got[3]["error"], "line 4: invalid UTF-8 at byte 0");
    assert_eq!(got[4]["carrier"]["kind"], "native");
}

#[test]
fn a_missing_file_is_a_clear_error_with_exit_2() {
    let out = tool_carrier(&["inspect", "/nonexistent/history.jsonl"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("cannot open /nonexistent/history.jsonl"),
        "{err}"
    );
}

#[test]
fn a_closed_output_pipe_ends_quietly() {
    let mut input = Vec::new();
    for _ in 0..200_000 {
        input.extend_from_slice(b"{\"role\":\"user\",\"content\":\"some text to print\"}\n");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["inspect", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    // Read one line, then hang up.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
