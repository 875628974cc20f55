//! A marker line that parses is exactly its own rendering.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::{marker_line, parse_marker_line};

fuzz_target!(|line: &str| {
    if let Some(a) = parse_marker_line(line) {
        assert!(!a.target.is_empty() && !a.target.contains('\n'));
        assert_eq!(marker_line(&a).unwrap(), line);
    }
});
