//! One folder per agent whose stored history the crate reads (its own
//! transcript files, as the agent's code writes them), holding everything
//! the crate knows of it: the reader (`read.rs`), how its files are told
//! apart (`sniff`), and where the format was read from (`SOURCE`). Each
//! builds on the provider readers of `apis` (an agent's content is a
//! provider's) and the steps here; the layer above reaches an agent only
//! through its row of [`AGENTS`].

pub(crate) mod claude_code;
pub(crate) mod codex;
pub(crate) mod gemini_cli;

pub(crate) mod left;
pub(crate) mod lines;
pub(crate) mod payloads;
pub(crate) mod segment;
pub(crate) mod version;

use std::fmt;
use std::io::BufRead;
use std::str::FromStr;

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

/// An agent whose transcripts are read ([`from_agent`](crate::import::from_agent)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Agent {
    /// Claude Code's session transcripts
    /// (`~/.claude/projects/PROJECT/SESSION.jsonl`, and its sub-agents').
    ClaudeCode,
    /// Codex CLI's session rollouts
    /// (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
    /// Gemini CLI's chat recordings
    /// (`~/.gemini/tmp/PROJECT/chats/session-*.jsonl`, or `.json`) and
    /// `/chat save` checkpoints.
    GeminiCli,
}

impl Agent {
    /// Every agent, in the order of the table.
    pub const ALL: [Agent; 3] = [Agent::ClaudeCode, Agent::Codex, Agent::GeminiCli];

    /// Its `--from` name (`claude-code`).
    pub fn name(self) -> &'static str {
        row(self).name
    }

    /// The agent's own name (`Claude Code`).
    pub fn title(self) -> &'static str {
        row(self).title
    }

    /// Where the reader's knowledge of the format comes from: the
    /// repository and commit, or the package and version, and the files.
    pub fn source(self) -> &'static str {
        row(self).source
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that names no agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAgent(pub String);

impl fmt::Display for UnknownAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
        write!(f, "no agent is called {:?}: {}", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownAgent {}

impl FromStr for Agent {
    type Err = UnknownAgent;
    fn from_str(s: &str) -> Result<Agent, UnknownAgent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| UnknownAgent(s.to_owned()))
    }
}

/// What an agent plugs in: one row of [`AGENTS`].
pub(crate) struct Row {
    pub agent: Agent,
    /// The `--from` name.
    pub name: &'static str,
    /// The agent's own name.
    pub title: &'static str,
    /// Where the format was read from.
    pub source: &'static str,
    /// Whether a file whose first value (its first line, or the whole
    /// file) is `first` is this agent's, by shape alone.
    pub sniff: fn(first: &Value) -> bool,
    /// Read a transcript, a line (or a turn) at a time.
    pub read: fn(
        &mut dyn BufRead,
        &mut dyn MediaStore,
        &ImportOptions,
    ) -> Result<ImportedHistory, ImportError>,
}

/// The row of `agent`.
pub(crate) fn row(agent: Agent) -> &'static Row {
    &AGENTS[agent as usize]
}

/// The rows, in the order of [`Agent::ALL`].
pub(crate) static AGENTS: [Row; Agent::ALL.len()] = [
    Row {
        agent: Agent::ClaudeCode,
        name: "claude-code",
        title: "Claude Code",
        source: claude_code::SOURCE,
        sniff: claude_code::sniff,
        read: claude_code::read::read,
    },
    Row {
        agent: Agent::Codex,
        name: "codex",
        title: "Codex",
        source: codex::SOURCE,
        sniff: codex::sniff,
        read: codex::read::read,
    },
    Row {
        agent: Agent::GeminiCli,
        name: "gemini-cli",
        title: "Gemini CLI",
        source: gemini_cli::SOURCE,
        sniff: gemini_cli::sniff,
        read: gemini_cli::read::read,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_is_its_agents_and_names_parse_back() {
        for (i, agent) in Agent::ALL.into_iter().enumerate() {
            assert_eq!(AGENTS[i].agent, agent);
            assert_eq!(agent.name().parse::<Agent>(), Ok(agent));
            assert!(!agent.source().is_empty());
        }
        assert_eq!(
            "claude".parse::<Agent>().unwrap_err().to_string(),
            "no agent is called \"claude\": claude-code, codex, gemini-cli"
        );
    }
}
