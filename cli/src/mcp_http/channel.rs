//! One server process behind the HTTP side: [`Channel`].
//!
//! A session of the 2025-11-25 revision has a server of its own, started
//! by its `initialize`, as a stdio host would start one; the requests of
//! the 2026-07-28 revision, which carry everything in themselves, share
//! one. Either way the server's lines go through the stdio relay
//! ([`crate::relay`]: images prepared by its workers, within its budget)
//! to the [`Router`], which hands each to the HTTP response it belongs to.

use std::ffi::OsString;
use std::io::{self, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use hyper::body::Bytes;
use tool_carrier::mcp::{Calls, FitOptions};

use super::route::{Key, Router};
use crate::relay::{self, log, Host, ServerIn};

/// Whose server it is: what a closed response means to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A 2025-11-25 session's: a closed stream is no cancellation (its
    /// response goes to another stream).
    Session,
    /// The 2026-07-28 requests': closing a response's stream cancels the
    /// request, which the server is told with `notifications/cancelled`.
    Shared,
}

pub struct Channel {
    kind: Kind,
    pub router: Arc<Router>,
    server_in: Arc<ServerIn>,
    calls: Arc<Mutex<Calls>>,
    child: Mutex<Child>,
    /// The server's output has ended.
    ended: Arc<AtomicBool>,
    /// When the host last sent it a message.
    used: Mutex<Instant>,
    /// Whether its exit has been said.
    said: AtomicBool,
}

/// The server's lines, each handed whole to the router on the relay's
/// flush.
struct ToRouter {
    router: Arc<Router>,
    line: Vec<u8>,
}

impl Write for ToRouter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.line.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut line = std::mem::take(&mut self.line);
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if !line.is_empty() {
            self.router.route(Bytes::from(line));
        }
        Ok(())
    }
}

/// Lines from the server are prepared by at most this many threads per
/// server.
const MAX_WORKERS: usize = 2;

impl Channel {
    /// Start `command` and relay its output.
    pub fn start(
        command: &[OsString],
        options: &FitOptions,
        kind: Kind,
    ) -> Result<Arc<Channel>, String> {
        let (program, rest) = command.split_first().expect("clap requires a command");
        let mut child = Command::new(program)
            .args(rest)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the server {:?}: {e}", program))?;
        let pipe_in = child.stdin.take().expect("piped");
        let pipe_out = child.stdout.take().expect("piped");
        let router = Arc::new(Router::default());
        let channel = Arc::new(Channel {
            kind,
            router: router.clone(),
            server_in: relay::server_in(pipe_in),
            calls: Arc::new(Mutex::new(Calls::new())),
            child: Mutex::new(child),
            ended: Arc::new(AtomicBool::new(false)),
            used: Mutex::new(Instant::now()),
            said: AtomicBool::new(false),
        });
        let (server_in, calls, ended) = (
            channel.server_in.clone(),
            channel.calls.clone(),
            channel.ended.clone(),
        );
        let options = options.clone();
        let workers = thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS));
        thread::Builder::new()
            .name("server-to-host".into())
            .spawn(move || {
                let host = Host::new(Box::new(ToRouter {
                    router: router.clone(),
                    line: Vec::new(),
                }));
                relay::to_host(
                    BufReader::with_capacity(1 << 16, pipe_out),
                    &host,
                    &server_in,
                    &calls,
                    &options,
                    workers,
                );
                ended.store(true, Ordering::SeqCst);
                let left = router.end();
                if left > 0 {
                    log(format_args!(
                        "the server's output ended with {left} requests unanswered"
                    ));
                }
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        Ok(channel)
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Whether the server's output is still read.
    pub fn alive(&self) -> bool {
        !self.ended.load(Ordering::SeqCst)
    }

    /// Write one of the host's messages (one line, its line feed
    /// included) to the server; whether its input is still open.
    pub fn send(&self, line: &[u8]) -> bool {
        *self.used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        relay::to_server_line(line, &self.server_in, &self.calls)
    }

    /// When the host last sent it a message.
    pub fn last_used(&self) -> Instant {
        *self.used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The client of request `id` (written `raw`) closed its response's
    /// stream before it came: the shared server is told the request is
    /// cancelled (2026-07-28: closing the stream is the cancellation).
    pub fn abandoned(&self, id: &Key, raw: &str) {
        if self.router.forget(id) && self.kind == Kind::Shared {
            let mut cancel = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{raw},"reason":"the client closed the response stream"}}}}"#
            );
            cancel.push('\n');
            self.send(cancel.as_bytes());
        }
    }

    /// Close the server's input, wait up to `grace` for it to exit, then
    /// kill it; its status, said on standard error.
    pub fn stop(&self, grace: Duration) {
        self.server_in
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let until = Instant::now() + grace;
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    self.exited(status);
                    return;
                }
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(20)),
                Ok(None) => {
                    log(format_args!(
                        "the server did not exit {} s after its input closed: killed",
                        grace.as_secs()
                    ));
                    let _ = child.kill();
                    let _ = child.wait();
                    return;
                }
                Err(e) => {
                    log(format_args!("waiting for the server: {e}"));
                    return;
                }
            }
        }
    }

    /// Reap the server if it has exited (so no zombie stays).
    pub fn reap(&self) {
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        if let Ok(Some(status)) = child.try_wait() {
            self.exited(status);
        }
    }

    /// Say, once, how the server ended, unless with success.
    fn exited(&self, status: std::process::ExitStatus) {
        if !status.success() && !self.said.swap(true, Ordering::SeqCst) {
            log(format_args!("the server ended: {status}"));
        }
    }
}
