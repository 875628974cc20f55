//! Responses of any shape, for every API whose responses are read (the
//! first byte picks the provider): reading a body or a stream never
//! panics; a stream gives the same record (or the same refusal) however
//! its bytes are split; and a record read back converts for its provider.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::import::{from_response, response_stream};
use tool_carrier::provider::{build_request, Options, Provider};

/// The stream read from `chunks`, as the record's JSON or the error's text.
fn read(provider: Provider, chunks: &[&[u8]]) -> Result<String, String> {
    let mut stream = response_stream(provider).map_err(|e| e.to_string())?;
    for chunk in chunks {
        stream.push(chunk).map_err(|e| e.to_string())?;
    }
    stream
        .finish()
        .map(|turn| turn.to_json())
        .map_err(|e| e.to_string())
}

fuzz_target!(|input: &[u8]| {
    let Some((&pick, data)) = input.split_first() else {
        return;
    };
    let provider = Provider::ALL[usize::from(pick) % Provider::ALL.len()];
    if response_stream(provider).is_err() {
        return;
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(turn) = from_response(provider, text) {
            let history = vec![
                ("user".to_owned(), "Go.".to_owned()),
                ("assistant".to_owned(), turn.to_json()),
            ];
            let _ = build_request(provider, &history, &Options::new());
        }
    }
    let whole = read(provider, &[data]);
    let cut = data.first().map_or(0, |b| usize::from(*b)) % (data.len() + 1);
    let (a, b) = data.split_at(cut);
    let split = read(provider, &[a, b]);
    assert_eq!(whole.is_ok(), split.is_ok(), "{whole:?} / {split:?}");
    if whole.is_ok() {
        assert_eq!(whole, split);
    }
});
