//! The two directions of `mcp-proxy`: lines from the host to the server,
//! and lines from the server to the host, the results with images handed
//! to workers on the way.
//!
//! * Host → server ([`to_server`]): each line is noted ([`Calls::from_host`]:
//!   the ids of `tools/call`, `resources/read` and `tasks/result` requests)
//!   before it is written to the server, so its response can never arrive
//!   first, and written as it came. At the host's end of input the
//!   server's input is closed.
//! * Server → host ([`to_host`]): each line is planned
//!   ([`Calls::from_server`]); one with no image to prepare is written at
//!   once, as it came. One with images goes to a worker thread, which
//!   prepares them and writes the message piece by piece
//!   ([`Rewrite::write_to`]): the line is never copied whole, and the lines
//!   behind it are not held up (a response may overtake a result being
//!   prepared, which JSON-RPC allows). Results are prepared in the order
//!   read, within a budget of bytes ([`PREPARING`]): past it, the next
//!   result waits and the server's output is read no further until one is
//!   written, so a backlog stays in the server's pipe, not in memory.
//! * Every line goes to the host whole, under one lock ([`Host`]), so
//!   lines from the forwarding path and the workers never interleave.
//!
//! Nothing is dropped: a line that is not UTF-8 or no JSON-RPC message is
//! forwarded as it came and named on standard error; the last line may lack its line
//! feed and is forwarded so.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use tool_carrier::mcp::{Calls, FitOptions, Plan};
use tool_carrier::media::{Gate, Permit};

/// Where the host reads: one line at a time, whole.
pub struct Host {
    out: Mutex<Box<dyn Write + Send>>,
    /// Whether writing to the host failed (it went away): later lines are
    /// read and dropped, so the server is never blocked writing.
    gone: AtomicBool,
}

impl Host {
    pub fn new(out: Box<dyn Write + Send>) -> Host {
        Host {
            out: Mutex::new(out),
            gone: AtomicBool::new(false),
        }
    }

    /// Write one line with `write` and flush it, under the lock.
    fn send(&self, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) {
        if self.gone.load(Ordering::Relaxed) {
            return;
        }
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = write(&mut *out).and_then(|()| out.flush()) {
            if !self.gone.swap(true, Ordering::Relaxed) {
                log(format_args!("writing to the host failed ({e}); the server's input is closed and its output dropped"));
            }
        }
    }

    pub fn gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }
}

/// The server's input, closed when the host's input ends or the host goes
/// away.
pub type ServerIn = Mutex<Option<Box<dyn Write + Send>>>;

/// One line of standard error.
pub fn log(what: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "mcp-proxy: {what}");
}

/// Say on standard error that `from` sent a line of `len` bytes that is
/// not UTF-8 (it is forwarded all the same).
fn not_utf8(from: &str, len: usize) {
    log(format_args!(
        "{from} sent {len} bytes that are not UTF-8; forwarded as they are"
    ));
}

/// Say on standard error that `from` sent `text`, a line that is no
/// JSON-RPC message (a JSON object or batch; it is forwarded all the
/// same). A blank line says nothing.
fn not_message(from: &str, text: &str) {
    if !text.trim().is_empty() {
        log(format_args!(
            "{from} sent a line that is not a JSON-RPC message ({}); forwarded as it is",
            preview(text)
        ));
    }
}

/// The start of a line, for a message about it.
fn preview(text: &str) -> String {
    let line = text.trim_end();
    let mut end = line.len().min(80);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let cut = if end < line.len() { "…" } else { "" };
    format!("{} bytes: {:?}{cut}", text.len(), &line[..end])
}

/// Forward the host's lines from `input` to `server`, noting its requests
/// in `calls`; close the server's input at the end. Returns when the host's
/// input ends, or when it cannot be read.
pub fn to_server(mut input: impl BufRead, server: &ServerIn, calls: &Mutex<Calls>, host: &Host) {
    let mut line = Vec::with_capacity(1 << 12);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                log(format_args!(
                    "reading from the host failed ({e}); the server's input is closed"
                ));
                break;
            }
        }
        if !to_server_line(&line, server, calls) {
            break;
        }
        if host.gone() {
            server.lock().unwrap_or_else(PoisonError::into_inner).take();
            break;
        }
    }
    // The host's end of input: the server's too.
    server.lock().unwrap_or_else(PoisonError::into_inner).take();
}

/// Note one of the host's lines in `calls` and write it to `server`;
/// whether the server's input is still open (writing failed closes it).
pub fn to_server_line(line: &[u8], server: &ServerIn, calls: &Mutex<Calls>) -> bool {
    match std::str::from_utf8(line) {
        Ok(text) => {
            let mut calls = calls.lock().unwrap_or_else(PoisonError::into_inner);
            if !calls.from_host(text) {
                not_message("the host", text);
            }
        }
        Err(_) => not_utf8("the host", line.len()),
    }
    let mut server = server.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(pipe) = server.as_mut() else {
        // Closed because the host went away: nothing is read any more.
        return false;
    };
    if let Err(e) = pipe.write_all(line).and_then(|()| pipe.flush()) {
        log(format_args!(
            "writing to the server failed ({e}); the host's lines are no longer forwarded"
        ));
        *server = None;
        return false;
    }
    true
}

/// The bytes of the server's lines with images held at once, queued or
/// being prepared. Past it, two more are held: one waiting for room and
/// one read behind it (so the responses before it are not held up); the
/// rest wait unread until one is written. The images decoded from them are held within the library's
/// own budget ([`tool_carrier::media::DECODED_BUDGET`]).
pub const PREPARING: usize = 64 << 20;

/// A line of the server's holding images, and where they are.
struct Job {
    line: String,
    plan: Plan,
}

/// A [`Job`] with its room in the [`PREPARING`] budget, given back once
/// its line is written.
struct Held<'g> {
    job: Job,
    _room: Permit<'g>,
}

/// Forward the server's lines from `output` to `host` until the server's
/// output ends, with `workers` threads preparing the images of results
/// for `options`; returns once every line read has been written (or
/// dropped because the host went away).
pub fn to_host(
    output: impl BufRead,
    host: &Host,
    server_in: &ServerIn,
    calls: &Mutex<Calls>,
    options: &FitOptions,
    workers: usize,
) {
    to_host_within(output, host, server_in, calls, options, workers, PREPARING);
}

/// [`to_host`] holding at most `budget` bytes of lines with images.
pub fn to_host_within(
    mut output: impl BufRead,
    host: &Host,
    server_in: &ServerIn,
    calls: &Mutex<Calls>,
    options: &FitOptions,
    workers: usize,
    budget: usize,
) {
    let room = Gate::new(budget);
    let (jobs, queue) = mpsc::channel::<Held<'_>>();
    // Only the workers hold the queue: should the last of them end, it
    // closes, and the admitting thread prepares what comes itself.
    let queue = Arc::new(Mutex::new(queue));
    // The reader hands each job to the admitting thread, which waits for
    // room before queueing it: while it waits, the reader goes on
    // forwarding the lines that need no preparing, until it reads the
    // next job (then it waits to hand that one over).
    let (hand, waiting) = mpsc::sync_channel::<Job>(0);
    thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            let queue = queue.clone();
            scope.spawn(move || work(&queue, host, options));
        }
        drop(queue);
        let room = &room;
        scope.spawn(move || {
            for job in waiting {
                let held = Held {
                    _room: room.reserve(job.line.len()),
                    job,
                };
                if let Err(mpsc::SendError(held)) = jobs.send(held) {
                    // No worker is left: prepared here.
                    prepare(held.job, host, options);
                }
            }
        });
        let mut line = Vec::with_capacity(1 << 12);
        loop {
            line.clear();
            match output.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    log(format_args!("reading from the server failed ({e})"));
                    break;
                }
            }
            if host.gone() {
                // Nobody reads: the server is told by the end of its input.
                if let Ok(mut server) = server_in.try_lock() {
                    server.take();
                }
                continue;
            }
            let plan = match std::str::from_utf8(&line) {
                Ok(text) => {
                    let plan = calls
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .from_server(text);
                    if !plan.is_message() {
                        not_message("the server", text);
                    }
                    plan
                }
                Err(_) => {
                    not_utf8("the server", line.len());
                    Plan::default()
                }
            };
            if plan.is_empty() {
                host.send(|out| out.write_all(&line));
                continue;
            }
            let text =
                String::from_utf8(std::mem::take(&mut line)).expect("checked as UTF-8 above");
            if let Err(mpsc::SendError(job)) = hand.send(Job { line: text, plan }) {
                prepare(job, host, options);
            }
            line.reserve(1 << 12);
        }
        drop(hand);
    });
}

/// Take jobs until the queue closes.
fn work(queue: &Mutex<mpsc::Receiver<Held<'_>>>, host: &Host, options: &FitOptions) {
    loop {
        let held = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        match held {
            Ok(held) => prepare(held.job, host, options),
            Err(mpsc::RecvError) => return,
        }
    }
}

/// Prepare a job's images and write its line. Should preparing panic (a
/// decoder's bug), the line is written as it came: a message is never
/// lost.
fn prepare(job: Job, host: &Host, options: &FitOptions) {
    let prepared = panic::catch_unwind(AssertUnwindSafe(|| job.plan.prepare(&job.line, options)));
    match prepared {
        Ok(rewrite) => {
            for image in rewrite.images() {
                log(format_args!("{image}"));
            }
            host.send(|out| rewrite.write_to(out));
        }
        Err(_) => {
            log(format_args!(
                "preparing the images of a message failed unexpectedly; it is forwarded as it came"
            ));
            host.send(|out| out.write_all(job.line.as_bytes()));
        }
    }
}

/// The server's input as the relay holds it.
pub fn server_in(pipe: impl Write + Send + 'static) -> Arc<ServerIn> {
    Arc::new(Mutex::new(Some(Box::new(pipe))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use tool_carrier::facts::Facts;
    use tool_carrier::provider::Provider;

    /// The server's output, counting what the relay has read of it.
    struct Counted<'a> {
        data: &'a [u8],
        read: &'a AtomicUsize,
    }

    impl Read for Counted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            self.read.fetch_add(n, Ordering::SeqCst);
            Ok(n)
        }
    }

    /// A host that takes nothing until it is opened, then keeps all.
    struct Stalled {
        open: Option<mpsc::Receiver<()>>,
        out: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Stalled {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if let Some(open) = self.open.take() {
                let _ = open.recv();
            }
            self.out.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=";

    #[test]
    fn a_backlog_of_results_waits_in_the_server_pipe_and_none_is_lost() {
        let mut calls = Calls::new();
        let mut server = String::new();
        let padding = "x".repeat(10_000);
        for id in 1..=20 {
            assert!(calls.from_host(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"shot"}}}}"#
            )));
            server.push_str(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{padding}"}},{{"type":"image","data":"{PNG_1X1}","mimeType":"image/png"}}]}}}}"#
            ));
            server.push('\n');
        }
        let line = server.len() / 20;
        let read = AtomicUsize::new(0);
        let (open, opened) = mpsc::channel();
        let out = Arc::new(Mutex::new(Vec::new()));
        let host = Host::new(Box::new(Stalled {
            open: Some(opened),
            out: out.clone(),
        }));
        let calls = Mutex::new(calls);
        let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, None);
        let server_in = server_in(io::sink());
        thread::scope(|scope| {
            scope.spawn(|| {
                let output = BufReader::with_capacity(
                    1024,
                    Counted {
                        data: server.as_bytes(),
                        read: &read,
                    },
                );
                to_host_within(
                    output,
                    &host,
                    &server_in,
                    &calls,
                    &options,
                    1,
                    2 * line + 10,
                );
            });
            // The one worker is stuck writing the first: two lines fit in
            // the budget, one more waits for room and one more to be
            // handed over; the rest stay unread.
            std::thread::sleep(Duration::from_millis(300));
            let so_far = read.load(Ordering::SeqCst);
            assert!(
                so_far <= 4 * line + 1024,
                "{so_far} bytes read, lines of {line}"
            );
            open.send(()).unwrap();
        });
        assert_eq!(read.load(Ordering::SeqCst), server.len());
        let out = out.lock().unwrap();
        let ids: Vec<u64> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                serde_json::from_slice::<serde_json::Value>(l).unwrap()["id"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(ids, (1..=20).collect::<Vec<_>>());
    }
}
