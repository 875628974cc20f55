//! Converting one history whose rounds reuse their call ids (`call_1` …
//! `call_5` every round, as agents that number calls per turn write them)
//! against the same history with an id of its own for every call, in the
//! same run: every call still gets an id unique in the request, and the
//! search for a free one must not grow with the rounds before it. The
//! ratio repeated / unique is the figure (it was 114× at 32,000 records
//! before the search resumed where it stopped).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tool_carrier::provider::{build_request, Options, Provider};

/// `records` messages: an opening question, then rounds of one assistant
/// message with five calls and the five results.
fn history(records: usize, repeated: bool) -> Vec<(String, String)> {
    let mut out = vec![("user".to_owned(), "Read the files.".to_owned())];
    let mut round = 0;
    while out.len() < records {
        let id = |k: usize| {
            if repeated {
                format!("call_{k}")
            } else {
                format!("call_{round}_{k}")
            }
        };
        let calls: Vec<String> = (1..=5)
            .map(|k| {
                format!(
                    r#"{{"id":"{}","name":"read_file","arguments":"{{\"path\":\"f{k}.txt\"}}"}}"#,
                    id(k)
                )
            })
            .collect();
        out.push((
            "assistant".to_owned(),
            format!(
                r#"{{"content":"Round {round}.","tool_calls":[{}]}}"#,
                calls.join(",")
            ),
        ));
        for k in 1..=5 {
            out.push((
                "tool".to_owned(),
                format!(
                    r#"{{"tool_call_id":"{}","content":"line one of f{k}.txt\nline two"}}"#,
                    id(k)
                ),
            ));
        }
        round += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let options = Options::new().with_vision(false);
    let mut g = c.benchmark_group("ids");
    g.sample_size(10);
    for records in [8_000, 32_000] {
        let unique = history(records, false);
        let repeated = history(records, true);
        g.throughput(Throughput::Elements(records as u64));
        // `baseline/N`: unique ids; `crate/N`: the same history reusing
        // them (so benches/ratios.py pairs the two).
        g.bench_with_input(BenchmarkId::new("baseline", records), &unique, |b, h| {
            b.iter(|| build_request(Provider::OpenAiChat, h, &options).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("crate", records), &repeated, |b, h| {
            b.iter(|| build_request(Provider::OpenAiChat, h, &options).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
