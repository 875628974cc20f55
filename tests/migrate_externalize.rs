//! `migrate --externalize`: declared `data:` targets become
//! content-addressed files, losslessly and once per distinct payload.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::fs;

use base64::Engine;
use proptest::prelude::*;
use serde_json::json;
use support::{build, history_lines, png};
use tool_carrier::media::store::{file_name, DirStore, InlineStore};
use tool_carrier::media::Policy;
use tool_carrier::migrate::externalize_history;
use tool_carrier::provider::{Options, Provider};
use tool_carrier::roots::Roots;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

fn data_url(bytes: &[u8]) -> String {
    format!("data:image/png;base64,{}", B64.encode(bytes))
}

/// A call and its result declaring `targets`, with an extra member.
fn round(n: usize, targets: &[String]) -> String {
    let attachments: Vec<_> = targets
        .iter()
        .map(|t| json!({"kind": "image", "target": t}))
        .collect();
    let call = json!({"content": null, "tool_calls": [{"id": format!("c{n}"), "name": "shot", "arguments": "{}"}]});
    let result = json!({"tool_call_id": format!("c{n}"), "content": format!("shot {n} \u{e9}"), "ms": 12, "attachments": attachments});
    format!(
        "{}\n{}\n",
        json!({"role": "assistant", "content": call.to_string()}),
        json!({"role": "tool", "content": result.to_string(), "ts": n})
    )
}

fn externalize(
    input: &str,
    dir: &std::path::Path,
) -> (String, tool_carrier::migrate::ExternalizeReport) {
    let mut store = DirStore::new(dir).unwrap();
    let mut out = Vec::new();
    let report = externalize_history(input.as_bytes(), &mut out, &mut store, |_| {}).unwrap();
    (String::from_utf8(out).unwrap(), report)
}

#[test]
fn the_same_screenshot_many_times_is_one_file() {
    let shot = png(64, 40, 3);
    let other = png(8, 8, 4);
    let mut history = String::from("{\"role\":\"user\",\"content\":\"go\"}\n");
    for n in 0..5 {
        history += &round(n, &[data_url(&shot)]);
    }
    history += &round(
        5,
        &[data_url(&other), "shots/kept.png".into(), data_url(&shot)],
    );
    // A prompt carrier whose marker holds a data: target.
    let prompt = format!(
        "[Tool results]\n[Tool attachments: 1]\n[IMAGE:{}]\nfrom the prompt",
        data_url(&shot)
    );
    history += &format!("{}\n", json!({"role": "user", "content": prompt}));
    // Not canonical base64: left inline, with a note.
    history += &round(6, &["data:image/png;base64,AAA".into()]);

    let dir = tempfile::tempdir().unwrap();
    let media = dir.path().join("media");
    let (out, report) = externalize(&history, &media);
    assert_eq!(report.records, 16);
    assert_eq!(report.files_written, 2);
    assert_eq!(report.targets, 8);
    assert_eq!(report.duplicates_folded, 6);
    assert_eq!(report.carriers, 7);
    assert_eq!(report.left.len(), 1);
    let inlined = B64.encode(&shot).len();
    assert!(report.bytes_saved() as usize > 5 * inlined, "{report}");
    assert_eq!(report.bytes_in as usize, history.len());
    assert_eq!(report.bytes_out as usize, out.len());

    // The files hold exactly the decoded bytes, named by their SHA-256.
    let mut names: Vec<String> = fs::read_dir(&media)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut want = vec![file_name(&shot), file_name(&other)];
    want.sort();
    assert_eq!(names, want);
    assert_eq!(fs::read(media.join(file_name(&shot))).unwrap(), shot);
    assert!(!out.contains("base64,iVBOR"));
    assert!(out.contains(&file_name(&shot)) && out.contains("shots/kept.png"));
    assert!(out.contains("data:image/png;base64,AAA"));
    // Everything else of each record is kept: other members, bodies.
    let records = history_lines(&out);
    assert_eq!(records.len(), 16);
    assert!(out.contains("\"ts\":3"));
    assert!(out.contains("\\\"ms\\\":12") && out.contains("shot 2 \u{e9}"));
    assert!(out.contains("from the prompt"));

    // Idempotent: a second run changes nothing and writes nothing.
    let (again, report) = externalize(&out, &media);
    assert_eq!(again, out);
    assert_eq!((report.files_written, report.targets), (0, 0));

    // Lossless: the request built from the files equals the one built from
    // the inline data (Anthropic writes no target names into the body).
    let policy = |roots: &[&std::path::Path]| {
        Options::new().with_policy(Policy::default().with_roots(Roots::new(roots).unwrap()))
    };
    let before = build(
        Provider::Anthropic,
        &history_lines(&history),
        &policy(&[dir.path()]),
    );
    let after = build(Provider::Anthropic, &records, &policy(&[&media]));
    assert_eq!(before.body.to_value(), after.body.to_value());
}

#[test]
fn without_a_folder_targets_are_rewritten_to_canonical_data_urls() {
    // InlineStore gives every payload its sniffed type: a GIF declared as
    // image/png comes out as image/gif, the same bytes.
    let gif = support::GIF;
    let history = round(0, &[data_url(gif)]);
    let mut out = Vec::new();
    externalize_history(history.as_bytes(), &mut out, &mut InlineStore, |_| {}).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(&format!("data:image/gif;base64,{}", B64.encode(gif))),
        "{out}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// For any payloads (repeats included): one file a distinct payload,
    /// holding exactly its bytes; every data: target replaced by the name
    /// of its bytes; a second run changes nothing.
    #[test]
    fn every_payload_is_stored_once_and_exactly(
        payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..64), 1..6),
        picks in prop::collection::vec(0usize..6, 1..12),
    ) {
        let targets: Vec<Vec<u8>> = picks.iter().map(|&i| payloads[i % payloads.len()].clone()).collect();
        let mut history = String::new();
        for (n, bytes) in targets.iter().enumerate() {
            history += &round(n, &[data_url(bytes)]);
        }
        let dir = tempfile::tempdir().unwrap();
        let (out, report) = externalize(&history, dir.path());
        let mut distinct: Vec<&Vec<u8>> = targets.iter().collect();
        distinct.sort();
        distinct.dedup();
        prop_assert_eq!(report.files_written, distinct.len());
        prop_assert_eq!(report.files_written + report.duplicates_folded, targets.len());
        for bytes in &distinct {
            let name = file_name(bytes);
            prop_assert_eq!(&fs::read(dir.path().join(&name)).unwrap(), *bytes);
            prop_assert!(out.contains(&name));
        }
        prop_assert!(!out.contains("data:"));
        let (again, _) = externalize(&out, dir.path());
        prop_assert_eq!(again, out);
    }
}
