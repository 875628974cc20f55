//! A record that is not a message is explained in serde_json's words and at
//! its column, read by the crate's own diagnosis (never from serde_json's
//! text): every such error here must be what serde_json says of it.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use serde::de::IgnoredAny;
use tool_carrier::history::{Message, MessageError};

fuzz_target!(|text: &str| {
    let serde = serde_json::from_str::<BTreeMap<String, IgnoredAny>>(text);
    match Message::parse(text) {
        Err(MessageError::Json { column, message }) => {
            let e = serde.expect_err("the crate calls valid JSON invalid");
            assert_eq!(column, e.column(), "{text:?}");
            let said = format!("{message} at line {} column {}", e.line(), e.column());
            assert_eq!(said, e.to_string(), "{text:?}");
        }
        Err(MessageError::NotAnObject) => match serde {
            Err(e) if e.is_data() => {}
            Err(e) => assert!(
                e.to_string().starts_with("number out of range"),
                "{text:?}: {e}"
            ),
            Ok(_) => panic!("an object called no object: {text:?}"),
        },
        _ => {}
    }
});
