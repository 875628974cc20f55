//! The scanner reading a whole body into a tree for the rules, noting
//! its base64 runs and stepping over the payloads its writer vouches for.

use std::borrow::Cow;
use std::ops::Range;

use super::{Cursor, Decode};

/// The tree of `src` (exactly one JSON value, white space around it
/// allowed), read in one pass with string bodies skipped 64 bytes at a
/// time: a request body is mostly base64 payloads, which the rules read
/// only the head and length of. `None` where serde_json would refuse the
/// text, and also where this reader leaves the answer to serde_json (a
/// value nested [`DEPTH`](crate::json::tree::DEPTH) deep, a string holding an
/// escape that is no character, a number out of `f64`'s range): callers
/// then read the text with serde_json, which says why, so both give the
/// same tree or the same error.
///
/// With `alphabet`, also the byte ranges of `src` inside plain
/// strings found to hold only the standard base64 alphabet (`A–Z a–z 0–9
/// + /`), tested in the same pass that looks for each string's end: the
/// rules then need not read a payload a second time to know it is base64
/// ([`crate::steps::rule::decoded_len`]). Ranges are at least
/// [`ALPHABET_RUN`] bytes, in order, and need not cover a whole string.
///
/// A string whose text is one of `vouched` (in order) is taken as its
/// writer vouches for it, without reading it.
pub(crate) fn tree_and_alphabet<'a>(
    src: &'a str,
    alphabet: bool,
    vouched: &'a [Vouched],
) -> Option<(crate::json::tree::Json<'a>, Vec<Range<usize>>)> {
    let mut c = Cursor::new(src);
    c.alphabet = alphabet.then(Vec::new);
    c.vouched = vouched;
    c.ws();
    let value = c.tree(0)?;
    c.ws();
    (c.pos == src.len()).then(|| (value, c.alphabet.unwrap_or_default()))
}

/// A string's text that its writer vouches for: a payload the crate
/// wrote straight into a body it then checks (base64, or a data URL whose
/// base64 starts at `base64`), which holds nothing to escape, so the
/// scanner need not read it to find its end or to know it is base64.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Vouched {
    /// The string's text, quotes not included.
    pub(crate) text: Range<usize>,
    /// Where its base64 starts (`text.start` for bare base64).
    pub(crate) base64: usize,
}

/// The shortest run of base64 alphabet [`tree_and_alphabet`] reports:
/// shorter ones are cheaper to test again than to look up.
pub(crate) const ALPHABET_RUN: usize = 4096;

impl<'a> Cursor<'a> {
    /// A string value, its base64 alphabet runs noted: a plain string
    /// (no escape) is borrowed after one fused pass; any other is read as
    /// [`Cursor::string`] reads it.
    fn plain_or_string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.pos + 1;
        if let Some(text) = self.vouched_at(start) {
            return Some(Cow::Borrowed(text));
        }
        let (found, run) = crate::json::alphabet::find_special_alphabet(self.src.get(start..)?);
        if let Some(end) = found.filter(|&i| self.src[start + i] == b'"') {
            if run.len() >= ALPHABET_RUN {
                if let Some(runs) = self.alphabet.as_mut() {
                    runs.push(start + run.start..start + run.end);
                }
            }
            self.pos = start + end + 1;
            return Some(Cow::Borrowed(&self.text[start..start + end]));
        }
        self.string(Decode::Short)?.0
    }

    /// The vouched string whose text starts at `start`, taken whole and
    /// passed, its base64 noted; `None` when the next one vouched for is
    /// not there (those left behind are dropped).
    fn vouched_at(&mut self, start: usize) -> Option<&'a str> {
        while self.vouched.first()?.text.start < start {
            self.vouched = &self.vouched[1..];
        }
        let Vouched { text, base64 } = self.vouched.first()?.clone();
        if text.start != start || self.src.get(text.end) != Some(&b'"') {
            return None;
        }
        let found = self.text.get(text.clone())?;
        debug_assert!(
            !found.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20),
            "a vouched string holds nothing to escape"
        );
        self.vouched = &self.vouched[1..];
        // Its padding is not alphabet.
        let end = text.end
            - self.src[base64..text.end]
                .iter()
                .rev()
                .take(2)
                .take_while(|&&b| b == b'=')
                .count();
        if end.saturating_sub(base64) >= ALPHABET_RUN {
            if let Some(runs) = self.alphabet.as_mut() {
                runs.push(base64..end);
            }
        }
        self.pos = text.end + 1;
        Some(found)
    }

    /// A value as a tree, `depth` containers in (see [`tree_and_alphabet`]).
    fn tree(&mut self, depth: usize) -> Option<crate::json::tree::Json<'a>> {
        use crate::json::tree::{Json, Object, DEPTH};
        Some(match self.peek()? {
            b'"' if self.alphabet.is_some() => Json::String(self.plain_or_string()?),
            b'"' => Json::String(self.string(Decode::Short)?.0?),
            b'{' | b'[' if depth >= DEPTH => return None,
            b'{' => {
                self.pos += 1;
                self.ws();
                let mut members = Vec::new();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let key = self.string(Decode::Short)?.0?;
                        self.ws();
                        self.eat(b':')?;
                        self.ws();
                        members.push((key, self.tree(depth + 1)?));
                        self.ws();
                        match self.next()? {
                            b',' => continue,
                            b'}' => break,
                            _ => return None,
                        }
                    }
                }
                Json::Object(Object::from(members))
            }
            b'[' => {
                self.pos += 1;
                self.ws();
                let mut items = Vec::new();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.tree(depth + 1)?);
                        self.ws();
                        match self.next()? {
                            b',' => continue,
                            b']' => break,
                            _ => return None,
                        }
                    }
                }
                Json::Array(items)
            }
            b't' => self.word(b"true").map(|()| Json::Bool(true))?,
            b'f' => self.word(b"false").map(|()| Json::Bool(false))?,
            b'n' => self.word(b"null").map(|()| Json::Null)?,
            _ => {
                let start = self.pos;
                self.number()?;
                let n: f64 = self.text[start..self.pos].parse().ok()?;
                if !n.is_finite() {
                    return None;
                }
                Json::Number(n)
            }
        })
    }
}
