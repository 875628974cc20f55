//! A saved list of the AI SDK's messages, read whole: `ModelMessage`s
//! ([`model`](super::model)) or `UIMessage`s ([`ui`](super::ui)), told
//! by the first message's `parts`.

use std::io::BufRead;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::build::{At, Build, Document};
use super::super::lines::Line;
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
    let doc = Document::read(input)?;
    let line = Line {
        number: 1,
        start: 0,
        text: &doc.text,
    };
    let mut b = Build::new(LIBRARY, store, options);
    let Some(messages) = doc.value.as_array() else {
        return Err(ImportError::at(
            "$",
            "not a list of the Vercel AI SDK's messages (ModelMessage[] or UIMessage[])",
        ));
    };
    let ui = messages.first().is_some_and(|m| m.get("parts").is_some());
    for (m, message) in messages.iter().enumerate() {
        b.message(m);
        let at = At::root().index(m);
        if ui {
            ui::message(&mut b, message, &at)?;
        } else {
            model::message(&mut b, message, &at)?;
        }
    }
    Ok(b.finish(&line))
}
