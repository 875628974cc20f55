//! `mcp-proxy`'s cost, each figure beside its floor in the same run:
//!
//! * `mcp_proxy_round_trip`: a `ping` and its answer through the proxy
//!   binary (`crate`) and straight to the same server (`baseline`); with
//!   `cargo bench`, the p50 and p99 of 10,000 round trips each are printed
//!   first. The server is this bench binary itself, started with
//!   `TOOL_CARRIER_BENCH_MCP_SERVER=1`: it answers every request with an
//!   empty result, so what is measured is the pipes and the proxy.
//! * `mcp_fit`: a `tools/call` response holding one 2880×1800 screenshot
//!   PNG, prepared for Anthropic's default model by [`fit_message`]
//!   (`crate`), beside the media work alone: base64 decoding, `prepare_for`
//!   and base64 encoding of the same image (`baseline`).
//! * `mcp_forward`: a response of 1 MB of text and no image (lines of text,
//!   and the same text with no escape), planned by [`Calls::from_server`]
//!   and so forwarded as it came (`crate`), beside reading it into a
//!   `serde_json::Value` and writing it again, which a proxy that
//!   re-serialised every message would do (`baseline`).

#[path = "../../tests/media_support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use criterion::{BenchmarkId, Criterion, Throughput};
use serde_json::{json, Value};
use tool_carrier::facts::Facts;
use tool_carrier::mcp::{fit_message, Calls, FitOptions, Method};
use tool_carrier::media::prepare_for;
use tool_carrier::provider::Provider;

const SERVER: &str = "TOOL_CARRIER_BENCH_MCP_SERVER";
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The server: every request answered with an empty result.
fn serve() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let (Some(id), Some(_)) = (message.get("id"), message.get("method")) {
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": {}});
            writeln!(out, "{answer}").unwrap();
            out.flush().unwrap();
        }
    }
}

/// A host's end of a server, through the proxy or not.
struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: String,
    next: u64,
}

impl Host {
    fn start(through_proxy: bool) -> Host {
        let me = std::env::current_exe().unwrap();
        let mut command = if through_proxy {
            let mut c = Command::new(env!("CARGO_BIN_EXE_tool-carrier"));
            c.arg("mcp-proxy").arg("--").arg(me);
            c
        } else {
            Command::new(me)
        };
        let mut child = command
            .env(SERVER, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        Host {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            line: String::new(),
            next: 0,
        }
    }

    fn round_trip(&mut self) {
        self.next += 1;
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(
            stdin,
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}}",
            self.next
        )
        .unwrap();
        stdin.flush().unwrap();
        self.line.clear();
        self.stdout.read_line(&mut self.line).unwrap();
        assert!(
            self.line.starts_with("{\"id\":") || self.line.contains("\"result\""),
            "{}",
            self.line
        );
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The p50 and p99 of `n` round trips of `host`.
fn percentiles(host: &mut Host, n: usize) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            host.round_trip();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[n / 2], times[n * 99 / 100])
}

fn print_percentiles() {
    let (mut direct, mut proxied) = (Host::start(false), Host::start(true));
    for _ in 0..500 {
        direct.round_trip();
        proxied.round_trip();
    }
    let (d50, d99) = percentiles(&mut direct, 10_000);
    let (p50, p99) = percentiles(&mut proxied, 10_000);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!("mcp_proxy round trips (10000 each): direct p50 {:.1} µs p99 {:.1} µs; through the proxy p50 {:.1} µs p99 {:.1} µs", us(d50), us(d99), us(p50), us(p99));
    println!(
        "  added by the proxy: p50 {:.1} µs ({:.2}× direct), p99 {:.1} µs ({:.2}× direct)",
        us(p50) - us(d50),
        us(p50) / us(d50),
        us(p99) - us(d99),
        us(p99) / us(d99)
    );
}

fn round_trips(c: &mut Criterion) {
    let mut group = c.benchmark_group("mcp_proxy_round_trip");
    let mut proxied = Host::start(true);
    group.bench_function(BenchmarkId::new("crate", "ping"), |b| {
        b.iter(|| proxied.round_trip())
    });
    drop(proxied);
    let mut direct = Host::start(false);
    group.bench_function(BenchmarkId::new("baseline", "ping"), |b| {
        b.iter(|| direct.round_trip())
    });
    group.finish();
}

fn fit(c: &mut Criterion) {
    let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, None);
    let png = support::png_rgb(&support::screenshot(2880, 1800, 1));
    let data = B64.encode(&png);
    let message = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [
        {"type": "text", "text": "Captured."},
        {"type": "image", "data": data, "mimeType": "image/png"}
    ]}})
    .to_string();
    let mut group = c.benchmark_group("mcp_fit");
    group
        .sample_size(10)
        .throughput(Throughput::Bytes(message.len() as u64));
    group.bench_function(BenchmarkId::new("crate", "screenshot"), |b| {
        b.iter(|| {
            let fitted = fit_message(&message, Method::ToolsCall, &options);
            assert!(fitted.changed());
            fitted.len()
        })
    });
    group.bench_function(BenchmarkId::new("baseline", "screenshot"), |b| {
        b.iter(|| {
            let bytes = B64.decode(&data).unwrap();
            let p = prepare_for(
                bytes,
                options.policy(),
                options.budget(),
                options.image_types(),
            )
            .unwrap();
            B64.encode(&p.bytes).len()
        })
    });
    group.finish();

    // A tool's output of 1 MB: lines of text (a JSON escape every 30
    // bytes), and the same without line breaks (no escape at all).
    let lines: String = (0..34_000)
        .map(|i| format!("line {i:>6} of the output\\n"))
        .collect();
    let plain = lines.replace("\\n", "; ");
    let mut group = c.benchmark_group("mcp_forward");
    for (case, text) in [("text-1mb-lines", &lines), ("text-1mb-plain", &plain)] {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":9,"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
        );
        group.throughput(Throughput::Bytes(message.len() as u64));
        group.bench_function(BenchmarkId::new("crate", case), |b| {
            b.iter(|| {
                let mut calls = Calls::new();
                calls.from_host(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call"}"#);
                assert!(calls.from_server(&message).is_empty());
            })
        });
        group.bench_function(BenchmarkId::new("baseline", case), |b| {
            b.iter(|| {
                serde_json::from_str::<Value>(&message)
                    .unwrap()
                    .to_string()
                    .len()
            })
        });
    }
    group.finish();
}

fn main() {
    if std::env::var_os(SERVER).is_some() {
        serve();
        return;
    }
    if std::env::args().any(|a| a == "--bench") {
        print_percentiles();
    }
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(5));
    round_trips(&mut c);
    fit(&mut c);
    c.final_summary();
}
