//! `import --from claude-code | codex | gemini-cli | auto` and `convert
//! --from` the same: an agent's transcript read by the command, its format
//! told by `auto`, and what no format reads refused with each reason.

mod common;

use serde_json::Value;

const FIXTURES: [(&str, &str); 10] = [
    ("claude-code", "tests/data/agents/claude-code/session.jsonl"),
    ("codex", "tests/data/agents/codex/rollout-compacted.jsonl"),
    (
        "gemini-cli",
        "tests/data/agents/gemini-cli/session-2026-08-21T09-14-5b1d2c3e.jsonl",
    ),
    (
        "gemini-cli",
        "tests/data/agents/gemini-cli/checkpoint-logo.json",
    ),
    (
        "vercel-ai",
        "tests/data/agents/vercel-ai/model-messages.json",
    ),
    ("vercel-ai", "tests/data/agents/vercel-ai/ui-messages.json"),
    (
        "pydantic-ai",
        "tests/data/agents/pydantic-ai/messages-2.68.0.json",
    ),
    ("cline", "tests/data/agents/cline/session-v1.messages.json"),
    ("langchain", "tests/data/agents/langchain/dumpd-1.8.3.json"),
    // A database is told by its first bytes.
    (
        "openai-agents",
        "tests/data/agents/openai-agents/session.db",
    ),
];

fn records(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn each_agent_is_read_by_name_and_by_auto_alike() {
    for (agent, file) in FIXTURES {
        let named = common::run(&["import", "--from", agent, file], b"");
        let said = String::from_utf8_lossy(&named.stderr).into_owned();
        assert!(named.status.success(), "{agent} {file}: {said}");
        assert!(!records(&named.stdout).is_empty(), "{file}: no records");
        let auto = common::run(&["import", "--from", "auto", file], b"");
        let told = String::from_utf8_lossy(&auto.stderr).into_owned();
        assert!(auto.status.success(), "auto {file}: {told}");
        assert!(
            told.contains(&format!("(--from {agent})")),
            "{file}: {told}"
        );
        assert_eq!(records(&auto.stdout), records(&named.stdout), "{file}");
    }
}

#[test]
fn convert_reads_an_agents_transcript_in_one_step() {
    for (agent, file) in FIXTURES {
        for from in [agent, "auto"] {
            let out = common::run(
                &["convert", "--from", from, "--provider", "anthropic", file],
                b"",
            );
            let said = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(out.status.success(), "{from} {file}: {said}");
            let body: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(!body["messages"].as_array().unwrap().is_empty(), "{file}");
        }
    }
}

#[test]
fn what_no_format_reads_fails_naming_each_reason() {
    let out = common::run(&["import", "--from", "auto"], b"{\"x\": 1}\n");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("no format reads it"), "{said}");
    assert!(said.contains("--from anthropic"), "{said}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_transcript_read_as_the_wrong_agent_is_refused() {
    let out = common::run(&["import", "--from", "codex", FIXTURES[0].1], b"");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("line 1"), "{said}");
}

#[test]
fn an_empty_input_has_no_shape_for_auto_to_tell() {
    for command in ["import", "convert"] {
        let mut args = vec![command, "--from", "auto"];
        if command == "convert" {
            args.extend(["--provider", "anthropic"]);
        }
        let out = common::run(&args, b"\n\n");
        assert_eq!(out.status.code(), Some(2), "{command}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("the input is empty"), "{command}: {said}");
        assert!(out.stdout.is_empty(), "{command}");
    }
}

/// An Agents SDK database is read read-only, its session named where it
/// must be, and `--session` given for anything else is an error.
#[test]
fn an_agents_sdk_database_is_read_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("session.db");
    std::fs::copy(
        common::repo().join("tests/data/agents/openai-agents/session.db"),
        &db,
    )
    .unwrap();
    let before = std::fs::read(&db).unwrap();
    let path = db.to_str().unwrap();
    let named = [
        "import",
        "--from",
        "openai-agents",
        "--session",
        "conv_fixture_1",
        path,
    ];
    let out = common::run(&named, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = common::run(
        &[
            "import",
            "--from",
            "openai-agents",
            "tests/data/agents/openai-agents/items.jsonl",
        ],
        b"",
    );
    assert_eq!(records(&out.stdout), records(&rows.stdout));
    let out = common::run(
        &[
            "import",
            "--from",
            "openai-agents",
            "--session",
            "nope",
            path,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("no session \"nope\" (the database holds \"conv_fixture_1\")"),
        "{said}"
    );
    let items = "tests/data/agents/openai-agents/items.jsonl";
    let out = common::run(
        &["import", "--from", "openai-agents", "--session", "x", items],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--session names a session"));
    // Read as another agent's, a database is bytes that are no text.
    let out = common::run(&["import", "--from", "cline", path], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
