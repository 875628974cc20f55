//! A body's JSON written in two passes. First its skeleton: the body
//! serialized with a short marker string where each inline payload goes,
//! which is small (text, calls, settings) and tells the body's exact
//! length before a payload is encoded. Then the whole text, written once
//! into a buffer of that length: the skeleton's pieces copied, each
//! payload's text (base64 or a `data:` URL) encoded straight into its
//! place — not escaped by a serializer, never grown — and the payload let
//! go as soon as its text is written, so the prepared bytes and the text
//! written from them are not held whole together.
//!
//! Once written, a payload is its span of the text: a body serialized
//! again (indented, as a `Value`) copies the span, and the request holds
//! the payloads' text once, in its JSON.
//!
//! The markers are found by their bytes. A history whose own text holds
//! the marker's JSON (the count found differs from the payloads written)
//! is written the ordinary way instead: the same bytes, at the old cost.

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use serde::{Serialize, Serializer};

use crate::json::scan::Vouched;
use crate::media::encoded::Form;
use crate::media::Prepared;

/// What a payload's place holds in the skeleton: control characters
/// around a word, a string no writer of the crate's makes and no history
/// is likely to hold.
const MARKER: &str = "\u{0}\u{1}tool-carrier payload\u{1}\u{0}";
/// [`MARKER`] as serde_json writes it, quotes included.
const MARKER_JSON: &[u8] = br#""\u0000\u0001tool-carrier payload\u0001\u0000""#;

thread_local! {
    /// The payloads met while a skeleton is written on this thread, in
    /// the order they are written; `None` when none is being written.
    static MET: RefCell<Option<Vec<Payload>>> = const { RefCell::new(None) };
}

/// An inline payload in a body being written: the prepared media until
/// its text is written into the request's JSON, then that text's span.
#[derive(Clone)]
pub(crate) struct Payload(Arc<Cell>);

struct Cell {
    form: Form,
    size: Option<(u32, u32)>,
    prepared: Mutex<Option<Arc<Prepared>>>,
    written: OnceLock<(Arc<String>, Range<usize>)>,
}

impl Payload {
    /// `prepared`, written as its base64 text.
    pub(crate) fn base64(prepared: Arc<Prepared>) -> Payload {
        Payload::new(Form::Base64, prepared)
    }

    /// `prepared`, written as a `data:` URL.
    pub(crate) fn data_url(prepared: Arc<Prepared>) -> Payload {
        Payload::new(Form::DataUrl, prepared)
    }

    fn new(form: Form, prepared: Arc<Prepared>) -> Payload {
        Payload(Arc::new(Cell {
            form,
            size: prepared.width.zip(prepared.height),
            prepared: Mutex::new(Some(prepared)),
            written: OnceLock::new(),
        }))
    }

    /// The image's width and height as sent (`None` for a document).
    pub(crate) fn size(&self) -> Option<(u32, u32)> {
        self.0.size
    }

    /// The prepared media the cell holds, locked.
    fn held(&self) -> MutexGuard<'_, Option<Arc<Prepared>>> {
        self.0
            .prepared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The prepared media, while its text is not yet written.
    fn prepared(&self) -> Option<Arc<Prepared>> {
        self.held().clone()
    }

    /// The prepared media, taken: from now on the cell holds none.
    fn take(&self) -> Option<Arc<Prepared>> {
        self.held().take()
    }

    /// The length of the payload's text (between its quotes).
    fn text_len(prepared: &Prepared, form: Form) -> usize {
        match form {
            Form::Base64 => prepared.base64_len(),
            Form::DataUrl => prepared.data_url_len(),
        }
    }

    /// Append the payload's text to `out`, encoding it.
    fn encode(prepared: &Prepared, form: Form, out: &mut String) {
        match form {
            Form::Base64 => prepared.write_base64(out),
            Form::DataUrl => prepared.write_data_url(out),
        }
    }

    /// Append the payload's text to `out`: the text kept from an earlier
    /// body when the payload keeps its texts (a conversation's), else
    /// encoded into `out`.
    fn write(prepared: &Prepared, form: Form, out: &mut String) {
        match prepared
            .encoded
            .get(form, |t| Payload::encode(prepared, form, t))
        {
            Some(kept) => {
                let json = kept.get();
                out.push_str(&json[1..json.len() - 1]);
            }
            None => Payload::encode(prepared, form, out),
        }
    }
}

impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some((json, at)) = self.0.written.get() {
            return s.serialize_str(&json[at.clone()]);
        }
        let met = MET.with(|met| match met.borrow_mut().as_mut() {
            Some(met) => {
                met.push(self.clone());
                true
            }
            None => false,
        });
        if met {
            return s.serialize_str(MARKER);
        }
        let p = self
            .prepared()
            .expect("a payload is held until its text is written");
        match p
            .encoded
            .get(self.0.form, |t| Payload::encode(&p, self.0.form, t))
        {
            Some(kept) => kept.serialize(s),
            None => match self.0.form {
                Form::Base64 => s.collect_str(&p.base64()),
                Form::DataUrl => s.collect_str(&p.data_url()),
            },
        }
    }
}

impl fmt::Debug for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.written.get(), self.prepared()) {
            (Some((_, at)), _) => write!(f, "Payload(written at {at:?})"),
            (None, Some(p)) => write!(f, "Payload({:?}, {} bytes)", p.media_type, p.bytes.len()),
            (None, None) => f.write_str("Payload(being written)"),
        }
    }
}

/// A body's skeleton: its JSON with [`MARKER_JSON`] where each payload
/// goes, and those payloads in order.
pub(crate) struct Skeleton {
    text: String,
    /// Each payload and where its marker starts in `text`.
    places: Vec<(Payload, usize)>,
    /// The length of the whole JSON.
    len: usize,
}

/// Ends a skeleton's writing on this thread, however the writing ends.
struct Writing;

impl Drop for Writing {
    fn drop(&mut self) {
        MET.with(|met| met.borrow_mut().take());
    }
}

impl Skeleton {
    /// The skeleton `write` makes (by serializing a body to JSON bytes on
    /// this thread); `Ok(None)` when its markers cannot be told from the
    /// body's own text, so the body must be written whole instead.
    ///
    /// # Errors
    /// `write`'s.
    pub(crate) fn of<E>(write: impl FnOnce() -> Result<Vec<u8>, E>) -> Result<Option<Skeleton>, E> {
        let (text, met) = {
            let _writing = Writing;
            MET.with(|met| *met.borrow_mut() = Some(Vec::new()));
            let text = write()?;
            let met = MET.with(|met| met.borrow_mut().take()).unwrap_or_default();
            (text, met)
        };
        let text = String::from_utf8(text).expect("serde_json writes UTF-8");
        let at: Vec<usize> = memchr::memmem::find_iter(text.as_bytes(), MARKER_JSON).collect();
        if at.len() != met.len() {
            return Ok(None);
        }
        let mut len = text.len() - at.len() * MARKER_JSON.len();
        for payload in &met {
            let prepared = payload
                .prepared()
                .expect("a payload in a skeleton is not yet written");
            len += 2 + Payload::text_len(&prepared, payload.0.form);
        }
        Ok(Some(Skeleton {
            text,
            places: met.into_iter().zip(at).collect(),
            len,
        }))
    }

    /// The length of the JSON [`Skeleton::fill`] writes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The whole JSON: the skeleton with each payload's text in its
    /// place, and those texts, in order, as this writer vouches for them
    /// (each is base64 or a data URL: nothing to escape). Each payload is
    /// let go once written (freed unless held elsewhere, by a
    /// conversation's memo) and becomes its span of the text.
    pub(crate) fn fill(self) -> (Arc<String>, Vec<Vouched>) {
        let mut out = String::with_capacity(self.len);
        let mut spans = Vec::with_capacity(self.places.len());
        let mut from = 0;
        for (payload, at) in &self.places {
            out.push_str(&self.text[from..*at]);
            out.push('"');
            let start = out.len();
            let prepared = payload
                .take()
                .expect("a payload in a skeleton is not yet written");
            Payload::write(&prepared, payload.0.form, &mut out);
            let base64 = out.len() - prepared.base64_len();
            drop(prepared);
            spans.push(Vouched {
                text: start..out.len(),
                base64,
            });
            out.push('"');
            from = at + MARKER_JSON.len();
        }
        out.push_str(&self.text[from..]);
        debug_assert_eq!(out.len(), self.len);
        let json = Arc::new(out);
        for ((payload, _), span) in self.places.iter().zip(&spans) {
            // Each payload's cell is new to this body: never set before.
            let _ = payload
                .0
                .written
                .set((Arc::clone(&json), span.text.clone()));
        }
        (json, spans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::{prepare, Budget, Policy};

    fn pdf() -> Arc<Prepared> {
        let bytes = b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n";
        Arc::new(prepare(bytes.to_vec(), &Policy::default(), Budget::ANTHROPIC).unwrap())
    }

    #[derive(Serialize)]
    struct Body {
        text: String,
        parts: Vec<Payload>,
    }

    fn skeleton(body: &Body) -> Option<Skeleton> {
        Skeleton::of(|| serde_json::to_vec(body)).unwrap()
    }

    #[test]
    fn marker_json_is_how_serde_json_writes_the_marker() {
        assert_eq!(serde_json::to_vec(MARKER).unwrap(), MARKER_JSON);
    }

    #[test]
    fn filled_is_the_body_written_whole() {
        let p = pdf();
        let body = Body {
            text: "a \"quoted\" text, ünïcode".into(),
            parts: vec![
                Payload::base64(p.clone()),
                Payload::data_url(p.clone()),
                Payload::base64(p.clone()),
            ],
        };
        let whole = serde_json::to_string(&body).unwrap();
        let pretty = serde_json::to_string_pretty(&body).unwrap();
        let skeleton = skeleton(&body).unwrap();
        assert_eq!(skeleton.len(), whole.len());
        let (json, vouched) = skeleton.fill();
        assert_eq!(*json, whole);
        // Each payload's text is vouched for, its base64 where it starts.
        let base64 = p.base64().to_string();
        let texts: Vec<_> = vouched.iter().map(|v| &json[v.text.clone()]).collect();
        assert_eq!(
            texts,
            [base64.clone(), p.data_url().to_string(), base64.clone()]
        );
        assert!(vouched.iter().all(|v| json[v.base64..v.text.end] == base64));
        // Written, each payload is its span: the body writes the same.
        assert_eq!(serde_json::to_string(&body).unwrap(), whole);
        assert_eq!(serde_json::to_string_pretty(&body).unwrap(), pretty);
        // The body no longer holds the prepared bytes.
        assert_eq!(Arc::strong_count(&p), 1);
        assert!(format!("{:?}", body.parts[0]).starts_with("Payload(written at"));
    }

    #[test]
    fn a_history_holding_the_marker_is_written_whole_instead() {
        let body = Body {
            text: MARKER.into(),
            parts: vec![Payload::base64(pdf())],
        };
        assert!(skeleton(&body).is_none());
        // Nothing was taken: the body still writes as before.
        assert!(serde_json::to_string(&body)
            .unwrap()
            .contains("JVBERi0xLjcK"));
    }

    #[test]
    fn no_marker_is_written_outside_a_skeleton() {
        let body = Body {
            text: String::new(),
            parts: vec![Payload::base64(pdf())],
        };
        let _ = Skeleton::of(|| Err::<Vec<u8>, ()>(()));
        assert!(!serde_json::to_string(&body).unwrap().contains("payload"));
    }

    #[test]
    fn kept_texts_are_copied_not_encoded_again() {
        let p = pdf();
        p.encoded.keep();
        let body = Body {
            text: String::new(),
            parts: vec![Payload::base64(p.clone()), Payload::data_url(p.clone())],
        };
        let whole = serde_json::to_string(&body).unwrap();
        assert_eq!(*skeleton(&body).unwrap().fill().0, whole);
        // The memo still holds it, with its texts.
        assert_eq!(Arc::strong_count(&p), 1);
        assert!(p.encoded.get(Form::Base64, |_| unreachable!()).is_some());
    }
}
