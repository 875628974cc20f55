//! `convert --detail`, `--cache-ttl`, `--prompt-cache-key` and
//! `--prompt-cache-retention`: what lands in the body, the note where a
//! provider has no such setting, and exit 2 with the reason where the
//! model or the API refuses it.

mod common;

use common::run;
use serde_json::Value;

fn convert(args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["convert", "--compact", "--root", "examples"];
    all.extend_from_slice(args);
    all.push("examples/screenshot-round.jsonl");
    let out = run(&all, b"");
    let body = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().expect("exited"),
        body,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn detail_lands_on_every_image_or_is_noted_or_refused() {
    let (code, body, err) = convert(&["--provider", "openai-responses", "--detail", "low"]);
    assert_eq!(code, 0, "{err}");
    let text = body.to_string();
    assert_eq!(text.matches(r#""detail":"low""#).count(), 2, "{text}");
    let (code, body, err) = convert(&["--provider", "gemini", "--detail", "high"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(body.to_string().matches("MEDIA_RESOLUTION_HIGH").count(), 2);
    let (code, _, err) = convert(&["--provider", "anthropic", "--detail", "low"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("image detail low: no effect: Anthropic has no per-image detail setting"),
        "{err}"
    );
    let (code, _, err) = convert(&[
        "--provider",
        "openai-chat",
        "--model",
        "gpt-5.2",
        "--detail",
        "original",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "gpt-5.2 on openai-chat does not take image detail original: it takes low, high, auto"
        ),
        "{err}"
    );
    let (code, _, err) = convert(&["--provider", "openai-chat", "--detail", "ultra"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn cache_flags_land_where_the_api_takes_them() {
    let (code, body, err) = convert(&[
        "--provider",
        "openai-chat",
        "--prompt-cache-key",
        "agent-7",
        "--prompt-cache-retention",
        "24h",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(body["prompt_cache_key"], "agent-7");
    assert_eq!(body["prompt_cache_retention"], "24h");
    let (code, _, err) = convert(&["--provider", "openai-chat", "--cache-ttl", "1h"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("only Anthropic and Claude on Bedrock take a cache TTL"),
        "{err}"
    );
    let (code, _, err) = convert(&["--provider", "anthropic", "--prompt-cache-key", "k"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("prompt_cache_key"), "{err}");
    // The flag beats a --param of the same key.
    let (code, body, err) = convert(&[
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-5-5",
        "--param",
        "cache_ttl=5m",
        "--cache-ttl",
        "1h",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(body.to_string().contains(r#""ttl":"1h""#), "{body}");
    assert!(!body.to_string().contains(r#""ttl":"5m""#), "{body}");
    // A TTL for breakpoints turned off contradicts itself: refused before
    // anything is read.
    let (code, _, err) = convert(&[
        "--provider",
        "anthropic",
        "--cache-ttl",
        "1h",
        "--no-cache-breakpoints",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}
