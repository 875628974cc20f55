//! Facts files (`--facts FILE`): any text, read as TOML and as JSON, is
//! laid over the built-in facts or refused with an error, and never
//! panics. Invariants: a refusal that names a key names a non-empty one;
//! facts that read answer every lookup for every API without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::facts::{Date, Facts, Syntax};
use tool_carrier::provider::Provider;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for format in [Syntax::Toml, Syntax::Json] {
        match Facts::builtin().layered(text, format, "fuzz") {
            Ok(facts) => {
                let today = Date::new(2026, 12, 1).expect("a date");
                for provider in Provider::ALL {
                    let model = facts.default_model(provider).to_owned();
                    for id in [model.as_str(), "x", ""] {
                        let _ = facts.image_tokens(provider, id, 4000, 3);
                        let _ = facts.view(provider, id).map(|v| v.fit(4000, 3));
                        let _ = facts.max_images(provider, id);
                        let _ = facts
                            .check_model(provider, id, today)
                            .map(|w| w.to_string());
                    }
                }
            }
            Err(e) => {
                assert!(e.key().is_none_or(|k| !k.is_empty()), "{e}");
                assert!(!e.to_string().is_empty());
            }
        }
    }
});
