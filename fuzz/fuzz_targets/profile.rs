//! Server profiles (`convert --profile FILE`): any text is read as a
//! profile or refused with a key-naming error, and never panics.
//! Invariants: a profile read back from what `to_value` writes is the same
//! profile; an error that names a key names one that is in the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::facts::Profile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Profile::from_json(text) {
        Ok(profile) => {
            let again =
                Profile::from_value(&profile.to_value()).expect("what to_value writes reads back");
            assert_eq!(again, profile);
        }
        Err(e) => {
            if let Some(key) = e.key() {
                let value: serde_json::Value =
                    serde_json::from_str(text).expect("a key error is on JSON");
                assert!(
                    value.as_object().is_some_and(|m| m.contains_key(key)),
                    "{e}"
                );
            }
            assert!(!e.to_string().is_empty());
        }
    }
});
