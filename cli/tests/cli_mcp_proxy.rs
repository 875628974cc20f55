//! `tool-carrier mcp-proxy`: the built binary in front of a small MCP server
//! (`tests/mcp/fake_server.py`, stdio), driven as a host drives it.

#[path = "../../tests/media_support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use base64::Engine;
use image::GenericImageView;
use serde_json::{json, Value};
use support::*;
use tool_carrier::facts::Facts;
use tool_carrier::mcp::{FitOptions, SCALE_META};
use tool_carrier::provider::Provider;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
const WAIT: Duration = Duration::from_secs(120);

/// The fixtures, made once: `shots.json` (a text, a 2880×1800 PNG
/// screenshot, a 12 MP JPEG photo and a truncated PNG) and `photo.json`
/// (the photo alone), written into each server's folder.
fn fixtures() -> &'static [(&'static str, String)] {
    static FILES: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let screenshot = B64.encode(png_rgb(&screenshot(2880, 1800, 1)));
        let photo = B64.encode(jpeg(&photo(4000, 3000, 2), 90));
        let truncated = B64.encode(truncated_png());
        let shots = json!({"content": [
            {"type": "text", "text": "Three images."},
            {"type": "image", "data": screenshot, "mimeType": "image/png", "annotations": {"audience": ["assistant"]}},
            {"type": "image", "data": photo, "mimeType": "image/jpeg", "_meta": {"camera": "x"}},
            {"type": "image", "data": truncated, "mimeType": "image/png"}
        ], "isError": false});
        let alone = json!({"content": [{"type": "image", "data": photo, "mimeType": "image/jpeg"}]});
        vec![("shots.json", shots.to_string()), ("photo.json", alone.to_string())]
    })
}

/// The proxy running the fake server, with its output read line by line.
struct Proxy {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    stderr: thread::JoinHandle<String>,
    dir: tempfile::TempDir,
}

impl Proxy {
    /// `tool-carrier mcp-proxy ARGS -- python3 fake_server.py DIR EXIT`,
    /// DIR holding the fixtures and `extra` files.
    fn start(args: &[&str], exit: u8, extra: &[(&str, &[u8])]) -> Proxy {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in fixtures() {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        for (name, bytes) in extra {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/fake_server.py");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .arg("mcp-proxy")
            .args(args)
            .arg("--")
            .arg("python3")
            .arg(server)
            .arg(dir.path())
            .arg(exit.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                if reader.read_until(b'\n', &mut line).unwrap() == 0 {
                    return;
                }
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
            text
        });
        Proxy {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            dir,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn line(&self) -> Vec<u8> {
        self.lines
            .recv_timeout(WAIT)
            .expect("a line from the proxy in time")
    }

    fn message(&self) -> Value {
        serde_json::from_slice(&self.line()).unwrap()
    }

    /// Close the proxy's input and wait for it: its status, its standard
    /// error and the server's folder.
    fn finish(mut self) -> (ExitStatus, String, tempfile::TempDir) {
        drop(self.stdin.take());
        let status = wait(&mut self.child);
        (status, self.stderr.join().unwrap(), self.dir)
    }
}

fn wait(child: &mut Child) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(start.elapsed() < WAIT, "the proxy did not exit");
        thread::sleep(Duration::from_millis(10));
    }
}

fn call(id: u32, name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}}).to_string()
}

fn image_of(block: &Value) -> image::DynamicImage {
    load(&B64.decode(block["data"].as_str().unwrap()).unwrap())
}

/// The images of `shots.json` come back at the processing size of the
/// model `args` names, the truncated one as a text.
fn shots_for(args: &[&str], provider: Provider, model: Option<&str>) {
    let options = FitOptions::new(Facts::builtin(), provider, model);
    let mut proxy = Proxy::start(args, 0, &[]);
    proxy.send(&call(1, "shots"));
    let response = proxy.message();
    assert_eq!(response["id"], 1);
    let content = response["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 4);
    assert_eq!(content[0], json!({"type": "text", "text": "Three images."}));
    let shot = image_of(&content[1]);
    assert_eq!(
        shot.dimensions(),
        options.processing_size(2880, 1800),
        "{args:?}"
    );
    assert_eq!(content[1]["mimeType"], "image/png");
    assert_eq!(
        content[1]["annotations"],
        json!({"audience": ["assistant"]})
    );
    let photo = image_of(&content[2]);
    assert_eq!(
        photo.dimensions(),
        options.processing_size(4000, 3000),
        "{args:?}"
    );
    assert_eq!(content[2]["mimeType"], "image/jpeg");
    // The server's `_meta` kept, the scale beside it.
    let (w, h) = options.processing_size(4000, 3000);
    assert_eq!(
        content[2]["_meta"],
        json!({"camera": "x", SCALE_META: {"original": {"width": 4000, "height": 3000}, "sent": {"width": w, "height": h}, "factor": format!("{:.4}", 4000.0 / f64::from(w)).parse::<f64>().unwrap()}})
    );
    assert_eq!(content[3]["type"], "text");
    let note = content[3]["text"].as_str().unwrap();
    assert!(
        note.starts_with("[image content[3] not attached: corrupt or truncated PNG"),
        "{note}"
    );
    assert_eq!(response["result"]["isError"], false);
    let (status, stderr, _) = proxy.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("id 1 content[1]: 2880×1800 PNG"),
        "{stderr}"
    );
}

#[test]
fn images_come_back_at_the_default_models_processing_size() {
    shots_for(&[], Provider::Anthropic, None);
}

#[test]
fn images_come_back_at_the_named_models_processing_size() {
    shots_for(
        &["--provider", "openai-chat", "--model", "gpt-5"],
        Provider::OpenAiChat,
        Some("gpt-5"),
    );
}

#[test]
fn with_say_scale_a_text_after_each_resized_image_says_its_scale() {
    let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, None);
    let mut proxy = Proxy::start(&["--say-scale"], 0, &[]);
    proxy.send(&call(1, "shots"));
    let response = proxy.message();
    let content = response["result"]["content"].as_array().unwrap();
    let kinds: Vec<&str> = content
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image", "text", "image", "text", "text"]);
    let (w, h) = options.processing_size(2880, 1800);
    let said = content[2]["text"].as_str().unwrap();
    assert_eq!(
        said,
        format!(
            "scaled from 2880×1800 to {w}×{h}: multiply coordinates by {:.3}",
            2880.0 / f64::from(w)
        )
    );
    assert_eq!(
        content[1]["_meta"][SCALE_META]["sent"],
        json!({"width": w, "height": h})
    );
    assert!(content[4]["text"]
        .as_str()
        .unwrap()
        .starts_with("scaled from 4000×3000 to "));
    let (status, stderr, _) = proxy.finish();
    assert!(status.success(), "{stderr}");
}

/// A 2880×24780 full-page screenshot (71 million pixels, over the 50
/// million limit), written a row at a time: stripes of text-like grey on
/// white.
fn full_page_png() -> Vec<u8> {
    let (width, height) = (2880u32, 24780u32);
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        let mut header = encoder.write_header().unwrap();
        let mut writer = header.stream_writer().unwrap();
        let mut row = vec![255u8; width as usize * 3];
        for y in 0..height {
            let ink = y % 40 < 14;
            for (x, px) in row.chunks_exact_mut(3).enumerate() {
                let v = if ink && !(x as u32 / 9 + y / 40).is_multiple_of(5) {
                    40
                } else {
                    250
                };
                px.copy_from_slice(&[v, v, v.saturating_add(5)]);
            }
            writer.write_all(&row).unwrap();
        }
        writer.finish().unwrap();
    }
    out
}

#[test]
fn a_full_page_screenshot_over_the_pixel_limit_comes_back_fitted() {
    let page = B64.encode(full_page_png());
    let result = json!({"content": [{"type": "image", "data": page, "mimeType": "image/png"}]});
    let mut proxy = Proxy::start(&[], 0, &[("page.json", result.to_string().as_bytes())]);
    proxy.send(&call(1, "page"));
    let response = proxy.message();
    assert_eq!(response["id"], 1);
    let block = &response["result"]["content"][0];
    assert_eq!(block["type"], "image", "{block}");
    let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, None);
    assert_eq!(
        image_of(block).dimensions(),
        options.processing_size(2880, 24780)
    );
    let (status, stderr, _) = proxy.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("id 1 content[0]: 2880×24780 PNG"),
        "{stderr}"
    );
}

#[test]
fn a_ping_sent_after_a_large_result_is_answered_first() {
    let mut proxy = Proxy::start(&[], 0, &[]);
    proxy.send(&call(1, "photo"));
    proxy.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(
        proxy.line(),
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"
    );
    let result = proxy.message();
    assert_eq!(result["id"], 1);
    let photo = image_of(&result["result"]["content"][0]);
    let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, None);
    assert_eq!(photo.dimensions(), options.processing_size(4000, 3000));
    let (status, _, _) = proxy.finish();
    assert!(status.success());
}

#[test]
fn every_other_message_passes_through_byte_for_byte() {
    // The server's lines: spacing, escapes, a request of its own with an
    // image (sampling), a line that is no JSON, a response to the host
    // that answers no call, and text outside any result.
    let png = B64.encode(png_rgb(&screenshot(2880, 1800, 3)));
    let raw = format!(
        concat!(
            "{{ \"jsonrpc\" : \"2.0\", \"method\" : \"notifications/progress\", \"params\" : {{\"progressToken\": \"p\\u00e9\", \"progress\": 1.50}} }}\n",
            "{{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{{\"messages\":[{{\"role\":\"user\",\"content\":{{\"type\":\"image\",\"data\":\"{png}\",\"mimeType\":\"image/png\"}}}}],\"maxTokens\":5}}}}\n",
            "not JSON at all {{\n",
            "{{\"jsonrpc\":\"2.0\",\"id\":__ID__,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"line\\nbreak \\\"q\\\"\"}},{{\"type\":\"audio\",\"data\":\"UklGRg==\",\"mimeType\":\"audio/wav\"}}],\"structuredContent\":{{\"n\":1e3}}}}}}\n",
        ),
        png = png
    );
    let mut proxy = Proxy::start(&[], 0, &[("mixed.raw", raw.as_bytes())]);
    let sent = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#" {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "mixed", "_meta": {"progressToken": "p\u00e9"}}} "#,
    ];
    for line in sent {
        proxy.send(line);
    }
    let init = proxy.line();
    assert!(init.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\""));
    let mut received = Vec::new();
    for _ in 0..4 {
        received.extend(proxy.line());
    }
    assert_eq!(
        String::from_utf8(received).unwrap(),
        raw.replace("__ID__", "7")
    );
    // The host's answer to the server's request passes too.
    let answer = r#"{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}"#;
    proxy.send(answer);
    // So does a line of the host's that is no message.
    proxy.send("{\"jsonrpc\": oops");
    let (status, stderr, dir) = proxy.finish();
    assert!(status.success());
    let dir = dir.path();
    let mut expected: Vec<String> = sent.iter().map(|l| format!("{l}\n")).collect();
    expected.push(format!("{answer}\n"));
    expected.push("{\"jsonrpc\": oops\n".into());
    assert_eq!(
        std::fs::read_to_string(dir.join("received")).unwrap(),
        expected.concat()
    );
    assert!(
        stderr
            .contains("the server sent a line that is not a JSON-RPC message (18 bytes: \"not JSON at all {\")"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the host sent a line that is not a JSON-RPC message (17 bytes: \"{\\\"jsonrpc\\\": oops\")"),
        "{stderr}"
    );
}

#[test]
fn the_server_exiting_ends_the_proxy_with_its_status() {
    let mut proxy = Proxy::start(&[], 0, &[]);
    proxy.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "exit", "arguments": {"code": 3}}}).to_string());
    // Everything the server wrote is forwarded, then the proxy exits with
    // the server's status though the host's end is still open.
    assert_eq!(proxy.message()["params"]["data"], "bye");
    let status = wait(&mut proxy.child);
    assert_eq!(status.code(), Some(3));
    assert!(proxy.lines.recv_timeout(WAIT).is_err(), "nothing more");

    let mut proxy = Proxy::start(&[], 0, &[]);
    proxy.send(&call(1, "kill"));
    assert_eq!(proxy.message()["params"]["data"], "bye");
    assert_eq!(wait(&mut proxy.child).code(), Some(128 + 9));
}

#[test]
fn the_host_closing_its_end_ends_the_server_and_the_proxy() {
    let mut proxy = Proxy::start(&[], 7, &[]);
    proxy.send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(proxy.message()["id"], 1);
    let (status, _, dir) = proxy.finish();
    assert_eq!(status.code(), Some(7));
    let dir = dir.path();
    assert_eq!(std::fs::read_to_string(dir.join("exited")).unwrap(), "yes");
}

#[test]
fn a_server_that_cannot_start_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["mcp-proxy", "--", "/nonexistent/mcp-server", "--stdio"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("tool-carrier: mcp-proxy: cannot start the server \"/nonexistent/mcp-server\": No such file or directory"),
        "{stderr}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["mcp-proxy"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a command is required");
    // A misspelled option before `--` is the proxy's error, not the
    // server's command; the server's own options after it are its own.
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["mcp-proxy", "--modle", "x", "--", "/nonexistent/mcp-server"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("unexpected argument '--modle'"), "{stderr}");
    assert!(stderr.contains("--model"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["mcp-proxy", "/nonexistent/mcp-server", "--stdio", "-v"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("cannot start the server \"/nonexistent/mcp-server\""),
        "{stderr}"
    );
}
