//! `--from auto`: what an input is, told by its shape, and read.
//!
//! An agent's transcript is told by its first line (each agent's row says
//! how), and read a line at a time; a document one agent's shape claims
//! (a Gemini CLI checkpoint, the AI SDK's messages) is that agent's too. Anything else is read whole and tried
//! as every format whose shape it has: a request body of each provider,
//! a response (body or stream) of each, an MCP `CallToolResult`. Where
//! every reading that succeeds gives the same history, that history is
//! taken (the report names each format that agreed); where they differ,
//! the input is refused, naming them.

use std::fmt;
use std::io::{self, BufRead, Read};

use serde_json::Value;

use crate::agents::{Agent, AGENTS};
use crate::facts::Provider;
use crate::media::store::MediaStore;

use super::{
    from_mcp, from_provider, read_response, response_form, ImportError, ImportOptions,
    ImportedHistory, ResponseForm,
};

/// What an input was read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detected {
    /// An agent's transcript.
    Agent(Agent),
    /// A provider's request body (or its list of messages).
    Request(Provider),
    /// A provider's response: a body, or a stream.
    Response(Provider, ResponseForm),
    /// One MCP `CallToolResult`.
    Mcp,
}

impl Detected {
    /// The `--from` name that reads it.
    pub fn from_name(self) -> &'static str {
        match self {
            Detected::Agent(a) => a.name(),
            Detected::Request(p) | Detected::Response(p, _) => p.name(),
            Detected::Mcp => "mcp",
        }
    }
}

impl fmt::Display for Detected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detected::Agent(a) => f.write_str(a.what()),
            Detected::Request(p) => write!(f, "a request body for {p}"),
            Detected::Response(p, ResponseForm::Body) => write!(f, "a response of {p}"),
            Detected::Response(p, ResponseForm::Stream) => write!(f, "a stream of {p}"),
            Detected::Mcp => f.write_str("an MCP tool result"),
        }
    }
}

/// An input read by its shape.
#[derive(Debug)]
pub struct AutoRead {
    /// What it was read as: the first of the formats that agreed.
    pub format: Detected,
    /// Every format whose reading gave the same history (`format` first).
    pub agreeing: Vec<Detected>,
    /// The history.
    pub history: ImportedHistory,
}

/// Why an input could not be read by its shape.
#[derive(Debug)]
#[non_exhaustive]
pub enum AutoError {
    /// Reading the input failed.
    Read(io::Error),
    /// It is told as one format, whose reader refused it.
    Import(Detected, ImportError),
    /// Several formats read it, into different histories.
    Ambiguous(Vec<Detected>),
    /// No format read it: each one tried, and why it refused.
    Unknown(Vec<(Detected, String)>),
    /// It holds nothing but white space: no shape to tell a format by
    /// (every reader would take it as an empty history).
    Empty,
    /// It is a carrier history already (the crate's own records): the
    /// line of the first record whose content string holds a result's or
    /// calls' envelope, which no provider's body writes.
    History(usize),
}

impl fmt::Display for AutoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoError::Read(e) => write!(f, "reading the input: {e}"),
            AutoError::Import(d, e) => write!(f, "read as {d} (--from {}): {e}", d.from_name()),
            AutoError::Ambiguous(found) => {
                let names: Vec<String> = found
                    .iter()
                    .map(|d| format!("{d} (--from {})", d.from_name()))
                    .collect();
                write!(
                    f,
                    "it reads as {}, into different histories: say which with --from",
                    names.join(", ")
                )
            }
            AutoError::Empty => f.write_str(
                "the input is empty: it has no format's shape to tell (--from names one)",
            ),
            AutoError::History(line) => write!(
                f,
                "it is a carrier history already (line {line} holds an envelope in its \
                 content): convert, inspect and migrate read it as it is, without --from"
            ),
            AutoError::Unknown(tried) if tried.is_empty() => f.write_str(
                "no format has its shape: not an agent's transcript, a provider's body, \
                 response or stream, or an MCP result",
            ),
            AutoError::Unknown(tried) => {
                let why: Vec<String> = tried
                    .iter()
                    .map(|(d, e)| format!("as {d} (--from {}): {e}", d.from_name()))
                    .collect();
                write!(f, "no format reads it: {}", why.join("; "))
            }
        }
    }
}

impl std::error::Error for AutoError {}

/// The longest input read whole (one that is no agent's transcript).
const MAX_WHOLE: u64 = crate::history::DEFAULT_MAX_RECORD as u64;

/// Read `input` as the format its shape says.
///
/// An agent's transcript is told by its first line and streamed; anything
/// else is read whole (at most the record limit) and tried as every format
/// whose shape it has, taken only where every reading that succeeds agrees.
///
/// ```
/// use tool_carrier::import::{read_auto, Agent, Detected, ImportOptions};
/// use tool_carrier::media::store::InlineStore;
///
/// let rollout = r#"{"timestamp":"2026-04-20T17:03:11.482Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#;
/// let read = read_auto(&mut rollout.as_bytes(), &mut InlineStore, &ImportOptions::new())?;
/// assert_eq!(read.format, Detected::Agent(Agent::Codex));
/// assert_eq!(read.history.messages[0], ("user", "hi"));
///
/// // A list of messages reads the same for every provider that takes it.
/// let list = r#"[{"role":"user","content":"hi"}]"#;
/// let read = read_auto(&mut list.as_bytes(), &mut InlineStore, &ImportOptions::new())?;
/// assert!(read.agreeing.len() > 1);
/// # Ok::<(), tool_carrier::import::AutoError>(())
/// ```
///
/// # Errors
/// [`AutoError`]: the input cannot be read, the one format its shape
/// names refuses it, several formats read it differently, or none does.
pub fn read_auto(
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<AutoRead, AutoError> {
    let mut first = Vec::new();
    first_line(input, &mut first).map_err(AutoError::Read)?;
    let head: Option<Value> = std::str::from_utf8(&first)
        .ok()
        .and_then(|t| serde_json::from_str(t.trim()).ok());
    let agents: Vec<Agent> = head
        .as_ref()
        .map(|v| {
            AGENTS
                .iter()
                .filter(|r| (r.sniff)(v))
                .map(|r| r.agent)
                .collect()
        })
        .unwrap_or_default();
    let mut whole = io::Cursor::new(first).chain(input);
    if let [agent] = agents[..] {
        let format = Detected::Agent(agent);
        let history = super::from_agent(agent, &mut whole, store, options)
            .map_err(|e| AutoError::Import(format, e))?;
        return Ok(AutoRead {
            format,
            agreeing: vec![format],
            history,
        });
    }
    let mut bytes = Vec::new();
    (&mut whole)
        .take(MAX_WHOLE + 1)
        .read_to_end(&mut bytes)
        .map_err(AutoError::Read)?;
    if bytes.len() as u64 > MAX_WHOLE {
        return Err(AutoError::Read(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("longer than the {MAX_WHOLE} bytes an input that is no transcript is read in"),
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        AutoError::Read(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "not UTF-8: invalid byte at {}",
                e.utf8_error().valid_up_to()
            ),
        ))
    })?;
    if text.trim().is_empty() {
        return Err(AutoError::Empty);
    }
    if let Some(line) = own_history_line(&text) {
        return Err(AutoError::History(line));
    }
    whole_text(&text, &agents, store, options)
}

/// The line of the first JSON Lines record that only a carrier history
/// holds: a `tool` record whose content string is an envelope (a
/// `tool_call_id` or an `attachments` list inside it), or an `assistant`
/// record whose content string holds `tool_calls`. A provider's body
/// writes results and calls as members, not inside a string; read as
/// one, the envelope would become the text of a result and its
/// attachments text.
fn own_history_line(text: &str) -> Option<usize> {
    text.lines().enumerate().find_map(|(n, line)| {
        let v: Value = serde_json::from_str(line).ok()?;
        let role = v.get("role")?.as_str()?;
        let inner: Value = serde_json::from_str(v.get("content")?.as_str()?).ok()?;
        let own = match role {
            "tool" => {
                inner.get("tool_call_id").is_some_and(Value::is_string)
                    || inner.get("attachments").is_some_and(Value::is_array)
            }
            "assistant" => inner.get("tool_calls").is_some_and(Value::is_array),
            _ => false,
        };
        own.then_some(n + 1)
    })
}

/// An input that is no single agent's transcript, tried as every format
/// with its shape.
fn whole_text(
    text: &str,
    agents: &[Agent],
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<AutoRead, AutoError> {
    let mut read: Vec<(Detected, ImportedHistory)> = Vec::new();
    let mut refused: Vec<(Detected, String)> = Vec::new();
    let mut tried = |d: Detected, r: Result<ImportedHistory, String>| match r {
        Ok(h) => read.push((d, h)),
        Err(e) => refused.push((d, e)),
    };
    // A document spread over lines (a checkpoint, a legacy session) names
    // its agent by the whole value, not the first line.
    let mut agents = agents.to_vec();
    if agents.is_empty() {
        if let Ok(doc) = serde_json::from_str::<Value>(text) {
            agents.extend(AGENTS.iter().filter(|r| (r.sniff)(&doc)).map(|r| r.agent));
        }
    }
    // A document one agent's shape claims is that agent's, as a
    // transcript whose first line one agent claims is.
    if let [agent] = agents[..] {
        let format = Detected::Agent(agent);
        let history = super::from_agent(agent, &mut text.as_bytes(), store, options)
            .map_err(|e| AutoError::Import(format, e))?;
        return Ok(AutoRead {
            format,
            agreeing: vec![format],
            history,
        });
    }
    for &agent in &agents {
        let r = super::from_agent(agent, &mut text.as_bytes(), store, options);
        tried(Detected::Agent(agent), r.map_err(|e| e.to_string()));
    }
    let mut responses = false;
    for provider in Provider::ALL {
        if let Some(form) = response_form(provider, text) {
            responses = true;
            let r = read_response(provider, form, text).map(|turn| {
                let mut h = ImportedHistory::default();
                h.push("assistant", turn.to_json());
                h
            });
            tried(
                Detected::Response(provider, form),
                r.map_err(|e| e.to_string()),
            );
        }
    }
    let value = if responses { None } else { json_or_lines(text) };
    if let Some(value) = &value {
        if is_mcp_result(value) {
            let r = from_mcp(None, value, store, options).map(|imported| {
                let mut h = ImportedHistory::default();
                h.push("tool", imported.content);
                h.notes = imported
                    .notes
                    .into_iter()
                    .map(|text| super::ImportNote { message: 0, text })
                    .collect();
                h.tally = imported.tally;
                h
            });
            tried(Detected::Mcp, r.map_err(|e| e.to_string()));
        } else {
            for provider in Provider::ALL {
                let r = from_provider(provider, value, store, options);
                tried(Detected::Request(provider), r.map_err(|e| e.to_string()));
            }
        }
    }
    let Some((format, history)) = read.first() else {
        return Err(AutoError::Unknown(refused));
    };
    let same: Vec<Detected> = read
        .iter()
        .filter(|(_, h)| h.messages == history.messages)
        .map(|(d, _)| *d)
        .collect();
    if same.len() < read.len() {
        return Err(AutoError::Ambiguous(read.iter().map(|(d, _)| *d).collect()));
    }
    let format = *format;
    let history = read.into_iter().next().expect("one read").1;
    Ok(AutoRead {
        format,
        agreeing: same,
        history,
    })
}

/// One JSON value, or JSON Lines of values (as a list); a lone message
/// of JSON Lines is a list of it.
fn json_or_lines(text: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        if v.get("role").is_some() {
            return Some(Value::Array(vec![v]));
        }
        return Some(v);
    }
    let mut items = Vec::new();
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        items.push(serde_json::from_str(l).ok()?);
    }
    Some(Value::Array(items))
}

/// An MCP `CallToolResult`: an object of its members only, `content` a
/// list.
fn is_mcp_result(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.get("content").is_some_and(Value::is_array)
            && o.keys().all(|k| {
                matches!(
                    k.as_str(),
                    "content" | "isError" | "structuredContent" | "_meta"
                )
            })
    })
}

/// The input's first line that is not blank, and the blank ones before
/// it, into `out` (at most the transcript line limit).
fn first_line(input: &mut dyn BufRead, out: &mut Vec<u8>) -> io::Result<()> {
    let limit = crate::agents::lines::MAX_LINE;
    loop {
        let start = out.len();
        if !crate::history::read_line(input, out, limit)? || out.len() == start {
            return Ok(());
        }
        if !out[start..].iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;

    fn auto(text: &str) -> Result<AutoRead, String> {
        read_auto(
            &mut text.as_bytes(),
            &mut InlineStore,
            &ImportOptions::new(),
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn shapes_tell_formats_apart() {
        let mcp = r#"{"content":[{"type":"text","text":"ok"}],"isError":false}"#;
        assert_eq!(auto(mcp).unwrap().format, Detected::Mcp);
        let anthropic = r#"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#;
        let read = auto(anthropic).unwrap();
        assert!(read
            .agreeing
            .contains(&Detected::Request(Provider::Anthropic)));
        let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#;
        let read = auto(gemini).unwrap();
        assert_eq!(read.format, Detected::Request(Provider::Gemini));
        assert_eq!(read.history.messages[0], ("user", "hi"));
        let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let read = auto(stream).unwrap();
        assert_eq!(
            read.format,
            Detected::Response(Provider::Anthropic, ResponseForm::Stream)
        );
    }

    #[test]
    fn a_carrier_history_and_readings_that_differ_are_refused() {
        let history = concat!(
            "{\"role\":\"user\",\"content\":\"hi\"}\n",
            "{\"role\":\"tool\",\"content\":\"{\\\"tool_call_id\\\":\\\"c1\\\",",
            "\\\"content\\\":\\\"done\\\",\\\"attachments\\\":[]}\"}\n"
        );
        assert!(crate::history::read(history.as_bytes()).is_ok());
        assert_eq!(
            auto(history).unwrap_err(),
            "it is a carrier history already (line 2 holds an envelope in its content): \
             convert, inspect and migrate read it as it is, without --from"
        );
        let calls = "{\"role\":\"assistant\",\"content\":\"{\\\"tool_calls\\\":[]}\"}\n";
        assert!(auto(calls)
            .unwrap_err()
            .starts_with("it is a carrier history already (line 1"));
        // Ollama reads `images` as the user's; the others do not know it.
        let list = r#"[{"role":"user","content":"look","images":["iVBORw0KGgo="]}]"#;
        let err = read_auto(
            &mut list.as_bytes(),
            &mut InlineStore,
            &ImportOptions::new(),
        )
        .unwrap_err();
        let AutoError::Ambiguous(candidates) = &err else {
            panic!("{err}");
        };
        assert!(candidates.contains(&Detected::Request(Provider::Ollama)));
        assert!(candidates.len() > 1, "{candidates:?}");
        assert!(err
            .to_string()
            .ends_with("into different histories: say which with --from"));
    }

    #[test]
    fn what_nothing_reads_is_refused_saying_so() {
        for empty in ["", "\n\n", "  \r\n"] {
            assert_eq!(
                auto(empty).unwrap_err(),
                "the input is empty: it has no format's shape to tell (--from names one)"
            );
        }
        assert_eq!(
            auto("hello").unwrap_err(),
            "no format has its shape: not an agent's transcript, a provider's body, response or stream, or an MCP result"
        );
        let err = auto(r#"{"x":1}"#).unwrap_err();
        assert!(
            err.starts_with("no format reads it: as a request body for anthropic (--from anthropic): $: expected a Messages body or a list of messages: no `messages` member; "),
            "{err}"
        );
        // One agent's first line, a broken second: that agent's error.
        let text = "{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{}}\n{\"nope\":1}\n";
        assert_eq!(
            auto(text).unwrap_err(),
            "read as a Codex rollout (--from codex): line 2: $: no `type`: not a line of a Codex rollout"
        );
    }
}
