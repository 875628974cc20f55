//! Strict data: URIs: arbitrary text after `data:` never panics, and what is
//! accepted is canonical base64 of exactly the bytes handed on, line breaks
//! aside (RFC 2045 wrapping is read).
#![no_main]

use base64::Engine;
use libfuzzer_sys::fuzz_target;
use tool_carrier::media::{DefaultResolver, Policy, Resolver, Source};

fuzz_target!(|rest: &str| {
    let target = format!("data:{rest}");
    let resolver = DefaultResolver::new(Policy::default().with_max_data_uri_len(1 << 20));
    if let Ok(Source::Bytes(loaded)) = resolver.resolve(&target) {
        let payload = target.split_once(',').expect("a comma").1;
        let unwrapped: String = payload
            .chars()
            .filter(|c| !matches!(c, '\r' | '\n'))
            .collect();
        let again = base64::engine::general_purpose::STANDARD.encode(&loaded.bytes);
        assert_eq!(again, unwrapped, "canonical base64 only, line breaks aside");
        assert!(loaded.declared.is_some());
    }
});
