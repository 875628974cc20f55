//! `convert --fetch-urls`: the `http(s)` attachments of a history fetched
//! for a provider that takes no URL, from the hosts named and no other
//! (redirects included), within a size and a time limit; nothing fetched
//! without the flag. The server is a plain HTTP/1.1 one on 127.0.0.1,
//! answering by path.
#![cfg(feature = "gateway")]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// A small PNG (3×2, RGB) the server answers `/shot.png` with.
fn png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 3, 2);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&[200u8; 18]).unwrap();
    writer.finish().unwrap();
    out
}

/// The server: its port and how many requests it answered.
struct Server {
    port: u16,
    requests: Arc<AtomicUsize>,
}

fn answer(stream: &mut TcpStream, path: &str, port: u16) {
    let image = png();
    let (head, body): (String, Vec<u8>) = match path {
        "/shot.png" => (
            format!("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: {}\r\n", image.len()),
            image,
        ),
        // To the same host, then to another name of the same machine.
        "/same" => ("HTTP/1.1 302 Found\r\nLocation: /shot.png\r\nContent-Length: 0\r\n".into(), vec![]),
        "/away" => (
            format!("HTTP/1.1 302 Found\r\nLocation: http://localhost:{port}/shot.png\r\nContent-Length: 0\r\n"),
            vec![],
        ),
        "/loop" => ("HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n".into(), vec![]),
        "/missing" => ("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n".into(), vec![]),
        // Says 5 MiB: refused before a byte of it is read.
        "/says-big" => ("HTTP/1.1 200 OK\r\nContent-Length: 5242880\r\n".into(), vec![]),
        // Says nothing, and sends 2 MiB in chunks.
        "/is-big" => {
            let mut chunked = Vec::new();
            for _ in 0..32 {
                chunked.extend_from_slice(format!("{:x}\r\n", 65536).as_bytes());
                chunked.extend(std::iter::repeat_n(b'x', 65536));
                chunked.extend_from_slice(b"\r\n");
            }
            chunked.extend_from_slice(b"0\r\n\r\n");
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n".into(), chunked)
        }
        "/slow" => {
            thread::sleep(Duration::from_secs(4));
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n".into(), vec![])
        }
        _ => ("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n".into(), vec![]),
    };
    let _ = stream.write_all(format!("{head}Connection: close\r\n\r\n").as_bytes());
    let _ = stream.write_all(&body);
}

fn serve() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, Ordering::SeqCst);
            thread::spawn(move || {
                let mut line = String::new();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                // The rest of the head.
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                    header.clear();
                }
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                answer(&mut stream, &path, port);
            });
        }
    });
    Server { port, requests }
}

/// A history of one tool result per path, each declaring an image at
/// `http://HOST:PORT/PATH`.
fn history(host: &str, port: u16, paths: &[&str]) -> String {
    let mut lines = vec![r#"{"role": "user", "content": "Look."}"#.to_owned()];
    for (i, path) in paths.iter().enumerate() {
        let envelope = serde_json::json!({
            "tool_call_id": format!("c{i}"),
            "content": format!("shot {i}"),
            "attachments": [{"kind": "image", "target": format!("http://{host}:{port}{path}")}],
        });
        lines
            .push(serde_json::json!({"role": "tool", "content": envelope.to_string()}).to_string());
    }
    lines.join("\n") + "\n"
}

fn convert(args: &[&str], history: &str) -> (i32, Value, String) {
    let mut all = vec!["convert", "--provider", "gemini", "--compact"];
    all.extend_from_slice(args);
    all.push("-");
    let out = common::run(&all, history.as_bytes());
    let body = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        body,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The inline images of a Gemini body.
fn images(body: &Value) -> usize {
    body.to_string().matches("\"inlineData\"").count()
}

#[test]
fn nothing_is_fetched_unless_asked() {
    let server = serve();
    let (status, body, err) = convert(&[], &history("127.0.0.1", server.port, &["/shot.png"]));
    assert_eq!(status, 0, "{err}");
    assert_eq!(images(&body), 0);
    assert!(
        err.contains("Gemini does not take image URLs here"),
        "{err}"
    );
    assert_eq!(server.requests.load(Ordering::SeqCst), 0);
}

#[test]
fn an_allowed_host_is_fetched_and_its_image_sent_inline() {
    let server = serve();
    let h = history("127.0.0.1", server.port, &["/shot.png", "/same"]);
    let (status, body, err) = convert(&["--fetch-urls", "127.0.0.1"], &h);
    assert_eq!(status, 0, "{err}");
    assert_eq!(images(&body), 2, "{err}");
    assert!(
        err.contains("2 images, 0 documents, 0 URLs sent; 0 notes"),
        "{err}"
    );
}

#[test]
fn other_hosts_redirects_away_and_bad_answers_are_notes() {
    let server = serve();
    let port = server.port;
    let cases = [
        ("/away", "redirected to another host (localhost)"),
        ("/loop", "more than 5 redirects"),
        ("/missing", "HTTP 404 Not Found"),
        ("/says-big", "5242880 bytes, over the 1048576-byte limit"),
        ("/is-big", "over the 1048576-byte limit"),
    ];
    for (path, says) in cases {
        let h = history("127.0.0.1", port, &[path]);
        let (status, body, err) =
            convert(&["--fetch-urls", "127.0.0.1", "--fetch-max-mb", "1"], &h);
        assert_eq!(status, 0, "{path}: {err}");
        assert_eq!(images(&body), 0, "{path}");
        assert!(err.contains(says), "{path}: {err}");
        assert!(err.contains("not fetched"), "{path}: {err}");
    }
    // A host not named: not even asked.
    let before = server.requests.load(Ordering::SeqCst);
    let h = history("localhost", port, &["/shot.png"]);
    let (status, _, err) = convert(&["--fetch-urls", "127.0.0.1"], &h);
    assert_eq!(status, 0, "{err}");
    assert!(
        err.contains("host localhost is not one --fetch-urls names"),
        "{err}"
    );
    assert_eq!(server.requests.load(Ordering::SeqCst), before);
    // --strict refuses a request with a failed attachment.
    let h = history("127.0.0.1", port, &["/missing"]);
    let (status, body, err) = convert(&["--fetch-urls", "127.0.0.1", "--strict"], &h);
    assert_eq!((status, body), (3, Value::Null), "{err}");
}

#[test]
fn a_slow_answer_times_out() {
    let server = serve();
    let h = history("127.0.0.1", server.port, &["/slow"]);
    let started = std::time::Instant::now();
    let (status, _, err) = convert(&["--fetch-urls", "127.0.0.1", "--fetch-timeout", "1"], &h);
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("no whole answer within 1 s"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn bad_flags_are_refused_before_anything_is_read() {
    for (args, says) in [
        (vec!["--fetch-urls", "https://a.test"], "a host name"),
        (vec!["--fetch-urls", "a.test:8080"], "a host name"),
        (
            vec!["--fetch-urls", "a.test", "--fetch-max-mb", "65"],
            "at most 64",
        ),
        (
            vec!["--fetch-urls", "a.test", "--fetch-timeout", "0"],
            "at least 1 second",
        ),
    ] {
        let (status, _, err) = convert(&args, "");
        assert_eq!(status, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let (status, _, err) = convert(&["--fetch-timeout", "3"], "");
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("--fetch-urls"), "{err}");
}
