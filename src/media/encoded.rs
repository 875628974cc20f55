//! A prepared payload's JSON string, kept once written: a conversation
//! writes the same payloads into every turn's body, and copying the text
//! costs a fraction of encoding it again.
//!
//! Nothing is kept unless asked ([`Encoded::keep`]): a one-off conversion
//! holds each payload's bytes once, never its text as well. A copy of a
//! payload starts with nothing kept, so text can never outlive the bytes
//! it was written from.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use serde_json::value::RawValue;

/// The payload's base64 text and its `data:` URL, each a JSON string
/// (quotes included) written at most once, when kept.
#[derive(Default)]
pub(crate) struct Encoded {
    keep: AtomicBool,
    base64: OnceLock<Box<RawValue>>,
    data_url: OnceLock<Box<RawValue>>,
}

/// Which text of the payload.
#[derive(Clone, Copy)]
pub(crate) enum Form {
    Base64,
    DataUrl,
}

impl Encoded {
    /// Keep the texts once written, from now on.
    pub fn keep(&self) {
        self.keep.store(true, Ordering::Relaxed);
    }

    /// The JSON string of `form`, written by `write` (the text between the
    /// quotes, which needs no escaping) the first time; `None` when texts
    /// are not kept.
    pub fn get(&self, form: Form, write: impl FnOnce(&mut String)) -> Option<&RawValue> {
        if !self.keep.load(Ordering::Relaxed) {
            return None;
        }
        let cell = match form {
            Form::Base64 => &self.base64,
            Form::DataUrl => &self.data_url,
        };
        Some(cell.get_or_init(|| {
            let mut text = String::from("\"");
            write(&mut text);
            text.push('"');
            RawValue::from_string(text).expect("base64 and data URLs are JSON string contents")
        }))
    }
}

impl Clone for Encoded {
    /// Nothing kept: the copy's bytes may be changed.
    fn clone(&self) -> Encoded {
        Encoded::default()
    }
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            if self.base64.get().is_some() || self.data_url.get().is_some() {
                "kept"
            } else {
                "none"
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_kept_unless_asked_and_a_copy_keeps_nothing() {
        let e = Encoded::default();
        assert!(e.get(Form::Base64, |t| t.push_str("QUJD")).is_none());
        e.keep();
        assert_eq!(
            e.get(Form::Base64, |t| t.push_str("QUJD")).unwrap().get(),
            "\"QUJD\""
        );
        // Written once: a second writer is not called.
        assert_eq!(
            e.get(Form::Base64, |_| unreachable!()).unwrap().get(),
            "\"QUJD\""
        );
        assert_eq!(
            e.get(Form::DataUrl, |t| t.push_str("data:image/png;base64,QUJD"))
                .unwrap()
                .get(),
            "\"data:image/png;base64,QUJD\""
        );
        assert!(e.clone().get(Form::Base64, |t| t.push('x')).is_none());
    }
}
