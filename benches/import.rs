//! Reading request bodies back into carrier histories (`import`), for
//! every API: a text history of 2,000 tool rounds, written by the crate for
//! each API and read back; and the Anthropic body of 30 screenshots (about
//! 60 MB of base64), where decoding the payloads is most of the work. The
//! store only counts the bytes, so what is measured is the reading.

#[path = "../tests/media_support/mod.rs"]
mod support;

use std::io;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tool_carrier::import::{from_provider, ImportOptions};
use tool_carrier::media::store::{MediaStore, Stored};
use tool_carrier::media::Policy;
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::roots::Roots;

/// Counts what it is given and keeps nothing.
struct Counting(usize);

impl MediaStore for Counting {
    fn put(&mut self, bytes: &[u8]) -> io::Result<Stored> {
        self.0 += bytes.len();
        Ok(Stored {
            target: format!("m{}.png", self.0),
            written: true,
        })
    }
}

fn round(n: u32, attachment: Option<&str>) -> [(String, String); 2] {
    let call = format!(
        r#"{{"content":"Looking at step {n}.","tool_calls":[{{"id":"c{n}","name":"read_file","arguments":"{{\"path\":\"src/f{n}.rs\"}}"}}]}}"#
    );
    let attachments = attachment.map_or(String::new(), |name| {
        format!(r#","attachments":[{{"kind":"image","target":"{name}"}}]"#)
    });
    let result = format!(
        r#"{{"tool_call_id":"c{n}","content":"fn f{n}() {{ /* {} */ }}"{attachments}}}"#,
        "x".repeat(200)
    );
    [("assistant".to_owned(), call), ("tool".to_owned(), result)]
}

fn bench(c: &mut Criterion) {
    let mut text = vec![("system".to_owned(), "You edit code.".to_owned())];
    for n in 0..2000 {
        text.extend(round(n, None));
    }
    let mut g = c.benchmark_group("import_text_2000_rounds");
    g.sample_size(10);
    for provider in [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
        Provider::Bedrock,
        Provider::Ollama,
    ] {
        let body = build_request(provider, &text, &Options::new())
            .unwrap()
            .body
            .to_value();
        g.throughput(Throughput::Bytes(body.to_string().len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(provider), &body, |b, body| {
            b.iter(|| {
                from_provider(provider, body, &mut Counting(0), &ImportOptions::default()).unwrap()
            })
        });
    }
    g.finish();

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-import");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let mut shots = vec![("system".to_owned(), "You operate a desktop.".to_owned())];
    for n in 0..30u32 {
        let name = format!("shot-{n:02}.png");
        support::screenshot(2880, 1800, u64::from(n))
            .save(dir.join(&name))
            .unwrap();
        shots.extend(round(n, Some(&name)));
    }
    let policy = Policy::default().with_roots(Roots::new([&dir]).unwrap());
    let body = build_request(
        Provider::Anthropic,
        &shots,
        &Options::new().with_policy(policy),
    )
    .unwrap()
    .body
    .to_value();
    let mut g = c.benchmark_group("import_30_screenshots");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(body.to_string().len() as u64));
    g.bench_function("anthropic", |b| {
        b.iter(|| {
            from_provider(
                Provider::Anthropic,
                &body,
                &mut Counting(0),
                &ImportOptions::default(),
            )
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
