//! The API rule checks: any JSON text is checked for every provider
//! without a panic, the same text always gives the same violations, and
//! reading the text as the rules' own borrowed tree finds what reading it
//! as a `serde_json::Value` finds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::provider::Provider;
use tool_carrier::rules::{check, check_json, Target};

fuzz_target!(|text: &str| {
    for provider in Provider::ALL {
        for model in [
            "claude-haiku-4-5",
            "gemini-2.5-flash-lite",
            "meta.llama3-2-90b-instruct-v1:0",
        ] {
            let target = Target::new(provider, model);
            let Ok(first) = check_json(&target, text) else {
                return;
            };
            assert_eq!(first, check_json(&target, text).unwrap());
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
                // Members are walked in text order by one and key order by
                // the other: the same violations, perhaps not in order.
                let key = |v: &tool_carrier::rules::Violation| {
                    (v.rule.id, v.at.clone(), v.detail.clone())
                };
                let mut tree: Vec<_> = first
                    .iter()
                    .filter(|v| !v.rule.id.ends_with("/request-size"))
                    .map(key)
                    .collect();
                let mut tree_value: Vec<_> = check(&target, &value).iter().map(key).collect();
                tree.sort();
                tree_value.sort();
                assert_eq!(tree, tree_value);
            }
        }
    }
});
