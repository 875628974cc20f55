//! `tool-carrier mcp-proxy --http ADDR -- COMMAND…`: the host speaks MCP's
//! Streamable HTTP transport to the proxy, the proxy stdio to the server
//! (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http>,
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>,
//! read 2026-12-05). One endpoint, `/mcp`:
//!
//! * **2025-11-25 and earlier, sessions.** An `initialize` POSTed without
//!   an `Mcp-Session-Id` starts a server of its own and answers with a new
//!   session id; the session's messages go to that server. GET opens the
//!   session's stream for the server's own requests and notifications;
//!   DELETE ends the session (its server's input closes). A request whose
//!   session is gone is answered 404.
//! * **2026-07-28, stateless.** A POST with `MCP-Protocol-Version:
//!   2026-07-28` (or later) and no session of ours goes to one server
//!   shared by all such requests. Its mirrored headers are checked against
//!   the body (`Mcp-Method`, `Mcp-Name`, the version: 400 `HeaderMismatch`
//!   otherwise); a request whose id another in flight holds is refused
//!   (409), since both would reach the same server. Closing a response's
//!   stream cancels its request (the server is sent
//!   `notifications/cancelled`).
//!
//! A request is answered with an SSE stream when the client's `Accept`
//! takes one (the server's notifications about it, then its response),
//! else with the response as JSON. Where each of the server's lines goes
//! is [`route`]'s; the images in results are prepared as over stdio.
//!
//! Loopback only unless `--allow-remote`; a page's `Origin` must be this
//! host's own (403 otherwise). SIGTERM or SIGINT stop accepting, end the
//! sessions' streams, let requests in flight finish (`--drain-secs`),
//! then close every server's input and wait for it.

mod channel;
mod handle;
mod route;

use std::collections::HashMap;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hyper::StatusCode;
use tool_carrier::mcp::FitOptions;

use self::channel::{Channel, Kind};
use crate::Failure;

/// The MCP endpoint's path.
pub const PATH: &str = "/mcp";

/// The most bytes of the hosts' messages held at once, read and not yet
/// written to their server: four of the largest ([`handle::MAX_MESSAGE`]).
pub const BODIES_HELD: usize = 4 * handle::MAX_MESSAGE;

/// How long a server whose input closed may take to exit.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// What the command line gives.
pub struct Settings {
    pub listen: SocketAddr,
    pub allow_remote: bool,
    pub max_sessions: usize,
    pub drain: Duration,
}

/// What every request shares.
pub struct State {
    command: Vec<OsString>,
    options: FitOptions,
    max_sessions: usize,
    /// Bodies being read and written to a server, in KiB
    /// ([`BODIES_HELD`]).
    pub(crate) bodies: Arc<tokio::sync::Semaphore>,
    sessions: Mutex<HashMap<String, Arc<Channel>>>,
    shared: Mutex<Option<Arc<Channel>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    /// The live session `id`'s server.
    fn session(&self, id: &str) -> Option<Arc<Channel>> {
        let mut sessions = lock(&self.sessions);
        let channel = sessions.get(id)?.clone();
        if channel.alive() {
            return Some(channel);
        }
        sessions.remove(id);
        channel.reap();
        None
    }

    /// Begin a session: its id and its server.
    fn begin(&self) -> Result<(String, Arc<Channel>), (StatusCode, String)> {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|_, c| {
            c.reap();
            c.alive()
        });
        if sessions.len() >= self.max_sessions {
            // A client that went away without DELETE leaves its session
            // open: the one idle longest (nothing awaited, no stream open)
            // makes room.
            let idle = sessions
                .iter()
                .filter(|(_, c)| c.router.idle())
                .min_by_key(|(_, c)| c.last_used())
                .map(|(id, _)| id.clone());
            let Some(idle) = idle else {
                return Err((
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!(
                        "{} sessions are open and busy (--max-sessions): end one with DELETE first",
                        sessions.len()
                    ),
                ));
            };
            let old = sessions.remove(&idle).expect("listed");
            crate::relay::log(format_args!(
                "session {idle} idle for {} s ended to make room for a new one (--max-sessions {})",
                old.last_used().elapsed().as_secs(),
                self.max_sessions
            ));
            std::thread::spawn(move || old.stop(STOP_GRACE));
        }
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| {
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("no random session id: {e}"),
            )
        })?;
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let channel = Channel::start(&self.command, &self.options, Kind::Session)
            .map_err(|why| (StatusCode::BAD_GATEWAY, why))?;
        sessions.insert(id.clone(), channel.clone());
        Ok((id, channel))
    }

    /// End session `id`: its server, if it was one.
    fn end(&self, id: &str) -> Option<Arc<Channel>> {
        lock(&self.sessions).remove(id)
    }

    /// The server the stateless requests share, started when the first
    /// comes (again, should it have exited).
    fn shared(&self) -> Result<Arc<Channel>, String> {
        let mut shared = lock(&self.shared);
        if let Some(channel) = shared.as_ref().filter(|c| c.alive()) {
            return Ok(channel.clone());
        }
        if let Some(old) = shared.take() {
            old.reap();
            crate::relay::log(format_args!(
                "the shared server's output ended; a new one is started"
            ));
        }
        let channel = Channel::start(&self.command, &self.options, Kind::Shared)?;
        *shared = Some(channel.clone());
        Ok(channel)
    }

    /// Every server there is.
    fn channels(&self) -> Vec<Arc<Channel>> {
        let mut all: Vec<_> = lock(&self.sessions).values().cloned().collect();
        all.extend(lock(&self.shared).clone());
        all
    }
}

pub fn run(
    settings: Settings,
    command: Vec<OsString>,
    options: FitOptions,
) -> Result<ExitCode, Failure> {
    crate::http::loopback_unless(
        settings.listen,
        settings.allow_remote,
        "the proxy runs the server's tools for whoever reaches it",
    )
    .map_err(|e| Failure::new(format!("mcp-proxy: --http {e}")))?;
    let state = Arc::new(State {
        command,
        options,
        max_sessions: settings.max_sessions,
        bodies: Arc::new(tokio::sync::Semaphore::new(BODIES_HELD >> 10)),
        sessions: Mutex::new(HashMap::new()),
        shared: Mutex::new(None),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("mcp-http")
        .build()
        .map_err(|e| Failure::new(format!("mcp-proxy: starting the runtime: {e}")))?;
    let limits = crate::http::serve::Limits {
        connections: 256,
        drain: settings.drain,
    };
    let serving = Arc::clone(&state);
    let stopping = Arc::clone(&state);
    let handle = move |request| handle::handle(Arc::clone(&serving), request);
    let shown = state
        .command
        .iter()
        .map(|a| a.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let served = runtime.block_on(crate::http::serve::serve(
        settings.listen,
        "mcp-proxy",
        handle,
        limits,
        |bound| {
            eprintln!(
                "mcp-proxy: MCP over HTTP at http://{bound}{PATH}, each session a server: {shown}"
            );
        },
        move || {
            for channel in stopping.channels() {
                channel.router.end_listening();
            }
        },
    ));
    // Requests are done (or cut off): every server's input closes.
    let channels = state.channels();
    std::thread::scope(|scope| {
        for channel in &channels {
            scope.spawn(|| channel.stop(STOP_GRACE));
        }
    });
    drop(runtime);
    served
}
