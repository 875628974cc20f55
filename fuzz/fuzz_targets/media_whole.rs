//! Whether arbitrary bytes are a whole file, asked for every type: never a
//! panic; a damage found lies within the bytes; and bytes appended after a
//! whole image change nothing (what follows its closing structure is never
//! read).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::media::{check_whole, MediaType};

fuzz_target!(|data: &[u8]| {
    for t in MediaType::ALL {
        match check_whole(data, t) {
            Ok(()) => {
                // A PDF's %%EOF must stay within its last 1024 bytes.
                if t != MediaType::Pdf {
                    let mut more = data.to_vec();
                    more.extend_from_slice(b"\0\xff\xd9;IEND");
                    assert!(
                        check_whole(&more, t).is_ok(),
                        "{t}: appended bytes were read"
                    );
                }
            }
            Err(damage) => {
                if let Some(at) = damage.offset() {
                    assert!(at <= data.len(), "{t}: {damage} past {} bytes", data.len());
                }
                let _ = damage.to_string();
            }
        }
    }
});
