//! What a PDF says of itself, read cheaply: how many pages it has and
//! whether it is encrypted. Nothing is decompressed or parsed as a whole;
//! the bytes are searched for the few dictionaries that say it.
//!
//! * **Pages**: the page tree's root holds `/Count`, the number of pages
//!   below it. Every page-tree node written uncompressed (`/Type /Pages`)
//!   is found and the largest `/Count` taken, which is the root's. Where
//!   no node is written uncompressed (PDF 1.5 object streams hold them),
//!   the count is not known: `None`.
//! * **Encryption**: an encrypted PDF names its security handler with
//!   `/Encrypt` in its trailer, which is a `trailer` dictionary, or the
//!   dictionary of a cross-reference stream (`/Type /XRef`).
//!
//! ```
//! use tool_carrier::media::{pdf_info, PdfInfo};
//! let pdf = b"%PDF-1.7\n1 0 obj\n<< /Type /Pages /Kids [] /Count 3 >>\nendobj\ntrailer\n<< /Root 2 0 R >>\n%%EOF\n";
//! assert_eq!(pdf_info(pdf), PdfInfo { pages: Some(3), encrypted: false });
//! ```

use memchr::memmem;

/// What [`pdf_info`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdfInfo {
    /// The page count, where the page tree is written uncompressed.
    pub pages: Option<u32>,
    /// Whether its trailer names a security handler (`/Encrypt`).
    pub encrypted: bool,
}

/// Read `bytes` (a PDF) for its page count and encryption.
pub fn pdf_info(bytes: &[u8]) -> PdfInfo {
    PdfInfo {
        pages: pages(bytes),
        encrypted: encrypted(bytes),
    }
}

/// The PDF whitespace characters.
fn is_space(c: u8) -> bool {
    matches!(c, b'\0' | b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// Whether a name ends at `i`: the end, whitespace or a delimiter.
fn name_ends(bytes: &[u8], i: usize) -> bool {
    bytes
        .get(i)
        .is_none_or(|&c| is_space(c) || b"()<>[]{}/%".contains(&c))
}

/// Where each name `name` (with its `/`) starts, whole names only.
fn names<'b>(bytes: &'b [u8], name: &'b [u8]) -> impl Iterator<Item = usize> + 'b {
    memmem::find_iter(bytes, name).filter(move |&i| name_ends(bytes, i + name.len()))
}

/// The object around `at`: from the `obj` keyword before it to the
/// `endobj` after it (or the end).
fn object_around(bytes: &[u8], at: usize) -> &[u8] {
    let start = memmem::rfind(&bytes[..at], b"obj").map_or(0, |i| i + 3);
    let end = memmem::find(&bytes[at..], b"endobj").map_or(bytes.len(), |i| at + i);
    &bytes[start..end]
}

/// The value of `/Type` at `i` (the name after it), when it is `value`.
fn type_is(bytes: &[u8], i: usize, value: &[u8]) -> bool {
    let rest = &bytes[i + b"/Type".len()..];
    let skip = rest.iter().take_while(|&&c| is_space(c)).count();
    let rest = &rest[skip..];
    rest.starts_with(value) && name_ends(rest, value.len())
}

/// The integer after the name `key` in `object`, the first one written.
fn integer_after(object: &[u8], key: &[u8]) -> Option<u64> {
    let at = names(object, key).next()? + key.len();
    let rest = &object[at..];
    let skip = rest.iter().take_while(|&&c| is_space(c)).count();
    let digits = rest[skip..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 || digits > 19 {
        return None;
    }
    std::str::from_utf8(&rest[skip..skip + digits])
        .ok()?
        .parse()
        .ok()
}

fn pages(bytes: &[u8]) -> Option<u32> {
    names(bytes, b"/Type")
        .filter(|&i| type_is(bytes, i, b"/Pages"))
        .filter_map(|i| integer_after(object_around(bytes, i), b"/Count"))
        .max()
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}

fn encrypted(bytes: &[u8]) -> bool {
    let in_trailer = memmem::find_iter(bytes, b"trailer").any(|i| {
        let rest = &bytes[i + b"trailer".len()..];
        dictionary(rest).is_some_and(|d| names(d, b"/Encrypt").next().is_some())
    });
    in_trailer
        || names(bytes, b"/Type")
            .filter(|&i| type_is(bytes, i, b"/XRef"))
            .any(|i| {
                let object = object_around(bytes, i);
                // The dictionary ends where its stream begins.
                let head = memmem::find(object, b"stream").map_or(object, |s| &object[..s]);
                names(head, b"/Encrypt").next().is_some()
            })
}

/// The dictionary `<< … >>` that `rest` opens with (after whitespace),
/// nested dictionaries included; `None` when it opens with none or does
/// not close.
fn dictionary(rest: &[u8]) -> Option<&[u8]> {
    let skip = rest.iter().take_while(|&&c| is_space(c)).count();
    let rest = &rest[skip..];
    if !rest.starts_with(b"<<") {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i + 1 < rest.len() {
        match &rest[i..i + 2] {
            b"<<" => {
                depth += 1;
                i += 2;
            }
            b">>" => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(&rest[..i]);
                }
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PDF of `pages` pages in a two-level page tree, written
    /// uncompressed, encrypted or not.
    pub(crate) fn pdf(pages: u32, encrypted: bool) -> Vec<u8> {
        let half = pages / 2;
        let mut out = format!(
            "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n\
             2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R] /Count {pages} >>\nendobj\n\
             3 0 obj\n<</Type/Pages/Parent 2 0 R/Kids[]/Count {half}>>\nendobj\n\
             4 0 obj\n<< /Type /Pages /Parent 2 0 R /Kids [] /Count {} >>\nendobj\n\
             5 0 obj\n<< /Type /Page /Parent 3 0 R >>\nendobj\n",
            pages - half
        );
        let encrypt = if encrypted { " /Encrypt 6 0 R" } else { "" };
        out.push_str(&format!(
            "xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 6 /Root 1 0 R /Info << /Producer (x) >>{encrypt} >>\nstartxref\n300\n%%EOF\n"
        ));
        out.into_bytes()
    }

    #[test]
    fn the_root_count_is_the_page_count() {
        for n in [1, 2, 99, 100, 101, 500, 1000] {
            assert_eq!(pdf_info(&pdf(n, false)).pages, Some(n), "{n}");
        }
    }

    #[test]
    fn a_trailer_naming_a_security_handler_is_encrypted() {
        assert!(pdf_info(&pdf(3, true)).encrypted);
        assert!(!pdf_info(&pdf(3, false)).encrypted);
        // A cross-reference stream's dictionary is the trailer too.
        let xref = b"%PDF-1.7\n9 0 obj\n<< /Type /XRef /Size 9 /Root 1 0 R /Encrypt 8 0 R /Length 0 >>\nstream\n\nendstream\nendobj\nstartxref\n9\n%%EOF\n";
        assert!(pdf_info(xref).encrypted);
        let plain = b"%PDF-1.7\n9 0 obj\n<< /Type /XRef /Size 9 /Root 1 0 R /Length 9 >>\nstream\n/Encrypt\nendstream\nendobj\n";
        assert!(!pdf_info(plain).encrypted, "a name in a stream is no key");
    }

    #[test]
    fn a_longer_name_is_not_the_name() {
        let pdf = b"%PDF-1.7\n1 0 obj\n<< /Type /PagesX /Count 7 >>\nendobj\ntrailer\n<< /EncryptMetadata false >>\n";
        assert_eq!(
            pdf_info(pdf),
            PdfInfo {
                pages: None,
                encrypted: false
            }
        );
    }

    /// A page tree held in an object stream is compressed: not read.
    #[test]
    fn a_compressed_page_tree_is_an_unknown_count() {
        let pdf = b"%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 3 /First 20 /Filter /FlateDecode /Length 4 >>\nstream\nx\x9c\x03\x00\nendstream\nendobj\nstartxref\n9\n%%EOF\n";
        assert_eq!(pdf_info(pdf).pages, None);
    }

    proptest::proptest! {
        /// Any bytes: no panic, and a count only where one is written.
        #[test]
        fn any_bytes_read_without_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let info = pdf_info(&bytes);
            if info.pages.is_some() {
                proptest::prop_assert!(memmem::find(&bytes, b"/Count").is_some());
            }
        }

        #[test]
        fn any_count_is_read(n in 1u32..5_000_000, encrypted in proptest::prelude::any::<bool>()) {
            proptest::prop_assert_eq!(pdf_info(&pdf(n, encrypted)), PdfInfo { pages: Some(n), encrypted });
        }
    }
}
