//! Cache entries read from disk are untrusted bytes: reading any never
//! panics, and what reads as an entry writes back to bytes that read the
//! same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::media::{decode_entry, encode_entry};

fuzz_target!(|data: &[u8]| {
    if let Ok(entry) = decode_entry(data) {
        let again = decode_entry(&encode_entry(&entry)).expect("a written entry reads back");
        assert_eq!(again.bytes, entry.bytes);
        assert_eq!(again.media_type, entry.media_type);
        assert_eq!((again.width, again.height), (entry.width, entry.height));
        assert_eq!(again.original, entry.original);
        assert_eq!(again.fitting, entry.fitting);
        assert_eq!(encode_entry(&again), encode_entry(&entry));
    }
});
