//! A string's end and its base64 alphabet found in one pass: a request
//! body is mostly payloads, and the self-check would otherwise read each
//! twice (once for the string's end, once for its alphabet).

use std::ops::Range;

/// What ends a run of plain string bytes: a quote, a backslash or a raw
/// control character (the scanner's `special`).
#[inline]
const fn ends_run(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The scanner's `find_special`, also telling which of
/// the 64-byte blocks it tested whole hold only the standard base64
/// alphabet: the longest run of such blocks (relative to `s`; a data
/// URL's prefix stands before it, a payload's `=` padding after it). The
/// bytes outside it are not known either way.
#[inline]
pub(crate) fn find_special_alphabet(s: &[u8]) -> (Option<usize>, Range<usize>) {
    const NEAR: usize = 16;
    let near = &s[..NEAR.min(s.len())];
    if let Some(i) = near.iter().position(|&b| ends_run(b)) {
        return (Some(i), 0..0);
    }
    let mut at = near.len();
    let (mut from, mut best) = (at, 0..0);
    for block in s[at..].chunks_exact(64) {
        // Both tests without a branch a byte, so the loop runs on vectors.
        let (mut hit, mut alphabet) = (false, true);
        for &b in block {
            hit |= (b == b'"') | (b == b'\\') | (b < 0x20);
            let letter = (b | 0x20).wrapping_sub(b'a') < 26;
            let digit = b.wrapping_sub(b'0') < 10;
            alphabet &= letter | digit | (b == b'+') | (b == b'/');
        }
        if hit {
            break;
        }
        if !alphabet {
            if at - from > best.len() {
                best = from..at;
            }
            from = at + 64;
        }
        at += 64;
    }
    if at.saturating_sub(from) > best.len() {
        best = from..at;
    }
    let found = s[at..].iter().position(|&b| ends_run(b)).map(|i| at + i);
    (found, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_alphabet(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
    }

    #[test]
    fn the_run_starts_after_the_last_block_holding_another_byte() {
        // 16 bytes looked at one by one, then blocks of 64.
        let mut s = vec![b'A'; 16 + 64 * 4];
        s[16 + 64 + 3] = b'=';
        s.extend_from_slice(b"QUJD\"tail");
        let (found, run) = find_special_alphabet(&s);
        assert_eq!(found, Some(16 + 64 * 4 + 4));
        // Block 1 holds `=`: blocks 2 and 3 are the longer run; the last
        // 4 bytes before the quote were searched one by one, not tested.
        assert_eq!(run, 16 + 128..16 + 64 * 4);
        // Padding in the last block tested whole: the run before it.
        let mut s = vec![b'Q'; 16 + 64 * 3];
        s[16 + 64 * 2 + 62] = b'=';
        s[16 + 64 * 2 + 63] = b'=';
        s.extend_from_slice(b"\"");
        assert_eq!(find_special_alphabet(&s).1, 16..16 + 128);
        // A block with the end in it is never in the run.
        let (found, run) = find_special_alphabet(b"QUJD\"");
        assert_eq!((found, run), (Some(4), 0..0));
    }

    proptest::proptest! {
        /// Whatever the text, the end found is the first special byte, as
        /// [`find_special`](super::super::scan::find_special) finds it, and
        /// the run holds only alphabet bytes.
        #[test]
        fn the_run_is_alphabet_and_the_end_is_find_specials(
            len in 0usize..700,
            picks in proptest::collection::vec((0usize..700, proptest::sample::select(b"=-\"\\\n.A".to_vec())), 0..4),
        ) {
            let mut s: Vec<u8> = (0..len).map(|i| b"ABCxyz019+/"[i % 11]).collect();
            for (at, b) in picks {
                if at < s.len() {
                    s[at] = b;
                }
            }
            let (found, run) = find_special_alphabet(&s);
            proptest::prop_assert_eq!(found, super::super::scan::find_special(&s));
            proptest::prop_assert!(run.end <= found.unwrap_or(s.len()));
            proptest::prop_assert!(s[run].iter().all(|&b| is_alphabet(b)));
        }
    }
}
