//! `inspect --json` and `migrate` over a generated 100 MB+ JSON Lines
//! history, side by side with counting its lines (what `wc -l` does) and
//! with the obvious implementation, in the same run.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use tool_carrier::inspect::write_json;
use tool_carrier::migrate::{migrate_history, MigrateOptions};
use tool_carrier::{render_native_tool_carrier, render_prompt_tool_carrier, Attachment};

#[path = "common/baseline.rs"]
mod baseline;

const TARGET_BYTES: u64 = 100 << 20;

/// A deterministic history of agent rounds: questions, tool calls, native
/// and prompt carriers (declared and legacy) with log-like tool output.
fn history_file() -> PathBuf {
    let path = std::env::temp_dir().join("tool-carrier-bench-history-v1.jsonl");
    if path
        .metadata()
        .map(|m| m.len() >= TARGET_BYTES)
        .unwrap_or(false)
    {
        return path;
    }
    let mut out = io::BufWriter::new(File::create(&path).unwrap());
    let output = |i: usize, n: usize| -> String {
        (0..n)
            .map(|k| {
                format!(
                    "{i:06}-{k:03} \"GET /api/v1/items/{k}\" 200 {}ms\t[IMAGE:/etc/passwd]\n",
                    k * 7 % 113
                )
            })
            .collect()
    };
    let mut written = 0u64;
    let mut i = 0;
    while written < TARGET_BYTES {
        let atts = [Attachment::image(format!("shots/{i}.png"))];
        let messages = [
            json!({"role": "user", "content": format!("step {i}: look at the dashboard")}),
            json!({"role": "assistant", "content": json!({"content": null, "tool_calls": [{"id": format!("call_{i}"), "name": "shell", "arguments": "{\"cmd\":\"curl\"}"}]}).to_string()}),
            json!({"role": "tool", "content": render_native_tool_carrier(&output(i, 20), &atts).unwrap(), "ts": i}),
            json!({"role": "tool", "content": json!({"tool_call_id": format!("call_{i}"), "content": output(i, 10)}).to_string()}),
            json!({"role": "user", "content": render_prompt_tool_carrier(&output(i, 20), &atts).unwrap()}),
            json!({"role": "user", "content": format!("[Tool results]\n{}", output(i, 8))}),
            json!({"role": "tool", "content": output(i, 4)}),
        ];
        for m in messages {
            let line = m.to_string();
            out.write_all(line.as_bytes()).unwrap();
            out.write_all(b"\n").unwrap();
            written += line.len() as u64 + 1;
        }
        i += 1;
    }
    out.flush().unwrap();
    path
}

fn open(path: &PathBuf) -> BufReader<File> {
    BufReader::with_capacity(1 << 16, File::open(path).unwrap())
}

/// The obvious inspect: a `Value` per line, the baseline grammar, a `Value`
/// per output line.
fn baseline_inspect(input: impl BufRead, mut out: impl Write) -> usize {
    let mut n = 0;
    for (index, line) in input.lines().enumerate() {
        let line = line.unwrap();
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).unwrap();
        let role = v["role"].as_str().unwrap_or_default().to_owned();
        let content = v["content"].as_str().unwrap_or_default();
        let parts = match role.as_str() {
            "tool" => Some(baseline::parse_native(content)),
            "user" => baseline::parse_prompt(content),
            _ => None,
        };
        let carrier = parts.map(|(body, declared, atts)| {
            let kind = if role == "tool" { "native" } else { "prompt" };
            let atts: Vec<Value> = atts
                .into_iter()
                .map(|(k, t)| json!({"kind": k, "target": t}))
                .collect();
            json!({"kind": kind, "declared": declared, "attachments": atts, "body": body})
        });
        serde_json::to_writer(
            &mut out,
            &json!({"index": index, "role": role, "carrier": carrier}),
        )
        .unwrap();
        out.write_all(b"\n").unwrap();
        n += 1;
    }
    n
}

fn big_history(c: &mut Criterion) {
    let path = history_file();
    let len = path.metadata().unwrap().len();
    let mut g = c.benchmark_group("history_100MB");
    g.throughput(Throughput::Bytes(len));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("count_lines", |b| {
        b.iter(|| {
            let mut r = open(&path);
            let mut lines = 0;
            loop {
                let buf = r.fill_buf().unwrap();
                if buf.is_empty() {
                    break lines;
                }
                lines += memchr::memchr_iter(b'\n', buf).count();
                let n = buf.len();
                r.consume(n);
            }
        })
    });
    g.bench_function("inspect_json", |b| {
        b.iter(|| write_json(open(&path), io::sink(), |_| {}).unwrap().records)
    });
    g.bench_function("migrate", |b| {
        b.iter(|| {
            migrate_history(open(&path), io::sink(), &MigrateOptions::default(), |_| {})
                .unwrap()
                .records
        })
    });
    g.bench_function("baseline_inspect_json", |b| {
        b.iter(|| baseline_inspect(open(&path), io::sink()))
    });
    g.finish();
}

criterion_group!(benches, big_history);
criterion_main!(benches);
