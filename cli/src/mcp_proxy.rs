//! `tool-carrier mcp-proxy [--provider P] [--model M] [--max-dim N] [--say-scale] [--facts FILE] [--http ADDR …] -- COMMAND [ARGS…]`
//!
//! Starts the MCP server `COMMAND` and stands between it and the host
//! (with `--http`, the host speaks Streamable HTTP: [`crate::mcp_http`])
//! over the stdio transport (newline-delimited JSON-RPC,
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio>,
//! read 2026-12-02): every message passes through as it came, except the
//! results of the host's `tools/call`, `resources/read` and `tasks/result`
//! requests that hold images, whose images are prepared for the model
//! ([`tool_carrier::mcp`]). The lines themselves are the relay's
//! ([`crate::relay`]).
//!
//! * At most [`relay::PREPARING`] (64 MiB) of results with images are
//!   held, queued or being prepared: past it the server's output is read
//!   no further until one is written, so a backlog waits in the server's
//!   pipe, not in the proxy's memory.
//! * The server's standard error is the proxy's.
//! * When the server exits, the proxy writes what is left of its output
//!   and exits with the server's status (128 + N after signal N).
//! * When the host closes the proxy's input, the server's input is closed,
//!   and the proxy waits for the server to exit.
//! * SIGINT or SIGTERM end the proxy (130, 143); the server's input closes
//!   with it, which tells a server to exit.

use std::ffi::OsString;
use std::io::{self, BufReader};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;

use tool_carrier::facts::Facts;
use tool_carrier::mcp::{Calls, FitOptions};
use tool_carrier::provider::Provider;

use crate::relay::{self, Host};

use super::{Failure, FAILED};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The API whose model reads the tool results.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "anthropic",
        value_parser = crate::provider_parser(),
    )]
    provider: Provider,
    /// The model (by default the provider's default model): images are
    /// fitted to the size it processes them at, within 2000 px a side and
    /// the API's largest side (the smaller one an API asks of a request
    /// with many images: Anthropic's 2000 px).
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// Fit images within N × N instead of to the model's processing size
    /// and the 2000 px ceiling; never past the API's largest side.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..=16384))]
    max_dim: Option<u32>,
    /// Say a resized image's scale to the model in a text block after it
    /// ("scaled from 2880×1800 to 1389×868: multiply coordinates by
    /// 2.073"); it is always written under `dev.tool-carrier/scale` in the
    /// image's `_meta`.
    #[arg(long)]
    say_scale: bool,
    #[command(flatten)]
    facts: crate::facts::Arg,
    /// Serve the host MCP's Streamable HTTP transport at
    /// http://ADDR/mcp instead of stdio: each session of the 2025-11-25
    /// revision a server of its own, the stateless requests of 2026-07-28
    /// one shared server. Port 0 takes a free port; the address taken is
    /// printed first.
    #[cfg(feature = "mcp-http")]
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// With --http: serve on an address other hosts can reach (anyone
    /// reaching it runs the server's tools).
    #[cfg(feature = "mcp-http")]
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// With --http: at most N sessions (and their servers) at once; an
    /// `initialize` past it is answered 503.
    #[cfg(feature = "mcp-http")]
    #[arg(long, value_name = "N", default_value_t = 16, requires = "http", value_parser = clap::value_parser!(u32).range(1..=1024))]
    max_sessions: u32,
    /// With --http: on SIGTERM or SIGINT, let the requests in flight
    /// finish for up to S seconds (a second signal ends at once).
    #[cfg(feature = "mcp-http")]
    #[arg(long, value_name = "S", default_value_t = 30, requires = "http")]
    drain_secs: u64,
    /// The MCP server to start, and its arguments (after `--`). Options
    /// before it are the proxy's: one it does not have is an error (a
    /// misspelled `--modle` is not taken for the server's command).
    #[arg(
        value_name = "COMMAND",
        required = true,
        num_args = 1..,
        trailing_var_arg = true
    )]
    command: Vec<OsString>,
}

/// Lines from the server are prepared by at most this many threads at once.
const MAX_WORKERS: usize = 4;

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let user_facts = args.facts.load()?;
    let facts = user_facts.as_deref().unwrap_or_else(|| Facts::builtin());
    let mut options = FitOptions::new(facts, args.provider, args.model.as_deref());
    if let Some(n) = args.max_dim {
        options = options.with_max_dim(n);
    }
    options = options.with_say_scale(args.say_scale);
    crate::facts::warn_model(facts, args.provider, options.model());
    #[cfg(feature = "mcp-http")]
    if let Some(listen) = args.http {
        let settings = crate::mcp_http::Settings {
            listen,
            allow_remote: args.allow_remote,
            max_sessions: args.max_sessions as usize,
            drain: std::time::Duration::from_secs(args.drain_secs),
        };
        return crate::mcp_http::run(settings, args.command, options);
    }
    let (program, rest) = args.command.split_first().expect("clap requires a command");
    let shown = program.to_string_lossy();
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Failure::new(format!("mcp-proxy: cannot start the server {shown:?}: {e}")))?;
    let pipe_in = child.stdin.take().expect("piped");
    let pipe_out = child.stdout.take().expect("piped");
    let server_in = relay::server_in(pipe_in);
    let calls = Mutex::new(Calls::new());
    let host = Host::new(Box::new(io::stdout()));
    let workers = thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS));
    // The host's side runs on a thread of its own that is not joined: once
    // the server is done, a host that keeps its end open must not keep the
    // proxy alive. So it owns what it uses.
    let calls = Arc::new(calls);
    let host = Arc::new(host);
    {
        let (server, calls, host) = (server_in.clone(), calls.clone(), host.clone());
        thread::Builder::new()
            .name("host-to-server".into())
            .spawn(move || {
                let stdin = io::stdin();
                relay::to_server(
                    BufReader::with_capacity(1 << 16, stdin.lock()),
                    &server,
                    &calls,
                    &host,
                );
            })
            .map_err(|e| Failure::new(format!("mcp-proxy: cannot start a thread: {e}")))?;
    }
    relay::to_host(
        BufReader::with_capacity(1 << 16, pipe_out),
        &host,
        &server_in,
        &calls,
        &options,
        workers,
    );
    let status = child
        .wait()
        .map_err(|e| Failure::new(format!("mcp-proxy: waiting for the server {shown:?}: {e}")))?;
    Ok(exit_code(status))
}

/// The server's status as the proxy's: its code, or 128 + N after signal
/// N (as a shell says it); a status that says neither is a failure.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from(u8::try_from(code & 0xff).unwrap_or(FAILED));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitCode::from(u8::try_from(128 + (signal & 0x7f)).unwrap_or(FAILED));
        }
    }
    ExitCode::from(FAILED)
}
