//! The agent readers under arbitrary edits of real-shaped transcripts:
//! lines dropped, repeated, reordered, cut short, blank lines and CRLF
//! endings put in. Whatever comes in, a reader never panics; what it
//! reads balances (every part read is sent, noted or refused), each tool
//! message is a declared carrier, and each payload span it reports holds
//! the payload's bytes in the input; what it refuses names the line.
//! Blank lines shift every reported position by exactly what they add,
//! and `--from auto` reads each whole transcript as its agent's reader
//! does.
#![cfg(feature = "media")]

use proptest::prelude::*;
use tool_carrier::import::{
    from_agent, read_auto, Agent, Detected, ImportError, ImportOptions, ImportedHistory,
};
use tool_carrier::media::store::InlineStore;
use tool_carrier::Carrier;
use tool_carrier::Role;

/// The fixtures each reader is tried on, and whether they are JSON Lines
/// (a Gemini CLI checkpoint or legacy session is one JSON document).
const FIXTURES: [(Agent, &str, bool); 19] = [
    (Agent::ClaudeCode, "claude-code/session.jsonl", true),
    (Agent::ClaudeCode, "claude-code/compacted.jsonl", true),
    (Agent::ClaudeCode, "claude-code/agent-a2898e3.jsonl", true),
    (
        Agent::Codex,
        "codex/rollout-2026-04-20T10-03-11-019db3c2-6a1e-7d20-9a4f-2b8c1f0e5d77.jsonl",
        true,
    ),
    (Agent::Codex, "codex/rollout-compacted.jsonl", true),
    (Agent::Codex, "codex/rollout-2025-08-01-legacy.jsonl", true),
    (
        Agent::GeminiCli,
        "gemini-cli/session-2026-08-21T09-14-5b1d2c3e.jsonl",
        true,
    ),
    (
        Agent::GeminiCli,
        "gemini-cli/session-2025-11-02T14-20-9e8d7c6b.json",
        false,
    ),
    (Agent::GeminiCli, "gemini-cli/checkpoint-logo.json", false),
    (Agent::OpenAiAgents, "openai-agents/items.jsonl", true),
    (Agent::VercelAi, "vercel-ai/model-messages.json", false),
    (Agent::VercelAi, "vercel-ai/ui-messages.json", false),
    (Agent::PydanticAi, "pydantic-ai/messages-2.68.0.json", false),
    (
        Agent::PydanticAi,
        "pydantic-ai/messages-1.107.10.json",
        false,
    ),
    (Agent::Cline, "cline/cline-native.json", false),
    (Agent::Cline, "cline/roo.json", false),
    (Agent::Cline, "cline/session-v1.messages.json", false),
    (
        Agent::LangChain,
        "langchain/messages_to_dict-1.8.3.json",
        false,
    ),
    (Agent::LangChain, "langchain/dumpd-1.8.3.json", false),
];

fn fixture(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agents")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(agent: Agent, input: &[u8]) -> Result<ImportedHistory, ImportError> {
    let mut input = input;
    from_agent(agent, &mut input, &mut InlineStore, &ImportOptions::new())
}

/// What every reading that succeeds holds to.
fn check_read(input: &[u8], lines: bool, h: &ImportedHistory) -> Result<(), TestCaseError> {
    prop_assert!(h.tally.is_balanced(), "{:?}", h.tally);
    for record in &h.messages {
        let role = record.role();
        prop_assert!(
            matches!(role, "system" | "user" | "assistant" | "tool"),
            "{role}"
        );
        prop_assert!(role == "user" || record.declared().is_empty(), "{role}");
        if role == "tool" {
            let carrier = Carrier::read(Role::Tool, record.content());
            prop_assert!(
                carrier.as_ref().is_some_and(|c| c.is_declared()),
                "{}",
                record.content()
            );
        }
    }
    for payload in &h.payloads {
        let (start, end) = (payload.span.start as usize, payload.span.end as usize);
        prop_assert!(start < end && end <= input.len(), "{payload:?}");
        let bytes = &input[start..end];
        prop_assert!(
            !bytes.contains(&b'"') && !bytes.contains(&b'\n'),
            "{payload:?}"
        );
        // The line it names starts before it; in JSON Lines it is the
        // payload's own line (a whole document's value begins on its first).
        let line_start = input
            .split_inclusive(|b| *b == b'\n')
            .take(payload.line - 1)
            .map(<[u8]>::len)
            .sum::<usize>();
        prop_assert!(line_start <= start, "{payload:?}");
        prop_assert!(
            !lines || !input[line_start..start].contains(&b'\n'),
            "{payload:?} is not on its line"
        );
    }
    Ok(())
}

/// What every refusal holds to: it names where, and a line within the
/// input (or one past its end, where the input stopped short).
fn check_refused(input: &[u8], e: &ImportError) -> Result<(), TestCaseError> {
    let text = e.to_string();
    prop_assert!(!text.is_empty());
    if let ImportError::Invalid { at, .. } = e {
        if let Some(rest) = at.strip_prefix("line ") {
            let n: usize = rest
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let lines = input.split(|b| *b == b'\n').count();
            prop_assert!(n >= 1 && n <= lines + 1, "{text} (of {lines} lines)");
        }
    }
    Ok(())
}

/// An edit of a transcript's lines (or a whole document's messages).
#[derive(Clone, Debug)]
enum Edit {
    /// Keep these lines (a document's messages), in this order (indices
    /// wrap; repeats allowed).
    Pick(Vec<usize>),
    /// Cut the text short at this fraction of its length (in thousandths).
    Cut(u16),
    /// Put a blank line before this line.
    Blank(usize),
    /// End every line with CRLF.
    Crlf,
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        prop::collection::vec(any::<usize>(), 0..12).prop_map(Edit::Pick),
        (0u16..1000).prop_map(Edit::Cut),
        any::<usize>().prop_map(Edit::Blank),
        Just(Edit::Crlf),
    ];
    prop::collection::vec(edit, 0..4)
}

fn apply(text: &str, lines_format: bool, edits: &[Edit]) -> String {
    let mut text = text.to_owned();
    for edit in edits {
        match edit {
            Edit::Pick(picks) if lines_format => {
                let lines: Vec<&str> = text.lines().collect();
                if lines.is_empty() {
                    continue;
                }
                let kept: Vec<&str> = picks.iter().map(|i| lines[i % lines.len()]).collect();
                text = kept.join("\n") + "\n";
            }
            Edit::Pick(picks) => {
                // A document's list of messages (or a session file's
                // `messages`), picked from as lines are.
                let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&text) else {
                    continue;
                };
                let list = match &mut doc {
                    serde_json::Value::Array(list) => list,
                    serde_json::Value::Object(o) => match o.get_mut("messages") {
                        Some(serde_json::Value::Array(list)) => list,
                        _ => continue,
                    },
                    _ => continue,
                };
                if list.is_empty() {
                    continue;
                }
                let kept = picks.iter().map(|i| list[i % list.len()].clone()).collect();
                *list = kept;
                text = serde_json::to_string_pretty(&doc).unwrap();
            }
            Edit::Cut(at) => {
                let mut n = text.len() * usize::from(*at) / 1000;
                while !text.is_char_boundary(n) {
                    n -= 1;
                }
                text.truncate(n);
            }
            Edit::Blank(at) => {
                let lines: Vec<&str> = text.split('\n').collect();
                let at = at % lines.len();
                let mut out: Vec<&str> = lines[..at].to_vec();
                out.push("");
                out.extend(&lines[at..]);
                text = out.join("\n");
            }
            Edit::Crlf => text = text.replace("\r\n", "\n").replace('\n', "\r\n"),
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn an_edited_transcript_reads_balanced_or_is_refused_by_line(
        which in 0..FIXTURES.len(),
        edits in edits(),
    ) {
        let (agent, rel, lines_format) = FIXTURES[which];
        let input = apply(&fixture(rel), lines_format, &edits);
        match read(agent, input.as_bytes()) {
            Ok(h) => check_read(input.as_bytes(), lines_format, &h)?,
            Err(e) => check_refused(input.as_bytes(), &e)?,
        }
    }

    #[test]
    fn any_agent_reader_on_another_agents_lines_never_panics(
        which in 0..FIXTURES.len(),
        reader in 0..Agent::ALL.len(),
        edits in edits(),
    ) {
        let (_, rel, lines_format) = FIXTURES[which];
        let input = apply(&fixture(rel), lines_format, &edits);
        match read(Agent::ALL[reader], input.as_bytes()) {
            Ok(h) => check_read(input.as_bytes(), lines_format, &h)?,
            Err(e) => check_refused(input.as_bytes(), &e)?,
        }
    }

    #[test]
    fn blank_lines_in_front_shift_every_position_by_what_they_add(
        which in 0..7usize,
        blanks in 1..5usize,
    ) {
        // The JSON Lines fixtures only: a whole document has one line.
        let (agent, rel, lines_format) = FIXTURES[which];
        prop_assume!(lines_format);
        let text = fixture(rel);
        let plain = read(agent, text.as_bytes()).unwrap();
        let shifted_text = "\n".repeat(blanks) + &text;
        let shifted = read(agent, shifted_text.as_bytes()).unwrap();
        prop_assert_eq!(&plain.messages, &shifted.messages);
        prop_assert_eq!(plain.payloads.len(), shifted.payloads.len());
        for (a, b) in plain.payloads.iter().zip(&shifted.payloads) {
            prop_assert_eq!(a.line + blanks, b.line);
            prop_assert_eq!(&a.path, &b.path);
            prop_assert_eq!(a.span.start + blanks as u64, b.span.start);
            prop_assert_eq!(a.span.end + blanks as u64, b.span.end);
        }
    }
}

#[test]
fn auto_reads_each_transcript_as_its_agents_reader() {
    // The coding agents' (a library's file is told in
    // tests/auto_every_format.rs: the Agents SDK's rows by no shape).
    for (agent, rel, _) in &FIXTURES[..9] {
        let (agent, rel) = (*agent, *rel);
        let text = fixture(rel);
        let direct = read(agent, text.as_bytes()).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let auto = read_auto(
            &mut text.as_bytes(),
            &mut InlineStore,
            &ImportOptions::new(),
        )
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(auto.format, Detected::Agent(agent), "{rel}");
        assert_eq!(auto.history.messages, direct.messages, "{rel}");
        assert_eq!(auto.history.payloads, direct.payloads, "{rel}");
        // Each fixture holds media, so the positions are tried.
        assert!(
            !direct.payloads.is_empty() || rel.contains("compacted") || rel.contains("legacy"),
            "{rel}"
        );
    }
}

#[test]
fn crlf_endings_read_as_line_feeds() {
    for (agent, rel, _) in FIXTURES {
        let text = fixture(rel);
        let lf = read(agent, text.as_bytes()).unwrap();
        let crlf = read(agent, text.replace('\n', "\r\n").as_bytes())
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(lf.messages, crlf.messages, "{rel}");
        assert_eq!(lf.payloads.len(), crlf.payloads.len(), "{rel}");
    }
}
