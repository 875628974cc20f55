//! `--facts FILE` and `TOOL_CARRIER_FACTS`: a user's facts change what
//! `convert` and `media` do; a bad file is refused naming its key; a model
//! past its date or unknown is warned of; `models` lists the data.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use base64::Engine;
use common::repo;

/// A Claude model of one's own: one image a request, processed at most at
/// 50 px.
const MINE: &str = r#"
[models.claude-test-9]
source = "https://example.com/claude-test-9"
read = 2026-12-01
family = "claude"
apis = ["anthropic"]
max_images = 1
sizing = { scheme = "claude-patches", long_edge = 50, max_patches = 1568, patch = 28 }
"#;

fn tool_carrier(args: &[&str], env: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tool-carrier"));
    command.args(args).current_dir(repo());
    command.env_remove("TOOL_CARRIER_FACTS");
    if let Some(path) = env {
        command.env("TOOL_CARRIER_FACTS", path);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The (width, height) of every base64 PNG in an Anthropic body.
fn sizes(body: &[u8]) -> Vec<(u32, u32)> {
    let body: serde_json::Value = serde_json::from_slice(body).unwrap();
    let mut out = Vec::new();
    let mut stack = vec![&body];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(m) => {
                if m.get("media_type").and_then(|t| t.as_str()) == Some("image/png") {
                    let b64 = m["data"].as_str().unwrap();
                    let png = base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .unwrap();
                    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
                    out.push((be(16), be(20)));
                }
                stack.extend(m.values());
            }
            serde_json::Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out.sort_unstable();
    out
}

const CONVERT: &[&str] = &[
    "convert",
    "--provider",
    "anthropic",
    "--model",
    "claude-test-9",
    "--root",
    "examples",
    "--compact",
];

#[test]
fn a_users_model_changes_what_convert_sends() {
    let dir = tempfile::tempdir().unwrap();
    let facts = dir.path().join("facts.toml");
    std::fs::write(&facts, MINE).unwrap();
    let round = "examples/screenshot-round.jsonl";

    // Unknown to the built-in data: both screenshots as they are, and a
    // warning saying what was assumed.
    let out = tool_carrier(&[CONVERT, &[round]].concat(), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sizes(&out.stdout), [(64, 40), (96, 60)]);
    let warning = text(&out.stderr);
    assert!(
        warning.contains("warning: unknown model \"claude-test-9\" for anthropic: assumed the claude family's facts"),
        "{warning}"
    );

    // With the file: one image kept (the newest) and fitted to 50 px; no
    // warning.
    let path = facts.to_str().unwrap();
    let out = tool_carrier(&[CONVERT, &["--facts", path, round]].concat(), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sizes(&out.stdout), [(50, 31)]);
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    let body = text(&out.stdout);
    assert!(
        body.contains(
            "[image shots/editor.png omitted: an Anthropic request takes at most 1 image;"
        ),
        "the older screenshot has its note"
    );

    // The same file named by the environment.
    let out = tool_carrier(&[CONVERT, &[round]].concat(), Some(&facts));
    assert_eq!(sizes(&out.stdout), [(50, 31)]);
}

#[test]
fn a_users_model_changes_what_media_shows() {
    let dir = tempfile::tempdir().unwrap();
    let facts = dir.path().join("facts.json");
    std::fs::write(
        &facts,
        r#"{"models": {"claude-test-9": {"family": "claude", "apis": ["anthropic"],
            "sizing": {"scheme": "claude-patches", "long_edge": 48, "max_patches": 1568, "patch": 28}}}}"#,
    )
    .unwrap();
    let media = |extra: &[&str]| {
        let args = [
            &[
                "media",
                "--json",
                "--provider",
                "anthropic",
                "--model",
                "claude-test-9",
            ][..],
            extra,
            &["examples/shots/dashboard.png"],
        ]
        .concat();
        let out = tool_carrier(&args, None);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(media(&[])["final"]["width"], 96);
    let fitted = media(&["--facts", facts.to_str().unwrap()]);
    assert_eq!(
        (
            fitted["final"]["width"].as_u64(),
            fitted["final"]["height"].as_u64()
        ),
        (Some(48), Some(30))
    );
    // ⌈48/28⌉ × ⌈30/28⌉ visual tokens.
    assert_eq!(fitted["provider"]["tokens"], 4);
}

#[test]
fn a_bad_facts_file_fails_naming_the_key_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[models.claude-test-9]\nmax_imgaes = 3\n").unwrap();
    let round = "examples/screenshot-round.jsonl";
    let out = tool_carrier(
        &[CONVERT, &["--facts", bad.to_str().unwrap(), round]].concat(),
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(
        err.contains("--facts ")
            && err.contains("facts key `models.claude-test-9.max_imgaes`: unknown field"),
        "{err}"
    );
    // Named by the environment, the message says so.
    let out = tool_carrier(&[CONVERT, &[round]].concat(), Some(&bad));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("TOOL_CARRIER_FACTS="),
        "{}",
        text(&out.stderr)
    );
    // Not .toml or .json; missing; binary.
    let other = dir.path().join("facts.yaml");
    std::fs::write(&other, "a: 1").unwrap();
    for (path, says) in [
        (other.as_path(), "a facts file is .toml or .json"),
        (&dir.path().join("none.toml"), "No such file"),
    ] {
        let out = tool_carrier(&["models", "--facts", path.to_str().unwrap()], None);
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
    }
    let binary = dir.path().join("random.toml");
    std::fs::copy(repo().join("tests/data/adversarial/random.bin"), &binary).unwrap();
    let out = tool_carrier(&["models", "--facts", binary.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_retired_model_is_warned_of_with_its_successor() {
    let out = tool_carrier(
        &[
            "convert",
            "--provider",
            "anthropic",
            "--model",
            "claude-sonnet-4-5-20250929",
            "--root",
            "examples",
            "examples/screenshot-round.jsonl",
        ],
        None,
    );
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: model \"claude-sonnet-4-5-20250929\" was retired on 2026-11-30")
            && err.contains("claude-sonnet-5-5"),
        "{err}"
    );
}

#[test]
fn models_lists_the_data_with_sources() {
    let out = tool_carrier(&["models", "--provider", "anthropic"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let header = table.lines().next().unwrap();
    assert!(
        header.starts_with("model") && header.contains("image size") && header.ends_with("source"),
        "{header}"
    );
    let default = table
        .lines()
        .find(|l| l.starts_with("claude-sonnet-5-5 *"))
        .unwrap();
    assert!(
        default.contains("2576 px, 4784×28px patches") && default.contains("600"),
        "{default}"
    );
    assert!(table
        .lines()
        .any(|l| l.starts_with("claude-sonnet-4-5 ") && l.contains("2026-11-30")));
    assert!(!table.contains("gpt-5"));

    let out = tool_carrier(
        &["models", "--json", "--provider", "openai-responses"],
        None,
    );
    let rows: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let gpt = rows.iter().find(|r| r["id"] == "gpt-5.5").unwrap();
    assert_eq!(gpt["default"], true);
    assert_eq!(gpt["view"]["long_edge"], 6000);
    assert!(gpt["sources"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["read"] == "2026-12-01"));

    // A file's own model is listed, its source the file.
    let dir = tempfile::tempdir().unwrap();
    let facts = dir.path().join("facts.toml");
    std::fs::write(
        &facts,
        "[models.claude-test-9]\nfamily = \"claude\"\napis = [\"anthropic\"]\n",
    )
    .unwrap();
    let out = tool_carrier(
        &["models", "--json", "--facts", facts.to_str().unwrap()],
        None,
    );
    let mine = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["id"] == "claude-test-9")
        .unwrap();
    assert_eq!(mine["sources"][0]["source"], facts.to_str().unwrap());
}
