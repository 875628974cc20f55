//! A saved list of LangChain's messages, read whole, a message at a time
//! ([`message`](super::message)).

use std::io::BufRead;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::build::{each_message, read_document, At};

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
    read_document("LangChain", input, store, options, |b, value| {
        let what = "a list of LangChain's saved messages (messages_to_dict or dumpd)";
        each_message(b, value, &At::root(), what, message::message)
    })
}
