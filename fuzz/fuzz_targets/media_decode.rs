//! Sniffing and bounded decoding of arbitrary bytes: never a panic; a
//! result that is accepted fits the size limit and the budget; memory stays
//! under the policy's allocation limit (libFuzzer's -rss_limit_mb catches
//! the rest).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::media::{prepare, sniff, Budget, Policy, Sniffed};

fuzz_target!(|data: &[u8]| {
    let sniffed = sniff(data);
    let policy = Policy::default()
        .with_max_dim(256)
        .with_max_pixels(4_000_000)
        .with_max_alloc(64 << 20);
    let budget = Budget::ANTHROPIC;
    match prepare(data.to_vec(), &policy, budget) {
        Ok(p) => {
            assert!(matches!(sniffed, Sniffed::Media(_)));
            if let (Some(w), Some(h)) = (p.width, p.height) {
                assert!(w <= 256 && h <= 256, "{w}x{h}");
                assert!(w > 0 && h > 0);
            }
            if !p.reencoded {
                assert_eq!(p.bytes, data, "untouched means byte-identical");
            }
            assert_eq!(sniff(&p.bytes), Sniffed::Media(p.media_type));
            let mut b64 = String::new();
            p.write_base64(&mut b64);
            assert_eq!(b64.len(), p.base64_len());
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
