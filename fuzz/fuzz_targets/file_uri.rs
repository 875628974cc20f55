//! `file:` URIs are untrusted text from a history: resolving any never
//! panics, and without roots it never reads a file: it is either refused
//! as a `file:` URI or refused by the roots, never taken for another
//! scheme.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::media::{DefaultResolver, MediaError, Policy, Resolver};

fuzz_target!(|data: &[u8]| {
    let Ok(rest) = std::str::from_utf8(data) else {
        return;
    };
    let target = format!("file:{rest}");
    let resolver = DefaultResolver::new(Policy::default());
    match resolver.resolve(&target) {
        Err(MediaError::BadFileUri { .. } | MediaError::Root { .. }) => {}
        other => panic!("{target:?}: {other:?}"),
    }
    assert!(resolver.stamp(&target).is_none());
});
