//! The transcripts coding agents keep (Claude Code, Codex, Gemini CLI),
//! read natively: every call, id, result, error flag and image accounted
//! for, converted for four providers with the images fitted, each media
//! payload's place in the file said, and every bad line a clear error.
#![cfg(feature = "media")]

#[path = "agent_support/mod.rs"]
mod agent_support;
#[path = "provider_support/mod.rs"]
mod support;

use std::io::BufReader;

use agent_support::{owned, pairs, results, shape, Shape};
use serde_json::Value;
use support::{build, manifest_dir, png, png_sizes};
use tool_carrier::import::{from_agent, Agent, ImportOptions, ImportedHistory};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::{Options, Provider};

fn path(rel: &str) -> std::path::PathBuf {
    manifest_dir().join("tests/data/agents").join(rel)
}

fn read_with(agent: Agent, rel: &str, options: &ImportOptions) -> ImportedHistory {
    let file = std::fs::File::open(path(rel)).unwrap();
    // A reader handing out a few bytes at a time: nothing reads ahead.
    let mut input = BufReader::with_capacity(7, file);
    from_agent(agent, &mut input, &mut InlineStore, options)
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn read(agent: Agent, rel: &str) -> ImportedHistory {
    read_with(agent, rel, &ImportOptions::new())
}

fn err(agent: Agent, text: &str) -> String {
    from_agent(
        agent,
        &mut text.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap_err()
    .to_string()
}

/// What the real Claude Code CLI wrote, headless against a stand-in for
/// the API (`claude-code/record/record.sh`): the user pastes an image,
/// the model thinks and reads two files at once, one of them missing.
const RECORDED: &str = "claude-code/recorded-2.1.332.jsonl";

/// The history [`RECORDED`] holds. Claude Code writes the results in the
/// order the calls finished (the failed one first), and its own note of
/// where it keeps the pasted image as a user line after the prompt.
fn recorded_shape() -> Shape {
    Shape {
        roles: owned(&["user", "user", "assistant", "tool", "tool", "assistant"]),
        calls: pairs(&[
            ("toolu_01Dashboard01", "Read"),
            ("toolu_01Missing02", "Read"),
        ]),
        results: results(&[
            ("toolu_01Missing02", true, 0),
            ("toolu_01Dashboard01", false, 1),
        ]),
        user_media: 1,
    }
}

/// The three agents' main fixtures: a screenshot in a parallel call, a
/// failed call, thinking where the agent keeps it, a pasted image.
fn main_fixtures() -> Vec<(Agent, &'static str, Shape)> {
    vec![
        (
            Agent::ClaudeCode,
            "claude-code/session.jsonl",
            Shape {
                roles: owned(&[
                    "user",
                    "assistant",
                    "tool",
                    "tool",
                    "assistant",
                    "user",
                    "assistant",
                ]),
                calls: pairs(&[
                    ("toolu_01Login", "mcp__browser__screenshot"),
                    ("toolu_01Signup", "mcp__browser__screenshot"),
                ]),
                results: results(&[("toolu_01Login", false, 1), ("toolu_01Signup", true, 0)]),
                user_media: 1,
            },
        ),
        (Agent::ClaudeCode, RECORDED, recorded_shape()),
        (
            Agent::Codex,
            "codex/rollout-2026-04-20T10-03-11-019db3c2-6a1e-7d20-9a4f-2b8c1f0e5d77.jsonl",
            Shape {
                roles: owned(&[
                    "system",
                    "user",
                    "assistant",
                    "tool",
                    "tool",
                    "assistant",
                    "tool",
                    "assistant",
                    "user",
                    "assistant",
                    "tool",
                    "assistant",
                ]),
                calls: pairs(&[
                    ("call_Login", "mcp__browser__screenshot"),
                    ("call_Signup", "mcp__browser__screenshot"),
                    ("call_P4tch", "apply_patch"),
                    ("call_V1ew", "view_image"),
                ]),
                // Codex writes a failed call's output as text: no flag.
                results: results(&[
                    ("call_Login", false, 1),
                    ("call_Signup", false, 0),
                    ("call_P4tch", false, 0),
                    ("call_V1ew", false, 1),
                ]),
                user_media: 1,
            },
        ),
        (
            Agent::GeminiCli,
            "gemini-cli/session-2026-08-21T09-14-5b1d2c3e.jsonl",
            Shape {
                roles: owned(&[
                    "user",
                    "user",
                    "assistant",
                    "tool",
                    "tool",
                    "assistant",
                    "user",
                ]),
                calls: pairs(&[
                    ("browser_screenshot__1787303663871_0", "browser_screenshot"),
                    ("browser_screenshot__1787303663871_1", "browser_screenshot"),
                ]),
                results: results(&[
                    ("browser_screenshot__1787303663871_0", false, 1),
                    ("browser_screenshot__1787303663871_1", true, 0),
                ]),
                user_media: 1,
            },
        ),
    ]
}

#[test]
fn each_agent_reads_every_call_result_error_and_image() {
    for (agent, rel, want) in main_fixtures() {
        let h = read(agent, rel);
        assert_eq!(shape(&h), want, "{rel}");
        assert!(h.tally.is_balanced(), "{rel}: {}", h.tally.summary("kept"));
        assert_eq!(h.tally.refusals(), 0, "{rel}");
    }
}

/// Opt-in, as it runs the real CLI: with `TOOL_CARRIER_CLAUDE_CODE` set
/// to the native binary of the npm package `@anthropic-ai/claude-code`,
/// records a transcript now (`record.sh`, all in a temporary folder,
/// against a stand-in for the API on 127.0.0.1) and reads it as
/// [`RECORDED`] is read: a newer CLI that writes differently fails here.
#[test]
fn a_transcript_the_installed_claude_code_writes_reads_alike() {
    let Some(claude) = std::env::var_os("TOOL_CARRIER_CLAUDE_CODE") else {
        eprintln!("skipped: TOOL_CARRIER_CLAUDE_CODE names no Claude Code binary");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("recorded.jsonl");
    let status = std::process::Command::new(path("claude-code/record/record.sh"))
        .arg(&claude)
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "record.sh: {status}");
    let file = std::fs::File::open(&out).unwrap();
    let h = from_agent(
        Agent::ClaudeCode,
        &mut BufReader::new(file),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap();
    assert_eq!(shape(&h), recorded_shape());
    assert!(h.tally.is_balanced(), "{}", h.tally.summary("kept"));
    assert_eq!(h.tally.refusals(), 0);
    let env: Value = serde_json::from_str(h.messages[2].content()).unwrap();
    assert!(env["anthropic_thinking"][0]["signature"].is_string());
}

#[test]
fn thinking_is_kept_where_the_agent_keeps_it() {
    let h = read(Agent::ClaudeCode, "claude-code/session.jsonl");
    let env: Value = serde_json::from_str(h.messages[1].content()).unwrap();
    assert_eq!(env["content"], "Taking both screenshots.");
    assert_eq!(
        env["anthropic_thinking"][0]["signature"],
        "ErwECmMIDhgCKkBpZ3Vlc3Mgd2hhdCBpcyBoZXJl"
    );
    let h = read(Agent::ClaudeCode, RECORDED);
    let env: Value = serde_json::from_str(h.messages[2].content()).unwrap();
    assert_eq!(env["content"], "Reading both screenshots.");
    assert_eq!(
        env["anthropic_thinking"][0]["thinking"],
        "Both files can be read at once."
    );
    let h = read(
        Agent::Codex,
        "codex/rollout-2026-04-20T10-03-11-019db3c2-6a1e-7d20-9a4f-2b8c1f0e5d77.jsonl",
    );
    let env: Value = serde_json::from_str(h.messages[2].content()).unwrap();
    assert_eq!(env["openai_items"][0]["type"], "reasoning");
    assert_eq!(
        env["openai_items"][0]["encrypted_content"],
        "gAAAAABoQ2xlYXJseSBub3QgcmVhbA=="
    );
    let h = read(
        Agent::GeminiCli,
        "gemini-cli/session-2026-08-21T09-14-5b1d2c3e.jsonl",
    );
    let env: Value = serde_json::from_str(h.messages[5].content()).unwrap();
    assert_eq!(
        env["gemini_parts"][0]["thoughtSignature"],
        "CiQBVKhc7w2b3Yl4mU2lnbmF0dXJl"
    );
    let h = read(Agent::GeminiCli, "gemini-cli/checkpoint-logo.json");
    let env: Value = serde_json::from_str(h.messages[1].content()).unwrap();
    assert_eq!(
        env["gemini_thought_signatures"]["read_file__read_file_1787304000000_0"],
        "CiQBVKhc7w2b3Yl4m"
    );
}

#[test]
fn converted_for_four_providers_everything_is_sent_and_fitted() {
    let providers = [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
    ];
    for (agent, rel, want) in main_fixtures() {
        let h = read(agent, rel);
        for provider in providers {
            let request = build(provider, &h.messages, &Options::new());
            let tally = &request.report.tally;
            let sent = |what: &str| tally.get(what).map(|c| (c.read, c.sent));
            let calls = want.calls.len();
            assert_eq!(sent("call"), Some((calls, calls)), "{rel} for {provider}");
            assert_eq!(sent("result"), Some((calls, calls)), "{rel} for {provider}");
            let images = want.results.iter().map(|r| r.2).sum::<usize>() + want.user_media;
            assert_eq!(
                sent("image"),
                Some((images, images)),
                "{rel} for {provider}"
            );
            assert!(tally.is_balanced(), "{rel} for {provider}");
            // The 2880x1800 screenshot is fitted: sent smaller, never as
            // it came.
            let sizes = png_sizes(&request);
            assert_eq!(sizes.len(), images, "{rel} for {provider}");
            assert!(
                sizes.iter().all(|&(w, h)| w <= 2000 && h <= 2000),
                "{rel} for {provider}: {sizes:?}"
            );
        }
    }
}

#[test]
fn each_payloads_place_in_the_file_is_said() {
    use base64::Engine;
    for (agent, rel, want) in main_fixtures() {
        let h = read(agent, rel);
        let bytes = std::fs::read(path(rel)).unwrap();
        let images = want.results.iter().map(|r| r.2).sum::<usize>() + want.user_media;
        assert_eq!(h.payloads.len(), images, "{rel}: {:?}", h.payloads);
        let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        for p in &h.payloads {
            let text =
                std::str::from_utf8(&bytes[p.span.start as usize..p.span.end as usize]).unwrap();
            let b64 = text.split_once(";base64,").map_or(text, |(_, d)| d);
            let png = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap();
            assert!(png.starts_with(b"\x89PNG"), "{rel}: {}", p.path);
            // The line it names holds it, at the path it names.
            let line = std::str::from_utf8(lines[p.line - 1]).unwrap();
            assert!(line.contains(text), "{rel}: line {}", p.line);
            assert!(p.path.starts_with('$'), "{}", p.path);
        }
    }
    let h = read(Agent::ClaudeCode, "claude-code/session.jsonl");
    let paths: Vec<(usize, &str)> = h
        .payloads
        .iter()
        .map(|p| (p.line, p.path.as_str()))
        .collect();
    assert_eq!(
        paths,
        [
            (8, "$.message.content[0].content[1].source.data"),
            (11, "$.message.content[1].source.data")
        ]
    );
    let h = read(Agent::GeminiCli, "gemini-cli/checkpoint-logo.json");
    assert_eq!(h.payloads.len(), 1);
    assert_eq!(
        h.payloads[0].path,
        "$.history[2].parts[0].functionResponse.parts[0].inlineData.data"
    );
}

#[test]
fn claude_code_compaction_rewinds_and_sub_agents() {
    let h = read(Agent::ClaudeCode, "claude-code/compacted.jsonl");
    let texts: Vec<&str> = h.messages.iter().map(|m| m.content()).collect();
    assert_eq!(h.messages.len(), 5);
    assert!(texts[0].starts_with("This session is being continued"));
    assert_eq!(texts[1], "Mock the payment frame instead.");
    // Before the compaction, the rewound prompt and its answer, and the
    // sub-agent's lines: left out, each counted and said.
    assert!(!texts
        .iter()
        .any(|t| t.contains("checkout test fail") || t.contains("30 s")));
    assert!(!texts.iter().any(|t| t.contains("iframe#pay")));
    let notes: Vec<&str> = h.notes.iter().map(|n| n.text.as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("line 4: a compaction: the 2 records")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("lines 6, 7: 2 records on a branch")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("2 sidechain lines (the first on line 9) are left out")),
        "{notes:?}"
    );
    assert!(h.tally.is_balanced());
    // A sub-agent's own file is its conversation.
    let h = read(Agent::ClaudeCode, "claude-code/agent-a2898e3.jsonl");
    assert_eq!(
        shape(&h),
        Shape {
            roles: owned(&["user", "assistant", "tool", "assistant"]),
            calls: pairs(&[("toolu_01Cart", "mcp__browser__screenshot")]),
            results: results(&[("toolu_01Cart", false, 1)]),
            user_media: 0,
        }
    );
}

#[test]
fn claude_code_merges_an_answer_wherever_its_results_stand() {
    let line = |v: Value| v.to_string() + "\n";
    let answer = |uuid: &str, parent: &str, block: Value| {
        line(
            serde_json::json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "version": "2.1.170", "isSidechain": false,
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [block]}}),
        )
    };
    let result = |uuid: &str, parent: &str, id: &str| {
        line(
            serde_json::json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "version": "2.1.170", "isSidechain": false,
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}}),
        )
    };
    // The first result is written before the answer's second call.
    let text = [
        line(serde_json::json!({"type": "user", "uuid": "u0", "parentUuid": null, "sessionId": "s",
            "version": "2.1.170", "isSidechain": false, "message": {"role": "user", "content": "go"}})),
        answer("a1", "u0", serde_json::json!({"type": "tool_use", "id": "t1", "name": "f", "input": {}})),
        result("r1", "a1", "t1"),
        answer("a2", "a1", serde_json::json!({"type": "tool_use", "id": "t2", "name": "f", "input": {}})),
        result("r2", "a2", "t2"),
    ]
    .concat();
    let h = from_agent(
        Agent::ClaudeCode,
        &mut text.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap();
    let s = shape(&h);
    assert_eq!(s.roles, owned(&["user", "assistant", "tool", "tool"]));
    assert_eq!(s.calls.len(), 2);
    assert_eq!(s.results, results(&[("t1", false, 0), ("t2", false, 0)]));
}

#[test]
fn codex_compaction_and_old_rollouts() {
    let h = read(Agent::Codex, "codex/rollout-compacted.jsonl");
    let s = shape(&h);
    assert_eq!(
        s.roles,
        owned(&["user", "assistant", "user", "assistant", "tool"])
    );
    assert_eq!(s.calls, pairs(&[("call_ls1", "local_shell")]));
    let env: Value = serde_json::from_str(h.messages[1].content()).unwrap();
    assert_eq!(env["openai_items"][0]["type"], "compaction");
    assert!(h
        .notes
        .iter()
        .any(|n| n.text.starts_with("line 4: a compaction: the 2 records")));
    assert!(h.tally.is_balanced());
    let h = read(Agent::Codex, "codex/rollout-2025-08-01-legacy.jsonl");
    assert_eq!(shape(&h).calls, pairs(&[("call_1", "shell")]));
    assert_eq!(h.messages.len(), 4);
}

#[test]
fn gemini_cli_rewinds_updates_and_old_files() {
    let h = read(
        Agent::GeminiCli,
        "gemini-cli/session-2026-08-21T09-14-5b1d2c3e.jsonl",
    );
    let texts: Vec<&str> = h.messages.iter().map(|m| m.content()).collect();
    // Rewound: the cart question and its answer; a command; an info.
    assert!(!texts
        .iter()
        .any(|t| t.contains("cart") || t.contains("/chat") || t.contains("Switched")));
    assert_eq!(*texts.last().unwrap(), "Thanks, that is all.");
    // The record written three times (its tokens, then its calls) is read
    // once, where it first stood.
    assert_eq!(
        texts
            .iter()
            .filter(|t| t.contains("Taking both screenshots."))
            .count(),
        1
    );
    let h = read(
        Agent::GeminiCli,
        "gemini-cli/session-2025-11-02T14-20-9e8d7c6b.json",
    );
    assert_eq!(
        shape(&h).results,
        results(&[("read_file_1762093209441_0", false, 1)])
    );
    assert_eq!(h.payloads.len(), 1);
    assert_eq!(
        h.payloads[0].path,
        "$.messages[1].toolCalls[0].result[1].inlineData.data"
    );
}

#[test]
fn bad_lines_are_errors_naming_the_line_and_path() {
    let cc = |rest: &str| {
        format!(
            r#"{{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s","isSidechain":false,{rest}}}"#
        )
    };
    assert_eq!(
        err(Agent::ClaudeCode, "{\"a\":1}\n"),
        "line 1: $: no `type`: not a line of a Claude Code transcript"
    );
    assert_eq!(
        err(Agent::ClaudeCode, &cc(r#""version":"3.0.1","message":{"role":"user","content":"x"}"#)),
        "line 1: $.version: written by Claude Code 3.0.1, a version this reader was not written for (it reads 1.x to 2.x); --keep-unknown reads it as those"
    );
    // A Codex rollout is no Claude Code transcript: its first line says so.
    let rollout = std::fs::read_to_string(path("codex/rollout-compacted.jsonl")).unwrap();
    assert_eq!(
        err(Agent::ClaudeCode, &rollout),
        "line 1: $: a line of type \"session_meta\" without a `sessionId`: not a line of a Claude Code transcript (--keep-unknown reads it as one of its own records)"
    );
    let meta =
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cli_version":"1.0.2"}}"#;
    assert_eq!(
        err(Agent::Codex, meta),
        "line 1: $.payload.cli_version: written by Codex 1.0.2, a version this reader was not written for (it reads 0.x); --keep-unknown reads it as those"
    );
    let kept = from_agent(
        Agent::Codex,
        &mut meta.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new().with_keep_unknown(true),
    );
    assert!(kept.is_ok());
    assert_eq!(
        err(Agent::ClaudeCode, &format!("\n{}\n", cc(r#""message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%%"}}]}"#))),
        "line 2: $.message.content[0].source: the payload is not base64: Invalid symbol 37, offset 0."
    );
    // In a merged answer, the block's own line.
    let answer = |n: u8, block: &str| {
        format!(
            r#"{{"type":"assistant","uuid":"a{n}","parentUuid":null,"sessionId":"s","isSidechain":false,"message":{{"id":"m","role":"assistant","content":[{block}]}}}}"#
        )
    };
    let text = format!(
        "{}\n{}\n",
        answer(1, r#"{"type":"text","text":"hi"}"#),
        answer(2, r#"{"type":"tool_use","name":"f","input":{}}"#)
    );
    assert_eq!(
        err(Agent::ClaudeCode, &text),
        "line 2: $.message.content[0]: missing field `id`"
    );
    assert_eq!(
        err(
            Agent::Codex,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"data:image/png;base64,%%"}]}}"#
        ),
        "line 1: $.payload.output[0]: the payload is not base64: Invalid symbol 37, offset 0."
    );
    assert_eq!(
        err(
            Agent::Codex,
            r#"{"timestamp":"t","type":"rollout_item","payload":{}}"#
        ),
        "line 1: $.type: a line of type \"rollout_item\", which this reader was not written for"
    );
    assert_eq!(
        err(Agent::GeminiCli, "{\"sessionId\":\"s\",\"projectHash\":\"p\"}\n{\"id\":\"1\",\"timestamp\":\"t\",\"type\":\"model\",\"content\":\"x\"}\n"),
        "line 2: $.type: a record of type \"model\", which this reader was not written for"
    );
    assert_eq!(
        err(Agent::GeminiCli, "{\"hello\":1}\n"),
        "line 1: $: not a line of a Gemini CLI recording: no `id`, `$set`, `$rewindTo` or `sessionId`"
    );
    assert!(err(
        Agent::Codex,
        "{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{}}\nnot json\n"
    )
    .starts_with("line 2: not JSON: "));
    // A line cut short at the end of a Gemini CLI recording is passed over,
    // as Gemini CLI does, and counted.
    let cut = "{\"sessionId\":\"s\",\"projectHash\":\"p\"}\n{\"id\":\"1\",\"timestamp\":\"t\",\"type\":\"user\",\"content\":\"hi\"}\n{\"id\":\"2\",\"tim";
    let h = from_agent(
        Agent::GeminiCli,
        &mut cut.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap();
    assert_eq!(h.messages.len(), 1);
    assert_eq!(
        h.tally.get("line that is no JSON").map(|c| c.noted),
        Some(1)
    );
}

/// A recording's images go to the store as its lines are read, so its
/// records are held without them; an image of a record a later line
/// replaced is a file no record names, and is said to be one.
#[test]
fn gemini_cli_media_go_to_the_folder_as_records_are_read() {
    use base64::Engine;
    use tool_carrier::media::store::DirStore;
    let b64 = |seed| base64::engine::general_purpose::STANDARD.encode(png(8, 8, seed));
    let user = |seed| {
        serde_json::json!({"id": "u1", "timestamp": "t", "type": "user", "content": [
            {"text": "look"},
            {"inlineData": {"mimeType": "image/png", "data": b64(seed)}}]})
        .to_string()
    };
    let header =
        r#"{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}"#;
    let dir = tempfile::tempdir().unwrap();
    let read = |lines: &[String]| {
        let text = format!("{}\n", lines.join("\n"));
        let mut store = DirStore::new(dir.path()).unwrap();
        from_agent(
            Agent::GeminiCli,
            &mut text.as_bytes(),
            &mut store,
            &ImportOptions::new(),
        )
        .unwrap()
    };
    // Written again with the same image: one file, named by the record.
    let h = read(&[header.to_owned(), user(1), user(1)]);
    let target = h.messages[0].attachments()[0].target.to_string();
    assert!(dir.path().join(&target).is_file(), "{target}");
    assert!(h.notes.iter().all(|n| !n.text.contains("no record names")));
    // Replaced by another image: the first is a file no record names.
    let h = read(&[header.to_owned(), user(2), user(3)]);
    let kept = h.messages[0].attachments()[0].target.to_string();
    let files = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(files, 3);
    let orphans: Vec<&str> = h
        .notes
        .iter()
        .map(|n| n.text.as_str())
        .filter(|t| t.contains("no record names it"))
        .collect();
    assert_eq!(orphans.len(), 1, "{orphans:?}");
    assert!(!orphans[0].contains(&kept));
    assert_eq!(h.messages.len(), 1);
    assert!(h.tally.is_balanced());
}
