//! What `tool-carrier gateway` costs, each figure beside its floor in the
//! same run (not in CI: `cargo bench -p tool-carrier-cli --bench gateway`):
//!
//! * **added latency**: a request without images (an Anthropic message of
//!   a few hundred bytes), straight to a mock upstream and through the
//!   gateway to it, taking turns on kept-alive connections: p50 and p99 of
//!   each, and the difference;
//! * **first streamed byte**: the same for a streamed answer, timed to
//!   its first chunk;
//! * **throughput**: 32 clients at once for a few seconds, straight and
//!   through the gateway: requests a second;
//! * **memory**: 32 clients at once each sending a 30-screenshot
//!   conversation (2880×1800 desktop-like PNGs, as the first-conversion
//!   bench makes them): the
//!   gateway's peak resident memory (`VmHWM`), the bytes sent and
//!   forwarded, and how long the 32 took.
//!
//! The mock upstream runs in this process and answers at once, so what is
//! measured is the gateway. Linux only (it reads `/proc/PID/status`).

#[path = "../../tests/media_support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
const ROUNDS: usize = 2000;
const CLIENTS: usize = 32;

/// The largest body the mock received.
static LARGEST: AtomicU64 = AtomicU64::new(0);

/// The mock's answers: a small JSON body, or an event stream of four
/// events (the first written at once).
async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = request.into_body().collect().await.unwrap().to_bytes();
    LARGEST.fetch_max(body.len() as u64, Ordering::Relaxed);
    let head = &body[..body.len().min(4096)];
    let streamed = head.windows(13).any(|w| w == b"\"stream\":true");
    let text: &'static [u8] = if streamed {
        b"event: message_start\ndata: {}\n\nevent: content_block_delta\ndata: {}\n\nevent: message_delta\ndata: {}\n\nevent: message_stop\ndata: {}\n\n"
    } else {
        br#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}]}"#
    };
    Ok(Response::new(Full::new(Bytes::from_static(text))))
}

async fn mock() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(answer);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    url
}

fn gateway(upstream: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(["gateway", "--listen", "127.0.0.1:0", "--api", "anthropic"])
        .args(["--upstream", upstream])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    (child, url)
}

/// The peak resident memory of process `pid`, in MB.
fn peak_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kb: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb / 1024.0
}

type Http = Client<HttpConnector, Full<Bytes>>;

/// Post `body` to `url`; the time to the answer's first chunk and to its
/// end.
async fn post(client: &Http, url: &str, body: Bytes) -> (Duration, Duration) {
    let start = Instant::now();
    let request = Request::post(format!("{url}/v1/messages"))
        .header("x-api-key", "sk-bench")
        .header("content-type", "application/json")
        .body(Full::new(body))
        .unwrap();
    let response = client.request(request).await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let mut body = response.into_body();
    let mut first = None;
    while let Some(frame) = body.frame().await {
        frame.unwrap();
        first.get_or_insert_with(|| start.elapsed());
    }
    (first.unwrap_or_else(|| start.elapsed()), start.elapsed())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// p50 and p99 of `direct` and `gated` (each sorted here), and what the
/// gateway adds at each.
fn report(what: &str, mut direct: Vec<Duration>, mut gated: Vec<Duration>) {
    direct.sort();
    gated.sort();
    for (name, p) in [("p50", 0.5), ("p99", 0.99)] {
        let (d, g) = (percentile(&direct, p), percentile(&gated, p));
        println!(
            "| {what} {name} | {:.0} µs | {:.0} µs | +{:.0} µs ({:.2}×) |",
            micros(d),
            micros(g),
            micros(g) - micros(d),
            g.as_secs_f64() / d.as_secs_f64()
        );
    }
}

/// 30 rounds of a screenshot each in one Anthropic request.
fn thirty_screenshots() -> Bytes {
    let mut messages =
        vec![serde_json::json!({"role": "user", "content": "Work through the screens."})];
    for n in 0..30u64 {
        let shot = support::screenshot(2880, 1800, n);
        let data = B64.encode(support::png_rgb(&shot));
        let id = format!("toolu_{n}");
        messages.push(serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "screenshot", "input": {}}]}));
        messages.push(serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]}]}));
    }
    let body = serde_json::json!({"model": "claude-haiku-4-5", "max_tokens": 1024,
        "tools": [{"name": "screenshot", "input_schema": {"type": "object"}}], "messages": messages});
    Bytes::from(body.to_string())
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` would run it
    // for nothing.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let upstream = runtime.block_on(mock());
    let (mut child, url) = gateway(&upstream);
    let client: Http = Client::builder(TokioExecutor::new()).build_http();
    let small = Bytes::from_static(
        br#"{"model":"claude-haiku-4-5","max_tokens":64,"messages":[{"role":"user","content":"What is on the screen? Answer in one line."}]}"#,
    );
    let streamed = Bytes::from_static(
        br#"{"model":"claude-haiku-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}"#,
    );
    println!("| measure | straight to the mock | through the gateway | added |");
    println!("|---|---|---|---|");
    runtime.block_on(async {
        // Warm both paths' connections.
        for _ in 0..50 {
            post(&client, &upstream, small.clone()).await;
            post(&client, &url, small.clone()).await;
        }
        let (mut direct, mut gated) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            direct.push(post(&client, &upstream, small.clone()).await.1);
            gated.push(post(&client, &url, small.clone()).await.1);
        }
        report("request, no image,", direct, gated);
        let (mut direct, mut gated) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            direct.push(post(&client, &upstream, streamed.clone()).await.0);
            gated.push(post(&client, &url, streamed.clone()).await.0);
        }
        report("first streamed byte,", direct, gated);

        for (name, target) in [("straight", upstream.clone()), ("gateway", url.clone())] {
            let done = Arc::new(AtomicU64::new(0));
            let until = Instant::now() + Duration::from_secs(3);
            let tasks: Vec<_> = (0..CLIENTS)
                .map(|_| {
                    let (client, target, done, body) = (
                        client.clone(),
                        target.clone(),
                        Arc::clone(&done),
                        small.clone(),
                    );
                    tokio::spawn(async move {
                        while Instant::now() < until {
                            post(&client, &target, body.clone()).await;
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    })
                })
                .collect();
            for t in tasks {
                t.await.unwrap();
            }
            println!(
                "| throughput, {CLIENTS} clients, {name} | {:.0} requests/s | | |",
                done.load(Ordering::Relaxed) as f64 / 3.0
            );
        }
    });

    // TOOL_CARRIER_BENCH_BODIES=N sends N bodies at once instead of 32.
    let bodies: usize = std::env::var("TOOL_CARRIER_BENCH_BODIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CLIENTS);
    let body = thirty_screenshots();
    let before = peak_mb(child.id());
    let start = Instant::now();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..bodies)
            .map(|_| {
                let (client, url, body) = (client.clone(), url.clone(), body.clone());
                tokio::spawn(async move { post(&client, &url, body).await })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
    });
    let took = start.elapsed();
    println!(
        "| memory, {bodies} clients × 30 screenshots ({:.1} MB a body, {:.1} MB forwarded) | | peak {:.0} MB (before: {:.0} MB) | {:.1} s for the {bodies} |",
        body.len() as f64 / 1e6,
        LARGEST.load(Ordering::Relaxed) as f64 / 1e6,
        peak_mb(child.id()),
        before,
        took.as_secs_f64()
    );
    let _ = child.kill();
    let _ = child.wait();
}
