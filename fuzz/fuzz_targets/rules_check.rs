//! The API rule checks: any JSON text is checked for every provider
//! without a panic, and the same text always gives the same violations.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::provider::Provider;
use tool_carrier::rules::{check_json, Target};

fuzz_target!(|text: &str| {
    for provider in Provider::ALL {
        for model in ["claude-haiku-4-5", "gemini-2.5-flash-lite", "meta.llama3-2-90b-instruct-v1:0"] {
            let target = Target::new(provider, model);
            let Ok(first) = check_json(&target, text) else {
                return;
            };
            assert_eq!(first, check_json(&target, text).unwrap());
        }
    }
});
