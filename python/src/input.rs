//! A call's input: the bytes given, or the file at the path given, read
//! with the GIL released.

use std::path::PathBuf;

use crate::read::Unread;

/// The bytes of `data`, or of the file at `path`: one of them.
pub(crate) fn bytes(data: Option<Vec<u8>>, path: Option<&PathBuf>) -> Result<Vec<u8>, Unread> {
    match (data, path) {
        (Some(bytes), None) => Ok(bytes),
        (None, Some(path)) => std::fs::read(path).map_err(|e| Unread {
            message: format!("{}: {e}", path.display()),
            line: None,
        }),
        _ => Err(Unread {
            message: "give the input's bytes or its path, one of them".into(),
            line: None,
        }),
    }
}
