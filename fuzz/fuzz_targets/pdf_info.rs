//! A PDF's page count and encryption are read from untrusted bytes:
//! reading any never panics, and a count is given only where the bytes
//! write a `/Count`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::media::pdf_info;

fuzz_target!(|data: &[u8]| {
    let info = pdf_info(data);
    if info.pages.is_some() {
        assert!(data.windows(6).any(|w| w == b"/Count"));
    }
    if info.encrypted {
        assert!(data.windows(8).any(|w| w == b"/Encrypt"));
    }
});
