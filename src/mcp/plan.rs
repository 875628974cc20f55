//! Where a message's images are, found without decoding anything:
//! [`Plan`].
//!
//! Finding is cheap (one pass of the crate's scanner, string bodies
//! skipped 64 bytes at a time), so a proxy can find out on its forwarding
//! path whether a message has anything to prepare, and hand only those
//! that do to a worker.

use std::ops::Range;

use crate::json::scan::{self, Pick};

use super::fit::fit_found;
use super::options::FitOptions;
use super::rewrite::Rewrite;
use super::Method;

/// What kind of object holds an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A content block `{"type": "image", "data", "mimeType"}`.
    ImageBlock,
    /// A content block `{"type": "resource", "resource": {…, "blob"}}`
    /// whose resource has an image `mimeType`.
    ResourceBlock,
    /// An item of a `resources/read` result's `contents` with a `blob`
    /// and an image `mimeType`.
    ResourceContents,
}

/// One image found: the object holding it.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    /// The object's span in the message.
    pub span: Range<usize>,
    pub shape: Shape,
    /// The id of the response it is in, as written.
    pub id: Option<String>,
    /// `content[2]`, …
    pub at: String,
}

/// The images of one message (or result), found: what [`Plan::prepare`]
/// prepares. A plan belongs to the text it was made from.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The length of the text planned, to tell another text apart.
    len: usize,
    found: Vec<Found>,
    /// Whether the text was read as a message.
    read: bool,
}

impl Plan {
    pub(crate) fn new(len: usize, found: Vec<Found>, read: bool) -> Plan {
        Plan { len, found, read }
    }

    /// Whether the text planned is a JSON-RPC message as the stdio
    /// transport carries them: one JSON object, or one JSON array (a
    /// batch), white space around it allowed. A proxy forwards any other
    /// line too, and may say it is malformed.
    pub fn is_message(&self) -> bool {
        self.read
    }

    /// Whether there is nothing to prepare: the message goes as it is.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// How many images there are.
    pub fn len(&self) -> usize {
        self.found.len()
    }

    /// Prepare every image found in `text` (the text this plan was made
    /// from) for `options`' model. A text the plan was not made from (of
    /// another length, or without an object where an image was found) is
    /// returned unchanged.
    pub fn prepare<'a>(&self, text: &'a str, options: &FitOptions) -> Rewrite<'a> {
        if text.len() != self.len || self.found.is_empty() {
            return Rewrite::unchanged(text);
        }
        let mut edits = Vec::new();
        let mut images = Vec::with_capacity(self.found.len());
        for found in &self.found {
            let Some((mut edit, report)) = fit_found(text, found, options) else {
                return Rewrite::unchanged(text);
            };
            edits.append(&mut edit);
            images.push(report);
        }
        Rewrite::new(text, edits, images)
    }
}

/// The images of the result at `span` of `src`, a result of `method`,
/// appended to `out`: `at` is put before each one's path.
pub(crate) fn find_in_result(
    src: &str,
    span: Range<usize>,
    method: Method,
    id: Option<&str>,
    at: &str,
    out: &mut Vec<Found>,
) {
    let Some(result) = src.get(span.clone()) else {
        return;
    };
    if !may_hold_image(result) {
        return;
    }
    let Some(picked) = scan::pick(result, ["content", "contents", "resultType"]) else {
        return;
    };
    let [content, contents, result_type] = picked.picks;
    // A result of the 2026-07-28 revision says what it is; only a
    // complete one holds the tool's content (an `input_required` one holds
    // the server's own requests, sampling included, which are left alone).
    match result_type {
        Pick::Absent => {}
        Pick::One(m) if m.decoded.as_deref() == Some("complete") => {}
        _ => return,
    }
    let (list, name) = match method {
        Method::ToolsCall | Method::TasksResult => (content, "content"),
        Method::ResourcesRead => (contents, "contents"),
    };
    let Pick::One(list) = list else {
        return;
    };
    let list_start = span.start + list.value.start;
    let Some(items) = scan::array(&result[list.value.clone()]) else {
        return;
    };
    for (i, item) in items.into_iter().enumerate() {
        let item = list_start + item.start..list_start + item.end;
        let shape = match method {
            Method::ResourcesRead => {
                is_image_blob(&src[item.clone()]).then_some(Shape::ResourceContents)
            }
            _ => block_shape(&src[item.clone()]),
        };
        if let Some(shape) = shape {
            let at = match shape {
                Shape::ResourceBlock => format!("{at}{name}[{i}].resource"),
                _ => format!("{at}{name}[{i}]"),
            };
            out.push(Found {
                span: item,
                shape,
                id: id.map(str::to_owned),
                at,
            });
        }
    }
}

/// Whether `result` may hold an image: an image block's type is the
/// string `image`, and an image resource has a `blob` member. JSON writes
/// letters as themselves or as `\u` escapes, so a text with neither word
/// and no `\u` holds no image, and is not read further (three searches of
/// a few GB/s, against a scan of every nested value for each level).
fn may_hold_image(result: &str) -> bool {
    let b = result.as_bytes();
    [&b"image"[..], b"blob", b"\\u"]
        .iter()
        .any(|word| memchr::memmem::find(b, word).is_some())
}

/// Whether a content block holds an image, and how.
fn block_shape(block: &str) -> Option<Shape> {
    let picked = scan::pick(block, ["type", "resource"])?;
    let [kind, resource] = picked.picks;
    match kind {
        Pick::One(m) if m.decoded.as_deref() == Some("image") => Some(Shape::ImageBlock),
        Pick::One(m) if m.decoded.as_deref() == Some("resource") => match resource {
            Pick::One(r) if is_image_blob(&block[r.value.clone()]) => Some(Shape::ResourceBlock),
            _ => None,
        },
        // A repeated `type` is read by no one the same way: left as it is.
        _ => None,
    }
}

/// Whether resource contents carry a `blob` whose `mimeType` names an
/// image (`image/…`, any case).
pub(crate) fn is_image_blob(contents: &str) -> bool {
    let Some(picked) = scan::pick(contents, ["mimeType", "blob"]) else {
        return false;
    };
    let [mime, blob] = picked.picks;
    let image = match mime {
        Pick::One(m) => m
            .decoded
            .as_deref()
            .and_then(|t| t.get(..6))
            .is_some_and(|p| p.eq_ignore_ascii_case("image/")),
        _ => false,
    };
    image && !matches!(blob, Pick::Absent)
}
