//! The `media` command's report: the JSON shape of SPEC §6 and the summary
//! for people.

#[path = "../../tests/media_support/mod.rs"]
mod support;

use std::path::Path;

use serde_json::{json, Value};
use support::*;
use tool_carrier::media::{Budget, MediaError, Policy};
use tool_carrier::roots::RootError;
use tool_carrier_cli::report::{describe_file, MediaRefusal};

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<_> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn a_resized_jpeg_reports_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.jpg");
    std::fs::write(&path, jpeg(&photo(400, 300, 1), 95)).unwrap();
    let policy = Policy::default().with_max_dim(200);
    let report = describe_file(&path, &policy, Budget::ANTHROPIC).unwrap();
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(
        keys(&v),
        [
            "base64_len",
            "estimates",
            "final",
            "original",
            "path",
            "reencoded",
            "resized"
        ]
    );
    let original_len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(
        v["original"],
        json!({"media_type": "image/jpeg", "bytes": original_len, "width": 400, "height": 300})
    );
    let final_len = v["final"]["bytes"].as_u64().unwrap();
    assert_eq!(
        v["final"],
        json!({"media_type": "image/jpeg", "bytes": final_len, "width": 200, "height": 150})
    );
    assert_eq!(v["path"], path.display().to_string());
    assert_eq!(v["resized"], true);
    assert_eq!(v["reencoded"], true);
    assert_eq!(v["base64_len"], final_len.div_ceil(3) * 4);
    assert_eq!(
        v["estimates"],
        json!({"chars": 4800, "anthropic_tokens": 8 * 6, "openai_tokens": 255})
    );
    let text = report.to_string();
    assert!(text.contains("image/jpeg, 400×300"), "{text}");
    assert!(text.contains("Sent as image/jpeg, 200×150"), "{text}");
    assert!(text.contains("resized, re-encoded at quality 85"), "{text}");
    assert!(
        text.contains("~48 Anthropic tokens, ~255 OpenAI tokens"),
        "{text}"
    );
}

#[test]
fn a_small_png_is_reported_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.png");
    std::fs::write(&path, png_rgb(&photo(64, 32, 2))).unwrap();
    let report = describe_file(&path, &Policy::default(), Budget::ANTHROPIC).unwrap();
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(v["original"], v["final"]);
    assert_eq!(
        (v["resized"].as_bool(), v["reencoded"].as_bool()),
        (Some(false), Some(false))
    );
    assert!(report.to_string().contains("Sent unchanged"));
}

#[test]
fn a_pdf_has_null_sizes_and_token_estimates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.pdf");
    std::fs::write(
        &path,
        b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n",
    )
    .unwrap();
    let v =
        serde_json::to_value(describe_file(&path, &Policy::default(), Budget::ANTHROPIC).unwrap())
            .unwrap();
    assert_eq!(
        v["final"],
        json!({"media_type": "application/pdf", "bytes": 68, "width": null, "height": null})
    );
    assert_eq!(
        v["estimates"],
        json!({"chars": 4800, "anthropic_tokens": null, "openai_tokens": null})
    );
}

#[test]
fn a_refused_file_reports_path_and_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.png");
    std::fs::write(&path, b"hello").unwrap();
    let err = describe_file(&path, &Policy::default(), Budget::ANTHROPIC).unwrap_err();
    assert!(matches!(err, MediaError::UnknownFormat));
    let refusal = MediaRefusal::new(&path, &err);
    assert_eq!(
        serde_json::to_value(&refusal).unwrap(),
        json!({"path": path.display().to_string(), "error": "not a supported image or PDF (unrecognised bytes)"})
    );
    assert!(refusal
        .to_string()
        .ends_with(": refused: not a supported image or PDF (unrecognised bytes)"));
}

#[test]
fn command_line_paths_are_not_confined_but_must_be_regular_files() {
    // No roots configured, yet a path given on the command line is read.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.gif");
    std::fs::write(&path, gif(10, 10, 1)).unwrap();
    assert!(describe_file(&path, &Policy::default(), Budget::ANTHROPIC).is_ok());
    let err = describe_file(dir.path(), &Policy::default(), Budget::ANTHROPIC).unwrap_err();
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::NotARegularFile(_),
            ..
        }
    ));
    let err = describe_file(
        Path::new("/nonexistent/x.png"),
        &Policy::default(),
        Budget::ANTHROPIC,
    )
    .unwrap_err();
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::Unresolvable(_),
            ..
        }
    ));
}
