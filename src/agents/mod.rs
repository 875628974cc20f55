//! One folder per agent whose stored history the crate reads (its own
//! transcript files, as the agent's code writes them), holding everything
//! the crate knows of it: the reader (`read.rs`), how its files are told
//! apart (`sniff`), and where the format was read from (`SOURCE`). Each
//! builds on the provider readers of `apis` (an agent's content is a
//! provider's) and the steps here; the layer above reaches an agent only
//! through its row of [`AGENTS`].

pub(crate) mod claude_code;
pub(crate) mod cline;
pub(crate) mod codex;
pub(crate) mod gemini_cli;
pub(crate) mod langchain;
pub(crate) mod openai_agents;
pub(crate) mod pydantic_ai;
pub(crate) mod vercel_ai;

pub(crate) mod build;
pub(crate) mod calls;
pub(crate) mod left;
pub(crate) mod lines;
pub(crate) mod payloads;
pub(crate) mod segment;
pub(crate) mod stand_in;
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
    /// The Vercel AI SDK's messages as an app saves them: `ModelMessage[]`
    /// or `UIMessage[]` as JSON.
    VercelAi,
    /// The OpenAI Agents SDK's session items (Responses input items), one
    /// per line; with the `sqlite` feature, a `SQLiteSession`'s database.
    OpenAiAgents,
    /// pydantic-ai's messages as `ModelMessagesTypeAdapter` writes them.
    PydanticAi,
    /// Cline's and Roo Code's stored task history
    /// (`api_conversation_history.json`), and Cline's session
    /// `messages.json`.
    Cline,
    /// LangChain's saved messages (`messages_to_dict` or `dumpd`).
    LangChain,
}

impl Agent {
    /// Every agent, in the order of the table.
    pub const ALL: [Agent; 8] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::GeminiCli,
        Agent::VercelAi,
        Agent::OpenAiAgents,
        Agent::PydanticAi,
        Agent::Cline,
        Agent::LangChain,
    ];

    /// Its `--from` name (`claude-code`).
    pub fn name(self) -> &'static str {
        row(self).name
    }

    /// The agent's own name (`Claude Code`).
    pub fn title(self) -> &'static str {
        row(self).title
    }

    /// What its file is called, with its article (`a Claude Code
    /// transcript`, `an OpenAI Agents SDK session`).
    pub fn what(self) -> &'static str {
        row(self).what
    }

    /// Whether the agent keeps its history in a database file, which
    /// [`from_agent_db`](crate::import::from_agent_db) reads (feature
    /// `sqlite`).
    #[cfg(feature = "sqlite")]
    pub fn keeps_database(self) -> bool {
        DATABASES.iter().any(|(a, _)| *a == self)
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
    /// Its file, with its article.
    pub what: &'static str,
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

/// A reader of an agent's database file: its path, the session to read
/// (the only one, when `None`).
#[cfg(feature = "sqlite")]
pub(crate) type DbReader = fn(
    &std::path::Path,
    Option<&str>,
    &mut dyn MediaStore,
    &ImportOptions,
) -> Result<ImportedHistory, ImportError>;

/// The agents that keep a database file, and its reader.
#[cfg(feature = "sqlite")]
pub(crate) static DATABASES: [(Agent, DbReader); 1] =
    [(Agent::OpenAiAgents, openai_agents::db::read)];

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
        what: "a Claude Code transcript",
        source: claude_code::SOURCE,
        sniff: claude_code::sniff,
        read: claude_code::read::read,
    },
    Row {
        agent: Agent::Codex,
        name: "codex",
        title: "Codex",
        what: "a Codex rollout",
        source: codex::SOURCE,
        sniff: codex::sniff,
        read: codex::read::read,
    },
    Row {
        agent: Agent::GeminiCli,
        name: "gemini-cli",
        title: "Gemini CLI",
        what: "a Gemini CLI recording",
        source: gemini_cli::SOURCE,
        sniff: gemini_cli::sniff,
        read: gemini_cli::read::read,
    },
    Row {
        agent: Agent::VercelAi,
        name: "vercel-ai",
        title: "Vercel AI SDK",
        what: "a Vercel AI SDK message list",
        source: vercel_ai::SOURCE,
        sniff: vercel_ai::sniff,
        read: vercel_ai::read::read,
    },
    Row {
        agent: Agent::OpenAiAgents,
        name: "openai-agents",
        title: "OpenAI Agents SDK",
        what: "an OpenAI Agents SDK session",
        source: openai_agents::SOURCE,
        sniff: openai_agents::sniff,
        read: openai_agents::read::read,
    },
    Row {
        agent: Agent::PydanticAi,
        name: "pydantic-ai",
        title: "pydantic-ai",
        what: "a pydantic-ai message list",
        source: pydantic_ai::SOURCE,
        sniff: pydantic_ai::sniff,
        read: pydantic_ai::read::read,
    },
    Row {
        agent: Agent::Cline,
        name: "cline",
        title: "Cline",
        what: "a Cline or Roo Code history",
        source: cline::SOURCE,
        sniff: cline::sniff,
        read: cline::read::read,
    },
    Row {
        agent: Agent::LangChain,
        name: "langchain",
        title: "LangChain",
        what: "a LangChain message list",
        source: langchain::SOURCE,
        sniff: langchain::sniff,
        read: langchain::read::read,
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
            "no agent is called \"claude\": claude-code, codex, gemini-cli, vercel-ai, openai-agents, pydantic-ai, cline, langchain"
        );
    }
}
