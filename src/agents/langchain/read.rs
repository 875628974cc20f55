//! A saved list of LangChain's messages, read whole, a message at a time
//! ([`message`](super::message)).

use std::io::BufRead;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::build::{At, Build, Document};
use super::super::lines::Line;

use super::message;

/// Read saved messages.
///
/// # Errors
/// [`ImportError`] naming the path of what is not LangChain's.
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
            "not a list of LangChain's saved messages (messages_to_dict or dumpd)",
        ));
    };
    let mut b = Build::new("LangChain", store, options);
    for (m, message) in messages.iter().enumerate() {
        b.message(m);
        message::message(&mut b, message, &At::root().index(m))?;
    }
    Ok(b.finish(&line))
}
