//! Every recorded response of every API (`tests/data/responses/PROVIDER/`)
//! told apart from a request body by its shape, read into an assistant
//! record, answered with a result for each call, and converted for every
//! provider: each body passes the rules (`build_request` checks them), and
//! with `TOOL_CARRIER_CONFORMANCE_OUT=DIR` is written there for the
//! conformance step to validate with the SDKs' request types.
#![cfg(feature = "media")]

use std::path::Path;

use tool_carrier::history::ToolResult;
use tool_carrier::import::{read_response, response_form, ResponseError};
use tool_carrier::provider::{build_request, Options, Provider};

/// `(provider, file name, text)` of every recorded response.
fn recorded() -> Vec<(Provider, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/responses");
    let mut out = Vec::new();
    for folder in std::fs::read_dir(&root).unwrap() {
        let folder = folder.unwrap().path();
        let name = folder.file_name().unwrap().to_str().unwrap().to_owned();
        let provider: Provider = name.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
        for file in std::fs::read_dir(&folder).unwrap() {
            let file = file.unwrap().path();
            let text = std::fs::read_to_string(&file).unwrap();
            out.push((
                provider,
                file.file_name().unwrap().to_str().unwrap().to_owned(),
                text,
            ));
        }
    }
    out.sort_by(|a, b| (a.0.name(), &a.1).cmp(&(b.0.name(), &b.1)));
    out
}

#[test]
fn every_response_converts_for_every_provider() {
    let out = std::env::var_os("TOOL_CARRIER_CONFORMANCE_OUT");
    let mut read = 0;
    for (from, file, text) in recorded() {
        let form = response_form(from, &text)
            .unwrap_or_else(|| panic!("{from}/{file}: not told apart as a response"));
        let turn = match read_response(from, form, &text) {
            Ok(turn) => turn,
            Err(ResponseError::Provider { .. }) if file.starts_with("error") => continue,
            Err(e) => panic!("{from}/{file}: {e}"),
        };
        read += 1;
        let mut history = vec![
            ("user".to_owned(), "Go on.".to_owned()),
            ("assistant".to_owned(), turn.to_json()),
        ];
        for call in turn.calls() {
            let result = ToolResult::new(&call.id, format!("{} done.", call.name));
            history.push(("tool".to_owned(), result.to_json().unwrap()));
        }
        for to in Provider::ALL {
            let request = build_request(to, &history, &Options::new())
                .unwrap_or_else(|e| panic!("{from}/{file} -> {to}: {e}"));
            if let Some(dir) = &out {
                let name = format!("{to}__from-response-{from}-{}.json", file.replace('.', "-"));
                std::fs::write(Path::new(dir).join(name), request.json()).unwrap();
            }
        }
    }
    assert!(read >= 3, "only {read} responses read");
}
