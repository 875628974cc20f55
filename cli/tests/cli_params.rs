//! `convert --param KEY=VALUE` and `--params FILE.json`: the settings land
//! in the body; `--param` overrides the file; a bad key, value or file is
//! exit 2 with a message naming it.

mod common;

use common::run;
use serde_json::Value;

fn convert(args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["convert", "--compact"];
    all.extend_from_slice(args);
    all.push("-");
    let out = run(&all, br#"{"role":"user","content":"hi"}"#);
    let body = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().expect("exited"),
        body,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn params_land_where_the_api_takes_them() {
    let (code, body, err) = convert(&[
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-6",
        "--param",
        "temperature=0.25",
        "--param",
        "stop=END",
        "--param",
        "max_tokens=900",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["stop_sequences"][0], "END");
    assert_eq!(body["max_tokens"], 900);
    // The default model refuses sampling settings; it takes an effort.
    let (code, _, err) = convert(&["--provider", "anthropic", "--param", "temperature=0.25"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("Claude Sonnet 5.5 refuses sampling settings"),
        "{err}"
    );
    let (code, body, err) = convert(&[
        "--provider",
        "anthropic",
        "--param",
        "reasoning_effort=high",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(body["output_config"]["effort"], "high");
    let (code, body, err) = convert(&[
        "--provider",
        "openai-chat",
        "--param",
        "max_tokens=900",
        "--param",
        r#"stop=["a","b"]"#,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(body["max_completion_tokens"], 900);
    assert_eq!(body["stop"][1], "b");
}

#[test]
fn param_overrides_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.json");
    std::fs::write(&file, r#"{"temperature": 0.9, "top_k": 12}"#).unwrap();
    let (code, body, err) = convert(&[
        "--provider",
        "ollama",
        "--params",
        file.to_str().unwrap(),
        "--param",
        "temperature=0.1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(body["options"]["temperature"], 0.1);
    assert_eq!(body["options"]["top_k"], 12);
}

#[test]
fn a_bad_key_value_or_file_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let not_object = dir.path().join("list.json");
    std::fs::write(&not_object, "[1]").unwrap();
    let bad_key = dir.path().join("bad.json");
    std::fs::write(&bad_key, r#"{"temp": 1}"#).unwrap();
    let missing = dir.path().join("missing.json");
    for (args, says) in [
        (vec!["--param", "temprature=1"], "temprature"),
        (vec!["--param", "top_k=high"], "top_k"),
        (vec!["--param", "seed"], "KEY=VALUE"),
        (vec!["--params", not_object.to_str().unwrap()], "object"),
        (vec!["--params", bad_key.to_str().unwrap()], "temp"),
        (vec!["--params", missing.to_str().unwrap()], "missing.json"),
    ] {
        let mut all = vec!["--provider", "anthropic"];
        all.extend_from_slice(&args);
        let (code, _, err) = convert(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn a_setting_the_api_does_not_take_is_exit_2_naming_it() {
    let (code, _, err) = convert(&["--provider", "openai-chat", "--param", "top_k=5"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("top_k") && err.contains("OpenAI"), "{err}");
}

/// A `max_tokens` over the model's documented output limit is exit 2,
/// naming the limit and its page, and nothing is written; for a model the
/// facts do not know it is sent, with a note.
#[test]
fn max_tokens_over_the_models_output_limit_is_exit_2() {
    for provider in [
        "anthropic",
        "openai-chat",
        "openai-responses",
        "gemini",
        "bedrock",
    ] {
        let (code, body, err) =
            convert(&["--provider", provider, "--param", "max_tokens=10000000"]);
        assert_eq!(code, 2, "{provider}: {err}");
        assert_eq!(body, Value::Null, "{provider}: nothing on standard output");
        assert!(
            err.contains("max_tokens 10000000 is over the "),
            "{provider}: {err}"
        );
        assert!(err.contains("-token output limit of "), "{provider}: {err}");
        assert!(err.contains("(https://"), "{provider}: {err}");
    }
    let (code, body, err) = convert(&[
        "--provider",
        "openai-chat",
        "--model",
        "my-finetune",
        "--param",
        "max_tokens=10000000",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(body["max_completion_tokens"], 10_000_000);
    assert!(
        err.contains("max_tokens 10000000: sent as given: the facts hold no output limit for my-finetune to check it against"),
        "{err}"
    );
}
