//! `tool-carrier mcp-proxy --http`: the built binary serving MCP's
//! Streamable HTTP transport in front of the small stdio server
//! (`tests/mcp/fake_server.py`), driven over plain HTTP/1.1 as a host
//! would: sessions (2025-11-25), stateless requests (2026-07-28), where
//! each of the server's lines arrives, what is refused and how, and the
//! stop.
#![cfg(feature = "mcp-http")]

#[path = "../../tests/media_support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};
use support::*;
use tool_carrier::mcp::SCALE_META;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
const WAIT: Duration = Duration::from_secs(60);

/// The proxy serving on a free port, the fake server's folder beside it.
struct Proxy {
    child: Child,
    addr: String,
    dir: tempfile::TempDir,
}

impl Proxy {
    fn start(args: &[&str], files: &[(&str, &[u8])]) -> Proxy {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/fake_server.py");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .args(["mcp-proxy", "--http", "127.0.0.1:0"])
            .args(args)
            .arg("--")
            .arg("python3")
            .arg(&server)
            .arg(dir.path())
            .arg("0")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let addr = first
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("first line: {first:?}"))
            .to_owned();
        Proxy { child, addr, dir }
    }

    /// Send one request and read its head.
    fn send(&self, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nhost: {}\r\nconnection: close\r\ncontent-length: {}\r\n",
            self.addr,
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        Answer::read(stream)
    }

    /// POST a message with the headers a client sends.
    fn post(&self, extra: &[(&str, &str)], message: &Value) -> Answer {
        let mut headers = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
        self.send("POST", &headers, message.to_string().as_bytes())
    }

    /// Begin a session: its id.
    fn initialize(&self) -> String {
        let mut answer = self.post(
            &[("mcp-protocol-version", "2025-11-25")],
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        );
        assert_eq!(answer.status, 200);
        let id = answer
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned();
        assert_eq!(answer.json()["result"]["serverInfo"]["name"], "fake");
        id
    }

    /// What the servers read, line by line.
    fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("received"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Wait for `what` to hold, up to a while.
    fn until(&self, what: impl Fn(&Proxy) -> bool) -> bool {
        let start = Instant::now();
        while start.elapsed() < WAIT {
            if what(self) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    fn stop(&mut self) -> std::process::ExitStatus {
        signal(self.child.id(), "TERM");
        self.child.wait().unwrap()
    }
}

impl Drop for Proxy {
    /// Stopped as a user stops it, so its servers are done with the
    /// folder before it is removed.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal(self.child.id(), "TERM");
            let _ = self.child.wait();
        }
    }
}

fn signal(pid: u32, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// An answer: its status and headers, its body read as asked.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Box<dyn BufRead>,
}

impl Answer {
    fn read(stream: TcpStream) -> Answer {
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            line.clear();
            reader.read_line(&mut line).unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (n, v) = l.split_once(':').unwrap();
            headers.push((n.to_ascii_lowercase(), v.trim().to_owned()));
        }
        let chunked = headers
            .iter()
            .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
        let body: Box<dyn BufRead> = if chunked {
            Box::new(BufReader::new(Chunked {
                inner: reader,
                left: 0,
                done: false,
            }))
        } else {
            Box::new(reader)
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn bytes(&mut self) -> Vec<u8> {
        let mut all = Vec::new();
        self.body.read_to_end(&mut all).unwrap();
        all
    }

    fn json(&mut self) -> Value {
        let bytes = self.bytes();
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)))
    }

    /// The next SSE event's data, as sent; `None` at the end.
    fn event(&mut self) -> Option<String> {
        let mut data = None;
        let mut line = String::new();
        loop {
            line.clear();
            if self.body.read_line(&mut line).unwrap() == 0 {
                return data;
            }
            let l = line.trim_end_matches('\n');
            if l.is_empty() {
                if data.is_some() {
                    return data;
                }
                continue;
            }
            if let Some(d) = l.strip_prefix("data: ") {
                data = Some(d.to_owned());
            }
        }
    }
}

/// A chunked body, decoded.
struct Chunked<R> {
    inner: R,
    left: usize,
    done: bool,
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.done {
            return Ok(0);
        }
        if self.left == 0 {
            let mut size = String::new();
            self.inner.read_line(&mut size)?;
            self.left = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if self.left == 0 {
                self.done = true;
                return Ok(0);
            }
        }
        let most = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..most])?;
        self.left -= n;
        if self.left == 0 {
            let mut crlf = [0u8; 2];
            self.inner.read_exact(&mut crlf)?;
        }
        Ok(n)
    }
}

fn call(id: u32, name: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":{}}})
}

/// The headers a 2026-07-28 request mirrors its body in.
fn stateless(method: &'static str, name: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name),
    ]
}

fn screenshot_result() -> Vec<u8> {
    let png = B64.encode(png_rgb(&screenshot(2880, 1800, 1)));
    json!({"content":[{"type":"image","data":png,"mimeType":"image/png"}]})
        .to_string()
        .into_bytes()
}

#[test]
fn a_session_begins_with_initialize_its_images_are_fitted_and_delete_ends_it() {
    let proxy = Proxy::start(&[], &[("shot.json", &screenshot_result())]);
    let session = proxy.initialize();
    assert!(session.len() == 32 && session.bytes().all(|b| b.is_ascii_hexdigit()));
    let s = [("mcp-session-id", session.as_str())];
    let mut note = proxy.post(
        &s,
        &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    assert_eq!((note.status, note.bytes()), (202, Vec::new()));
    let mut shot = proxy.post(&s, &call(1, "shot"));
    assert_eq!(shot.status, 200);
    assert_eq!(shot.header("content-type"), Some("application/json"));
    let result = shot.json();
    let image = &result["result"]["content"][0];
    let sent =
        image::load_from_memory(&B64.decode(image["data"].as_str().unwrap()).unwrap()).unwrap();
    assert!(sent.width() < 2880, "fitted: {}", sent.width());
    let scale = &image["_meta"][SCALE_META];
    assert_eq!(scale["original"], json!({"width": 2880, "height": 1800}));
    assert_eq!(scale["sent"]["width"], sent.width());
    // Another session's id, or none, is no session.
    let mut stranger = proxy.post(&[("mcp-session-id", "feed")], &call(2, "shot"));
    assert_eq!(stranger.status, 404);
    assert_eq!(stranger.json()["error"]["code"], -32600);
    let mut none = proxy.post(&[("mcp-protocol-version", "2025-11-25")], &call(3, "shot"));
    assert_eq!(none.status, 400);
    assert!(none.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("initialize"));
    let mut end = proxy.send("DELETE", &s, b"");
    assert_eq!((end.status, end.bytes()), (204, Vec::new()));
    assert!(
        proxy.dir.path().join("exited").exists(),
        "the server's input closed"
    );
    assert_eq!(proxy.post(&s, &call(4, "shot")).status, 404);
    let methods: Vec<_> = proxy
        .received()
        .iter()
        .map(|m| m["method"].clone())
        .collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/call"]
    );
}

#[test]
fn past_max_sessions_the_one_idle_longest_makes_room_and_busy_ones_do_not() {
    let proxy = Proxy::start(&["--max-sessions", "1"], &[]);
    let first = proxy.initialize();
    let second = proxy.initialize();
    assert_ne!(first, second);
    assert!(
        proxy.until(|p| p.dir.path().join("exited").exists()),
        "the idle session's server was stopped"
    );
    let gone = proxy.post(&[("mcp-session-id", first.as_str())], &call(1, "x"));
    assert_eq!(gone.status, 404);
    // A session with its stream open is busy: no room is made.
    let s = [
        ("mcp-session-id", second.as_str()),
        ("accept", "text/event-stream"),
    ];
    let stream = proxy.send("GET", &s, b"");
    assert_eq!(stream.status, 200);
    let mut refused = proxy.post(
        &[("mcp-protocol-version", "2025-11-25")],
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}),
    );
    assert_eq!(refused.status, 503);
    assert!(refused.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("--max-sessions"));
}

#[test]
fn the_servers_own_messages_go_to_the_sessions_stream() {
    let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}"#;
    let raw =
        format!("{log}\n{{\"jsonrpc\":\"2.0\",\"id\":__ID__,\"result\":{{\"content\":[]}}}}\n");
    let proxy = Proxy::start(&[], &[("chatty.raw", raw.as_bytes())]);
    let session = proxy.initialize();
    let s = [
        ("mcp-session-id", session.as_str()),
        ("accept", "text/event-stream"),
    ];
    let mut stream = proxy.send("GET", &s, b"");
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        proxy.send("GET", &s, b"").status,
        409,
        "one stream a session"
    );
    let mut answer = proxy.post(&s[..1], &call(5, "chatty"));
    assert_eq!(
        answer.bytes(),
        br#"{"jsonrpc":"2.0","id":5,"result":{"content":[]}}"#
    );
    assert_eq!(
        stream.event().as_deref(),
        Some(log),
        "as the server wrote it"
    );
}

#[test]
fn progress_comes_on_its_requests_stream_before_the_response() {
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":__TOKEN__,"progress":1,"total":2}}"#;
    let done =
        r#"{"jsonrpc":"2.0","id":__ID__,"result":{"content":[{"type":"text","text":"done"}]}}"#;
    let raw = format!("{progress}\n{done}\n");
    let proxy = Proxy::start(&[], &[("slow.raw", raw.as_bytes())]);
    let message = json!({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}});
    let mut answer = proxy.post(&stateless("tools/call", "slow"), &message);
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        answer.header("mcp-session-id"),
        None,
        "no session in 2026-07-28"
    );
    assert_eq!(
        answer.event().as_deref(),
        Some(progress.replace("__TOKEN__", r#""p-1""#).as_str())
    );
    assert_eq!(
        answer.event().as_deref(),
        Some(done.replace("__ID__", r#""a""#).as_str())
    );
    assert_eq!(answer.event(), None, "the stream ends with the response");
}

#[test]
fn stateless_requests_must_mirror_their_body_in_their_headers() {
    let proxy = Proxy::start(&[], &[("shot.json", &screenshot_result())]);
    for headers in [
        vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
        ],
        stateless("tools/list", "shot"),
        stateless("tools/call", "other"),
    ] {
        let mut answer = proxy.post(&headers, &call(9, "shot"));
        assert_eq!(answer.status, 400, "{headers:?}");
        let error = answer.json();
        assert_eq!(error["error"]["code"], -32020, "{error}");
        assert_eq!(error["id"], 9);
    }
    let encoded = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "=?base64?c2hvdA==?="),
    ];
    assert_eq!(proxy.post(&encoded, &call(10, "shot")).status, 200);
    let ids: Vec<_> = proxy.received().iter().map(|m| m["id"].clone()).collect();
    assert_eq!(ids, [json!(10)], "nothing refused reached the server");
}

#[test]
fn an_id_in_flight_is_refused_and_a_closed_stream_cancels_its_request() {
    let proxy = Proxy::start(&[], &[]);
    let headers = stateless("tools/call", "hold");
    let held = {
        let mut stream = TcpStream::connect(&proxy.addr).unwrap();
        let body = call(7, "hold").to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
            body.len()
        );
        for (n, v) in &headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        stream
            .write_all(format!("{head}\r\n{body}").as_bytes())
            .unwrap();
        stream
    };
    assert!(proxy.until(|p| !p.received().is_empty()));
    let mut again = proxy.post(&headers, &call(7, "hold"));
    assert_eq!(again.status, 409);
    assert_eq!(again.json()["id"], 7);
    drop(held);
    assert!(
        proxy.until(|p| p.received().len() == 2),
        "{:?}",
        proxy.received()
    );
    let cancel = &proxy.received()[1];
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], 7);
    // The id is free again.
    let ping = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "ping"),
    ];
    let mut pong = proxy.post(&ping, &json!({"jsonrpc":"2.0","id":7,"method":"ping"}));
    assert_eq!(pong.json(), json!({"jsonrpc":"2.0","id":7,"result":{}}));
}

#[test]
fn what_is_no_mcp_message_is_refused_and_nothing_reaches_the_server() {
    let proxy = Proxy::start(&[], &[]);
    let json = [
        ("content-type", "application/json"),
        ("accept", "application/json"),
    ];
    let mut batch = proxy.send(
        "POST",
        &json,
        b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
    );
    assert_eq!(
        (batch.status, batch.json()["error"]["code"].clone()),
        (400, json!(-32600))
    );
    let mut garbage = proxy.send("POST", &json, b"\x00\xffnot json");
    assert_eq!(
        (garbage.status, garbage.json()["error"]["code"].clone()),
        (400, json!(-32700))
    );
    let text = [
        ("content-type", "text/plain"),
        ("accept", "application/json"),
    ];
    assert_eq!(proxy.send("POST", &text, b"{}").status, 415);
    let html = [
        ("content-type", "application/json"),
        ("accept", "text/html"),
    ];
    assert_eq!(proxy.send("POST", &html, b"{}").status, 406);
    let get = proxy.send("GET", &[("accept", "text/event-stream")], b"");
    assert_eq!((get.status, get.header("allow")), (405, Some("POST")));
    assert_eq!(proxy.send("PUT", &json, b"{}").status, 405);
    let mut elsewhere = TcpStream::connect(&proxy.addr).unwrap();
    elsewhere
        .write_all(b"GET /other HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .unwrap();
    assert_eq!(Answer::read(elsewhere).status, 404);
    let evil = [
        ("content-type", "application/json"),
        ("accept", "application/json"),
        ("origin", "http://evil.example"),
    ];
    assert_eq!(proxy.send("POST", &evil, b"{}").status, 403);
    let big = vec![b' '; (64 << 20) + 1];
    assert_eq!(proxy.send("POST", &json, &big).status, 413);
    // A length declared past it is refused before a byte is held: what
    // comes is read and dropped until the client stops sending.
    let mut promised = TcpStream::connect(&proxy.addr).unwrap();
    promised
        .write_all(b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 999999999999\r\n\r\n{}")
        .unwrap();
    promised.shutdown(std::net::Shutdown::Write).unwrap();
    assert_eq!(Answer::read(promised).status, 413);
    assert!(proxy.received().is_empty());
    // A page of this host's own is served; line breaks between tokens
    // become spaces, so the server reads one line.
    let local = [
        ("content-type", "application/json"),
        ("accept", "application/json"),
        ("origin", "http://localhost:5173"),
    ];
    let pretty = b"{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 1,\n  \"method\": \"initialize\"\n}";
    let mut begun = proxy.send("POST", &local, pretty);
    assert_eq!(begun.status, 200);
    begun.bytes();
    let line = std::fs::read(proxy.dir.path().join("received")).unwrap();
    assert_eq!(
        line,
        b"{   \"jsonrpc\": \"2.0\",    \"id\": 1,   \"method\": \"initialize\" }\n"
    );
}

#[test]
fn sigterm_closes_every_servers_input_and_exits_0() {
    let mut proxy = Proxy::start(&["--drain-secs", "5"], &[]);
    proxy.initialize();
    let mut answer = proxy.post(
        &stateless("tools/call", "missing-file"),
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    );
    assert_eq!(
        answer.status, 400,
        "ping names nothing, but Mcp-Method differs"
    );
    answer.bytes();
    let ping = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "ping"),
    ];
    let mut pong = proxy.post(&ping, &json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    assert_eq!(pong.json()["result"], json!({}));
    assert_eq!(proxy.stop().code(), Some(0));
    let exited = std::fs::read_to_string(proxy.dir.path().join("exited")).unwrap();
    assert_eq!(
        exited, "yesyes",
        "both servers (the session's, the shared) exited"
    );
}

#[test]
fn options_that_do_not_go_together_are_refused() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .args(args)
            .output()
            .unwrap()
    };
    let remote = run(&["mcp-proxy", "--http", "0.0.0.0:0", "--", "true"]);
    assert_eq!(remote.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&remote.stderr).contains("--allow-remote"));
    let stray = run(&["mcp-proxy", "--allow-remote", "--", "true"]);
    assert_eq!(stray.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&stray.stderr).contains("--http"));
}
