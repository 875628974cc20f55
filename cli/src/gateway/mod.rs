//! `tool-carrier gateway --listen ADDR --api API [--upstream URL]
//! [--upstream-ca FILE] [--allow-remote] [--keep-images N [--evict-step K]]
//! [--max-body-mb MB] [--max-buffered-mb MB] [--jobs N]
//! [--max-connections N] [--drain-secs S] [--facts F]`
//!
//! An HTTP/1.1 server an agent points its base URL at. A conversation's
//! body is fitted and checked by the library's [`Gateway`]; every other
//! request, and every response, passes through as it came.

mod body;
mod forward;
mod pool;
pub(crate) mod upstream;

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tool_carrier::gateway::Gateway;
use tool_carrier::provider::{Options, Provider};

use super::Failure;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The address to serve on: a loopback one (127.0.0.1:PORT,
    /// [::1]:PORT) unless --allow-remote. Port 0 takes a free port; the
    /// address taken is printed first.
    #[arg(long, value_name = "ADDR")]
    listen: SocketAddr,
    /// The API the agent speaks.
    #[arg(long, value_parser = api_parser())]
    api: Provider,
    /// Where requests go (scheme, host, port and an optional path
    /// prefix); the API's own service by default.
    #[arg(long, value_name = "URL")]
    upstream: Option<String>,
    /// Trust the certificates in FILE (PEM) for an https upstream, besides
    /// the platform's roots.
    #[arg(long, value_name = "FILE")]
    upstream_ca: Option<PathBuf>,
    /// Serve on an address other hosts can reach. The gateway forwards
    /// what its clients send, credentials included, to the upstream: on a
    /// shared network anyone reaching it spends your key.
    #[arg(long)]
    allow_remote: bool,
    #[command(flatten)]
    keep: crate::keep::Keep,
    /// Refuse a conversation's body over MB megabytes (413), before
    /// reading it when its length is given.
    #[arg(long, value_name = "MB", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_body_mb: u64,
    /// Hold at most MB megabytes for conversations' bodies at once (each
    /// counts four times its length: as received, as fitted, and the
    /// fit's working copies); a body that would pass it waits, unread, for
    /// others to be forwarded.
    #[arg(long, value_name = "MB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_buffered_mb: u64,
    /// Fit at most N bodies at once (one per core by default).
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// Serve at most N connections at once; more wait to be accepted.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// On SIGTERM or SIGINT, stop accepting and let the requests in
    /// flight finish for up to S seconds (a second signal ends at once).
    #[arg(long, value_name = "S", default_value_t = 30)]
    drain_secs: u64,
    #[command(flatten)]
    facts: crate::facts::Arg,
}

fn api_parser() -> impl clap::builder::TypedValueParser<Value = Provider> {
    use clap::builder::TypedValueParser;
    let names: Vec<&'static str> = tool_carrier::gateway::apis().map(Provider::name).collect();
    clap::builder::PossibleValuesParser::new(names)
        .map(|name| name.parse::<Provider>().expect("a listed provider name"))
}

/// What every connection shares.
struct State {
    gateway: Gateway,
    upstream: upstream::Upstream,
    /// The threads that fit bodies.
    pool: pool::Pool,
    /// Buffered bodies, in KiB ([`Args::max_buffered_mb`]).
    buffered: Arc<tokio::sync::Semaphore>,
    max_body: u64,
}

const MB: u64 = 1 << 20;

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    crate::http::loopback_unless(
        args.listen,
        args.allow_remote,
        "the gateway forwards its clients' credentials",
    )
    .map_err(|e| Failure::new(format!("--listen {e}")))?;
    if args.max_body_mb * 4 > args.max_buffered_mb {
        return Err(Failure::new(format!(
            "--max-body-mb {} needs --max-buffered-mb of at least {}: a body counts four times its length (as received, as fitted, the fit's working copies)",
            args.max_body_mb,
            args.max_body_mb * 4
        )));
    }
    let mut options = Options::new();
    if let Some(facts) = args.facts.load()? {
        options = options.with_facts(facts);
    }
    let options = args.keep.apply(options)?;
    let gateway = Gateway::new(args.api, options).map_err(|e| Failure::new(e.to_string()))?;
    let base = args.upstream.as_deref().unwrap_or(gateway.upstream());
    let upstream = upstream::Upstream::new(base, args.upstream_ca.as_deref())?;
    let jobs = args
        .jobs
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get);
    let kib = usize::try_from(args.max_buffered_mb * 1024).unwrap_or(usize::MAX);
    let state = Arc::new(State {
        gateway,
        upstream,
        pool: pool::Pool::new(jobs)
            .map_err(|e| Failure::new(format!("starting the fit threads: {e}")))?,
        buffered: Arc::new(tokio::sync::Semaphore::new(kib)),
        max_body: args.max_body_mb * MB,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("gateway")
        .build()
        .map_err(|e| Failure::new(format!("starting the gateway's runtime: {e}")))?;
    let limits = crate::http::serve::Limits {
        connections: args.max_connections as usize,
        drain: std::time::Duration::from_secs(args.drain_secs),
    };
    let (api, upstream) = (state.gateway.api(), state.upstream.base().to_owned());
    let handle = move |request| forward::handle(Arc::clone(&state), request);
    runtime.block_on(crate::http::serve::serve(
        args.listen,
        "tool-carrier gateway",
        handle,
        limits,
        |bound| {
            eprintln!(
                "tool-carrier gateway: {api} requests to http://{bound} go to {upstream}; conversations are fitted"
            );
        },
        || {},
    ))
}
