//! The `tool-carrier` command: arguments and dispatch, each subcommand a
//! file of its own, and the presentation code only the command needs (the
//! `inspect` table, the `media` report).
#![forbid(unsafe_code)]

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod cache;
mod convert;
mod facts;
#[cfg(feature = "gateway")]
mod fetch_urls;
mod fit;
#[cfg(feature = "gateway")]
mod gateway;
#[cfg(feature = "http")]
mod http;
mod import;
mod input;
mod inspect;
mod interrupt;
mod keep;
mod live;
#[cfg(feature = "mcp-http")]
mod mcp_http;
mod mcp_proxy;
mod media;
mod migrate;
mod models;
mod output;
mod relay;
pub mod report;
pub mod table;

/// Tool-result carriers in agent conversation histories.
#[derive(Debug, Parser)]
#[command(name = "tool-carrier", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Classify every message of a history and open its carrier.
    Inspect {
        /// A JSON Lines file or a JSON array of messages; `-` or nothing
        /// for standard input.
        file: Option<PathBuf>,
        /// One JSON object a message instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: input::Limits,
    },
    /// Upgrade legacy carriers to declared ones, losing nothing.
    Migrate(migrate::Args),
    /// Build one provider's request body from a history.
    Convert(Box<convert::Args>),
    /// Show what a model would receive for image or PDF files.
    Media(media::Args),
    /// Read what agents store elsewhere into a carrier history: MCP tool
    /// results, a provider's request body, or its response (body or
    /// stream) as one assistant record.
    Import(import::Args),
    /// List the models the provider facts know: limits, image processing
    /// size, retirement date, sources.
    Models(models::Args),
    /// Rewrite an agent's own history file (or a request body) so the
    /// provider takes it again: each image fitted, the oldest beyond the
    /// request's limits replaced by a text, every other byte as it was.
    Fit(fit::Args),
    /// Serve HTTP on the loopback for an agent to point its base URL at:
    /// each conversation's images fitted for the model it names, the body
    /// checked, everything else passed through as it came.
    #[cfg(feature = "gateway")]
    Gateway(Box<gateway::Args>),
    /// Run an MCP server (stdio) behind a proxy that fits the images of
    /// its tool results for the model; everything else passes through.
    McpProxy(mcp_proxy::Args),
}

/// The value parser of every `--provider`-like option: one of
/// [`Provider::NAMES`](tool_carrier::provider::Provider::NAMES), listed in
/// `--help` and in the error for any other value.
fn provider_parser(
) -> impl clap::builder::TypedValueParser<Value = tool_carrier::provider::Provider> {
    use clap::builder::TypedValueParser;
    use tool_carrier::provider::Provider;
    clap::builder::PossibleValuesParser::new(Provider::NAMES)
        .map(|name| name.parse::<Provider>().expect("a listed provider name"))
}

/// What `convert --from` reads: a provider's request body, or an agent's
/// transcript.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source {
    Provider(tool_carrier::provider::Provider),
    Agent(tool_carrier::import::Agent),
    /// Told by its shape.
    Auto,
}

/// The value parser of `convert --from`: a provider's or an agent's name,
/// each listed in `--help`.
fn source_parser() -> impl clap::builder::TypedValueParser<Value = Source> {
    use clap::builder::TypedValueParser;
    use tool_carrier::import::Agent;
    use tool_carrier::provider::Provider;
    let names: Vec<&'static str> = std::iter::once("auto")
        .chain(Provider::NAMES.iter().copied())
        .chain(Agent::ALL.iter().map(|a| a.name()))
        .collect();
    clap::builder::PossibleValuesParser::new(names).map(|name| match name.parse::<Agent>() {
        _ if name == "auto" => Source::Auto,
        Ok(agent) => Source::Agent(agent),
        Err(_) => Source::Provider(name.parse::<Provider>().expect("a listed provider name")),
    })
}

/// The value parser of every `--detail`: one of
/// [`Detail::ALL`](tool_carrier::facts::Detail::ALL) by name.
fn detail_parser() -> impl clap::builder::TypedValueParser<Value = tool_carrier::facts::Detail> {
    use clap::builder::TypedValueParser;
    use tool_carrier::facts::Detail;
    clap::builder::PossibleValuesParser::new(Detail::ALL.map(Detail::name))
        .map(|name| name.parse::<Detail>().expect("a listed detail level"))
}

/// Exit status for a finished run that found bad records or pending changes.
const FOUND: u8 = 1;
/// Exit status for a run that could not finish (I/O, arguments, input
/// that is no history).
const FAILED: u8 = 2;
/// How many records that are not messages a run names on standard error;
/// the rest are counted in one line.
const SHOWN: usize = 10;
/// Exit status of `convert --strict` when declared attachments failed.
const ATTACHMENTS_FAILED: u8 = 3;
/// Exit status of `convert` when the body would be refused by the API (over
/// its size limit with every attachment left out, or a rule broken).
const REFUSED: u8 = 4;

/// Run the command on the process's arguments.
pub fn main() -> ExitCode {
    interrupt::install();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `--help`, `--version` and usage errors: clap's own text, whose
        // write is checked as every other (a full disk is no success).
        Err(e) => {
            let code = u8::try_from(e.exit_code()).unwrap_or(FAILED);
            return match e.print().and_then(|()| io::stdout().flush()) {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => written_badly(&e),
                _ => ExitCode::from(code),
            };
        }
    };
    let code = run(cli);
    // What a command left in standard output's buffer is written now, and
    // a failure to is the run's (stdout is otherwise flushed at exit, its
    // error unseen).
    match io::stdout().flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => written_badly(&e),
        _ => code,
    }
}

/// Standard output could not be written.
fn written_badly(e: &io::Error) -> ExitCode {
    let _ = writeln!(
        io::stderr(),
        "tool-carrier: writing to standard output: {e}"
    );
    ExitCode::from(FAILED)
}

fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Inspect { file, json, limits } => inspect::run(file, json, &limits),
        Command::Migrate(args) => migrate::run(args),
        Command::Convert(args) => convert::run(*args),
        #[cfg(feature = "gateway")]
        Command::Gateway(args) => gateway::run(*args),
        Command::Media(args) => media::run(args),
        Command::Import(args) => import::run(args),
        Command::Models(args) => models::run(args),
        Command::Fit(args) => fit::run(args),
        Command::McpProxy(args) => mcp_proxy::run(args),
    };
    match result {
        Ok(code) => code,
        // The reader went away (`| head`): nothing left to say.
        Err(Failure {
            broken_pipe: true, ..
        }) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tool-carrier: {e}");
            ExitCode::from(FAILED)
        }
    }
}

/// An error for the user: what was being done, and why it failed.
#[derive(Debug)]
pub struct Failure {
    message: String,
    broken_pipe: bool,
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            broken_pipe: false,
        }
    }
}

impl Failure {
    /// The same failure, saying `more` after it.
    fn and(mut self, more: &str) -> Failure {
        self.message = format!("{}; {more}", self.message);
        self
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Attach what was being done to an I/O error.
trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, Failure>;
}

impl<T> Context<T> for std::io::Result<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, Failure> {
        use tool_carrier::history::InputError;
        self.map_err(|e| {
            let hint = match InputError::of(&e) {
                Some(InputError::TooLong { .. } | InputError::ArrayTooLong { .. }) => {
                    " (--max-record-mb N sets the limit)"
                }
                _ => "",
            };
            Failure {
                message: format!("{}: {e}{hint}", what()),
                broken_pipe: e.kind() == std::io::ErrorKind::BrokenPipe,
            }
        })
    }
}

impl<T> Context<T> for Result<T, tool_carrier::roots::RootsError> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, Failure> {
        self.map_err(|e| Failure::new(format!("{}: {e}", what())))
    }
}
