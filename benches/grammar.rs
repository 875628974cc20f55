//! The grammar on its hot path, side by side with the obvious
//! implementation (`common/baseline.rs`) in the same run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tool_carrier::{
    classify, is_tool_result_carrier, parse_native_tool_carrier, parse_prompt_tool_carrier,
    rebuild_carrier, render_native_tool_carrier, render_prompt_tool_carrier, Attachment,
};

#[path = "common/baseline.rs"]
mod baseline;

const SIZES: [(&str, usize); 3] = [("1KB", 1 << 10), ("1MB", 1 << 20), ("10MB", 10 << 20)];

/// Tool output of `len` bytes: log-like lines, with (escaped) or without
/// characters that JSON must escape.
fn body(len: usize, escaped: bool) -> String {
    let line = if escaped {
        "\t\"GET /api/v1/items\" 200 12ms \\ ok\n"
    } else {
        "GET /api/v1/items 200 12ms ok [IMAGE:/etc/passwd] 0123456789 "
    };
    line.repeat(len / line.len() + 1)[..len].to_owned()
}

fn atts() -> Vec<Attachment<'static>> {
    vec![
        Attachment::image("shots/a.png"),
        Attachment::image("shots/b.png"),
    ]
}

fn history() -> Vec<(String, String)> {
    let mut h = Vec::new();
    for i in 0..10_000 {
        let (role, content) = match i % 5 {
            0 => ("user", format!("question {i}")),
            1 => ("assistant", format!("answer {i} with some text")),
            2 => (
                "tool",
                render_native_tool_carrier(&body(400, true), &atts()).unwrap(),
            ),
            3 => (
                "user",
                render_prompt_tool_carrier(&body(400, false), &atts()).unwrap(),
            ),
            _ => ("tool", format!("raw output {i}")),
        };
        h.push((role.to_owned(), content));
    }
    h
}

fn classify_history(c: &mut Criterion) {
    let h = history();
    let bytes: usize = h.iter().map(|(_, c)| c.len()).sum();
    let mut g = c.benchmark_group("history_10k");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("is_tool_result_carrier", |b| {
        b.iter(|| {
            h.iter()
                .filter(|(r, c)| is_tool_result_carrier(r, c))
                .count()
        })
    });
    g.bench_function("classify", |b| {
        b.iter(|| {
            h.iter()
                .filter_map(|(r, c)| classify(r, c))
                .map(|p| p.attachments.len())
                .sum::<usize>()
        })
    });
    g.bench_function("baseline_classify", |b| {
        b.iter(|| {
            h.iter()
                .filter_map(|(r, c)| match r.as_str() {
                    "tool" => Some(baseline::parse_native(c)),
                    "user" => baseline::parse_prompt(c),
                    _ => None,
                })
                .map(|p| p.2.len())
                .sum::<usize>()
        })
    });
    g.finish();
}

fn prompt_parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("prompt_parse");
    for (name, len) in SIZES {
        let carrier = render_prompt_tool_carrier(&body(len, false), &atts()).unwrap();
        g.throughput(Throughput::Bytes(carrier.len() as u64));
        g.bench_with_input(BenchmarkId::new("crate", name), &carrier, |b, c| {
            b.iter(|| parse_prompt_tool_carrier(black_box(c)).unwrap().body.len())
        });
        g.bench_with_input(BenchmarkId::new("baseline", name), &carrier, |b, c| {
            b.iter(|| baseline::parse_prompt(black_box(c)).unwrap().0.len())
        });
    }
    g.finish();
}

fn native_parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("native_parse");
    for escaped in [false, true] {
        for (name, len) in SIZES {
            let env = format!(
                "{{\"tool_call_id\":\"call_1\",\"content\":{},\"attachments\":[{{\"kind\":\"image\",\"target\":\"shots/a.png\"}}]}}",
                serde_json::to_string(&body(len, escaped)).unwrap()
            );
            let label = format!("{name}{}", if escaped { "_escaped" } else { "" });
            g.throughput(Throughput::Bytes(env.len() as u64));
            g.bench_with_input(BenchmarkId::new("crate", &label), &env, |b, e| {
                b.iter(|| parse_native_tool_carrier(black_box(e)).body.len())
            });
            g.bench_with_input(BenchmarkId::new("baseline", &label), &env, |b, e| {
                b.iter(|| baseline::parse_native(black_box(e)).0.len())
            });
        }
    }
    g.finish();
}

fn native_rebuild(c: &mut Criterion) {
    let mut g = c.benchmark_group("native_rebuild");
    let new = vec![Attachment::image("shots/c.png")];
    let new_base = vec![("image".to_owned(), "shots/c.png".to_owned())];
    for escaped in [false, true] {
        for (name, len) in SIZES {
            let env = format!(
                "{{\"tool_call_id\": \"call_1\", \"content\": {}, \"exit\": 0, \"attachments\": []}}",
                serde_json::to_string(&body(len, escaped)).unwrap()
            );
            let label = format!("{name}{}", if escaped { "_escaped" } else { "" });
            g.throughput(Throughput::Bytes(env.len() as u64));
            g.bench_with_input(BenchmarkId::new("crate", &label), &env, |b, e| {
                b.iter(|| {
                    let parts = parse_native_tool_carrier(black_box(e));
                    rebuild_carrier("tool", e, &parts, &new).unwrap().len()
                })
            });
            g.bench_with_input(BenchmarkId::new("baseline", &label), &env, |b, e| {
                b.iter(|| {
                    let parts = baseline::parse_native(black_box(e));
                    baseline::rebuild_native(e, &parts.0, &new_base).len()
                })
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = classify_history, prompt_parse, native_parse, native_rebuild
}
criterion_main!(benches);
