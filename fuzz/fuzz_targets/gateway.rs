//! Any bytes as a conversation's body through a gateway of each API: it
//! never panics; a refusal is the API's own error shape (JSON with an
//! `error`); a body it passes breaks no rule, is unchanged when nothing
//! was fitted, and passes again unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::gateway::{apis, Gateway};
use tool_carrier::provider::Options;

const PATHS: [&str; 4] = [
    "/v1/messages",
    "/v1/chat/completions",
    "/v1/responses",
    "/v1beta/models/gemini-3-pro-preview:generateContent",
];

fuzz_target!(|data: &[u8]| {
    for api in apis() {
        let gateway = Gateway::new(api, Options::new()).expect("a gateway API");
        for path in PATHS {
            let Some(route) = gateway.route("POST", path) else {
                continue;
            };
            match gateway.fit(&route, data) {
                Err(refusal) => {
                    let shape: serde_json::Value =
                        serde_json::from_slice(refusal.body()).expect("a refusal is JSON");
                    assert!(shape.get("error").is_some(), "{shape}");
                }
                Ok(passed) => {
                    let out = passed.bytes().to_vec();
                    if !passed.report().changes() {
                        assert_eq!(out, data);
                    }
                    let again = gateway.fit(&route, &out).expect("what passed passes again");
                    assert!(!again.report().changes(), "{}", again.report());
                }
            }
        }
    }
});
