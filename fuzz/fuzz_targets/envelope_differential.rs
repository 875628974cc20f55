//! The envelope's one-pass scanner against serde_json doing the same
//! reading: on every input they must open the same carrier.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::parse_native_tool_carrier;
use tool_carrier::parse_native_tool_carrier_reference;

fuzz_target!(|content: &str| {
    assert_eq!(
        parse_native_tool_carrier(content),
        parse_native_tool_carrier_reference(content),
        "{content:?}"
    );
});
