//! A one-pass JSON object scanner for the envelope hot path.
//!
//! It accepts exactly the JSON syntax serde_json accepts (RFC 8259) when
//! values are skipped (`IgnoredAny`, `RawValue`): to any depth without
//! recursion, numbers checked for form but not range, strings checked for
//! escapes but not decoded. Keys, and the string values asked for, are
//! decoded, and refused as serde_json refuses them (a lone surrogate).
//! It keeps spans instead of values and skips string bodies 64 bytes at a
//! time: a tool's output is most of an envelope, and all the grammar needs
//! from it is where it ends and whether it holds an escape.
//!
//! ```text
//! object  := ws "{" ws ( member ( ws "," ws member )* )? ws "}" ws
//! array   := ws "[" ws ( value ( ws "," ws value )* )? ws "]" ws
//! member  := string ws ":" ws value
//! value   := string | number | "true" | "false" | "null" | array | object
//! ```

use std::borrow::Cow;
use std::ops::Range;

/// One member of a scanned object.
#[derive(Clone, Debug)]
pub(crate) struct Member<'a> {
    /// The key, decoded.
    pub key: Cow<'a, str>,
    /// The value's span (no surrounding white space).
    pub value: Range<usize>,
    /// The decoded string value, for the keys asked for in [`object`].
    pub decoded: Option<Cow<'a, str>>,
}

/// The members of the JSON object `src`, in order, duplicates kept; `None`
/// when `src` is not exactly one valid JSON object (white space around it
/// allowed) or a key does not decode. String values of the members named
/// in `decode` are decoded in the same pass (`None` when one does not
/// decode, as serde_json refuses it).
pub(crate) fn object<'a>(src: &'a str, decode: &[&str]) -> Option<Vec<Member<'a>>> {
    let mut c = Cursor::new(src);
    c.ws();
    c.eat(b'{')?;
    let mut members = Vec::new();
    // Which of the `decode` names have been decoded (at most 64 names).
    let mut seen = 0u64;
    debug_assert!(decode.len() <= 64);
    c.ws();
    if c.peek() == Some(b'}') {
        c.pos += 1;
    } else {
        loop {
            c.ws();
            let (key, _) = c.string(Decode::Short)?;
            let key = key?;
            c.ws();
            c.eat(b':')?;
            c.ws();
            let start = c.pos;
            // Each named value is decoded once: a repeat is a duplicate the
            // caller refuses, and decoding it again would reserve again.
            let wanted = decode.iter().position(|k| *k == key.as_ref());
            let first = wanted.is_some_and(|i| seen & (1 << i) == 0);
            if let Some(i) = wanted {
                seen |= 1 << i;
            }
            let decoded = if c.peek() == Some(b'"') {
                let how = if first { Decode::Value } else { Decode::No };
                c.string(how)?.0
            } else {
                c.value()?;
                None
            };
            members.push(Member {
                key,
                value: start..c.pos,
                decoded,
            });
            c.ws();
            match c.next()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
    }
    c.ws();
    (c.pos == src.len()).then_some(members)
}

/// How often one of the names asked of [`pick`] occurs in an object.
#[derive(Clone, Debug)]
pub(crate) enum Pick<'a> {
    /// Not a member.
    Absent,
    /// Exactly one member.
    One(Member<'a>),
    /// Two or more members; `at` is the position (among all members) of
    /// the first repeat, so callers can name the repeat that comes first.
    Repeated { at: usize },
}

impl<'a> Pick<'a> {
    /// The member when there is exactly one.
    pub(crate) fn one(self) -> Option<Member<'a>> {
        match self {
            Pick::One(m) => Some(m),
            _ => None,
        }
    }
}

/// An object read by [`pick`].
#[derive(Clone, Debug)]
pub(crate) struct Picked<'a, const N: usize> {
    /// One entry for each name asked for, in the order asked.
    pub picks: [Pick<'a>; N],
    /// Where the last member's value ends: where a new member goes after
    /// it. `None` for `{}`.
    pub last_end: Option<usize>,
}

impl<const N: usize> Picked<'_, N> {
    /// Which of the names at `among` (positions in the names asked for)
    /// repeats first in the object, as its position in the names.
    pub(crate) fn first_repeat(&self, among: &[usize]) -> Option<usize> {
        among
            .iter()
            .filter_map(|&i| match self.picks[i] {
                Pick::Repeated { at } => Some((at, i)),
                _ => None,
            })
            .min()
            .map(|(_, i)| i)
    }
}

/// The one member reader of the crate: the object `src`, with the members
/// named in `names` taken out once each and a repeat of any of them told
/// apart (JSON readers disagree on which copy of a repeated member wins,
/// so the grammar never picks one). String values of the named members are
/// decoded in the same pass. `None` as [`object`].
pub(crate) fn pick<'a, const N: usize>(src: &'a str, names: [&str; N]) -> Option<Picked<'a, N>> {
    let members = object(src, &names)?;
    let last_end = members.last().map(|m| m.value.end);
    let mut picks: [Pick<'a>; N] = std::array::from_fn(|_| Pick::Absent);
    for (at, m) in members.into_iter().enumerate() {
        let Some(i) = names.iter().position(|n| *n == m.key.as_ref()) else {
            continue;
        };
        picks[i] = match picks[i] {
            Pick::Absent => Pick::One(m),
            Pick::One(_) => Pick::Repeated { at },
            Pick::Repeated { at } => Pick::Repeated { at },
        };
    }
    Some(Picked { picks, last_end })
}

/// Whether `src` is exactly one valid JSON value (white space around it
/// allowed), as serde_json reads it when the value is ignored.
pub(crate) fn is_json(src: &str) -> bool {
    let mut c = Cursor::new(src);
    c.ws();
    if c.value().is_none() {
        return false;
    }
    c.ws();
    c.pos == src.len()
}

fn hex(d: u8) -> Option<u8> {
    match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        b'A'..=b'F' => Some(d - b'A' + 10),
        _ => None,
    }
}

/// The spans of the elements of the JSON array `src`, in order; `None`
/// when `src` is not exactly one valid JSON array (white space around it
/// allowed).
pub(crate) fn array(src: &str) -> Option<Vec<Range<usize>>> {
    let mut c = Cursor::new(src);
    c.ws();
    c.eat(b'[')?;
    let mut items = Vec::new();
    c.ws();
    if c.peek() == Some(b']') {
        c.pos += 1;
    } else {
        loop {
            c.ws();
            let start = c.pos;
            c.value()?;
            items.push(start..c.pos);
            c.ws();
            match c.next()? {
                b',' => continue,
                b']' => break,
                _ => return None,
            }
        }
    }
    c.ws();
    (c.pos == src.len()).then_some(items)
}

/// [`special`] as a table, for the byte-at-a-time part of the search.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = special(b as u8);
        b += 1;
    }
    t
};

/// Whether `b` ends a run of plain string bytes: a quote, a backslash or a
/// control character (which JSON forbids raw inside a string).
#[inline]
const fn special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The index of the first [`special`] byte of `s`. After the first few
/// bytes, blocks of 64 bytes are
/// tested whole with branch-free byte compares OR-ed into one flag (the
/// loop compiles to vector compares: ~30 µs per MiB here, against ~1 ms
/// for a short-circuiting `any`); the block that holds a hit is searched
/// byte by byte.
#[inline]
pub(crate) fn find_special(s: &[u8]) -> Option<usize> {
    // Escapes come in clusters: look at a few bytes one by one first.
    const NEAR: usize = 16;
    let near = &s[..NEAR.min(s.len())];
    if let Some(i) = near.iter().position(|&b| SPECIAL[usize::from(b)]) {
        return Some(i);
    }
    let mut at = near.len();
    for block in s[at..].chunks_exact(64) {
        let mut hit = 0u8;
        for &b in block {
            hit |= u8::from(b == b'"') | u8::from(b == b'\\') | u8::from(b < 0x20);
        }
        if hit != 0 {
            break;
        }
        at += 64;
    }
    s[at..]
        .iter()
        .position(|&b| SPECIAL[usize::from(b)])
        .map(|i| at + i)
}

/// Whether and how [`Cursor::string`] decodes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Decode {
    /// Validate only.
    No,
    /// Decode a key: short, reserve in proportion.
    Short,
    /// Decode a value once per object: reserve the rest of the input.
    Value,
}

/// All index arithmetic lives here; the grammar only peeks and advances.
struct Cursor<'a> {
    text: &'a str,
    src: &'a [u8],
    pos: usize,
    /// Where [`Cursor::tree`] found long runs of base64 alphabet inside
    /// plain strings (byte ranges of `text`), when asked to.
    #[cfg(feature = "media")]
    alphabet: Option<Vec<Range<usize>>>,
    /// The strings still ahead whose text is vouched for
    /// ([`tree_and_alphabet`]).
    #[cfg(feature = "media")]
    vouched: &'a [Vouched],
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            text,
            src: text.as_bytes(),
            pos: 0,
            #[cfg(feature = "media")]
            alphabet: None,
            #[cfg(feature = "media")]
            vouched: &[],
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    #[inline]
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        Some(b)
    }

    #[inline]
    fn eat(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    /// ws := ( " " | "\t" | "\n" | "\r" )*
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// string := "\"" ( plain | escape )* "\""
    ///
    /// Returns whether the literal held an escape and, when `decode`, its
    /// text (borrowed when there is no escape; `None` when an escape does
    /// not decode). Decoding happens in the same pass as validation.
    fn string(&mut self, how: Decode) -> Option<(Option<Cow<'a, str>>, bool)> {
        let decode = how != Decode::No;
        self.eat(b'"')?;
        let start = self.pos;
        let mut escaped = false;
        let mut undecodable = false;
        let mut out: Option<String> = None;
        loop {
            let run = self.pos;
            self.pos += find_special(&self.src[self.pos..])?;
            if let Some(out) = out.as_mut() {
                out.push_str(&self.text[run..self.pos]);
            }
            match self.next()? {
                b'"' => {
                    let text = match out {
                        _ if !decode || undecodable => None,
                        Some(s) => Some(Cow::Owned(s)),
                        None => Some(Cow::Borrowed(&self.text[start..self.pos - 1])),
                    };
                    return Some((text, escaped));
                }
                b'\\' => {
                    if decode && !escaped {
                        // A value (a body, most of the input) gets room for
                        // the rest of the input at once; a key gets room in
                        // proportion, as many short escaped keys would each
                        // reserve again.
                        let room = match how {
                            Decode::Value => self.src.len() - start,
                            _ => 2 * (self.pos - start) + 64,
                        };
                        let mut s = String::with_capacity(room);
                        s.push_str(&self.text[start..self.pos - 1]);
                        out = Some(s);
                    }
                    escaped = true;
                    match (self.escape()?, out.as_mut()) {
                        (Some(c), Some(out)) => out.push(c),
                        (None, _) => undecodable = true,
                        (Some(_), None) => {}
                    }
                }
                _ => return None, // a raw control character
            }
        }
    }

    /// escape := ( ["\\/bfnrt] | "u" hex{4} ), after the backslash.
    ///
    /// The outer `None` is invalid syntax; the inner one a `\\u` escape that
    /// is no character (a surrogate without its pair), valid JSON that a
    /// string cannot hold.
    fn escape(&mut self) -> Option<Option<char>> {
        let c = match self.next()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => match self.hex4()? {
                high @ 0xD800..=0xDBFF => {
                    if self.src.get(self.pos..self.pos + 2) != Some(b"\\u") {
                        return Some(None);
                    }
                    let second = self.pos;
                    self.pos += 2;
                    let low = self.hex4()?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        // Not a pair: the second escape stands on its own.
                        self.pos = second;
                        return Some(None);
                    }
                    let code =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    char::from_u32(code)?
                }
                0xDC00..=0xDFFF => return Some(None),
                unit => char::from_u32(u32::from(unit))?,
            },
            _ => return None,
        };
        Some(Some(c))
    }

    fn hex4(&mut self) -> Option<u16> {
        let mut v = 0u16;
        for _ in 0..4 {
            v = (v << 4) | u16::from(hex(self.next()?)?);
        }
        Some(v)
    }

    /// number := "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [+-]? [0-9]+ )?
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digit()?;
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.digit()?;
            self.digits();
        }
        Some(())
    }

    fn digit(&mut self) -> Option<()> {
        self.next().filter(u8::is_ascii_digit).map(|_| ())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.src.get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// Any value, to any depth, with an explicit stack instead of recursion.
    fn value(&mut self) -> Option<()> {
        // `true` for an open object, `false` for an open array.
        let mut open: Vec<bool> = Vec::new();
        loop {
            // A value.
            match self.peek()? {
                b'"' => {
                    self.string(Decode::No)?;
                }
                b'{' => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        open.push(true);
                        self.string(Decode::No)?;
                        self.ws();
                        self.eat(b':')?;
                        self.ws();
                        continue;
                    }
                }
                b'[' => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        open.push(false);
                        continue;
                    }
                }
                b't' => self.word(b"true")?,
                b'f' => self.word(b"false")?,
                b'n' => self.word(b"null")?,
                _ => self.number()?,
            }
            // After a value: close containers or move to the next element.
            loop {
                let Some(&in_object) = open.last() else {
                    return Some(());
                };
                self.ws();
                match self.next()? {
                    b',' => {
                        self.ws();
                        if in_object {
                            self.string(Decode::No)?;
                            self.ws();
                            self.eat(b':')?;
                            self.ws();
                        }
                        break;
                    }
                    b'}' if in_object => {
                        open.pop();
                    }
                    b']' if !in_object => {
                        open.pop();
                    }
                    _ => return None,
                }
            }
        }
    }
}

/// One step of a path into a JSON value: a member, or an array element.
#[cfg(feature = "media")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The span of the value at `path` inside the JSON text `src` (no white
/// space around it), as serde_json reads the text: of a repeated key, the
/// last. `None` when `src` is no valid JSON or nothing is there.
#[cfg(feature = "media")]
pub(crate) fn locate(src: &str, path: &[Step<'_>]) -> Option<Range<usize>> {
    let mut span = 0..src.len();
    for step in path {
        let inner = &src[span.clone()];
        let found = match step {
            Step::Key(key) => {
                object(inner, &[])?
                    .into_iter()
                    .rev()
                    .find(|m| m.key == *key)?
                    .value
            }
            Step::Index(i) => array(inner)?.into_iter().nth(*i)?,
        };
        span = span.start + found.start..span.start + found.end;
    }
    let lead = src[span.clone()].len() - src[span.clone()].trim_start().len();
    let trail = src[span.clone()].len() - src[span.clone()].trim_end().len();
    Some(span.start + lead..span.end - trail)
}

#[cfg(feature = "media")]
#[path = "scan_tree.rs"]
mod read_tree;
#[cfg(all(test, feature = "media"))]
pub(crate) use read_tree::ALPHABET_RUN;
#[cfg(feature = "media")]
pub(crate) use read_tree::{tree_and_alphabet, Vouched};

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
