//! A saved list of pydantic-ai's messages, read whole, a message at a
//! time ([`parts`](super::parts)).

use std::io::BufRead;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::build::{each_message, read_document, At};

use super::parts;

/// Read a saved list of messages.
///
/// # Errors
/// [`ImportError`] naming the path of what is not pydantic-ai's.
pub(crate) fn read(
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    read_document("pydantic-ai", input, store, options, |b, value| {
        let what = "a list of pydantic-ai's messages (ModelMessagesTypeAdapter's JSON)";
        let mut state = parts::Request::new();
        each_message(b, value, &At::root(), what, |b, message, at| {
            parts::message(b, message, at, &mut state)
        })
    })
}
