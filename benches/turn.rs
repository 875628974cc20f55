//! One more turn of a long agent session, warm: a 200-turn conversation
//! for Anthropic with a 2880×1800 PNG screenshot every other turn (100
//! screenshots, drawn like a desktop), then one more call and its result
//! (the last screenshot attached again, so nothing new is prepared),
//! the request built, checked against the API's rules and serialized.
//!
//! In the same run:
//! * `floor/write`: writing that body's bytes from parts already encoded
//!   (the JSON between the payloads, and each payload's base64 text): no
//!   turn can cost less than producing its bytes.
//! * `crate/conversation`: the turn through a [`Conversation`].
//! * `baseline/build_request+cache`: the same turn through
//!   `build_request` with a warm `MemoryCache` (every prepared screenshot
//!   in it): what an agent did before, which reads and hashes every file.
//! * `cold/one-screenshot`: what the turn's new screenshot costs when it
//!   is new (read, decoded, fitted and encoded), reported apart.
//! * `crate/conversation-file-refs`: the same turn when every screenshot
//!   is a file the agent uploaded to Anthropic's Files API
//!   (`anthropic-file:…` targets): no bytes read, only references written.

#[path = "../tests/media_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use tool_carrier::history::{AssistantTurn, ToolResult};
use tool_carrier::media::{Budget, Loaded, MemoryCache, Origin, Policy};
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::roots::Roots;
use tool_carrier::Attachment;
use tool_carrier::Conversation;

const TURNS: usize = 200;

fn bench(c: &mut Criterion) {
    let dir = screenshots();
    let policy = Policy::default().with_roots(Roots::new([&dir]).unwrap());
    let mut records = vec![("user".to_owned(), "Operate the desktop.".to_owned())];
    for n in 0..TURNS {
        let id = format!("toolu_{n:03}");
        let call = AssistantTurn::new("")
            .call(&id, "screenshot", "{}")
            .unwrap();
        let mut result = ToolResult::new(&id, "Done.");
        if n % 2 == 0 {
            result = result.attach(Attachment::image(name(n / 2)));
        }
        records.push(("assistant".to_owned(), call.to_json()));
        records.push(("tool".to_owned(), result.to_json().unwrap()));
    }
    // The turn measured: one more call, answered with the last screenshot.
    let call = AssistantTurn::new("")
        .call("toolu_next", "screenshot", "{}")
        .unwrap()
        .to_json();
    let result = ToolResult::new("toolu_next", "Done.")
        .attach(Attachment::image(name(TURNS / 2 - 1)))
        .to_json()
        .unwrap();

    let mut conversation = Conversation::new(
        Provider::Anthropic,
        Options::new().with_policy(policy.clone()),
    )
    .with_records(records.clone());
    let cache = Arc::new(MemoryCache::new(1 << 31));
    let cached = Options::new().with_policy(policy.clone()).with_cache(cache);
    // Warm both: every screenshot prepared once.
    let warm = conversation.request().unwrap();
    let base = build_request(Provider::Anthropic, &records, &cached).unwrap();
    assert_eq!(warm.json(), base.json());
    let len = conversation.records().len();
    let turn = |conversation: &mut Conversation| {
        conversation.push("assistant", call.as_str());
        conversation.push("tool", result.as_str());
        let bytes = conversation.request().unwrap().json().len();
        conversation.truncate(len);
        bytes
    };
    let body_len = turn(&mut conversation);
    let mut with_turn = records.clone();
    with_turn.push(("assistant".to_owned(), call.clone()));
    with_turn.push(("tool".to_owned(), result.clone()));
    let body = build_request(Provider::Anthropic, &with_turn, &cached).unwrap();
    assert_eq!(body.json().len(), body_len);
    let parts = Parts::of(body.json());
    eprintln!(
        "turn: body {} bytes, {} images, {} payloads, {} notes",
        body_len,
        body.report.images,
        parts.payloads.len(),
        body.report.notes.len()
    );

    // The same session with every screenshot already uploaded.
    let by_reference = |r: &(String, String)| {
        (
            r.0.clone(),
            r.1.replace(
                "\"target\":\"shot-",
                "\"target\":\"anthropic-file:file_shot-",
            ),
        )
    };
    let file_records: Vec<(String, String)> = records.iter().map(by_reference).collect();
    let file_result = by_reference(&("tool".to_owned(), result.clone())).1;
    assert!(file_result.contains("anthropic-file:"), "{file_result}");
    let mut files = Conversation::new(
        Provider::Anthropic,
        Options::new().with_policy(policy.clone()),
    )
    .with_records(file_records);
    let files_len = files.records().len();
    let file_turn = |conversation: &mut Conversation| {
        conversation.push("assistant", call.as_str());
        conversation.push("tool", file_result.as_str());
        let request = conversation.request().unwrap();
        let out = (request.json().len(), request.report.files);
        conversation.truncate(files_len);
        out
    };
    let (file_body, refs) = file_turn(&mut files);
    assert_eq!(refs, TURNS / 2 + 1);
    eprintln!("turn by file reference: body {file_body} bytes, {refs} file references");

    let mut g = c.benchmark_group("turn_200");
    g.sample_size(10);
    g.bench_function("floor/write", |b| b.iter(|| parts.write().len()));
    g.bench_function("crate/conversation", |b| b.iter(|| turn(&mut conversation)));
    g.bench_function("crate/conversation-file-refs", |b| {
        b.iter(|| file_turn(&mut files))
    });
    g.bench_function("baseline/build_request+cache", |b| {
        b.iter(|| {
            build_request(Provider::Anthropic, &with_turn, &cached)
                .unwrap()
                .json()
                .len()
        })
    });
    let shot = std::fs::read(dir.join(name(0))).unwrap();
    g.bench_function("cold/one-screenshot", |b| {
        b.iter(|| {
            Loaded::new(shot.clone(), Origin::Other)
                .prepare(&policy, Budget::ANTHROPIC)
                .unwrap()
                .bytes
                .len()
        })
    });
    g.finish();
}

/// A body cut at its payloads: the JSON around them, and each payload's
/// base64 text, already encoded.
struct Parts {
    between: Vec<String>,
    payloads: Vec<String>,
}

impl Parts {
    fn of(json: &str) -> Parts {
        let marker = "\"data\":\"";
        let mut between = Vec::new();
        let mut payloads = Vec::new();
        let mut rest = json;
        while let Some(at) = rest.find(marker) {
            let start = at + marker.len();
            let end = start + rest[start..].find('"').unwrap();
            between.push(rest[..start].to_owned());
            payloads.push(rest[start..end].to_owned());
            rest = &rest[end..];
        }
        between.push(rest.to_owned());
        Parts { between, payloads }
    }

    /// The body's bytes, written from the parts into a new buffer.
    fn write(&self) -> String {
        let len = self
            .between
            .iter()
            .chain(&self.payloads)
            .map(String::len)
            .sum();
        let mut out = String::with_capacity(len);
        for (n, between) in self.between.iter().enumerate() {
            out.push_str(between);
            if let Some(payload) = self.payloads.get(n) {
                out.push_str(payload);
            }
        }
        out
    }
}

fn name(n: usize) -> String {
    format!("shot-{n:03}.png")
}

/// The 100 screenshots, under target/ (written once, kept between runs).
fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-turn");
    std::fs::create_dir_all(&dir).unwrap();
    for n in 0..TURNS / 2 {
        let path = dir.join(name(n));
        if !path.exists() {
            support::screenshot(2880, 1800, n as u64)
                .save(&path)
                .unwrap();
        }
    }
    dir.canonicalize().unwrap()
}

criterion_group!(benches, bench);
criterion_main!(benches);
