//! What the `responses_*` tests share: their fixtures, a response's record
//! put in a history and converted for each provider, and the pieces the
//! property tests render generated turns with. Included with `#[path]`.
#![allow(dead_code)]

use proptest::prelude::*;
use serde_json::Value;
use tool_carrier::history::{AssistantTurn, ToolResult};
use tool_carrier::import::{read_response, response_form, response_stream, ResponseForm};
use tool_carrier::provider::{build_request, Options, Provider};

/// The text of `tests/data/responses/<folder>/<name>`.
pub fn fixture(folder: &str, name: &str) -> String {
    let path = format!(
        "{}/tests/data/responses/{folder}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The stream of `provider` read from `chunks`, pushed one after another.
pub fn stream_of(
    provider: Provider,
    chunks: &[&[u8]],
) -> Result<AssistantTurn, tool_carrier::import::ResponseError> {
    let mut stream = response_stream(provider).unwrap();
    for chunk in chunks {
        stream.push(chunk)?;
    }
    stream.finish()
}

/// Every way of cutting `bytes` in two gives `expected`, and so does a
/// byte at a time.
pub fn every_split_gives(provider: Provider, bytes: &[u8], expected: &AssistantTurn, name: &str) {
    for cut in 0..=bytes.len() {
        let got = stream_of(provider, &[&bytes[..cut], &bytes[cut..]])
            .unwrap_or_else(|e| panic!("{name} cut at {cut}: {e}"));
        assert_eq!(&got, expected, "{name} cut at {cut}");
    }
    let bytes: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(
        &stream_of(provider, &bytes).unwrap(),
        expected,
        "{name} byte by byte"
    );
}

/// The fixture `name` read the way `import` reads it: its form told by
/// its shape, which must be `form`.
pub fn read_as(provider: Provider, text: &str, form: ResponseForm) -> AssistantTurn {
    assert_eq!(response_form(provider, text), Some(form), "{text}");
    read_response(provider, form, text).unwrap()
}

/// A history where `turn` answers a user and each of its calls gets a
/// result, then the user speaks again.
pub fn history_with(turn: &AssistantTurn) -> Vec<(String, String)> {
    let mut history = vec![("user".to_owned(), "Go on.".to_owned())];
    let record: Value = serde_json::from_str(&turn.to_record()).unwrap();
    history.push((
        "assistant".to_owned(),
        record["content"].as_str().unwrap().to_owned(),
    ));
    for call in turn.calls() {
        let result = ToolResult::new(&call.id, format!("{} done", call.name));
        let record: Value = serde_json::from_str(&result.to_record().unwrap()).unwrap();
        history.push((
            "tool".to_owned(),
            record["content"].as_str().unwrap().to_owned(),
        ));
    }
    history.push(("user".to_owned(), "Thanks.".to_owned()));
    history
}

/// The request body `provider` gets for the history around `turn`.
pub fn converted(provider: Provider, turn: &AssistantTurn) -> String {
    build_request(provider, &history_with(turn), &Options::new())
        .unwrap_or_else(|e| panic!("{provider}: {e}"))
        .json()
        .to_owned()
}

/// Every provider but `own` takes the history around `turn` (each body
/// checks itself against its API's rules before it is returned).
pub fn every_other_provider_takes(own: &[Provider], turn: &AssistantTurn) {
    for provider in Provider::ALL {
        if !own.contains(&provider) {
            converted(provider, turn);
        }
    }
}

/// `text` as a JSON string literal.
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// `text` cut into pieces at the character boundaries `cuts` pick (each
/// taken modulo the length; the pieces join to `text`).
pub fn pieces(text: &str, cuts: &[usize]) -> Vec<String> {
    let bounds: Vec<usize> = (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    let mut at: Vec<usize> = cuts.iter().map(|c| bounds[c % bounds.len()]).collect();
    at.push(0);
    at.push(text.len());
    at.sort_unstable();
    at.dedup();
    at.windows(2).map(|w| text[w[0]..w[1]].to_owned()).collect()
}

/// A JSON value for a call's arguments: numbers of any size and
/// spelling, strings with escapes, arrays and objects.
fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[1-9][0-9]{0,29}".prop_map(|n| n),
        Just("-0.0".to_owned()),
        Just("0.1000".to_owned()),
        "\\PC{0,8}".prop_map(|s| quoted(&s)),
        Just("true".to_owned()),
        Just("null".to_owned()),
    ]
}

/// Arguments as minified JSON object text, keys in the order generated
/// (never sorted), each key once.
pub fn arguments() -> impl Strategy<Value = String> {
    let value = leaf().prop_recursive(2, 8, 3, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(|items| format!("[{}]", items.join(",")))
    });
    prop::collection::vec(("[a-z]{1,6}", value), 0..4).prop_map(|members| {
        let mut seen = std::collections::HashSet::new();
        let members: Vec<String> = members
            .into_iter()
            .rev()
            .filter(|(k, _)| seen.insert(k.clone()))
            .map(|(k, v)| format!("{}:{v}", quoted(&k)))
            .collect();
        format!("{{{}}}", members.join(","))
    })
}

/// Text a model says: not blank (APIs refuse blank text).
pub fn said() -> impl Strategy<Value = String> {
    "\\PC{0,24}".prop_map(|s| format!("A{s}"))
}

/// A call: a name every API takes and arguments.
pub fn call() -> impl Strategy<Value = (String, String)> {
    ("[a-z][a-z_]{0,11}", arguments())
}

/// Cut points for [`pieces`].
pub fn cuts() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..1000, 0..4)
}
