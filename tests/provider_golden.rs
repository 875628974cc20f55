//! Golden request bodies: each provider, on the shipped example histories
//! and the edge cases, with the images and PDFs they name written at test
//! time. The output must equal `tests/golden/PROVIDER__CASE.json` as a JSON
//! value, and two builds must give the same bytes.
//!
//! After an intended change, regenerate with
//! `UPDATE_GOLDEN=1 cargo test --test provider_golden` and review the diff.
//! `.ci/conformance` validates these same files with each provider's SDK.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::fs;

use serde_json::Value;

use support::{history, manifest_dir, Fixture};
use tool_carrier::facts::{Detail, Profile};
use tool_carrier::media::{ProviderFile, Uploads};
use tool_carrier::provider::{CacheTtl, Extra, Params, Provider, Tools};

/// (case name, history file, vision on, tool definitions)
const CASES: &[(&str, &str, bool, Option<&str>)] = &[
    ("history", "examples/history.jsonl", true, None),
    (
        "screenshot-round",
        "examples/screenshot-round.jsonl",
        true,
        None,
    ),
    (
        "screenshot-round-tools",
        "examples/screenshot-round.jsonl",
        true,
        Some("examples/tools.json"),
    ),
    (
        "screenshot-round-no-vision",
        "examples/screenshot-round.jsonl",
        false,
        None,
    ),
    ("edge-cases", "tests/golden/edge-cases.jsonl", true, None),
    // Turns read from responses, with what each provider keeps of its
    // own: Bedrock's signed reasoning, Ollama's thinking.
    (
        "kept-reasoning",
        "tests/golden/kept-reasoning.jsonl",
        true,
        None,
    ),
    // A failed tool call beside one that worked, each with an image: the
    // error flag as each API spells it (Anthropic `is_error`, Bedrock
    // `status`, Gemini's `error` key; a note elsewhere).
    ("failed-tool", "tests/golden/failed-tool.jsonl", true, None),
    // The user's own screenshot and PDF (their record's `attachments`)
    // beside a tool's screenshot, and a later pasted image alone: each
    // sent in the user's turn, fitted like the tool's.
    ("user-pasted", "tests/golden/user-pasted.jsonl", true, None),
    // The caller's cache marks (`"cache": true`) on the system record, on
    // an attachment of the user's, on one inside a tool result and on the
    // last user record: a breakpoint after each where the model caches at
    // marks (Claude) or takes explicit ones (Responses' GPT-5.6), none
    // elsewhere.
    ("cache-marks", "tests/golden/cache-marks.jsonl", true, None),
    // A full-size screenshot (a Retina laptop's 2880×1800), sent at the
    // size each provider's default model processes.
    (
        "retina-screenshot",
        "tests/golden/retina-screenshot.jsonl",
        true,
        None,
    ),
    // Attachments declared with their original file names (a PDF stored
    // under its content hash among them), and a prompt carrier whose
    // marker lines can name none: the names reach each provider's file
    // name fields and every label, and no label shows a hash.
    ("named-pdf", "tests/golden/named-pdf.jsonl", true, None),
    // A 500-page PDF in an earlier round beside a 30-page one in a later
    // round: over the 100 pages a request of OpenAI or Bedrock takes, the
    // older is left out with a note; Anthropic's default model (600) and
    // Gemini (1000) take both.
    ("pdf-pages", "tests/golden/pdf-pages.jsonl", true, None),
    // Files the providers hold (`anthropic-file:`, `openai-file:`,
    // `gemini-file:`, `bedrock-file:`), and a local image the uploads map
    // names for every holder: each provider refers to its own files and
    // says in a note that it cannot read the others' (Bedrock with Nova,
    // the family that reads S3 media).
    (
        "file-references",
        "tests/golden/file-references.jsonl",
        true,
        None,
    ),
];

/// Image detail levels (`Options::with_detail`) on the full-size
/// screenshot: (provider, model or the default, level). Each is written to
/// `PROVIDER__detail-LEVEL.json`: the `detail` or media resolution on every
/// image, and the image fitted to the level's size (GPT-5.5 at `low`: the
/// 512 px version; at `high`: 2,500 patches and 2048 px; GPT-5.4 at
/// `original`: 10,000 patches and 6000 px, so only the default policy's
/// 2000 px ceiling applies, as at `auto`).
const DETAIL_CASES: &[(Provider, Option<&str>, Detail)] = &[
    (Provider::OpenAiChat, None, Detail::Low),
    (Provider::OpenAiResponses, None, Detail::High),
    (Provider::OpenAiResponses, Some("gpt-5.4"), Detail::Original),
    (Provider::Gemini, None, Detail::Low),
    (Provider::Gemini, None, Detail::Original),
];

/// A one-hour cache TTL (`Options::with_cache_ttl`) on a history whose
/// system text (6,658 characters, 1,664 tokens at four characters a
/// token) is past the model's minimum
/// cacheable prefix (1,024 for both models): every breakpoint carries the
/// TTL. (provider, model)
const CACHE_TTL_CASES: &[(Provider, &str)] = &[
    (Provider::Anthropic, "claude-sonnet-4-6"),
    (Provider::Bedrock, "us.anthropic.claude-sonnet-5"),
];

fn cache_ttl_golden_name(provider: Provider) -> String {
    format!("{}__cache-ttl-1h.json", provider.name())
}

fn settings_golden_name(provider: Provider) -> String {
    format!("{}__settings.json", provider.name())
}

/// Every setting of #45 each API takes (structured outputs too) (a named tool where the API takes
/// one, else `required`), and an extra member its SDK lists:
/// (provider, params as `--params` reads them, extra members).
fn settings_cases() -> Vec<(Provider, Value, Value)> {
    use serde_json::json;
    use Provider::*;
    // A schema every API with structured outputs takes as it is (each
    // object closed, every property required: OpenAI's strict subset).
    let format = json!({"name": "verdict", "description": "Whether the dashboard recovered",
        "schema": {"type": "object", "additionalProperties": false,
                   "properties": {"recovered": {"type": "boolean"}, "summary": {"type": "string"}},
                   "required": ["recovered", "summary"]}});
    let strict = {
        let mut f = format.clone();
        f["strict"] = json!(true);
        f
    };
    let gemini = json!({"stream": true, "store": false, "service_tier": "flex",
                        "tool_choice": {"tool": "screenshot"}, "response_format": format});
    vec![
        (
            Anthropic,
            json!({"stream": true, "parallel_tool_calls": false, "service_tier": "standard_only",
                   "tool_choice": {"tool": "screenshot"}, "user": "u-7",
                   "response_format": format}),
            json!({"inference_geo": "us"}),
        ),
        (
            OpenAiChat,
            json!({"stream": true, "store": false, "parallel_tool_calls": false,
                   "service_tier": "flex", "verbosity": "low", "tool_choice": "required",
                   "user": "u-7", "metadata": {"run": "nightly"}, "response_format": strict}),
            json!({"logprobs": true}),
        ),
        (
            OpenAiResponses,
            json!({"stream": true, "store": false, "parallel_tool_calls": false,
                   "service_tier": "priority", "verbosity": "low", "reasoning_summary": "concise",
                   "reasoning_effort": "low", "tool_choice": {"tool": "screenshot"},
                   "user": "u-7", "metadata": {"run": "nightly"}, "response_format": strict}),
            json!({"truncation": "auto"}),
        ),
        (
            Gemini,
            gemini.clone(),
            json!({"generationConfig": {"candidateCount": 1}}),
        ),
        (
            Gemini2,
            gemini,
            json!({"generationConfig": {"candidateCount": 1}}),
        ),
        (
            Bedrock,
            json!({"stream": true, "service_tier": "flex", "tool_choice": "required",
                   "metadata": {"run": "nightly"}, "response_format": format}),
            json!({"performanceConfig": {"latency": "standard"}}),
        ),
        (
            Ollama,
            json!({"stream": true, "response_format": format}),
            json!({"keep_alive": "5m"}),
        ),
        // No SDK's tables: a server's own member passes as given.
        (
            OpenAiCompatible,
            json!({"stream": true}),
            json!({"repetition_penalty": 1.1}),
        ),
    ]
}

fn detail_golden_name(provider: Provider, detail: Detail) -> String {
    format!("{}__detail-{detail}.json", provider.name())
}

/// The stored PDF `named-pdf.jsonl` declares by a content-hash name.
const HASHED_PDF: &str =
    "media/11a6ea670000000000000000000000000000000000000000000000000c5dae31.pdf";

/// `shots/small.png` of the fixture, uploaded to every holder.
fn small_png_uploads() -> Uploads {
    let bytes = support::png(4, 3, 4);
    let mut uploads = Uploads::new();
    for target in [
        "anthropic-file:file_011CUploadedSmallPng",
        "openai-file:file-UploadedSmallPng",
        "gemini-file:https://generativelanguage.googleapis.com/v1beta/files/small",
        "bedrock-file:s3://agent-uploads/shots/small.png",
    ] {
        let file = ProviderFile::parse(target).unwrap().unwrap();
        uploads = uploads.with(&bytes, file).unwrap();
    }
    uploads
}

/// The JSON Pointer of the first place where `a` and `b` differ.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(p, q, format!("{at}/{k}")),
                _ => Some(format!("{at}/{k}")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, format!("{at}/{i}"))),
        _ => (a != b).then_some(at),
    }
}

fn shown(v: Option<&Value>) -> String {
    let text = v.map_or("<absent>".to_owned(), Value::to_string);
    text.chars().take(200).collect()
}

/// `got` against `tests/golden/FILE` as JSON values: the first place they
/// differ, labelled; with `UPDATE_GOLDEN` set, `got` is written instead.
fn compare(file: &str, got: &[u8], label: &str) -> Option<String> {
    let file = manifest_dir().join("tests/golden").join(file);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        fs::write(&file, got).unwrap();
        return None;
    }
    let want = fs::read(&file)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", file.display()));
    let got: Value = serde_json::from_slice(got).unwrap();
    let want: Value = serde_json::from_slice(&want).unwrap();
    let at = first_difference(&got, &want, String::new())?;
    Some(format!(
        "{label}: differs from {} at {at}:\n  got:  {}\n  want: {}",
        file.display(),
        shown(got.pointer(&at)),
        shown(want.pointer(&at)),
    ))
}

fn golden(provider: Provider) {
    let mut failures = Vec::new();
    for &(case, path, vision, tools) in CASES {
        let fixture = Fixture::new();
        if case == "retina-screenshot" {
            fixture.add("shots/retina.png", &support::png(2880, 1800, 7));
        }
        if case == "named-pdf" {
            fixture.add(HASHED_PDF, &support::pdf("Invoice 7"));
        }
        let mut options = fixture.options().with_vision(vision);
        if case == "file-references" {
            options = options.with_uploads(small_png_uploads());
            // Of Bedrock's models only Nova reads media from S3.
            if provider == Provider::Bedrock {
                options = options.with_model("us.amazon.nova-pro-v1:0");
            }
        }
        // Of OpenAI's models GPT-5.6 and later take explicit breakpoints.
        if case == "cache-marks" && provider == Provider::OpenAiResponses {
            options = options.with_model("gpt-5.6");
        }
        if let Some(tools) = tools {
            let text = fs::read_to_string(manifest_dir().join(tools)).unwrap();
            options = options.with_tools(Tools::from_json(&text).unwrap());
        }
        let request = support::build(provider, &history(path), &options);
        let mut got = Vec::new();
        request.write_pretty(&mut got).unwrap();
        // Deterministic: the same input gives the same bytes.
        let mut again = Vec::new();
        support::build(provider, &history(path), &options)
            .write_pretty(&mut again)
            .unwrap();
        assert!(got == again, "{case}: two builds differ");
        let file = format!("{}__{case}.json", provider.name());
        failures.extend(compare(&file, &got, case));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn anthropic_bodies_match_the_golden_files() {
    golden(Provider::Anthropic);
}

#[test]
fn openai_chat_bodies_match_the_golden_files() {
    golden(Provider::OpenAiChat);
}

#[test]
fn openai_responses_bodies_match_the_golden_files() {
    golden(Provider::OpenAiResponses);
}

#[test]
fn gemini_bodies_match_the_golden_files() {
    golden(Provider::Gemini);
}

#[test]
fn gemini_2_bodies_match_the_golden_files() {
    golden(Provider::Gemini2);
}

#[test]
fn bedrock_bodies_match_the_golden_files() {
    golden(Provider::Bedrock);
}

#[test]
fn ollama_bodies_match_the_golden_files() {
    golden(Provider::Ollama);
}

#[test]
fn openai_compatible_bodies_match_the_golden_files() {
    golden(Provider::OpenAiCompatible);
}

/// `openai-compatible-NAME__screenshot-round.json` for each built-in
/// profile (the generic one is `openai-compatible__…` above).
fn profile_golden_name(profile: &str) -> String {
    format!("openai-compatible-{profile}__screenshot-round.json")
}

#[test]
fn each_builtin_profile_matches_its_golden_file() {
    let mut failures = Vec::new();
    for name in Profile::BUILTIN.into_iter().filter(|n| *n != "generic") {
        let fixture = Fixture::new();
        let options = fixture
            .options()
            .with_profile(Profile::builtin(name).unwrap());
        let path = "examples/screenshot-round.jsonl";
        let request = support::build(Provider::OpenAiCompatible, &history(path), &options);
        let mut got = Vec::new();
        request.write_pretty(&mut got).unwrap();
        failures.extend(compare(&profile_golden_name(name), &got, name));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn detail_levels_match_their_golden_files() {
    let mut failures = Vec::new();
    for &(provider, model, detail) in DETAIL_CASES {
        let fixture = Fixture::new();
        fixture.add("shots/retina.png", &support::png(2880, 1800, 7));
        let mut options = fixture.options().with_detail(detail);
        if let Some(model) = model {
            options = options.with_model(model);
        }
        let path = "tests/golden/retina-screenshot.jsonl";
        let request = support::build(provider, &history(path), &options);
        assert!(
            request.report.setting_notes.is_empty(),
            "{provider} {detail}"
        );
        let mut got = Vec::new();
        request.write_pretty(&mut got).unwrap();
        let file = detail_golden_name(provider, detail);
        failures.extend(compare(&file, &got, &file));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_cache_ttl_matches_its_golden_files() {
    let mut failures = Vec::new();
    for &(provider, model) in CACHE_TTL_CASES {
        let fixture = Fixture::new();
        let options = fixture
            .options()
            .with_model(model)
            .with_cache_ttl(CacheTtl::OneHour);
        let request = support::build(
            provider,
            &history("tests/golden/long-prefix.jsonl"),
            &options,
        );
        let mut got = Vec::new();
        request.write_pretty(&mut got).unwrap();
        let file = cache_ttl_golden_name(provider);
        failures.extend(compare(&file, &got, &file));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn settings_and_extra_members_match_their_golden_files() {
    let mut failures = Vec::new();
    for (provider, params, extra) in settings_cases() {
        let fixture = Fixture::new();
        let text = fs::read_to_string(manifest_dir().join("examples/tools.json")).unwrap();
        let mut extras = Extra::new();
        for (name, value) in extra.as_object().unwrap() {
            extras = extras.with(name, value.clone()).unwrap();
        }
        let options = fixture
            .options()
            .with_tools(Tools::from_json(&text).unwrap())
            .with_params(Params::from_json(&params).unwrap())
            .with_extra(extras);
        let path = "examples/screenshot-round.jsonl";
        let request = support::build(provider, &history(path), &options);
        let mut got = Vec::new();
        request.write_pretty(&mut got).unwrap();
        // Indented or not, the same members.
        let compact: Value = serde_json::from_str(request.json()).unwrap();
        assert_eq!(compact, serde_json::from_slice::<Value>(&got).unwrap());
        let file = settings_golden_name(provider);
        failures.extend(compare(&file, &got, &file));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_golden_file_belongs_to_a_case() {
    let mut expected: Vec<String> = Provider::ALL
        .iter()
        .flat_map(|p| {
            CASES
                .iter()
                .map(move |(case, ..)| format!("{}__{case}.json", p.name()))
        })
        .chain(
            Profile::BUILTIN
                .into_iter()
                .filter(|n| *n != "generic")
                .map(profile_golden_name),
        )
        .chain(
            DETAIL_CASES
                .iter()
                .map(|&(provider, _, detail)| detail_golden_name(provider, detail)),
        )
        .chain(
            CACHE_TTL_CASES
                .iter()
                .map(|&(provider, _)| cache_ttl_golden_name(provider)),
        )
        .chain(
            settings_cases()
                .into_iter()
                .map(|(p, ..)| settings_golden_name(p)),
        )
        .collect();
    expected.sort();
    let mut found: Vec<String> = fs::read_dir(manifest_dir().join("tests/golden"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    found.sort();
    if std::env::var_os("UPDATE_GOLDEN").is_none() {
        assert_eq!(found, expected);
    }
}

#[test]
fn the_same_history_gives_the_same_bytes() {
    for provider in Provider::ALL {
        let build = || {
            let fixture = Fixture::new();
            let request = support::build(
                provider,
                &history("examples/history.jsonl"),
                &fixture.options(),
            );
            let mut out = Vec::new();
            request.write_compact(&mut out).unwrap();
            out
        };
        assert_eq!(build(), build(), "{provider}");
    }
}
