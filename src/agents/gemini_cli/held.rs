//! The media of a recording's records, moved to the store as each record
//! is read. A Gemini CLI recording may replace any record by a later
//! line, so its records are held until the end; each holds, in place of
//! an `inlineData` payload, a short placeholder that [`Held::store`] hands
//! back as the target the payload was stored by. A recording of any size
//! is held in the memory of its records less their media.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::io;

use base64::Engine;
use serde_json::Value;

use crate::media::data_uri::BASE64;
use crate::media::store::{MediaStore, Stored};

/// The payloads moved out so far, each with whether a record still
/// standing at the end asked for it.
pub(crate) struct Held {
    /// Drawn anew for each read: no payload of the file can pass for a
    /// placeholder.
    nonce: u64,
    stored: Vec<(Stored, bool)>,
}

impl Default for Held {
    fn default() -> Held {
        Held {
            nonce: RandomState::new().hash_one(0u8),
            stored: Vec::new(),
        }
    }
}

impl Held {
    fn placeholder(&self, i: usize) -> String {
        format!("\0tool-carrier held {:016x} {i}", self.nonce)
    }

    fn index_of(&self, bytes: &[u8]) -> Option<usize> {
        let text = std::str::from_utf8(bytes).ok()?;
        let rest = text.strip_prefix(&format!("\0tool-carrier held {:016x} ", self.nonce))?;
        rest.parse().ok().filter(|&i| i < self.stored.len())
    }

    /// Move every `inlineData.data` of `value` that is base64 into
    /// `store`, a placeholder in its place. What is not base64 stays, for
    /// the reader to refuse where the record is read.
    ///
    /// # Errors
    /// The store's.
    pub(crate) fn take(&mut self, value: &mut Value, store: &mut dyn MediaStore) -> io::Result<()> {
        match value {
            Value::Object(members) => {
                for (key, member) in members.iter_mut() {
                    if key == "inlineData" {
                        if let Some(Value::String(data)) = member.get_mut("data") {
                            if let Ok(bytes) = BASE64.decode(data.as_bytes()) {
                                let stored = store.put(&bytes)?;
                                *data = BASE64.encode(self.placeholder(self.stored.len()));
                                self.stored.push((stored, false));
                                continue;
                            }
                        }
                    }
                    self.take(member, store)?;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.take(item, store)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `inner`, giving back each placeholder's target.
    pub(crate) fn store<'a>(&'a mut self, inner: &'a mut dyn MediaStore) -> HeldStore<'a> {
        HeldStore { held: self, inner }
    }

    /// The files written for records a later line replaced or dropped,
    /// which no record standing at the end names (a `data:` target is
    /// no file, and is left out). A store writes a file once, so each is
    /// named once.
    pub(crate) fn unused(&self) -> Vec<&str> {
        let used: std::collections::HashSet<&str> = self
            .stored
            .iter()
            .filter(|(_, used)| *used)
            .map(|(s, _)| s.target.as_str())
            .collect();
        self.stored
            .iter()
            .filter(|(s, _)| s.written && !s.target.starts_with("data:"))
            .map(|(s, _)| s.target.as_str())
            .filter(|t| !used.contains(t))
            .collect()
    }
}

/// A store that gives back the targets [`Held`] stored.
pub(crate) struct HeldStore<'a> {
    held: &'a mut Held,
    inner: &'a mut dyn MediaStore,
}

impl MediaStore for HeldStore<'_> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<Stored> {
        match self.held.index_of(bytes) {
            Some(i) => {
                let (stored, used) = &mut self.held.stored[i];
                *used = true;
                Ok(stored.clone())
            }
            None => self.inner.put(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    #[test]
    fn payloads_come_back_as_their_targets_and_nothing_else_does() {
        let mut held = Held::default();
        let mut value = json!({"parts": [
            {"inlineData": {"mimeType": "image/gif", "data": GIF}},
            {"inlineData": {"mimeType": "image/gif", "data": "not base64!"}},
            {"functionResponse": {"parts": [{"inlineData": {"mimeType": "image/gif", "data": GIF}}]}}
        ]});
        held.take(&mut value, &mut InlineStore).unwrap();
        let first = value["parts"][0]["inlineData"]["data"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(first.len() < GIF.len() + 40 && first != GIF);
        assert_eq!(value["parts"][1]["inlineData"]["data"], "not base64!");
        let want = InlineStore.put(&BASE64.decode(GIF).unwrap()).unwrap();
        let bytes = BASE64.decode(&first).unwrap();
        let mut store = InlineStore;
        assert_eq!(held.store(&mut store).put(&bytes).unwrap(), want);
        // The second payload was never asked for, but an inline store
        // leaves no file behind.
        assert!(held.unused().is_empty());
        // A payload that spells another read's placeholder is stored as it is.
        let mut other = Held::default();
        let got = other.store(&mut store).put(&bytes).unwrap();
        assert_eq!(got, InlineStore.put(&bytes).unwrap());
    }
}
