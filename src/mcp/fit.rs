//! One image of a result prepared for the model, and one result
//! ([`fit_result`]).
//!
//! An image is decoded from its base64 text (the JSON string decoded
//! first, so `\/` and other escapes read as what they say), sniffed and
//! prepared by the media pipeline ([`prepare_for`]) for the
//! [`FitOptions`]' policy, budget and image types. Then, in the object
//! that holds it:
//!
//! * passed through untouched, with a `mimeType` that names its type: the
//!   object is left byte for byte;
//! * passed through, but its `mimeType` names another type (or none): only
//!   `mimeType` is rewritten;
//! * resized or re-encoded: `data` (or `blob`) and `mimeType` are
//!   rewritten, every other member (`annotations`, `_meta`, `uri`, members
//!   of later revisions) kept as written; a resized image's original and
//!   sent sizes are added to its `_meta` under [`SCALE_META`](super::SCALE_META) (and, asked,
//!   said in a text block after it);
//! * not preparable: a content block becomes a text content block saying
//!   why (its `annotations`, `_meta` and other members kept), an item of
//!   `contents` becomes text resource contents (`text/plain`, its `uri`
//!   and `_meta` kept).

use std::ops::Range;

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

use crate::json::push_json_str;
use crate::json::scan::{self, Member};
use crate::media::{prepare_for, sniff, MediaType, Sniffed};

use super::options::FitOptions;
use super::plan::{find_in_result, Found, Plan, Shape};
use super::report::{ImageReport, Outcome};
use super::rewrite::{Edit, Rewrite};
use super::Method;
use crate::media::scale::Scale;

/// Base64 as servers write it: the standard alphabet, padded or not.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Prepare every image of `result`, the JSON text of one result of
/// `method` (a `CallToolResult` for [`Method::ToolsCall`] and
/// [`Method::TasksResult`], a `ReadResourceResult` for
/// [`Method::ResourcesRead`]), for `options`' model.
///
/// Text that is no JSON object, or a result without images, comes back
/// unchanged ([`Rewrite::changed`] is `false`, [`Rewrite::text`] borrows
/// `result`).
///
/// ```
/// use tool_carrier::facts::Facts;
/// use tool_carrier::mcp::{fit_result, FitOptions, Method, Outcome};
/// use tool_carrier::provider::Provider;
///
/// let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, None);
/// let result = r#"{"content":[{"type":"text","text":"Shot."},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"audience":["user"]}}]}"#;
/// let fitted = fit_result(result, Method::ToolsCall, &options);
/// assert!(fitted.changed());
/// assert!(matches!(fitted.images()[0].outcome, Outcome::Replaced { .. }));
/// assert_eq!(
///     fitted.text(),
///     r#"{"content":[{"type":"text","text":"Shot."},{"type":"text","text":"[image content[1] not attached: malformed image/png header: first chunk is not IHDR]","annotations":{"audience":["user"]}}]}"#
/// );
/// ```
pub fn fit_result<'a>(result: &'a str, method: Method, options: &FitOptions) -> Rewrite<'a> {
    let mut found = Vec::new();
    find_in_result(result, 0..result.len(), method, None, "", &mut found);
    Plan::new(result.len(), found, true).prepare(result, options)
}

/// The edits that prepare the image `found` of `src`, and what became of
/// it; `None` when `src` holds no object where `found` says (a text the
/// plan was not made from).
pub(crate) fn fit_found(
    src: &str,
    found: &Found,
    options: &FitOptions,
) -> Option<(Vec<Edit>, ImageReport)> {
    let report = |outcome| ImageReport {
        id: found.id.clone(),
        at: found.at.clone(),
        outcome,
    };
    let span = found.span.clone();
    let members = scan::object(src.get(span.clone())?, &DECODED)?;
    // Where the payload and its type are: in the block, or in its resource.
    let inner;
    let (holder, holder_start, data_key): (&[Member<'_>], usize, &str) = match found.shape {
        Shape::ImageBlock => (&members, span.start, "data"),
        Shape::ResourceContents => (&members, span.start, "blob"),
        Shape::ResourceBlock => {
            // The plan found exactly one.
            let resource = only(&members, "resource")?;
            let start = span.start + resource.value.start;
            inner = scan::object(&src[start..span.start + resource.value.end], &DECODED)?;
            (&inner, start, "blob")
        }
    };
    let abs = |r: &Range<usize>| holder_start + r.start..holder_start + r.end;
    let (Some(data), mime) = (only(holder, data_key), repeated_or(holder, "mimeType")) else {
        let why = if holder.iter().any(|m| m.key == data_key) {
            format!("its {data_key:?} is repeated")
        } else {
            format!("it has no {data_key:?}")
        };
        return Some(refuse(src, found, &members, why, report));
    };
    let Ok(mime) = mime else {
        return Some(refuse(
            src,
            found,
            &members,
            "its \"mimeType\" is repeated".into(),
            report,
        ));
    };
    let Some(text) = data.decoded.as_deref() else {
        return Some(refuse(
            src,
            found,
            &members,
            format!("its {data_key:?} is not a string"),
            report,
        ));
    };
    // Wrapped at 76 characters (RFC 2045): the same bytes, sent unwrapped.
    let wrapped = text.bytes().any(|b| b == b'\n' || b == b'\r');
    let unwrapped;
    let text = if wrapped {
        unwrapped = text.replace(['\r', '\n'], "");
        unwrapped.as_str()
    } else {
        text
    };
    let bytes = match LENIENT.decode(text) {
        Ok(b) => b,
        Err(e) => {
            return Some(refuse(
                src,
                found,
                &members,
                format!("its {data_key:?} is not base64 ({e})"),
                report,
            ))
        }
    };
    if let Sniffed::Media(MediaType::Pdf) = sniff(&bytes) {
        return Some(refuse(
            src,
            found,
            &members,
            "it is a PDF, not an image".into(),
            report,
        ));
    }
    let prepared = match prepare_for(
        bytes,
        options.policy(),
        options.budget(),
        options.image_types(),
    ) {
        Ok(p) => p,
        Err(e) => return Some(refuse(src, found, &members, e.reason().to_string(), report)),
    };
    let declared = mime.and_then(|m| m.decoded.as_deref());
    let named = declared.is_some_and(|d| d.eq_ignore_ascii_case(prepared.media_type.as_str()));
    let mut literal = String::new();
    push_json_str(&mut literal, prepared.media_type.as_str());
    let mut edits = Vec::new();
    if prepared.reencoded || wrapped {
        let mut payload = String::with_capacity(prepared.base64_len() + 2);
        payload.push('"');
        prepared.write_base64(&mut payload);
        payload.push('"');
        edits.push((abs(&data.value), payload));
    }
    if !prepared.reencoded && named {
        return Some((edits, report(Outcome::Kept(prepared.facts()))));
    }
    if !named {
        match mime {
            Some(m) => edits.push((abs(&m.value), literal)),
            // No `mimeType` (the schema requires one): one is added after
            // the last member.
            None => {
                let end = holder.last().map_or(0, |m| m.value.end);
                let at = holder_start + end;
                edits.push((at..at, format!(",\"mimeType\":{literal}")));
            }
        }
    }
    if let Some(scale) = prepared
        .resized
        .then(|| Scale::of(&prepared.original, &prepared.facts()))
        .flatten()
    {
        edits.extend(scale.meta_edit(src, span.start, &members));
        // Beside a content block; an item of `contents` has no neighbour
        // a model reads as a remark.
        if options.says_scale() && found.shape != Shape::ResourceContents {
            edits.push((span.end..span.end, scale.text_block()));
        }
    }
    edits.sort_by_key(|(r, _)| r.start);
    let outcome = if prepared.reencoded {
        Outcome::Fitted {
            from: prepared.original,
            to: prepared.facts(),
        }
    } else {
        Outcome::Relabeled {
            declared: declared.unwrap_or("").to_owned(),
            facts: prepared.facts(),
        }
    };
    Some((edits, report(outcome)))
}

/// The string members decoded while scanning an image's object.
const DECODED: [&str; 5] = ["data", "blob", "mimeType", "uri", "type"];

/// The member `key` when it occurs once.
fn only<'m, 'a>(members: &'m [Member<'a>], key: &str) -> Option<&'m Member<'a>> {
    let mut it = members.iter().filter(|m| m.key == key);
    let first = it.next()?;
    it.next().is_none().then_some(first)
}

/// The member `key` when it occurs at most once; `Err` when repeated.
fn repeated_or<'m, 'a>(members: &'m [Member<'a>], key: &str) -> Result<Option<&'m Member<'a>>, ()> {
    let mut it = members.iter().filter(|m| m.key == key);
    let first = it.next();
    match it.next() {
        Some(_) => Err(()),
        None => Ok(first),
    }
}

/// The image `found` replaced by a text saying `why`.
fn refuse(
    src: &str,
    found: &Found,
    members: &[Member<'_>],
    why: String,
    report: impl FnOnce(Outcome) -> ImageReport,
) -> (Vec<Edit>, ImageReport) {
    let object = &src[found.span.clone()];
    let note = format!("[image {} not attached: {why}]", found.at);
    let mut out = String::with_capacity(note.len() + 64);
    // Members the replacement writes itself, or that belonged to the image.
    let dropped: &[&str] = match found.shape {
        Shape::ImageBlock => &["type", "text", "data", "mimeType"],
        Shape::ResourceBlock => &["type", "text", "resource"],
        Shape::ResourceContents => &["uri", "text", "blob", "mimeType"],
    };
    if found.shape == Shape::ResourceContents {
        out.push_str("{\"uri\":");
        match only(members, "uri") {
            Some(uri) => out.push_str(&object[uri.value.clone()]),
            None => out.push_str("\"\""),
        }
        out.push_str(",\"mimeType\":\"text/plain\",\"text\":");
    } else {
        out.push_str("{\"type\":\"text\",\"text\":");
    }
    push_json_str(&mut out, &note);
    for m in members
        .iter()
        .filter(|m| !dropped.contains(&m.key.as_ref()))
    {
        out.push(',');
        push_json_str(&mut out, &m.key);
        out.push(':');
        out.push_str(&object[m.value.clone()]);
    }
    out.push('}');
    (
        vec![(found.span.clone(), out)],
        report(Outcome::Replaced { reason: why }),
    )
}
