//! A saved list of the AI SDK's messages, read whole: `ModelMessage`s
//! ([`model`](super::model)) or `UIMessage`s ([`ui`](super::ui)), told
//! by the first message's `parts`.

use std::io::BufRead;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::build::{each_message, read_document, At};
use super::{model, ui, LIBRARY};

/// Read a saved `ModelMessage[]` or `UIMessage[]`.
///
/// # Errors
/// [`ImportError`] naming the path of what is not the SDK's.
pub(crate) fn read(
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    read_document(LIBRARY, input, store, options, |b, value| {
        let ui = value.pointer("/0/parts").is_some();
        let what = "a list of the Vercel AI SDK's messages (ModelMessage[] or UIMessage[])";
        each_message(b, value, &At::root(), what, |b, message, at| match ui {
            true => ui::message(b, message, at),
            false => model::message(b, message, at),
        })
    })
}
