//! `tool-carrier import --from mcp` and `migrate --externalize`: inline
//! media to content-addressed files, and back through `convert`.

mod common;

use std::fs;

use serde_json::{json, Value};

/// A 1×1 GIF, base64.
const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

fn run(dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    common::run_in(dir, args, stdin)
}

#[test]
fn mcp_results_become_carriers_with_their_images_as_files() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        json!({"tool_call_id": "c1", "result": {"content": [{"type": "text", "text": "one"}, {"type": "image", "data": GIF, "mimeType": "image/gif"}]}}),
        json!({"tool_call_id": "c2", "result": {"content": [{"type": "image", "data": GIF, "mimeType": "image/gif"}], "isError": true}}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let out = run(
        dir.path(),
        &["import", "--from", "mcp", "--media-dir", "media"],
        lines.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let history = String::from_utf8(out.stdout).unwrap();
    let records: Vec<Value> = history
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    let envelopes: Vec<Value> = records
        .iter()
        .map(|r| serde_json::from_str(r["content"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(envelopes[0]["tool_call_id"], "c1");
    assert_eq!(envelopes[1]["is_error"], true);
    let target = envelopes[0]["attachments"][0]["target"].as_str().unwrap();
    assert_eq!(target, envelopes[1]["attachments"][0]["target"]);
    assert!(target.ends_with(".gif") && target.len() == 64 + 4);
    let files: Vec<_> = fs::read_dir(dir.path().join("media")).unwrap().collect();
    assert_eq!(files.len(), 1, "the same image is stored once");

    // One result on its own, with --call-id; no folder: a data: target.
    let one =
        json!({"content": [{"type": "image", "data": GIF, "mimeType": "image/gif"}]}).to_string();
    let out = run(
        dir.path(),
        &["import", "--from", "mcp", "--call-id", "x"],
        one.as_bytes(),
    );
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    let envelope: Value = serde_json::from_str(record["content"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["tool_call_id"], "x");
    assert_eq!(
        envelope["attachments"][0]["target"],
        format!("data:image/gif;base64,{GIF}")
    );

    // A bad result is an error naming where.
    let bad = json!({"content": [{"type": "image", "mimeType": "image/png"}]}).to_string();
    let out = run(dir.path(), &["import", "--from", "mcp"], bad.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("result 1: $.content[0]: a \"image\" block needs a string \"data\""),
        "{err}"
    );
}

#[test]
fn externalize_moves_data_targets_out_and_convert_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let data = format!("data:image/gif;base64,{GIF}");
    let mut history = String::new();
    for n in 0..4 {
        let call = json!({"content": null, "tool_calls": [{"id": format!("c{n}"), "name": "shot", "arguments": "{}"}]});
        let result = json!({"tool_call_id": format!("c{n}"), "content": "ok", "attachments": [{"kind": "image", "target": data}]});
        history += &format!(
            "{}\n{}\n",
            json!({"role": "assistant", "content": call.to_string()}),
            json!({"role": "tool", "content": result.to_string()})
        );
    }
    fs::write(dir.path().join("h.jsonl"), &history).unwrap();
    let out = run(
        dir.path(),
        &["migrate", "h.jsonl", "--in-place", "--externalize", "media"],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "4 data: targets in 4 carriers moved out, 1 files written, 3 duplicates folded"
        ),
        "{err}"
    );
    let after = fs::read_to_string(dir.path().join("h.jsonl")).unwrap();
    assert!(after.len() < history.len() && !after.contains("base64"));
    // Converting from the files gives the body converting the inline data
    // gave.
    let convert = |file: &str, root: &str| {
        let out = run(
            dir.path(),
            &["convert", "--provider", "anthropic", "--root", root, file],
            b"",
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    fs::write(dir.path().join("inline.jsonl"), &history).unwrap();
    assert_eq!(convert("h.jsonl", "media"), convert("inline.jsonl", "."));
    // A second run changes nothing.
    let out = run(
        dir.path(),
        &["migrate", "h.jsonl", "--in-place", "--externalize", "media"],
        b"",
    );
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("0 data: targets"));
    assert_eq!(
        fs::read_to_string(dir.path().join("h.jsonl")).unwrap(),
        after
    );
}

fn repo() -> &'static std::path::Path {
    common::repo()
}

#[test]
fn provider_bodies_are_imported_and_converted_for_another_provider() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = repo().join("tests/data/import/openai-chat-images-after-tools.json");
    let fixture = fixture.to_str().unwrap();
    let out = run(
        dir.path(),
        &[
            "import",
            "--from",
            "openai-chat",
            "--media-dir",
            "media",
            fixture,
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let history = String::from_utf8(out.stdout).unwrap();
    let roles: Vec<String> = history
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["role"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    // The images message after the tool messages is folded back into them.
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "user"]
    );
    assert_eq!(fs::read_dir(dir.path().join("media")).unwrap().count(), 2);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("import: 6 messages from openai-chat format, 0 notes"),
        "{err}"
    );

    // The same body converted for Anthropic in one step: the images sit in
    // the tool_result blocks, the body's tools are declared.
    let out = run(
        dir.path(),
        &[
            "convert",
            "--from",
            "openai-chat",
            "--provider",
            "anthropic",
            fixture,
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["tools"][0]["name"], "screenshot");
    assert_eq!(body["tools"][0]["input_schema"]["required"][0], "page");
    let results = &body["messages"][2]["content"];
    assert_eq!(results[0]["type"], "tool_result");
    assert_eq!(results[0]["content"][1]["type"], "image");
    assert_eq!(results[1]["content"][1]["type"], "image");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("2 images"), "{err}");
    assert!(err.contains("tools: 1 declared"), "{err}");

    // A body of another shape is a clear error naming where.
    let out = run(
        dir.path(),
        &[
            "convert",
            "--from",
            "gemini",
            "--provider",
            "anthropic",
            fixture,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--from gemini") && err.contains("expected a generateContent body"),
        "{err}"
    );
}

#[test]
fn a_users_pasted_image_is_imported_as_theirs_and_sent_again() {
    let dir = tempfile::tempdir().unwrap();
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": GIF}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "A dot."}]}
    ]});
    fs::write(dir.path().join("body.json"), body.to_string()).unwrap();
    let out = run(
        dir.path(),
        &[
            "import",
            "--from",
            "anthropic",
            "--media-dir",
            "media",
            "body.json",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let history = String::from_utf8(out.stdout).unwrap();
    let user: Value = serde_json::from_str(history.lines().next().unwrap()).unwrap();
    assert_eq!(user["content"], "What is this?");
    let target = user["attachments"][0]["target"].as_str().unwrap();
    assert!(dir.path().join("media").join(target).is_file(), "{history}");
    fs::write(dir.path().join("history.jsonl"), &history).unwrap();
    // inspect lists it; convert sends it, from the media folder.
    let out = run(dir.path(), &["inspect", "history.jsonl"], b"");
    let table = String::from_utf8(out.stdout).unwrap();
    // (the column is 30 characters wide)
    assert!(
        table.contains(&format!("image:{}", &target[..20])),
        "{table}"
    );
    let out = run(
        dir.path(),
        &[
            "convert",
            "--provider",
            "openai-chat",
            "--root",
            "media",
            "history.jsonl",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
    // (fitted: a GIF goes to OpenAI as a PNG)
    let url = sent["messages"][0]["content"][1]["image_url"]["url"]
        .as_str()
        .unwrap();
    assert!(url.starts_with("data:image/png;base64,"), "{sent}");
}
