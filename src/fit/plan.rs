//! What becomes of each payload: kept as it is, fitted, or left out, the
//! newest first, as the conversion decides for a request (the provider's
//! image count, its total of inline media, the many-images edge, the
//! model's processing size).

use std::borrow::Cow;

use base64::Engine;

use crate::facts::Provider;
use crate::media::data_uri::{decode_read, is_data_uri};
use crate::media::header::read_header;
use crate::media::{prepare_for, MediaFacts, MediaType, Prepared, Sniffed};
use crate::provider::Options;
use crate::steps::attach::policy_for;

use super::read::Located;
use super::report::FitAction;
use super::FitError;

/// How a payload's text was written, so that its replacement is written
/// the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// Bare base64, in this alphabet, padded or not.
    Base64 { url_safe: bool, padded: bool },
    /// A `data:` URL.
    DataUrl,
}

impl Form {
    /// `prepared` written in this form.
    pub(super) fn write(self, prepared: &Prepared) -> String {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        match self {
            Form::DataUrl => prepared.data_url().to_string(),
            Form::Base64 { url_safe, padded } => match (url_safe, padded) {
                (false, true) => STANDARD.encode(&prepared.bytes),
                (false, false) => STANDARD_NO_PAD.encode(&prepared.bytes),
                (true, true) => URL_SAFE.encode(&prepared.bytes),
                (true, false) => URL_SAFE_NO_PAD.encode(&prepared.bytes),
            },
        }
    }
}

/// The bytes of the payload text `text` (as it stands between the
/// quotes), and its form.
pub(super) fn decode(text: &str) -> Result<(Form, Vec<u8>), String> {
    let text: Cow<'_, str> = if text.contains('\\') {
        Cow::Owned(serde_json::from_str(&format!("\"{text}\"")).map_err(|e| e.to_string())?)
    } else {
        Cow::Borrowed(text)
    };
    if is_data_uri(&text) {
        let (_, payload) = text.split_once(',').ok_or("a data: URL without a comma")?;
        let bytes = decode_read(payload).map_err(|e| format!("not base64: {e}"))?;
        return Ok((Form::DataUrl, bytes));
    }
    let bytes = decode_read(&text).map_err(|e| format!("not base64: {e}"))?;
    let url_safe = text.bytes().any(|b| b == b'-' || b == b'_');
    let padded = text.ends_with('=') || text.trim_end().len().is_multiple_of(4);
    Ok((Form::Base64 { url_safe, padded }, bytes))
}

/// What a payload is, read once.
struct Seen {
    form: Form,
    /// Its type, size and pixels; `None` for what is not an image or PDF.
    facts: Option<MediaFacts>,
}

/// What one payload was, what became of it, and its new bytes if fitted.
pub(super) type Decided = (Option<MediaFacts>, FitAction, Option<(Form, Prepared)>);

/// What became of each payload, in file order.
pub(super) struct Plan {
    pub model: String,
    pub items: Vec<Decided>,
}

/// Decide, for each payload of `payloads` in `text`, what it becomes in a
/// request for `provider` by `options`.
pub(super) fn decide(
    text: &str,
    payloads: &[Located],
    provider: Provider,
    options: &Options,
) -> Result<Plan, FitError> {
    let (model, _, caps) = crate::provider::target_of(provider, options);
    let limits = &caps.limits;
    let mut seen = Vec::with_capacity(payloads.len());
    for p in payloads {
        let (form, bytes) = decode(&text[p.span.clone()]).map_err(|why| FitError::Payload {
            line: p.line,
            path: p.path.clone(),
            why,
        })?;
        seen.push(Seen {
            form,
            facts: facts_of(&bytes),
        });
    }
    let is = |s: &Seen, t: fn(MediaType) -> bool| s.facts.is_some_and(|f| t(f.media_type));
    let image = |t: MediaType| t.is_image();
    let document = |t: MediaType| t == MediaType::Pdf;
    let keep = if caps.vision {
        options
            .eviction
            .keep_images
            .map_or(limits.max_images, |n| n.min(limits.max_images))
    } else {
        0
    };
    let images = seen.iter().filter(|s| is(s, image)).count().min(keep);
    let documents = seen.iter().filter(|s| is(s, document)).count();
    let policy = policy_for(options, provider, &model, limits, images, documents);

    let mut items: Vec<_> = (0..seen.len()).map(|_| None).collect();
    // Images left out for the request's limits (its count, the images
    // kept, its total), the oldest first: the eviction step rounds these.
    let mut evicted = vec![false; seen.len()];
    let (mut kept_images, mut kept_documents, mut total) = (0usize, 0usize, 0usize);
    let mut total_full = false;
    for (i, s) in seen.iter().enumerate().rev() {
        let Some(facts) = s.facts else {
            items[i] = Some((None, FitAction::NotMedia, None));
            continue;
        };
        let is_document = facts.media_type == MediaType::Pdf;
        let left = |why: String| Some((Some(facts), FitAction::LeftOut(why), None));
        if is_document && !limits.documents {
            items[i] = left(format!("{provider} takes no PDF documents"));
            continue;
        }
        if !is_document && kept_images >= keep {
            evicted[i] = caps.vision;
            items[i] = left(if caps.vision {
                match keep {
                    1 => format!("only the newest image is kept for {model}"),
                    n => format!("only the newest {n} images are kept for {model}"),
                }
            } else {
                format!("{model} takes no images")
            });
            continue;
        }
        if is_document && kept_documents >= limits.max_documents {
            items[i] = left(format!(
                "{provider} takes at most {} documents in a request",
                limits.max_documents
            ));
            continue;
        }
        if total_full {
            evicted[i] = !is_document;
            items[i] = left(format!(
                "the newer media fill the {} of inline media {provider} takes in a request",
                size(limits.max_total)
            ));
            continue;
        }
        let p = &payloads[i];
        // Decoded again rather than kept from the first pass: one payload's
        // bytes are held at a time, not the whole file's.
        let (_, bytes) = decode(&text[p.span.clone()]).expect("decoded above");
        let prepared = match prepare_for(bytes, &policy, limits.budget, &limits.image_types) {
            Ok(prepared) => prepared,
            Err(e) => {
                items[i] = left(e.to_string());
                continue;
            }
        };
        let measured = prepared.base64_len();
        if total.saturating_add(measured) > limits.max_total {
            total_full = true;
            evicted[i] = !is_document;
            items[i] = left(format!(
                "the newer media fill the {} of inline media {provider} takes in a request",
                size(limits.max_total)
            ));
            continue;
        }
        total += measured;
        if is_document {
            kept_documents += 1;
        } else {
            kept_images += 1;
        }
        items[i] = Some(if prepared.resized || prepared.reencoded {
            (
                Some(prepared.original),
                FitAction::Fitted(prepared.facts()),
                Some((s.form, prepared)),
            )
        } else {
            (Some(prepared.original), FitAction::Kept, None)
        });
    }
    let mut items: Vec<Decided> = items
        .into_iter()
        .map(|i| i.expect("each decided"))
        .collect();
    round_to_step(&mut items, &evicted, options.eviction.step);
    Ok(Plan { model, items })
}

/// With an eviction step K > 1 ([`Options::with_evict_step`]): once
/// images are left out for the request's limits, leave out a multiple of
/// K of them, the oldest of those kept going first, and say so in every
/// such text. The boundary then moves once in K turns, not every turn, so
/// a provider's prompt cache over the file's beginning holds that long.
///
/// [`Options::with_evict_step`]: crate::provider::Options::with_evict_step
fn round_to_step(items: &mut [Decided], evicted: &[bool], k: usize) {
    let out = evicted.iter().filter(|&&e| e).count();
    if k <= 1 || out == 0 {
        return;
    }
    let newest = evicted.iter().rposition(|&e| e).expect("one left out");
    let FitAction::LeftOut(why) = &items[newest].1 else {
        unreachable!("an evicted payload is left out")
    };
    let why = format!("{why}; the oldest are left out {k} at a time");
    let more = out.div_ceil(k) * k - out;
    let sent_image = |item: &Decided| {
        matches!(item.1, FitAction::Kept | FitAction::Fitted(_))
            && item.0.is_some_and(|f| f.media_type.is_image())
    };
    let moved: Vec<usize> = (0..items.len())
        .filter(|&i| sent_image(&items[i]))
        .take(more)
        .collect();
    for i in moved {
        items[i] = (items[i].0, FitAction::LeftOut(why.clone()), None);
    }
    for (item, _) in items.iter_mut().zip(evicted).filter(|(_, &e)| e) {
        if let FitAction::LeftOut(w) = &mut item.1 {
            w.push_str(&format!("; the oldest are left out {k} at a time"));
        }
    }
}

/// The type, size and pixels of `bytes`; `None` for what is neither an
/// image nor a PDF.
fn facts_of(bytes: &[u8]) -> Option<MediaFacts> {
    let Sniffed::Media(media_type) = crate::media::sniff(bytes) else {
        return None;
    };
    let header = (media_type != MediaType::Pdf)
        .then(|| read_header(bytes, media_type).ok())
        .flatten();
    Some(MediaFacts {
        media_type,
        bytes: bytes.len(),
        width: header.as_ref().map(|h| h.width),
        height: header.as_ref().map(|h| h.height),
    })
}

/// `n` base64 characters, said in MB.
fn size(n: usize) -> String {
    format!("{:.1} MB of base64", n as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_is_read_and_written_back_alike() {
        let bytes = b"\x89PNG\r\n\x1a\n????";
        let std = base64::engine::general_purpose::STANDARD.encode(bytes);
        let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b"\xfb\xff\xfe\xfa");
        assert_eq!(
            decode(&std).unwrap().0,
            Form::Base64 {
                url_safe: false,
                padded: true
            }
        );
        assert_eq!(
            decode(&url).unwrap(),
            (
                Form::Base64 {
                    url_safe: true,
                    padded: false
                },
                b"\xfb\xff\xfe\xfa".to_vec()
            )
        );
        let escaped = std.replace('/', "\\/");
        assert_eq!(decode(&escaped).unwrap().1, bytes);
        let data = format!("data:image/png;base64,{std}");
        assert_eq!(decode(&data).unwrap(), (Form::DataUrl, bytes.to_vec()));
        assert!(decode("data:image/png;base64").is_err());
        assert!(decode("not base64!").is_err());
    }
}
