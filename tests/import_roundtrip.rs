//! Importing what providers and MCP servers hold: documented shapes read
//! and converted to every provider, and `import` of `convert`'s output
//! giving back the carrier history it was made from.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::{json, Value};
use support::{build, manifest_dir, pdf, png};
use tool_carrier::facts::Profile;
use tool_carrier::history::AsRecord;
use tool_carrier::import::{from_mcp, from_provider, ImportOptions, ImportedHistory};
use tool_carrier::media::store::{file_name, DirStore};
use tool_carrier::media::Policy;
use tool_carrier::provider::{build_request, Options, Provider, Tools};
use tool_carrier::roots::Roots;
use tool_carrier::Role;
use tool_carrier::{Carrier, Declaration};

fn fixture(name: &str) -> Value {
    let text = fs::read_to_string(manifest_dir().join("tests/data/import").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn options(root: &Path) -> Options {
    Options::new().with_policy(Policy::default().with_roots(Roots::new([root]).unwrap()))
}

/// Every provider (and a compatible server with a bridge) gets a body
/// that keeps every rule of its API.
fn convert_everywhere(history: &ImportedHistory, root: &Path, tools: Option<&Value>) {
    let mut base = options(root);
    if let Some(t) = tools {
        base = base.with_tools(Tools::from_json(&t.to_string()).unwrap());
    }
    for provider in Provider::ALL {
        build(provider, &history.messages, &base);
    }
    build(
        Provider::OpenAiCompatible,
        &history.messages,
        &options(root).with_profile(Profile::builtin("mistral").unwrap()),
    );
}

#[test]
fn documented_shapes_are_read_and_sent_everywhere() {
    for (provider, name, tool_results, attachments) in [
        (
            Provider::Anthropic,
            "anthropic-tool-result-images.json",
            2,
            1,
        ),
        (
            Provider::OpenAiChat,
            "openai-chat-images-after-tools.json",
            2,
            2,
        ),
        (
            Provider::OpenAiResponses,
            "openai-responses-input-image.json",
            1,
            2,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = DirStore::new(dir.path()).unwrap();
        let body = fixture(name);
        let history =
            from_provider(provider, &body, &mut store, &ImportOptions::default()).unwrap();
        let carriers: Vec<Carrier<'_>> = history
            .messages
            .iter()
            .filter(|m| m.role() == "tool")
            .map(|m| m.content())
            .map(|c| Carrier::read(Role::Tool, c).unwrap())
            .collect();
        assert_eq!(carriers.len(), tool_results, "{name}");
        let declared: usize = carriers.iter().map(|c| c.attachments().len()).sum();
        assert_eq!(declared, attachments, "{name}");
        for c in &carriers {
            assert!(c.is_declared());
            for a in c.attachments() {
                assert!(
                    dir.path().join(a.target.as_ref()).is_file(),
                    "{name}: {}",
                    a.target
                );
            }
        }
        convert_everywhere(&history, dir.path(), body.get("tools"));
    }
}

#[test]
fn an_mcp_result_is_sent_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    let imported = from_mcp(
        Some("call_9"),
        &fixture("mcp-call-tool-result.json"),
        &mut store,
        &ImportOptions::default(),
    )
    .unwrap();
    let envelope: Value = serde_json::from_str(&imported.content).unwrap();
    let target = envelope["attachments"][0]["target"].as_str().unwrap();
    // structuredContent names the stored image instead of repeating it.
    assert_eq!(envelope["structuredContent"]["chart"], target);
    assert!(envelope["content"]
        .as_str()
        .unwrap()
        .contains("# Incident 42"));
    let call = json!({"content": null, "tool_calls": [{"id": "call_9", "name": "render", "arguments": "{}"}]});
    let history = ImportedHistory {
        messages: vec![
            ("user", "Chart it.").into(),
            ("assistant", call.to_string()).into(),
            ("tool", imported.content).into(),
        ],
        ..ImportedHistory::default()
    };
    convert_everywhere(&history, dir.path(), None);
}

// ---- the round trip ----

/// A tool round: parallel calls, each result with a body and attachments
/// (indices into the media files: images 0–2, PDF 3).
#[derive(Clone, Debug)]
struct Round {
    results: Vec<(String, Vec<usize>)>,
}

fn rounds() -> impl Strategy<Value = Vec<Round>> {
    let body = "[a-z]{1,8}( [a-z]{1,8}){0,3}";
    let result = (body, prop::collection::vec(0usize..4, 0..3));
    prop::collection::vec(
        prop::collection::vec(result, 1..4).prop_map(|results| Round { results }),
        1..4,
    )
}

fn media() -> Vec<(String, Vec<u8>)> {
    vec![
        ("a.png".into(), png(12, 8, 1)),
        ("b.png".into(), png(8, 8, 2)),
        ("c.png".into(), png(6, 10, 3)),
        ("r.pdf".into(), pdf("R")),
    ]
}

/// The carrier history of `rounds`: `(role, content)`.
fn history(rounds: &[Round], pdfs: bool) -> Vec<(String, String)> {
    let files = media();
    let mut out = vec![("user".to_owned(), "Start.".to_owned())];
    for (r, round) in rounds.iter().enumerate() {
        let calls: Vec<Value> = (0..round.results.len())
            .map(|c| json!({"id": format!("call_{r}_{c}"), "name": format!("tool{c}"), "arguments": "{}"}))
            .collect();
        out.push((
            "assistant".into(),
            json!({"content": null, "tool_calls": calls}).to_string(),
        ));
        for (c, (body, atts)) in round.results.iter().enumerate() {
            let attachments: Vec<Value> = atts
                .iter()
                .filter(|&&i| pdfs || i != 3)
                .map(|&i| json!({"kind": if i == 3 { "document" } else { "image" }, "target": files[i].0}))
                .collect();
            out.push((
                "tool".into(),
                json!({"tool_call_id": format!("call_{r}_{c}"), "content": body, "attachments": attachments}).to_string(),
            ));
        }
        out.push(("user".into(), format!("Next {r}.")));
    }
    out
}

/// Each tool result: (its call's tool name, body, the file names of its
/// attachments' bytes).
fn results<M: AsRecord>(
    messages: &[M],
    names: &dyn Fn(&str) -> String,
) -> Vec<(String, String, Vec<String>)> {
    let mut calls: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    for (role, content) in messages.iter().map(|m| (m.role(), m.content())) {
        if role == "assistant" {
            if let Ok(v) = serde_json::from_str::<Value>(content) {
                for c in v["tool_calls"].as_array().into_iter().flatten() {
                    calls.push((
                        c["id"].as_str().unwrap().into(),
                        c["name"].as_str().unwrap().into(),
                    ));
                }
            }
        }
        if role == "tool" {
            let c = Carrier::read(Role::Tool, content).unwrap();
            let id = c.call_id.as_deref().unwrap_or("");
            let name = calls
                .iter()
                .find(|(i, _)| i == id)
                .map(|(_, n)| n.clone())
                .unwrap_or_default();
            let Declaration::Declared(atts) = &c.declaration else {
                panic!("not declared: {content}")
            };
            out.push((
                name,
                c.body.to_string(),
                atts.iter().map(|a| names(&a.target)).collect(),
            ));
        }
    }
    out
}

fn round_trip(
    provider: Provider,
    profile: Option<&str>,
    rounds: &[Round],
    pdfs: bool,
) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let files = media();
    for (name, bytes) in &files {
        fs::write(dir.path().join(name), bytes).unwrap();
    }
    let original = history(rounds, pdfs);
    let mut opts = options(dir.path());
    // For a compatible server the profile; for another provider the model.
    match (provider, profile) {
        (Provider::OpenAiCompatible, Some(p)) => {
            opts = opts.with_profile(Profile::builtin(p).unwrap())
        }
        (_, Some(model)) => opts = opts.with_model(model),
        _ => {}
    }
    let request = build_request(provider, &original, &opts).unwrap();
    let media_dir = dir.path().join("imported");
    let mut store = DirStore::new(&media_dir).unwrap();
    let back = from_provider(
        provider,
        &request.body.to_value(),
        &mut store,
        &ImportOptions::default(),
    )
    .unwrap();
    let by_name = |target: &str| {
        files
            .iter()
            .find(|(n, _)| n == target)
            .map_or(target.to_owned(), |(_, b)| file_name(b))
    };
    // What convert left out (over a cap, a kind the provider does not
    // take) is not expected back; its notes are convert's own text.
    let notes = &request.report.notes;
    let mut want = Vec::new();
    for (i, (role, content)) in original.iter().enumerate() {
        if role != "tool" {
            continue;
        }
        let mut left: Vec<&str> = notes
            .iter()
            .filter(|n| n.index == i)
            .map(|n| n.text.as_str())
            .collect();
        let c = Carrier::read(Role::Tool, content).unwrap();
        let kept: Vec<String> = c
            .attachments()
            .iter()
            .filter(|a| {
                let prefix = format!("[{} {} ", a.kind.as_str(), a.target);
                match left.iter().position(|n| n.starts_with(&prefix)) {
                    Some(k) => {
                        left.remove(k);
                        false
                    }
                    None => true,
                }
            })
            .map(|a| by_name(&a.target))
            .collect();
        want.push((c.body.to_string(), kept));
    }
    let got: Vec<(String, Vec<String>)> = results(&back.messages, &|t: &str| t.to_owned())
        .into_iter()
        .map(|(_, body, atts)| {
            let body: Vec<&str> = body
                .split('\n')
                .filter(|l| !notes.iter().any(|n| n.text == *l))
                .collect();
            (body.join("\n"), atts)
        })
        .collect();
    prop_assert_eq!(&got, &want, "{} {:?}", provider, profile);
    // The calls and their results pair as they did: the same tool names in
    // the same order.
    let names = |r: Vec<(String, String, Vec<String>)>| -> Vec<String> {
        r.into_iter().map(|(n, ..)| n).collect()
    };
    prop_assert_eq!(
        names(results(&back.messages, &|t: &str| t.to_owned())),
        names(results(&original, &by_name))
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `import --from P` of `convert --provider P`: the same tool results
    /// (call, body, the very bytes of every image and PDF, as files by
    /// hash), for every provider import reads.
    #[test]
    fn import_gives_back_what_convert_was_given(rounds in rounds()) {
        // Mistral keeps 8 images: the rest are notes, left out of what is
        // expected back.
        round_trip(Provider::Anthropic, None, &rounds, true)?;
        round_trip(Provider::OpenAiChat, None, &rounds, true)?;
        round_trip(Provider::OpenAiResponses, None, &rounds, true)?;
        round_trip(Provider::Gemini, None, &rounds, true)?;
        round_trip(Provider::Gemini2, None, &rounds, true)?;
        round_trip(Provider::Bedrock, None, &rounds, true)?;
        // Ollama takes no PDFs (notes); a Bedrock model that takes no
        // media inside toolResult gets it after the results.
        round_trip(Provider::Ollama, None, &rounds, false)?;
        round_trip(Provider::Bedrock, Some("us.meta.llama3-2-90b-instruct-v1:0"), &rounds, false)?;
        // Mistral: bridge messages, 9-character ids, no PDFs (notes).
        round_trip(Provider::OpenAiCompatible, Some("mistral"), &rounds, false)?;
    }
}

#[test]
fn over_a_cap_what_was_left_out_is_not_expected_back() {
    let rounds: Vec<Round> = (0..3)
        .map(|_| Round {
            results: (0..3).map(|_| ("x y".to_owned(), vec![0, 1])).collect(),
        })
        .collect();
    round_trip(Provider::OpenAiCompatible, Some("mistral"), &rounds, false).unwrap();
    round_trip(Provider::OpenAiChat, None, &rounds, true).unwrap();
}

#[test]
fn a_tools_error_flag_goes_back_out_as_each_providers_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    let body = fixture("anthropic-tool-result-images.json");
    let history = from_provider(
        Provider::Anthropic,
        &body,
        &mut store,
        &ImportOptions::default(),
    )
    .unwrap();
    let anthropic = build(Provider::Anthropic, &history.messages, &options(dir.path()))
        .body
        .to_value();
    let results: Vec<&Value> = anthropic["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].get("is_error").is_none());
    assert_eq!(results[1]["is_error"], true);
    let bedrock = build(Provider::Bedrock, &history.messages, &options(dir.path()))
        .body
        .to_value();
    let statuses: Vec<Option<&str>> = bedrock["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter_map(|b| b.get("toolResult"))
        .map(|r| r.get("status").and_then(Value::as_str))
        .collect();
    assert_eq!(statuses, [None, Some("error")]);
    // Gemini, both generations: the `error` key for the failed one, and
    // read back from that body the flag is still there.
    for gemini in [Provider::Gemini, Provider::Gemini2] {
        let body = build(gemini, &history.messages, &options(dir.path()))
            .body
            .to_value();
        let keys: Vec<Vec<&String>> = body["contents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["parts"].as_array().into_iter().flatten())
            .filter_map(|p| p.get("functionResponse"))
            .map(|r| r["response"].as_object().unwrap().keys().collect())
            .collect();
        assert_eq!(keys, [vec!["output"], vec!["error"]], "{gemini}");
        let back = from_provider(gemini, &body, &mut store, &ImportOptions::default()).unwrap();
        let flags: Vec<bool> = back
            .messages
            .iter()
            .filter(|m| m.role() == "tool")
            .map(|m| m.content())
            .map(|c| serde_json::from_str::<Value>(c).unwrap()["is_error"] == true)
            .collect();
        assert_eq!(flags, [false, true], "{gemini}");
    }
    // Read back from Anthropic's body, the flag is still there.
    let back = from_provider(
        Provider::Anthropic,
        &anthropic,
        &mut store,
        &ImportOptions::default(),
    )
    .unwrap();
    let flags: Vec<bool> = back
        .messages
        .iter()
        .filter(|m| m.role() == "tool")
        .map(|m| m.content())
        .map(|c| {
            serde_json::from_str::<Value>(c)
                .unwrap()
                .get("is_error")
                .is_some()
        })
        .collect();
    assert_eq!(flags, [false, true]);
}

#[test]
fn thinking_blocks_go_back_to_anthropic_only() {
    let body = json!({"messages": [
        {"role": "user", "content": "Go."},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Let me look.", "signature": "EqQBCgIYAhIM"},
            {"type": "redacted_thinking", "data": "EmwKAhgB"},
            {"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}]}
    ]});
    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    let history = from_provider(
        Provider::Anthropic,
        &body,
        &mut store,
        &ImportOptions::default(),
    )
    .unwrap();
    let request = build(Provider::Anthropic, &history.messages, &options(dir.path()));
    let out = request.body.to_value();
    let blocks = &out["messages"][1]["content"];
    assert_eq!(blocks[0], body["messages"][1]["content"][0]);
    assert_eq!(blocks[1], body["messages"][1]["content"][1]);
    assert_eq!(blocks[2]["type"], "tool_use");
    assert!(request.report.replay_notes.is_empty());
    assert_eq!(
        request
            .report
            .tally
            .get("thinking block")
            .map(|c| (c.read, c.sent)),
        Some((1, 1))
    );
    for provider in Provider::ALL
        .into_iter()
        .filter(|p| *p != Provider::Anthropic)
    {
        let request = build(provider, &history.messages, &options(dir.path()));
        // Another API's reasoning is left out by design: noted, not
        // refused (--strict passes).
        let whats: Vec<&str> = request
            .report
            .replay_notes
            .iter()
            .map(|n| n.what.as_str())
            .collect();
        assert_eq!(
            whats,
            ["thinking block", "redacted_thinking block"],
            "{provider}"
        );
        assert!(
            request.report.replay_notes.iter().all(|n| !n.failure),
            "{provider}"
        );
        assert!(request.report.tally.is_balanced(), "{provider}");
        assert!(
            !request.body.to_value().to_string().contains("EqQBCgIYAhIM"),
            "{provider}"
        );
    }
}

#[test]
fn gemini_thought_signatures_go_back_to_gemini_only() {
    let body = json!({"contents": [
        {"role": "user", "parts": [{"text": "Go."}]},
        {"role": "model", "parts": [
            {"functionCall": {"id": "c1", "name": "shot", "args": {}}, "thoughtSignature": "CiQBmodelsown"},
            {"functionCall": {"id": "c2", "name": "shot", "args": {}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "c1", "name": "shot", "response": {"output": "one"}}},
            {"functionResponse": {"id": "c2", "name": "shot", "response": {"output": "two"}}}]}
    ]});
    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    let history = from_provider(
        Provider::Gemini,
        &body,
        &mut store,
        &ImportOptions::default(),
    )
    .unwrap();
    let request = build(Provider::Gemini, &history.messages, &options(dir.path()));
    let parts = &request.body.to_value()["contents"][1]["parts"];
    assert_eq!(parts[0]["thoughtSignature"], "CiQBmodelsown");
    // The model's own signature stands for the turn: no placeholder.
    assert!(parts[1].get("thoughtSignature").is_none());
    assert!(request.report.replay_notes.is_empty());
    let other = build(Provider::Anthropic, &history.messages, &options(dir.path()));
    assert_eq!(other.report.replay_notes.len(), 1);
    assert_eq!(
        other
            .report
            .tally
            .get("thought signature")
            .map(|c| (c.read, c.noted)),
        Some((1, 1))
    );
    assert!(!other.body.to_value().to_string().contains("CiQBmodelsown"));
    // A history from elsewhere still gets the placeholder on its first call.
    let chat = fixture("openai-chat-images-after-tools.json");
    let h = from_provider(
        Provider::OpenAiChat,
        &chat,
        &mut store,
        &ImportOptions::default(),
    )
    .unwrap();
    let g = build(Provider::Gemini, &h.messages, &options(dir.path()))
        .body
        .to_value();
    let model = g["contents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["role"] == "model")
        .unwrap();
    assert_eq!(
        model["parts"][0]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
}
