//! `--from auto` across every format the crate reads: each golden request
//! body, each response and stream, each agent's transcript and an MCP
//! result is read by its shape into the history its own reader gives, or
//! refused as ambiguous naming that reader among the candidates; inputs
//! that two formats read differently are refused, never guessed.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use support::manifest_dir;
use tool_carrier::import::{
    from_agent, from_mcp, from_provider, read_auto, read_response, response_form, Agent, AutoError,
    AutoRead, Detected, ImportOptions,
};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::Provider;

fn auto(text: &str) -> Result<AutoRead, AutoError> {
    read_auto(
        &mut text.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// The provider a golden body was written for, by its file name
/// (`PROVIDER__CASE.json`; a compatible server's profile after a dash).
fn golden_provider(name: &str) -> Option<Provider> {
    let (head, _) = name.split_once("__")?;
    if !name.ends_with(".json") {
        return None;
    }
    if head.starts_with("openai-compatible") {
        return Some(Provider::OpenAiCompatible);
    }
    head.parse().ok()
}

#[test]
fn every_golden_request_body_reads_as_its_providers_reader_reads_it() {
    let (mut taken, mut ambiguous) = (0, 0);
    for path in files(&manifest_dir().join("tests/golden")) {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let Some(provider) = golden_provider(&name) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let own = from_provider(provider, &value, &mut InlineStore, &ImportOptions::new())
            .unwrap_or_else(|e| panic!("{name}: its own reader: {e}"));
        match auto(&text) {
            Ok(read) => {
                taken += 1;
                // The provider's reader agrees, or one that reads the same
                // shape (Gemini 2's bodies are Gemini's) into the same
                // history.
                assert!(
                    read.agreeing.contains(&Detected::Request(provider))
                        || read.history.messages == own.messages,
                    "{name}: read as {:?}",
                    read.agreeing
                );
                assert_eq!(read.history.messages, own.messages, "{name}");
                assert_eq!(read.history.tally, own.tally, "{name}");
            }
            Err(AutoError::Ambiguous(candidates)) => {
                ambiguous += 1;
                assert!(
                    candidates.contains(&Detected::Request(provider)),
                    "{name}: {candidates:?}"
                );
            }
            Err(e) => panic!("{name}: {e}"),
        }
    }
    assert!(taken > 60, "{taken} taken, {ambiguous} ambiguous");
}

#[test]
fn every_response_and_stream_reads_as_its_providers() {
    let mut seen = 0;
    for provider in Provider::ALL {
        let dir = manifest_dir()
            .join("tests/data/responses")
            .join(provider.name());
        if !dir.is_dir() {
            continue;
        }
        for path in files(&dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            if path.file_stem().unwrap() == "error" {
                // An error the provider answered is no turn to read.
                let err = auto(&text).unwrap_err().to_string();
                assert!(
                    err.contains("the provider answered with an error"),
                    "{}: {err}",
                    path.display()
                );
                continue;
            }
            let form = response_form(provider, &text)
                .unwrap_or_else(|| panic!("{}: no response shape", path.display()));
            let read = auto(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                read.agreeing.contains(&Detected::Response(provider, form)),
                "{}: {:?}",
                path.display(),
                read.agreeing
            );
            let own = read_response(provider, form, &text).unwrap();
            assert_eq!(read.history.messages.len(), 1, "{}", path.display());
            assert_eq!(
                read.history.messages[0].content(),
                own.to_json(),
                "{}",
                path.display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 35, "{seen}");
}

#[test]
fn every_agent_transcript_reads_as_its_agents() {
    let root = manifest_dir().join("tests/data/agents");
    let mut seen = 0;
    for agent in Agent::ALL {
        for path in files(&root.join(agent.name())) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // A database is told by its first bytes, by the command
            // (tests/cli_agents.rs); the library reads it by its path.
            if name.ends_with(".db") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            if name == "model-messages-by-hand.json" {
                // One of its parts names a file no provider is said to
                // hold, which only --keep-unknown passes: refused, and the
                // refusal says it is the AI SDK's.
                let e = auto(&text).unwrap_err().to_string();
                let want = "as a Vercel AI SDK message list (--from vercel-ai): $[5].content[2]";
                assert!(e.contains(want), "{e}");
                continue;
            }
            let read = auto(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let own = from_agent(
                agent,
                &mut text.as_bytes(),
                &mut InlineStore,
                &ImportOptions::new(),
            )
            .unwrap();
            if agent == Agent::OpenAiAgents {
                // Responses input items, one a line, told by no shape of
                // their own: read as the Responses body they also are,
                // with the same records but for the computer call, which
                // only --from openai-agents makes a call with an image.
                assert_eq!(read.format, Detected::Request(Provider::OpenAiResponses));
                assert_eq!(read.history.messages[..4], own.messages[..4]);
                seen += 1;
                continue;
            }
            // Cline's histories before it kept members of its own (3.17)
            // are Anthropic's messages, read alike.
            let plain = name == "cline-xml.json";
            let want = match plain {
                true => Detected::Request(Provider::Anthropic),
                false => Detected::Agent(agent),
            };
            assert_eq!(read.format, want, "{}", path.display());
            assert_eq!(read.history.messages, own.messages, "{}", path.display());
            if plain {
                seen += 1;
                continue;
            }
            assert_eq!(read.history.payloads, own.payloads, "{}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 15, "{seen}");
}

#[test]
fn an_mcp_result_reads_as_one() {
    let path = manifest_dir().join("tests/data/import/mcp-call-tool-result.json");
    let text = std::fs::read_to_string(path).unwrap();
    let read = auto(&text).unwrap();
    assert_eq!(read.format, Detected::Mcp);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let own = from_mcp(None, &value, &mut InlineStore, &ImportOptions::new()).unwrap();
    assert_eq!(read.history.messages.len(), 1);
    assert_eq!(read.history.messages[0].content(), own.content);
}

#[test]
fn a_chat_tool_message_that_names_no_call_is_refused() {
    // The Chat API requires `tool_call_id`; read as a reply to nothing,
    // a carrier history given as a Chat body had its envelope sent as
    // the text of a result, its attachments with it.
    let body = serde_json::json!({"messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "content": "{\"tool_call_id\":\"c1\",\"content\":\"done\"}"}
    ]});
    for provider in [Provider::OpenAiChat, Provider::OpenAiCompatible] {
        let err =
            from_provider(provider, &body, &mut InlineStore, &ImportOptions::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "$.messages[1]: a tool message without a tool_call_id member: the Chat API requires one (--keep-unknown reads it as a result that names no call)",
            "{provider}"
        );
    }
}
