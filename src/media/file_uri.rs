//! `file:` URIs (RFC 8089) as local paths.
//!
//! ```text
//! file-URI := "file:" ( "//" [ "localhost" ] "/" PATH | "/" PATH )
//! ```
//!
//! The path is percent-decoded; it must be UTF-8 and must not decode to a
//! NUL. A host other than `localhost` (case-insensitive) names another
//! machine and is refused, as are a query and a fragment, which a file has
//! not. The path is then confined by the roots like any other local path:
//! a `file:` URI reaches nothing a plain path could not.

/// Why a `file:` URI was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileUriError {
    /// `file://HOST/…` with a host other than `localhost`.
    RemoteHost,
    /// No absolute path after the scheme (`file:a.png`, `file://`).
    NotAbsolute,
    /// A `?` query or a `#` fragment.
    QueryOrFragment,
    /// A `%` not followed by two hexadecimal digits.
    BadEscape,
    /// The decoded path is not UTF-8, or holds a NUL.
    BadPath,
}

impl std::fmt::Display for FileUriError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileUriError::RemoteHost => "names a host other than localhost",
            FileUriError::NotAbsolute => "holds no absolute path",
            FileUriError::QueryOrFragment => "has a query or a fragment",
            FileUriError::BadEscape => "has a % not followed by two hex digits",
            FileUriError::BadPath => "decodes to a path that is not UTF-8 or holds a NUL",
        })
    }
}

/// The local path a `file:` URI names; `target` starts with `file:`
/// (any case).
pub(crate) fn path_of(target: &str) -> Result<String, FileUriError> {
    let rest = &target["file:".len()..];
    if rest.contains(['?', '#']) {
        return Err(FileUriError::QueryOrFragment);
    }
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let slash = authority_and_path
                .find('/')
                .ok_or(FileUriError::NotAbsolute)?;
            let host = &authority_and_path[..slash];
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return Err(FileUriError::RemoteHost);
            }
            &authority_and_path[slash..]
        }
        None if rest.starts_with('/') => rest,
        None => return Err(FileUriError::NotAbsolute),
    };
    let decoded = percent_decode(path.as_bytes())?;
    match String::from_utf8(decoded) {
        Ok(s) if !s.contains('\0') => Ok(s),
        _ => Err(FileUriError::BadPath),
    }
}

fn percent_decode(bytes: &[u8]) -> Result<Vec<u8>, FileUriError> {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let high = bytes.get(i + 1).copied().and_then(hex);
            let low = bytes.get(i + 2).copied().and_then(hex);
            match (high, low) {
                (Some(h), Some(l)) => out.push(h << 4 | l),
                _ => return Err(FileUriError::BadEscape),
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_spellings_of_a_local_path() {
        for uri in [
            "file:///tmp/a.png",
            "file://localhost/tmp/a.png",
            "file://LocalHost/tmp/a.png",
            "file:/tmp/a.png",
            "FILE:///tmp/a.png",
        ] {
            assert_eq!(path_of(uri), Ok("/tmp/a.png".into()), "{uri}");
        }
    }

    #[test]
    fn percent_escapes_are_decoded() {
        assert_eq!(
            path_of("file:///tmp/my%20shots/%C3%A9t%C3%A9.png"),
            Ok("/tmp/my shots/été.png".into())
        );
        assert_eq!(path_of("file:///a%2fb"), Ok("/a/b".into()));
    }

    #[test]
    fn what_is_refused_and_why() {
        let cases = [
            ("file://server/share/a.png", FileUriError::RemoteHost),
            ("file://127.0.0.1/a.png", FileUriError::RemoteHost),
            ("file:a.png", FileUriError::NotAbsolute),
            ("file://", FileUriError::NotAbsolute),
            ("file://localhost", FileUriError::NotAbsolute),
            ("file:///a.png?x=1", FileUriError::QueryOrFragment),
            ("file:///a.png#top", FileUriError::QueryOrFragment),
            ("file:///a%2", FileUriError::BadEscape),
            ("file:///a%zz", FileUriError::BadEscape),
            ("file:///a%ff.png", FileUriError::BadPath),
            ("file:///a%00.png", FileUriError::BadPath),
        ];
        for (uri, why) in cases {
            assert_eq!(path_of(uri), Err(why), "{uri}");
        }
    }

    proptest::proptest! {
        /// Any UTF-8 path, escaped byte by byte after its first slash,
        /// decodes back to itself.
        #[test]
        fn escaping_round_trips(path in "/[^\u{0}]{0,40}") {
            let escaped: String = path[1..].bytes().map(|b| format!("%{b:02X}")).collect();
            proptest::prop_assert_eq!(path_of(&format!("file:///{escaped}")), Ok(path));
        }
    }
}
