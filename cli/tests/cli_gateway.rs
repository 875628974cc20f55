//! `tool-carrier gateway` on 127.0.0.1, between a client and a mock
//! upstream the tests start and stop: what the upstream receives (fitted
//! images, a body the rules pass, the client's path, query and headers),
//! what the client receives (the upstream's answer byte for byte, a stream
//! as it comes), what the gateway refuses and how, TLS to the upstream,
//! and stopping on SIGTERM.
#![cfg(feature = "gateway")]

mod common;
#[path = "../../tests/media_support/mod.rs"]
mod media_support;

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use tool_carrier::provider::Provider;
use tool_carrier::rules::{check_json, Target};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// What the mock upstream was sent.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// What the mock answers a path with: its chunks are sent one by one;
/// with a gate, the second waits for it.
#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, &'static str)>,
    chunks: Vec<Vec<u8>>,
    gate: Option<Arc<tokio::sync::Notify>>,
}

impl Reply {
    fn json(body: &[u8]) -> Reply {
        Reply {
            status: 200,
            headers: vec![
                ("content-type", "application/json"),
                ("request-id", "req_1"),
            ],
            chunks: vec![body.to_vec()],
            gate: None,
        }
    }
}

/// A mock upstream on 127.0.0.1, over TLS when given a configuration.
struct Mock {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    replies: Arc<Mutex<HashMap<String, Reply>>>,
    runtime: tokio::runtime::Runtime,
}

impl Mock {
    fn start(tls: Option<rustls::ServerConfig>) -> Mock {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let replies: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let host = if tls.is_some() {
            "localhost"
        } else {
            "127.0.0.1"
        };
        let acceptor = tls.map(|c| tokio_rustls::TlsAcceptor::from(Arc::new(c)));
        let (s, r) = (Arc::clone(&seen), Arc::clone(&replies));
        runtime.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (s, r, acceptor) = (Arc::clone(&s), Arc::clone(&r), acceptor.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        answer(Arc::clone(&s), Arc::clone(&r), req)
                    });
                    let http = hyper::server::conn::http1::Builder::new();
                    match acceptor {
                        Some(acceptor) => {
                            if let Ok(tls) = acceptor.accept(stream).await {
                                let _ = http.serve_connection(TokioIo::new(tls), service).await;
                            }
                        }
                        None => {
                            let _ = http.serve_connection(TokioIo::new(stream), service).await;
                        }
                    }
                });
            }
        });
        Mock {
            url: format!("{scheme}://{host}:{port}"),
            seen,
            replies,
            runtime,
        }
    }

    fn reply(&self, path: &str, reply: Reply) {
        self.replies.lock().unwrap().insert(path.to_owned(), reply);
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn answer(
    seen: Arc<Mutex<Vec<Seen>>>,
    replies: Arc<Mutex<HashMap<String, Reply>>>,
    req: Request<Incoming>,
) -> Result<Response<http_body_util::channel::Channel<Bytes, Infallible>>, Infallible> {
    let (parts, body) = req.into_parts();
    let body = body.collect().await.unwrap().to_bytes().to_vec();
    let path = parts.uri.path_and_query().unwrap().as_str().to_owned();
    seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        path: path.clone(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
            .collect(),
        body,
    });
    // A streamed request is answered by the path's `stream` reply.
    let streamed = serde_json::from_slice::<Value>(&seen.lock().unwrap().last().unwrap().body)
        .is_ok_and(|v| v["stream"] == true);
    let key = parts.uri.path().to_owned();
    let replies = replies.lock().unwrap();
    let reply = streamed
        .then(|| replies.get(&format!("{key} stream")))
        .flatten()
        .or_else(|| replies.get(&key))
        .cloned()
        .unwrap_or_else(|| Reply::json(br#"{"ok":true}"#));
    drop(replies);
    let (mut tx, channel) = http_body_util::channel::Channel::<Bytes, Infallible>::new(1);
    tokio::spawn(async move {
        for (i, chunk) in reply.chunks.into_iter().enumerate() {
            if let (1, Some(gate)) = (i, &reply.gate) {
                gate.notified().await;
            }
            if tx.send_data(Bytes::from(chunk)).await.is_err() {
                return;
            }
        }
    });
    let mut response = Response::new(channel);
    *response.status_mut() = hyper::StatusCode::from_u16(reply.status).unwrap();
    for (name, value) in reply.headers {
        response
            .headers_mut()
            .insert(name, hyper::header::HeaderValue::from_static(value));
    }
    Ok(response)
}

/// The gateway, run by the test; killed when dropped.
struct Gateway {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Gateway {
    fn start(args: &[&str]) -> Gateway {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
            .arg("gateway")
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let log = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                log.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("{line:?}; {}", stderr.lock().unwrap()))
            .to_owned();
        Gateway { child, url, stderr }
    }

    fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn signal(&self, signal: &str) {
        let ok = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Sent = (u16, Vec<(String, String)>, Vec<u8>);

/// Send a request through the gateway and read its whole answer.
fn send(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Sent {
    runtime.block_on(async {
        let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{url}{path}"));
        for (n, v) in headers {
            request = request.header(*n, *v);
        }
        let response = client
            .request(request.body(Full::new(Bytes::from(body))).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_owned()))
            .collect();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, headers, body.to_vec())
    })
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// A noisy PNG over 5 MB: every API's inline limit.
fn big_png() -> Vec<u8> {
    media_support::png_rgb(&media_support::noise_rgb(1600, 1200, 7))
}

/// An Anthropic request with `png` as a screenshot in a tool result, with
/// what a gateway must keep byte for byte around it: a cache mark, a
/// member the crate does not know, tools, odd spacing.
fn anthropic_body(png: &[u8]) -> String {
    format!(
        r#"{{"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true,
  "x_future_member": {{"kept": [1, 2.50, "as is"]}},
  "tools": [{{"name": "screenshot", "description": "Take one", "input_schema": {{"type": "object", "properties": {{}}}}}}],
  "messages": [
    {{"role": "user", "content": "Look at the screen."}},
    {{"role": "assistant", "content": [{{"type": "tool_use", "id": "toolu_1", "name": "screenshot", "input": {{}}}}]}},
    {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "toolu_1", "cache_control": {{"type": "ephemeral"}},
      "content": [{{"type": "text", "text": "shot"}}, {{"type": "image", "source": {{"type": "base64", "media_type": "image/png", "data": "{}"}}}}]}}]}}
  ]}}"#,
        B64.encode(png)
    )
}

/// `text` with every long base64 run and image media type blanked: what a
/// fit may change, taken out.
fn outside_payloads(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 4);
    let mut run = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '=' {
            run.push(c);
            continue;
        }
        out.push_str(if run.len() > 200 { "@" } else { &run });
        run.clear();
        out.push(c);
    }
    out.push_str(&run);
    for t in ["image/png", "image/jpeg", "image/webp"] {
        out = out.replace(t, "@T");
    }
    out
}

/// The images of a body's payloads (the long strings of `data`, `url`
/// and `image_url` members), decoded.
fn images_in(body: &[u8]) -> Vec<image::DynamicImage> {
    let v: Value = serde_json::from_slice(body).unwrap();
    let mut out = Vec::new();
    let mut stack = vec![&v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (key, value) in m {
                    match value.as_str() {
                        Some(s)
                            if s.len() > 200
                                && ["data", "url", "image_url"].contains(&key.as_str()) =>
                        {
                            let s = s.rsplit(',').next().unwrap();
                            out.push(image::load_from_memory(&B64.decode(s).unwrap()).unwrap());
                        }
                        _ => stack.push(value),
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_screenshot_is_fitted_and_all_else_passes_as_it_came() {
    let mock = Mock::start(None);
    let stream =
        std::fs::read(common::repo().join("tests/data/responses/anthropic/thinking.sse")).unwrap();
    mock.reply(
        "/v1/messages",
        Reply {
            status: 200,
            headers: vec![
                ("content-type", "text/event-stream"),
                ("request-id", "req_9"),
            ],
            chunks: stream.chunks(97).map(<[u8]>::to_vec).collect(),
            gate: None,
        },
    );
    let gateway = Gateway::start(&["--api", "anthropic", "--upstream", &mock.url]);
    let client = runtime();
    let body = anthropic_body(&big_png());
    let headers = [
        ("x-api-key", "sk-test"),
        ("anthropic-version", "2023-06-01"),
        ("anthropic-beta", "a-beta"),
        ("x-stainless-lang", "python"),
        ("content-type", "application/json"),
    ];
    let (status, back, answer) = send(
        &client,
        &gateway.url,
        "POST",
        "/v1/messages?beta=true",
        &headers,
        body.clone().into_bytes(),
    );
    assert_eq!(status, 200, "{}", gateway.log());
    // The answer, byte for byte, with its headers.
    assert_eq!(answer, stream);
    assert_eq!(header(&back, "request-id"), Some("req_9"));
    assert_eq!(header(&back, "x-tool-carrier-error"), None);

    let seen = mock.seen();
    assert_eq!(seen.len(), 1);
    let up = &seen[0];
    assert_eq!(
        (up.method.as_str(), up.path.as_str()),
        ("POST", "/v1/messages?beta=true")
    );
    for (name, value) in headers {
        assert_eq!(up.header(name), [value], "{name}");
    }
    assert_eq!(up.header("host"), [mock.url.trim_start_matches("http://")]);
    assert_eq!(up.header("content-length"), [up.body.len().to_string()]);
    // Only the payload and its media type changed.
    let sent = String::from_utf8(up.body.clone()).unwrap();
    assert_ne!(sent, body);
    assert_eq!(outside_payloads(&sent), outside_payloads(&body));
    // The image fits, and the body passes every rule.
    let images = images_in(&up.body);
    assert_eq!(images.len(), 1);
    assert!(images[0].width() <= 1568 && images[0].height() <= 1568);
    // Every rule but the member tables': the client's own future member
    // passes as it came.
    let violations: Vec<_> = check_json(
        &Target::new(Provider::Anthropic, "claude-sonnet-4-5"),
        &sent,
    )
    .unwrap()
    .into_iter()
    .map(|v| v.rule.id)
    .collect();
    assert_eq!(violations, ["anthropic/members"]);
    assert!(
        gateway
            .log()
            .contains("claude-sonnet-4-5: 1 payloads: 1 fitted, 0 left out, 0 kept"),
        "{}",
        gateway.log()
    );

    // Sent again, the same bytes go: a prompt cache holds.
    send(
        &client,
        &gateway.url,
        "POST",
        "/v1/messages?beta=true",
        &headers,
        body.into_bytes(),
    );
    assert_eq!(mock.seen()[1].body, up.body);
}

#[test]
fn a_stream_is_passed_on_as_it_comes() {
    let mock = Mock::start(None);
    let gate = Arc::new(tokio::sync::Notify::new());
    mock.reply(
        "/v1/chat/completions",
        Reply {
            status: 200,
            headers: vec![("content-type", "text/event-stream")],
            chunks: vec![
                b"data: {\"first\":1}\n\n".to_vec(),
                b"data: [DONE]\n\n".to_vec(),
            ],
            gate: Some(Arc::clone(&gate)),
        },
    );
    let gateway = Gateway::start(&["--api", "openai-chat", "--upstream", &mock.url]);
    let client = runtime();
    let body =
        json!({"model": "gpt-5", "stream": true, "messages": [{"role": "user", "content": "Hi"}]});
    client.block_on(async {
        let http: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
        let request = Request::post(format!("{}/v1/chat/completions", gateway.url))
            .header("authorization", "Bearer sk-test")
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        let response = http.request(request).await.unwrap();
        let mut body = response.into_body();
        // The first event arrives while the upstream holds the rest: the
        // gateway does not wait for the whole answer.
        let first = tokio::time::timeout(Duration::from_secs(20), body.frame())
            .await
            .expect("the first event is passed on before the stream ends")
            .unwrap()
            .unwrap();
        assert_eq!(first.into_data().unwrap(), &b"data: {\"first\":1}\n\n"[..]);
        gate.notify_one();
        let rest = body.collect().await.unwrap().to_bytes();
        assert_eq!(rest, &b"data: [DONE]\n\n"[..]);
    });
    assert_eq!(mock.seen()[0].body, body.to_string().into_bytes());
}

#[test]
fn requests_that_carry_no_conversation_pass_as_they_came() {
    let mock = Mock::start(None);
    let gateway = Gateway::start(&[
        "--api",
        "anthropic",
        "--upstream",
        &format!("{}/prefix/", mock.url),
    ]);
    let client = runtime();
    let binary: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let (status, _, answer) = send(
        &client,
        &gateway.url,
        "POST",
        "/v1/messages/batches?x=1",
        &[],
        binary.clone(),
    );
    assert_eq!(status, 200);
    assert_eq!(answer, br#"{"ok":true}"#);
    let (status, _, _) = send(
        &client,
        &gateway.url,
        "GET",
        "/v1/models",
        &[("x-api-key", "k")],
        Vec::new(),
    );
    assert_eq!(status, 200);
    let seen = mock.seen();
    assert_eq!(seen[0].path, "/prefix/v1/messages/batches?x=1");
    assert_eq!(
        seen[0].body, binary,
        "not JSON, not a conversation: passed as it came"
    );
    assert_eq!(
        (seen[1].method.as_str(), seen[1].path.as_str()),
        ("GET", "/prefix/v1/models")
    );
}

#[test]
fn gemini_names_its_model_in_the_path_and_keeps_its_query() {
    let mock = Mock::start(None);
    let gateway = Gateway::start(&["--api", "gemini", "--upstream", &mock.url]);
    let client = runtime();
    let body = json!({
        "contents": [{"role": "user", "parts": [
            {"text": "What is on the screen?"},
            {"inlineData": {"mimeType": "image/bmp", "data": B64.encode(media_support::bmp(&media_support::noise_rgb(64, 48, 2)))}}
        ]}],
        "generationConfig": {"maxOutputTokens": 256}
    });
    let path = "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse&key=AIza-test";
    let (status, _, _) = send(
        &client,
        &gateway.url,
        "POST",
        path,
        &[],
        body.to_string().into_bytes(),
    );
    assert_eq!(status, 200, "{}", gateway.log());
    let up = &mock.seen()[0];
    assert_eq!(up.path, path);
    // Gemini takes no BMP: sent as PNG, its type said so.
    assert_eq!(images_in(&up.body)[0].width(), 64);
    let sent = String::from_utf8(up.body.clone()).unwrap();
    assert!(sent.contains(r#""mimeType":"image/png""#), "{sent:.300}");
    assert!(check_json(
        &Target::new(Provider::Gemini, "gemini-3-pro-preview"),
        &sent
    )
    .unwrap()
    .is_empty());
    assert!(
        gateway
            .log()
            .contains("gemini-3-pro-preview: 1 payloads: 1 fitted"),
        "{}",
        gateway.log()
    );
}

#[test]
fn with_say_scale_the_upstream_hears_a_resized_images_scale() {
    let mock = Mock::start(None);
    let gateway = Gateway::start(&["--api", "gemini", "--say-scale", "--upstream", &mock.url]);
    let client = runtime();
    let shot = media_support::png_rgb(&media_support::screenshot(3200, 2000, 4));
    let body = json!({"contents": [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "image/png", "data": B64.encode(shot)}}
    ]}]});
    let path = "/v1beta/models/gemini-3-pro-preview:generateContent";
    let (status, _, _) = send(
        &client,
        &gateway.url,
        "POST",
        path,
        &[],
        body.to_string().into_bytes(),
    );
    assert_eq!(status, 200, "{}", gateway.log());
    let sent = String::from_utf8(mock.seen()[0].body.clone()).unwrap();
    let width = images_in(sent.as_bytes())[0].width();
    let said = format!(
        r#"}}}},{{"text":"scaled from 3200×2000 to {width}×{}: multiply coordinates by {:.3}"}}]"#,
        width * 2000 / 3200,
        3200.0 / f64::from(width)
    );
    assert!(sent.contains(&said), "{said} not in {sent:.200}");
}

#[test]
fn what_the_gateway_refuses_is_answered_in_the_apis_shape() {
    let mock = Mock::start(None);
    let client = runtime();
    let anthropic = Gateway::start(&[
        "--api",
        "anthropic",
        "--upstream",
        &mock.url,
        "--max-body-mb",
        "6",
    ]);
    let refused = |g: &Gateway, path: &str, headers: &[(&str, &str)], body: Vec<u8>| {
        let (status, headers, body) = send(&client, &g.url, "POST", path, headers, body);
        let kind = header(&headers, "x-tool-carrier-error").map(str::to_owned);
        let body: Value = serde_json::from_slice(&body).unwrap();
        (status, kind.unwrap_or_default(), body)
    };
    // Not JSON.
    let (status, kind, body) = refused(&anthropic, "/v1/messages", &[], b"{\"model\": ".to_vec());
    assert_eq!((status, kind.as_str()), (400, "refused"));
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not JSON"));
    // A rule the API enforces: a tool call without its tool declared.
    let undeclared = anthropic_body(&media_support::png_rgb(&media_support::noise_rgb(8, 8, 1)))
        .replace(
            r#""name": "screenshot", "description""#,
            r#""name": "other", "description""#,
        );
    let (status, _, body) = refused(&anthropic, "/v1/messages", &[], undeclared.into_bytes());
    assert_eq!(status, 400);
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("anthropic/calls-declared"), "{message}");
    // Over --max-body-mb: before a byte of it is read.
    let (status, kind, body) = refused(&anthropic, "/v1/messages", &[], vec![b' '; 7 << 20]);
    assert_eq!((status, kind.as_str()), (413, "too-large"));
    assert_eq!(body["error"]["type"], "request_too_large");
    // Encoded.
    let (status, kind, _) = refused(
        &anthropic,
        "/v1/messages",
        &[("content-encoding", "gzip")],
        b"x".to_vec(),
    );
    assert_eq!((status, kind.as_str()), (415, "encoded"));
    // A token count gives no max_tokens, and is not refused for it.
    let count =
        json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hi"}]});
    let (status, _, _) = send(
        &client,
        &anthropic.url,
        "POST",
        "/v1/messages/count_tokens",
        &[],
        count.to_string().into_bytes(),
    );
    assert_eq!(status, 200, "{}", anthropic.log());
    assert_eq!(mock.seen().len(), 1, "only the count was forwarded");

    // The other shapes: OpenAI's and Google's.
    let chat = Gateway::start(&["--api", "openai-chat", "--upstream", &mock.url]);
    let (status, _, body) = refused(&chat, "/v1/chat/completions", &[], b"[]".to_vec());
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert!(body["error"].get("param").is_some() && body["error"].get("code").is_some());
    let gemini = Gateway::start(&["--api", "gemini", "--upstream", &mock.url]);
    let (status, _, body) = refused(
        &gemini,
        "/v1beta/models/gemini-3-pro-preview:generateContent",
        &[],
        b"{".to_vec(),
    );
    assert_eq!(status, 400);
    assert_eq!(
        (
            body["error"]["code"].as_u64(),
            body["error"]["status"].as_str()
        ),
        (Some(400), Some("INVALID_ARGUMENT"))
    );
    assert_eq!(mock.seen().len(), 1, "nothing refused was forwarded");

    // An upstream that does not answer: 502, the gateway's.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let orphan = Gateway::start(&["--api", "openai-responses", "--upstream", &dead]);
    let (status, kind, body) = refused(
        &orphan,
        "/v1/responses",
        &[],
        json!({"model": "gpt-5", "input": "Hi"})
            .to_string()
            .into_bytes(),
    );
    assert_eq!((status, kind.as_str()), (502, "upstream"), "{body}");
    assert_eq!(body["error"]["type"], "server_error");
}

#[test]
fn a_stranger_is_not_served_unless_asked_and_options_that_contradict_are_refused() {
    let run = |args: &[&str]| common::run(&[&["gateway"], args].concat(), b"");
    let out = run(&["--listen", "0.0.0.0:0", "--api", "anthropic"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
    let out = run(&["--listen", "127.0.0.1:0", "--api", "bedrock"]);
    assert_eq!(out.status.code(), Some(2), "no gateway for bedrock");
    let out = run(&[
        "--listen",
        "127.0.0.1:0",
        "--api",
        "anthropic",
        "--max-body-mb",
        "600",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-buffered-mb"));
    let out = run(&[
        "--listen",
        "127.0.0.1:0",
        "--api",
        "anthropic",
        "--keep-images",
        "2",
        "--evict-step",
        "3",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--evict-step 3 is larger than --keep-images 2"));
    let out = run(&[
        "--listen",
        "127.0.0.1:0",
        "--api",
        "anthropic",
        "--upstream",
        "ftp://x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("ca.pem");
    std::fs::write(&empty, "not a certificate").unwrap();
    let out = run(&[
        "--listen",
        "127.0.0.1:0",
        "--api",
        "anthropic",
        "--upstream-ca",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no certificate"));
    // A port taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = run(&["--listen", &addr, "--api", "anthropic"]);
    assert_eq!(out.status.code(), Some(2));
    // Asked: served.
    let mut open = Gateway::start(&["--api", "anthropic", "--allow-remote"]);
    assert!(open.url.starts_with("http://127.0.0.1:"));
    open.signal("-TERM");
    assert!(open.child.wait().unwrap().success());
}

/// A gateway whose upstream answers `/v1/messages` with one event, then
/// holds the second until `gate` is notified.
fn held_answer(gate: &Arc<tokio::sync::Notify>) -> (Mock, Gateway) {
    let mock = Mock::start(None);
    mock.reply(
        "/v1/messages",
        Reply {
            status: 200,
            headers: vec![("content-type", "text/event-stream")],
            chunks: vec![b"event: a\n\n".to_vec(), b"event: b\n\n".to_vec()],
            gate: Some(Arc::clone(gate)),
        },
    );
    let gateway = Gateway::start(&["--api", "anthropic", "--upstream", &mock.url]);
    (mock, gateway)
}

/// Post a message to `url` and read its answer's first chunk: the
/// chunk, and the rest of the answer to read.
async fn first_chunk(url: &str) -> (Bytes, Incoming) {
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]});
    let http: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let request = Request::post(format!("{url}/v1/messages"))
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let mut body = http.request(request).await.unwrap().into_body();
    let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
    (first, body)
}

#[test]
fn sigterm_lets_requests_in_flight_finish() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let (_mock, mut gateway) = held_answer(&gate);
    let answer = runtime().block_on(async {
        let (first, body) = first_chunk(&gateway.url).await;
        // Stopped mid-answer: the answer still ends whole.
        gateway.signal("-TERM");
        tokio::time::sleep(Duration::from_millis(300)).await;
        gate.notify_one();
        let rest = body.collect().await.unwrap().to_bytes();
        [first.to_vec(), rest.to_vec()].concat()
    });
    assert_eq!(answer, b"event: a\n\nevent: b\n\n");
    let status = gateway.child.wait().unwrap();
    assert!(status.success(), "{status:?}: {}", gateway.log());
    assert!(gateway.log().contains("stopped"));
    assert!(std::net::TcpStream::connect(gateway.url.trim_start_matches("http://")).is_err());
}

#[test]
fn a_second_signal_ends_the_gateway_at_once() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let (_mock, mut gateway) = held_answer(&gate);
    runtime().block_on(async {
        let _held = first_chunk(&gateway.url).await;
        // A request held in flight: the first signal drains, the second
        // does not wait for it.
        gateway.signal("-TERM");
        while !gateway.log().contains("stopping") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        gateway.signal("-TERM");
        let status = gateway.child.wait().unwrap();
        assert_eq!(status.code(), Some(143), "{}", gateway.log());
    });
}

#[test]
fn a_tls_upstream_is_trusted_through_upstream_ca() {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let key = rustls_pki_types::PrivateKeyDer::Pkcs8(cert.signing_key.serialize_der().into());
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.cert.der().clone()], key)
        .unwrap();
    let mock = Mock::start(Some(server));
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, cert.cert.pem()).unwrap();
    let client = runtime();
    let body = anthropic_body(&big_png()).into_bytes();

    let trusted = Gateway::start(&[
        "--api",
        "anthropic",
        "--upstream",
        &mock.url,
        "--upstream-ca",
        ca.to_str().unwrap(),
    ]);
    let (status, _, answer) = send(
        &client,
        &trusted.url,
        "POST",
        "/v1/messages",
        &[],
        body.clone(),
    );
    assert_eq!(status, 200, "{}", trusted.log());
    assert_eq!(answer, br#"{"ok":true}"#);
    assert!(images_in(&mock.seen()[0].body)[0].width() <= 1568);

    // Not trusted: the gateway says so, and nothing reached the upstream.
    let untrusted = Gateway::start(&["--api", "anthropic", "--upstream", &mock.url]);
    let (status, headers, answer) =
        send(&client, &untrusted.url, "POST", "/v1/messages", &[], body);
    assert_eq!(status, 502);
    assert_eq!(header(&headers, "x-tool-carrier-error"), Some("upstream"));
    let message = String::from_utf8(answer).unwrap();
    assert!(message.contains("certificate"), "{message}");
    assert_eq!(mock.seen().len(), 1);
    drop(mock.runtime);
}

/// The official Python SDKs (`anthropic`, `openai`) with their base URL at
/// the gateway; run where `TOOL_CARRIER_SDK_PYTHON` names a Python that
/// has them (`.ci/conformance` runs it in its environment).
#[test]
fn the_official_sdks_through_the_gateway() {
    let Some(python) = std::env::var_os("TOOL_CARRIER_SDK_PYTHON") else {
        eprintln!("skipped: TOOL_CARRIER_SDK_PYTHON is not set (a Python with the anthropic and openai SDKs; .ci/conformance sets it)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("shot.png");
    std::fs::write(&image, big_png()).unwrap();
    let data = common::repo().join("tests/data/responses");
    let cases = [
        (
            "anthropic",
            "/v1/messages",
            "anthropic/tool_call.json",
            "anthropic/tool_call.sse",
            "claude-sonnet-4-5",
            Provider::Anthropic,
        ),
        (
            "openai-chat",
            "/v1/chat/completions",
            "openai-chat/tool_call.json",
            "openai-chat/tool_call.sse",
            "gpt-5",
            Provider::OpenAiChat,
        ),
        (
            "openai-responses",
            "/v1/responses",
            "openai-responses/reasoning_call.json",
            "openai-responses/reasoning_call.sse",
            "gpt-5",
            Provider::OpenAiResponses,
        ),
    ];
    for (api, path, answer, stream, model, provider) in cases {
        let mock = Mock::start(None);
        let answer = std::fs::read(data.join(answer)).unwrap();
        let stream = std::fs::read(data.join(stream)).unwrap();
        mock.reply(path, Reply::json(&answer));
        mock.reply(
            &format!("{path} stream"),
            Reply {
                status: 200,
                headers: vec![("content-type", "text/event-stream")],
                chunks: stream.chunks(211).map(<[u8]>::to_vec).collect(),
                gate: None,
            },
        );
        let gateway = Gateway::start(&["--api", api, "--upstream", &mock.url]);
        let out = dir.path().join(api);
        std::fs::create_dir(&out).unwrap();
        let run = Command::new(&python)
            .arg(common::repo().join("cli/tests/gateway/sdk.py"))
            .args([api, &gateway.url])
            .arg(&image)
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{api}: {}\n{}",
            String::from_utf8_lossy(&run.stderr),
            gateway.log()
        );
        // What the client received is the upstream's, byte for byte.
        assert_eq!(std::fs::read(out.join("answer")).unwrap(), answer, "{api}");
        assert_eq!(std::fs::read(out.join("stream")).unwrap(), stream, "{api}");
        let seen = mock.seen();
        assert_eq!(seen.len(), 3, "{api}: one plain, two streamed");
        for up in &seen {
            assert_eq!(up.path, path);
            // The client's own headers, as the SDK sent them.
            assert_eq!(up.header("x-test"), ["1"]);
            let agent = up.header("user-agent");
            assert!(agent[0].contains("Python"), "{api}: {agent:?}");
            if provider == Provider::Anthropic {
                // As the SDK sends it (2.14 sends `authorization`).
                let key = [up.header("x-api-key"), up.header("authorization")].concat();
                assert_eq!(key.len(), 1, "{:?}", up.headers);
                assert!(key[0].ends_with("sk-ant-test"));
                assert_eq!(up.header("anthropic-version").len(), 1);
            } else {
                assert_eq!(up.header("authorization"), ["Bearer sk-test"]);
            }
            // A fitted image, in a body the rules pass.
            let images = images_in(&up.body);
            assert_eq!(images.len(), 1, "{api}");
            assert!(images[0].width() < 1600, "{api}: {}", images[0].width());
            let text = std::str::from_utf8(&up.body).unwrap();
            let broken = check_json(&Target::new(provider, model), text).unwrap();
            assert!(broken.is_empty(), "{api}: {broken:?}");
        }
    }
}

/// Opt-in (`TOOL_CARRIER_GATEWAY_CLAUDE=1`; it installs Claude Code from
/// npm, about 200 MB): the desktop coding agent's CLI, headless, with its
/// base URL at the gateway and a home folder of its own. Every request it
/// sends reaches the mock with its key, and its answer reaches the user.
#[test]
fn claude_code_through_the_gateway() {
    if std::env::var_os("TOOL_CARRIER_GATEWAY_CLAUDE").is_none() {
        eprintln!(
            "skipped: TOOL_CARRIER_GATEWAY_CLAUDE is not set (installs Claude Code from npm)"
        );
        return;
    }
    const VERSION: &str = "2.1.332";
    let npm = common::repo().join("target/gateway-npm");
    let claude = npm.join("node_modules/.bin/claude");
    if !claude.exists() {
        let ok = Command::new("npm")
            .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
            .arg(&npm)
            .arg(format!("@anthropic-ai/claude-code@{VERSION}"))
            .status()
            .unwrap()
            .success();
        assert!(ok, "npm install @anthropic-ai/claude-code@{VERSION}");
    }
    let said = "The gateway passed this on.";
    let stream = format!(
        "event: message_start\ndata: {}\n\nevent: content_block_start\ndata: {}\n\nevent: content_block_delta\ndata: {}\n\nevent: content_block_stop\ndata: {}\n\nevent: message_delta\ndata: {}\n\nevent: message_stop\ndata: {}\n\n",
        json!({"type": "message_start", "message": {"id": "msg_gw", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": said}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 6}}),
        json!({"type": "message_stop"}),
    );
    let mock = Mock::start(None);
    let message = json!({"id": "msg_gw", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": said}], "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 6}});
    mock.reply("/v1/messages", Reply::json(message.to_string().as_bytes()));
    mock.reply(
        "/v1/messages stream",
        Reply {
            status: 200,
            headers: vec![("content-type", "text/event-stream")],
            chunks: vec![stream.into_bytes()],
            gate: None,
        },
    );
    mock.reply(
        "/v1/messages/count_tokens",
        Reply::json(br#"{"input_tokens":10}"#),
    );
    let gateway = Gateway::start(&["--api", "anthropic", "--upstream", &mock.url]);
    let home = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    // Its own home, nothing but the gateway to talk to.
    let run = || {
        let mut command = Command::new(&claude);
        command
            .current_dir(home.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("ANTHROPIC_BASE_URL", &gateway.url)
            .env("ANTHROPIC_API_KEY", "sk-ant-test")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1");
        command
    };
    let out = run()
        .args(["-p", "Say hello.", "--output-format", "text"])
        .output()
        .unwrap();
    eprintln!("claude -p took {:.1} s", started.elapsed().as_secs_f64());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(said),
        "{:?}\n{stdout}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        gateway.log()
    );
    let seen = mock.seen();
    assert!(!seen.is_empty());
    for up in seen.iter().filter(|s| s.path.starts_with("/v1/messages")) {
        let key = [up.header("x-api-key"), up.header("authorization")].concat();
        assert!(
            key.iter().any(|k| k.ends_with("sk-ant-test")),
            "{:?}",
            up.headers
        );
    }
    eprintln!(
        "{} requests reached the upstream: {:?}",
        seen.len(),
        seen.iter().map(|s| s.path.as_str()).collect::<Vec<_>>()
    );

    // A user's 5.8 MB screenshot, as an SDK host hands it to the CLI: it
    // reaches the upstream within the model's limits (the CLI shrinks
    // images itself; the gateway keeps what needs no fitting), in a body
    // the rules pass, and the gateway refused nothing the CLI sent.
    let line = json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "What is on this screen?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64.encode(big_png())}}
    ]}});
    let mut child = run()
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{line}").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(said),
        "{:?}\n{stdout:.2000}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        gateway.log()
    );
    let with_image: Vec<Seen> = mock.seen().into_iter().skip(seen.len()).collect();
    let up = with_image
        .iter()
        .find(|s| s.body.len() > 100_000)
        .unwrap_or_else(|| panic!("no request carried the image: {}", gateway.log()));
    let images = images_in(&up.body);
    assert_eq!(images.len(), 1);
    assert!(
        images[0].width() <= 2000,
        "{}: {}",
        images[0].width(),
        gateway.log()
    );
    assert!(
        !gateway.log().contains("400 Bad Request"),
        "{}",
        gateway.log()
    );
    let text = std::str::from_utf8(&up.body).unwrap();
    let model = serde_json::from_str::<Value>(text).unwrap()["model"]
        .as_str()
        .unwrap()
        .to_owned();
    let broken = check_json(&Target::new(Provider::Anthropic, &model), text).unwrap();
    assert!(broken.is_empty(), "{broken:?}");
    eprintln!(
        "the screenshot went as {}×{}: {}",
        images[0].width(),
        images[0].height(),
        gateway.log()
    );
}
