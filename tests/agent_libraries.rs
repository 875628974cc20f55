//! The histories agent libraries save (the Vercel AI SDK's messages, the
//! OpenAI Agents SDK's session items, pydantic-ai's, LangChain's, Cline's),
//! each written by the library itself where it can be installed
//! (`tests/data/agents/NAME/record/`), read natively: every call, result,
//! error and image accounted for, converted for four providers with
//! everything sent, and what a provider's reader would lose refused.
#![cfg(feature = "media")]

#[path = "agent_support/mod.rs"]
mod agent_support;
#[path = "provider_support/mod.rs"]
mod support;

use std::io::BufReader;

use agent_support::{owned, pairs, results, shape, Shape};
use serde_json::Value;
use support::{build, manifest_dir};
use tool_carrier::import::{
    from_agent, read_auto, Agent, Detected, ImportOptions, ImportedHistory,
};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::{Options, Provider};

fn path(rel: &str) -> std::path::PathBuf {
    manifest_dir().join("tests/data/agents").join(rel)
}

fn read_with(agent: Agent, rel: &str, options: &ImportOptions) -> Result<ImportedHistory, String> {
    let file = std::fs::File::open(path(rel)).unwrap();
    let mut input = BufReader::with_capacity(7, file);
    from_agent(agent, &mut input, &mut InlineStore, options).map_err(|e| e.to_string())
}

fn read(agent: Agent, rel: &str) -> ImportedHistory {
    read_with(agent, rel, &ImportOptions::new()).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn read_text(agent: Agent, text: &str) -> Result<ImportedHistory, String> {
    from_agent(
        agent,
        &mut text.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .map_err(|e| e.to_string())
}

/// A fixture, what it holds, and how many images and documents it sends
/// (of the images, how many by URL, which Gemini does not fetch: refused,
/// and counted so).
struct Fixture {
    agent: Agent,
    rel: &'static str,
    shape: Shape,
    images: usize,
    urls: usize,
    documents: usize,
}

/// The AI SDK's own recording (`vercel-ai/record/record.mjs`): a user's
/// image and PDF; two calls, one answered by a `content` output of text,
/// a file and an image; three more, one failing, one denied.
fn vercel_shape(screenshot_media: usize) -> Shape {
    Shape {
        roles: owned(&[
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "tool",
            "tool",
            "tool",
            "assistant",
        ]),
        calls: pairs(&[
            ("call_1", "getWeather"),
            ("call_2", "takeScreenshot"),
            ("call_3", "getTime"),
            ("call_4", "flakyLookup"),
            ("call_5", "deleteFile"),
        ]),
        results: results(&[
            ("call_1", false, 0),
            ("call_2", false, screenshot_media),
            ("call_3", false, 0),
            ("call_4", true, 0),
            ("call_5", true, 0),
        ]),
        user_media: 2,
    }
}

fn fixtures() -> Vec<Fixture> {
    vec![
        Fixture {
            agent: Agent::VercelAi,
            rel: "vercel-ai/model-messages.json",
            shape: vercel_shape(2),
            images: 3,
            urls: 0,
            documents: 1,
        },
        // The same conversation as `convertToModelMessages` makes of the
        // UI's messages.
        Fixture {
            agent: Agent::VercelAi,
            rel: "vercel-ai/ui-converted.json",
            shape: vercel_shape(2),
            images: 3,
            urls: 0,
            documents: 1,
        },
        // The UI's own messages: a tool's output is what it returned (the
        // screenshot tool's JSON), as the SDK reads it without the app's
        // tools.
        Fixture {
            agent: Agent::VercelAi,
            rel: "vercel-ai/ui-messages.json",
            shape: vercel_shape(0),
            images: 1,
            urls: 0,
            documents: 1,
        },
        // The Agents SDK's own SQLiteSession rows
        // (`openai-agents/record/record.py`): a user's image, two
        // parallel calls (one answered by an image), a computer call and
        // its screenshot, a custom tool and a local shell, a PDF each way.
        Fixture {
            agent: Agent::OpenAiAgents,
            rel: "openai-agents/items.jsonl",
            shape: Shape {
                roles: owned(&[
                    "user",
                    "assistant",
                    "tool",
                    "tool",
                    "assistant",
                    "tool",
                    "assistant",
                    "system",
                    "system",
                    "user",
                    "assistant",
                    "tool",
                    "tool",
                    "assistant",
                    "tool",
                    "assistant",
                    "user",
                ]),
                calls: pairs(&[
                    ("call_weather", "get_weather"),
                    ("call_chart", "get_chart"),
                    ("call_computer", "computer"),
                    ("call_custom", "grep"),
                    ("call_shell", "local_shell"),
                    ("call_report", "get_report"),
                ]),
                results: results(&[
                    ("call_weather", false, 0),
                    ("call_chart", false, 1),
                    ("call_computer", false, 1),
                    ("call_custom", false, 0),
                    ("call_shell", false, 0),
                    ("call_report", false, 1),
                ]),
                user_media: 2,
            },
            images: 3,
            urls: 0,
            documents: 2,
        },
        // pydantic-ai's own run (`pydantic-ai/record/record.py`): a user's
        // image (URL-safe base64) and image URL; parallel calls, one
        // answered by an image, one by `ToolReturn` content (a user part
        // after the results); a retried, a failed and a denied call.
        Fixture {
            agent: Agent::PydanticAi,
            rel: "pydantic-ai/messages-2.68.0.json",
            shape: pydantic_shape(true),
            images: 6,
            urls: 2,
            documents: 0,
        },
        // The same conversation as pydantic-ai 1 records it (its retry a
        // `retry-prompt` part; no failed tool).
        Fixture {
            agent: Agent::PydanticAi,
            rel: "pydantic-ai/messages-1.107.10.json",
            shape: pydantic_shape(false),
            images: 6,
            urls: 2,
            documents: 0,
        },
        // Cline's session file (version 1): a screenshot, a failed read.
        Fixture {
            agent: Agent::Cline,
            rel: "cline/session-v1.messages.json",
            shape: Shape {
                roles: owned(&[
                    "system",
                    "user",
                    "assistant",
                    "tool",
                    "assistant",
                    "tool",
                    "assistant",
                ]),
                calls: pairs(&[
                    ("toolu_01Shot", "browser_screenshot"),
                    ("toolu_01Logs", "read_files"),
                ]),
                results: results(&[("toolu_01Shot", false, 1), ("toolu_01Logs", true, 0)]),
                user_media: 0,
            },
            images: 1,
            urls: 0,
            documents: 0,
        },
        // Cline 3.89 with native tool calls: a browser screenshot in a
        // tool result; the task's last call (`attempt_completion`) is
        // answered by no result.
        Fixture {
            agent: Agent::Cline,
            rel: "cline/cline-native.json",
            shape: Shape {
                roles: owned(&[
                    "user",
                    "assistant",
                    "tool",
                    "user",
                    "assistant",
                    "tool",
                    "user",
                    "assistant",
                ]),
                calls: pairs(&[
                    ("tooluse_kZJMlvQmRJ6eAYJGOwA3Qg", "browser_action"),
                    ("tooluse_Q2m9y0WJTzqgGx8wYc1bNw", "browser_action"),
                    ("tooluse_8f3KcV1dQ0y7mZ2xW5aHbg", "attempt_completion"),
                ]),
                results: results(&[
                    ("tooluse_kZJMlvQmRJ6eAYJGOwA3Qg", false, 1),
                    ("tooluse_Q2m9y0WJTzqgGx8wYc1bNw", false, 0),
                ]),
                user_media: 0,
            },
            images: 1,
            urls: 0,
            documents: 0,
        },
        // Cline 3.17, tools in XML: the screenshot is the user's.
        Fixture {
            agent: Agent::Cline,
            rel: "cline/cline-xml.json",
            shape: Shape {
                roles: owned(&[
                    "user",
                    "assistant",
                    "user",
                    "assistant",
                    "user",
                    "assistant",
                ]),
                calls: Vec::new(),
                results: Vec::new(),
                user_media: 1,
            },
            images: 1,
            urls: 0,
            documents: 0,
        },
        // LangChain's own classes saved both ways
        // (`langchain/record/record.py`): the user's image; signed
        // thinking and two calls, one answered by a screenshot, one
        // failed; an image in 1's standard block and by URL; a PDF.
        Fixture {
            agent: Agent::LangChain,
            rel: "langchain/messages_to_dict-1.8.3.json",
            shape: langchain_shape(),
            images: 4,
            urls: 1,
            documents: 1,
        },
        Fixture {
            agent: Agent::LangChain,
            rel: "langchain/dumpd-1.8.3.json",
            shape: langchain_shape(),
            images: 4,
            urls: 1,
            documents: 1,
        },
    ]
}

fn langchain_shape() -> Shape {
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
            "tool",
            "assistant",
        ]),
        calls: pairs(&[
            ("toolu_01Shot", "screenshot"),
            ("toolu_01Log", "read_log"),
            ("call_chart", "chart"),
            ("call_report", "report"),
        ]),
        results: results(&[
            ("toolu_01Shot", false, 1),
            ("toolu_01Log", true, 0),
            ("call_chart", false, 2),
            ("call_report", false, 1),
        ]),
        user_media: 1,
    }
}

/// pydantic-ai's recording; pydantic-ai 1 has no failed tool.
fn pydantic_shape(failed_tool: bool) -> Shape {
    let mut calls = vec![
        ("call_img_1", "get_image"),
        ("call_rep_1", "get_report"),
        ("call_flaky_1", "flaky"),
        ("call_gal_1", "get_gallery"),
        ("call_broken_1", "broken"),
        ("call_del_1", "delete_everything"),
        ("call_flaky_2", "flaky"),
    ];
    let mut done = vec![
        ("call_img_1", false, 1),
        ("call_rep_1", false, 0),
        ("call_flaky_1", true, 0),
        ("call_gal_1", false, 2),
        ("call_broken_1", true, 0),
        ("call_del_1", false, 0),
        ("call_flaky_2", false, 0),
    ];
    let mut roles = vec![
        "system",
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "assistant",
        "tool",
        "tool",
        "tool",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ];
    if !failed_tool {
        calls.remove(4);
        done.remove(4);
        roles.remove(8);
    }
    Shape {
        roles: owned(&roles),
        calls: pairs(&calls),
        results: results(&done),
        user_media: 3,
    }
}

#[test]
fn each_library_reads_every_call_result_error_and_image() {
    for f in fixtures() {
        let h = read(f.agent, f.rel);
        assert_eq!(shape(&h), f.shape, "{}", f.rel);
        assert!(
            h.tally.is_balanced(),
            "{}: {}",
            f.rel,
            h.tally.summary("kept")
        );
        assert_eq!(h.tally.refusals(), 0, "{}", f.rel);
    }
}

#[test]
fn converted_for_four_providers_everything_is_sent() {
    for f in fixtures() {
        let h = read(f.agent, f.rel);
        for provider in [
            Provider::Anthropic,
            Provider::OpenAiChat,
            Provider::OpenAiResponses,
            Provider::Gemini,
        ] {
            let request = build(provider, &h.messages, &Options::new());
            let tally = &request.report.tally;
            let sent = |what: &str| tally.get(what).map(|c| (c.read, c.sent));
            let (calls, done) = (f.shape.calls.len(), f.shape.results.len());
            let at = format!("{} for {provider}", f.rel);
            let some = |n: usize| (n > 0).then_some((n, n));
            assert_eq!(sent("call"), some(calls), "{at}");
            assert_eq!(sent("result"), some(done), "{at}");
            let images = tally.get("image").map(|c| (c.read, c.sent, c.refused));
            let fetched = match provider {
                Provider::Gemini => f.images - f.urls,
                _ => f.images,
            };
            assert_eq!(
                images,
                Some((f.images, fetched, f.images - fetched)),
                "{at}"
            );
            assert_eq!(sent("document"), some(f.documents), "{at}");
            assert!(tally.is_balanced(), "{at}");
        }
    }
}

#[test]
fn each_payloads_place_in_the_file_is_said() {
    use base64::Engine;
    // pydantic-ai writes the URL-safe alphabet.
    let (standard, url_safe) = (
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::URL_SAFE,
    );
    for f in fixtures() {
        let h = read(f.agent, f.rel);
        let text = std::fs::read(path(f.rel)).unwrap();
        assert!(!h.payloads.is_empty(), "{}", f.rel);
        for p in &h.payloads {
            let s = &text[p.span.start as usize..p.span.end as usize];
            let s = std::str::from_utf8(s).unwrap();
            let b64 = s.split_once(";base64,").map_or(s, |(_, b)| b);
            let decoded = standard.decode(b64).or_else(|_| url_safe.decode(b64));
            assert!(decoded.is_ok(), "{}: {} {s:.40}", f.rel, p.path);
        }
    }
}

#[test]
fn vercel_model_messages_keep_their_calls_where_a_provider_reader_refuses() {
    // Read as an OpenAI Chat body, the nearest shape, the calls would be
    // lost: the reader names the part it does not know instead.
    let text = std::fs::read_to_string(path("vercel-ai/model-messages.json")).unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    let e = tool_carrier::import::from_provider(
        Provider::OpenAiChat,
        &body,
        &mut InlineStore,
        &ImportOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("$[1].content[1]: a \"image\" part is not a kind the openai"),
        "{e}"
    );
    // Told by its shape, it is the AI SDK's.
    let read = read_auto(
        &mut text.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap();
    assert_eq!(read.format, Detected::Agent(Agent::VercelAi));
    assert_eq!(shape(&read.history), vercel_shape(2));
}

#[test]
fn vercel_reasoning_is_kept_for_its_provider_and_never_as_text() {
    let h = read(Agent::VercelAi, "vercel-ai/model-messages.json");
    let env: Value = serde_json::from_str(h.messages[2].content()).unwrap();
    let thinking = &env["anthropic_thinking"][0];
    assert_eq!(thinking["type"], "thinking");
    assert!(thinking["signature"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    let said = thinking["thinking"].as_str().unwrap();
    assert!(!env["content"].as_str().unwrap().contains(said));
    // OpenAI's summary parts of one item are one reasoning item again;
    // unsigned reasoning is left out with a note.
    let hand = r#"[{"role":"assistant","content":[
        {"type":"reasoning","text":"first","providerOptions":{"openai":{"itemId":"rs_1","reasoningEncryptedContent":null}}},
        {"type":"reasoning","text":"second","providerOptions":{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"gAAA"}}},
        {"type":"reasoning","text":"unsigned"},
        {"type":"text","text":"Done."}]}]"#;
    let h = read_text(Agent::VercelAi, hand).unwrap();
    let env: Value = serde_json::from_str(h.messages[0].content()).unwrap();
    assert_eq!(
        env["openai_items"],
        serde_json::json!([{"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA", "summary": [
            {"type": "summary_text", "text": "first"}, {"type": "summary_text", "text": "second"}]}])
    );
    assert_eq!(env["content"], "Done.");
    assert!(h.notes[0]
        .text
        .starts_with("$[0].content[2]: a reasoning part is left out"));
    assert!(h.tally.is_balanced());
}

#[test]
fn vercel_every_part_type_written_by_hand() {
    // What the recording cannot make (every data form, output and part),
    // typed against the SDK's own types (`record/by-hand.ts`).
    let e = read_with(
        Agent::VercelAi,
        "vercel-ai/model-messages-by-hand.json",
        &ImportOptions::new(),
    )
    .unwrap_err();
    assert!(
        e.starts_with("$[5].content[2].output.value[7].fileId: a file id that names no provider"),
        "{e}"
    );
    let keep = ImportOptions::new().with_keep_unknown(true);
    for rel in [
        "vercel-ai/model-messages-by-hand.json",
        "vercel-ai/ui-messages-by-hand.json",
    ] {
        let h = read_with(Agent::VercelAi, rel, &keep).unwrap();
        assert!(h.tally.is_balanced(), "{rel}");
        assert!(!h.notes.is_empty(), "{rel}");
    }
    let h = read_with(
        Agent::VercelAi,
        "vercel-ai/model-messages-by-hand.json",
        &keep,
    )
    .unwrap();
    // Every data form of a user's media: base64, data: URL, URL, byte
    // array, Buffer, tagged data, a provider's file.
    let user = h
        .messages
        .iter()
        .max_by_key(|m| m.attachments().len())
        .unwrap();
    let attachments = user.attachments();
    let targets: Vec<&str> = attachments.iter().map(|a| &*a.target).collect();
    assert!(
        targets.iter().any(|t| t.starts_with("https://")),
        "{targets:?}"
    );
    assert!(
        targets.iter().any(|t| t.starts_with("anthropic-file:")),
        "{targets:?}"
    );
    assert!(
        targets.iter().filter(|t| t.starts_with("data:")).count() >= 3,
        "{targets:?}"
    );
}

#[test]
fn vercel_bad_parts_are_errors_naming_the_path() {
    for (text, want) in [
        ("{}", "$: not a list of the Vercel AI SDK's messages"),
        (r#"[{"role":"user","content":[{"type":"video","data":"AAAA"}]}]"#,
            "$[0].content[0]: a user message part of type \"video\" is not one the Vercel AI SDK writes that this reader knows (text, image, file)"),
        (r#"[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"blob"}}]}]"#,
            "$[0].content[0].output: a tool output of type \"blob\""),
        (r#"[{"role":"user","content":[{"type":"image","image":"not base64!"}]}]"#,
            "$[0].content[0].image: the payload is not base64"),
        (r#"[{"role":"user","content":[{"type":"image","image":{"0":1,"2":3}}]}]"#,
            "$[0].content[0].image: a byte array with gaps in its indices"),
        (r#"[{"role":"assistant","content":[{"type":"tool-call","toolName":"t","input":{}}]}]"#,
            "$[0].content[0].toolCallId: missing"),
        (r#"[{"role":"robot","content":"hi"}]"#, "$[0].role: a message of type \"robot\""),
    ] {
        let e = read_text(Agent::VercelAi, text).unwrap_err();
        assert!(e.starts_with(want), "{text}\n{e}");
    }
}

#[test]
fn agents_sdk_items_of_other_models_and_encrypted_rows() {
    let lines = [
        r#"{"role":"user","content":"Shot?"}"#,
        r#"{"id":"__fake_id__","type":"function_call","call_id":"c1","name":"shot","arguments":"{}","provider_data":{"model":"gemini","thought_signature":"c2ln"}}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":[{"type":"input_image","image_url":"data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs="}]}"#,
    ];
    let h = read_text(Agent::OpenAiAgents, &lines.join("\n")).unwrap();
    assert_eq!(shape(&h).results, results(&[("c1", false, 1)]));
    let notes: Vec<&str> = h.notes.iter().map(|n| n.text.as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("line 2: a provider_data member is left out")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("line 2: a placeholder id is left out")),
        "{notes:?}"
    );
    assert!(!h.messages[1].content().contains("__fake_id__"));
    assert!(h.tally.is_balanced());
    let e = read_text(
        Agent::OpenAiAgents,
        r#"{"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload": "gAAAAA"}"#,
    )
    .unwrap_err();
    assert!(
        e.starts_with("line 1: $: an item the SDK's EncryptedSession encrypted"),
        "{e}"
    );
    let e = read_text(Agent::OpenAiAgents, r#"{"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":""}}"#)
        .unwrap_err();
    assert_eq!(
        e,
        "line 1: $.output: a computer_call_output without its screenshot (an image_url or a file_id)"
    );
}

/// The SDK's own database file reads as its rows printed one a line do,
/// and is left as it was.
#[cfg(feature = "sqlite")]
#[test]
fn agents_sdk_database_reads_as_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("session.db");
    std::fs::copy(path("openai-agents/session.db"), &db).unwrap();
    let before = std::fs::read(&db).unwrap();
    assert!(Agent::OpenAiAgents.keeps_database());
    assert!(!Agent::ClaudeCode.keeps_database());
    let from_db = tool_carrier::import::from_agent_db(
        Agent::OpenAiAgents,
        &db,
        Some("conv_fixture_1"),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap();
    let rows = read(Agent::OpenAiAgents, "openai-agents/items.jsonl");
    assert_eq!(from_db.messages, rows.messages);
    assert_eq!(from_db.notes, rows.notes);
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    assert!(tool_carrier::import::is_sqlite(&before));
}

/// Opt-in, as it runs the libraries: with `TOOL_CARRIER_LIBRARIES` naming
/// a folder where `.ci/libraries` had each library record its fixture
/// again (`NAME/FILE`, by the scripts in `tests/data/agents/NAME/record/`
/// at the pinned versions), each new recording reads as the committed one
/// does: a library that writes differently fails here.
#[test]
fn what_the_installed_libraries_write_reads_alike() {
    let Some(dir) = std::env::var_os("TOOL_CARRIER_LIBRARIES") else {
        eprintln!("skipped: TOOL_CARRIER_LIBRARIES names no folder of new recordings");
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let pairs = [
        (
            Agent::VercelAi,
            "vercel-ai/model-messages.json",
            "vercel-ai/model-messages.json",
        ),
        (
            Agent::VercelAi,
            "vercel-ai/ui-messages.json",
            "vercel-ai/ui-messages.json",
        ),
        (
            Agent::OpenAiAgents,
            "openai-agents/items.jsonl",
            "openai-agents/items.jsonl",
        ),
        (
            Agent::PydanticAi,
            "pydantic-ai/messages.json",
            "pydantic-ai/messages-2.68.0.json",
        ),
        (
            Agent::LangChain,
            "langchain/messages_to_dict.json",
            "langchain/messages_to_dict-1.8.3.json",
        ),
        (
            Agent::LangChain,
            "langchain/dumpd.json",
            "langchain/dumpd-1.8.3.json",
        ),
    ];
    for (agent, fresh, committed) in pairs {
        // A library whose registry could not be reached (.ci/libraries
        // says SKIPPED for it) recorded nothing.
        let Ok(file) = std::fs::File::open(dir.join(fresh)) else {
            eprintln!("skipped: {fresh}: not recorded");
            continue;
        };
        let h = from_agent(
            agent,
            &mut BufReader::new(file),
            &mut InlineStore,
            &ImportOptions::new(),
        )
        .unwrap_or_else(|e| panic!("{fresh}: {e}"));
        assert_eq!(shape(&h), shape(&read(agent, committed)), "{fresh}");
        assert!(h.tally.is_balanced(), "{fresh}");
        assert_eq!(h.tally.refusals(), 0, "{fresh}");
    }
}

#[test]
fn bad_parts_of_each_library_are_errors_naming_the_path() {
    for (agent, text, want) in [
        (
            Agent::PydanticAi,
            r#"{"kind":"request"}"#,
            "$: not a list of pydantic-ai's messages",
        ),
        // The two alphabets in one payload: damaged, not guessed at.
        (
            Agent::PydanticAi,
            r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":[{"kind":"binary","data":"+_8=","media_type":"image/png"}]}]}]"#,
            "$[0].parts[0].content[0].data: the payload is not base64",
        ),
        (
            Agent::PydanticAi,
            r#"[{"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"t"}]}]"#,
            "$[0].parts[0].tool_call_id: missing",
        ),
        (
            Agent::PydanticAi,
            r#"[{"kind":"request","parts":[{"part_kind":"speech"}]}]"#,
            "$[0].parts[0]: a request part of type \"speech\" is not one pydantic-ai writes",
        ),
        (
            Agent::LangChain,
            r#"[{"type":"human","data":{"content":[{"type":"image","source_type":"id","id":"file-1"}]}}]"#,
            "$[0].data.content[0]: a provider's file id that says not whose file it is",
        ),
        (
            Agent::LangChain,
            r#"[{"type":"tool","data":{"content":"x"}}]"#,
            "$[0].data.tool_call_id: missing",
        ),
        (
            Agent::LangChain,
            r#"[{"type":"chat","data":{"content":"x","role":"critic"}}]"#,
            "$[0].type: a message of type \"chat\" is not one LangChain writes",
        ),
        (
            Agent::LangChain,
            r#"[{"type":"human","data":{"content":[{"type":"image"}]}}]"#,
            "$[0].data.content[0]: an image block without its data or URL",
        ),
        (
            Agent::Cline,
            r#"{"version":2,"messages":[]}"#,
            "$.version: a stored history of version 2",
        ),
        // The block after a Roo reasoning block (left out) is named by its
        // own place in the file.
        (
            Agent::Cline,
            r#"[{"role":"assistant","ts":1,"content":[{"type":"text","text":"a"},{"type":"reasoning","text":"r"},{"type":"mystery"}]}]"#,
            "$[0].content[2]: a \"mystery\" block is not a kind",
        ),
        (
            Agent::Cline,
            r#"[{"role":"user","ts":1,"content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"!!"}}]}]}]"#,
            "$[0].content[0].content[0].source: the payload is not base64",
        ),
    ] {
        let e = read_text(agent, text).unwrap_err();
        assert!(e.starts_with(want), "{text}\n{e}");
    }
}

#[test]
fn pydantic_ai_url_safe_base64_is_read_as_its_bytes() {
    // 0xfb 0xff: `-_8=` in the URL-safe alphabet pydantic-ai writes.
    let text = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":[{"kind":"binary","data":"-_8=","media_type":"image/png"}]}]}]"#;
    let h = read_text(Agent::PydanticAi, text).unwrap();
    let attachments = h.messages[0].attachments();
    assert_eq!(
        &*attachments[0].target,
        "data:application/octet-stream;base64,+/8="
    );
}

#[test]
fn roo_leaves_out_what_a_condensation_hid() {
    let h = read(Agent::Cline, "cline/roo.json");
    let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert!(
        h.messages[0]
            .content()
            .starts_with("## Conversation Summary"),
        "{}",
        h.messages[0].content()
    );
    let notes: Vec<&str> = h.notes.iter().map(|n| n.text.as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("6 hidden messages (the first at $[0]) are left out")),
        "{notes:?}"
    );
    assert!(h.tally.is_balanced());
}

#[test]
fn langchain_block_forms_of_every_version() {
    let gif = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";
    let text = format!(
        r#"[
        {{"type":"ai","data":{{"content":[
            {{"type":"reasoning","reasoning":"Look first.","extras":{{"signature":"c2ln"}}}},
            {{"type":"tool_call","id":"c1","name":"shot","args":{{}}}}]}}}},
        {{"type":"tool","data":{{"tool_call_id":"c1","content":[
            {{"type":"text-plain","text":"notes","mime_type":"text/plain"}},
            {{"type":"file","source_type":"text","text":"old notes"}},
            {{"type":"image","source":{{"type":"file","file_id":"file_01"}}}},
            {{"__lc_escaped__":{{"type":"image","base64":"{gif}","mime_type":"image/gif","lc":1}}}}]}}}}
    ]"#
    );
    let h = read_text(Agent::LangChain, &text).unwrap();
    let env: Value = serde_json::from_str(h.messages[0].content()).unwrap();
    assert_eq!(env["tool_calls"][0]["id"], "c1");
    assert_eq!(env["anthropic_thinking"][0]["signature"], "c2ln");
    let result: Value = serde_json::from_str(h.messages[1].content()).unwrap();
    let targets: Vec<&str> = result["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets.len(), 4, "{targets:?}");
    assert_eq!(targets[2], "anthropic-file:file_01");
    assert!(
        targets[3].starts_with("data:image/gif;base64,"),
        "{targets:?}"
    );
    assert!(h.tally.is_balanced());
}
