//! A saved list of pydantic-ai's messages, read whole, a message at a
//! time ([`parts`](super::parts)).

use std::io::BufRead;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::build::{At, Build, Document};
use super::super::lines::Line;

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
    let doc = Document::read(input)?;
    let line = Line {
        number: 1,
        start: 0,
        text: &doc.text,
    };
    let Some(messages) = doc.value.as_array() else {
        return Err(ImportError::at(
            "$",
            "not a list of pydantic-ai's messages (ModelMessagesTypeAdapter's JSON)",
        ));
    };
    let mut b = Build::new("pydantic-ai", store, options);
    let mut state = parts::Request::new();
    for (m, message) in messages.iter().enumerate() {
        b.message(m);
        parts::message(&mut b, message, &At::root().index(m), &mut state)?;
    }
    Ok(b.finish(&line))
}
