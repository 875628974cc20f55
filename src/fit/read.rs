//! Reading the file to fit: its format, how many payloads its reader
//! stored, and where each payload, its part and the member naming its
//! media type stand in the text.

use std::collections::HashMap;
use std::io;
use std::ops::Range;

use serde_json::{json, Value};

use crate::agents::lines::Line;
use crate::agents::payloads::{self, parse_path, OwnedStep};
use crate::agents::stand_in::MEDIA_TYPE_KEYS;
use crate::import::{
    from_agent, from_provider, read_auto, Detected, ImportOptions, ImportedHistory, PayloadSpan,
};
use crate::json::scan::{locate, Step};
use crate::media::store::{extension, InlineStore, MediaStore, Stored};

use super::FitError;

/// The file as its reader read it.
pub(super) struct Read {
    pub format: Detected,
    pub history: ImportedHistory,
    pub payloads: Vec<Located>,
}

/// A payload of the file and what stands around it.
pub(super) struct Located {
    /// The line (from 1) where the JSON value holding it begins.
    pub line: usize,
    /// Its JSON path in that value.
    pub path: String,
    /// Its text, between the quotes.
    pub span: Range<usize>,
    /// Its part (the array element holding it) and the part's shape: what
    /// a stand-in is chosen by. `None` when no array holds it.
    pub part: Option<(Range<usize>, Value)>,
    /// The text (between the quotes) of the member beside it naming its
    /// media type, if there is one.
    pub media_type: Option<Range<usize>>,
}

/// How the payloads a reader stores are named while counting: a name no
/// history holds by chance.
const TARGET: &str = "tool-carrier-fit-payload-";

/// A store that counts what a reader stores, keeping the bytes only when
/// the history is to be converted (`inline`: declared as `data:` URLs).
struct Counting {
    puts: usize,
    inline: bool,
}

impl MediaStore for Counting {
    fn put(&mut self, bytes: &[u8]) -> io::Result<Stored> {
        self.puts += 1;
        if self.inline {
            return InlineStore.put(bytes);
        }
        Ok(Stored {
            target: format!("{TARGET}{}.{}", self.puts, extension(bytes)),
            written: false,
        })
    }
}

/// Read `text` as `from` (by its shape when `None`); with `inline`, the
/// history keeps its payloads (for converting it).
pub(super) fn read(text: &str, from: Option<Detected>, inline: bool) -> Result<Read, FitError> {
    let mut store = Counting { puts: 0, inline };
    let options = ImportOptions::new();
    let (format, history) = match from {
        None => {
            let read = read_auto(&mut text.as_bytes(), &mut store, &options)
                .map_err(|e| FitError::Read(e.to_string()))?;
            (read.format, read.history)
        }
        Some(format @ Detected::Agent(agent)) => {
            let history = from_agent(agent, &mut text.as_bytes(), &mut store, &options)
                .map_err(|e| FitError::Read(format!("reading {format}: {e}")))?;
            (format, history)
        }
        Some(format @ Detected::Request(provider)) => {
            let value: Value = serde_json::from_str(text)
                .map_err(|e| FitError::Read(format!("reading {format}: {e}")))?;
            let history = from_provider(provider, &value, &mut store, &options)
                .map_err(|e| FitError::Read(format!("reading {format}: {e}")))?;
            (format, history)
        }
        Some(other) => return Err(FitError::Unsupported(other)),
    };
    let spans = match format {
        Detected::Agent(_) => history.payloads.clone(),
        // A request body's reader reads a parsed value: its payloads are
        // found in the text by their shapes.
        Detected::Request(_) => {
            let value: Value =
                serde_json::from_str(text).map_err(|e| FitError::Read(e.to_string()))?;
            let line = Line {
                number: 1,
                start: 0,
                text,
            };
            let mut spans = Vec::new();
            payloads::find(&line, &[], &value, &mut spans);
            spans
        }
        other => return Err(FitError::Unsupported(other)),
    };
    // Every payload the history holds must be found in the text. A reader
    // may store more than the history keeps (a Gemini CLI record a later
    // line replaced): those the agent never replays stay as they are.
    if !inline {
        let used = match format {
            Detected::Agent(_) => used(&history, store.puts),
            _ => store.puts,
        };
        if used > spans.len() || spans.len() > store.puts {
            return Err(FitError::Unlocated {
                format,
                stored: used,
                located: spans.len(),
            });
        }
    }
    let mut payloads = locate_all(text, &spans)?;
    // In file order: the oldest first.
    payloads.sort_by_key(|p| p.span.start);
    Ok(Read {
        format,
        history,
        payloads,
    })
}

/// How many of the `puts` payloads stored the history declares.
fn used(history: &ImportedHistory, puts: usize) -> usize {
    let mut seen = vec![false; puts + 1];
    for record in &history.messages {
        let text = record.content();
        for (at, _) in text.match_indices(TARGET) {
            let digits = &text[at + TARGET.len()..];
            let end = digits
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(digits.len());
            if let Some(slot) = digits[..end]
                .parse::<usize>()
                .ok()
                .and_then(|n| seen.get_mut(n))
            {
                *slot = true;
            }
        }
    }
    seen.iter().filter(|s| **s).count()
}

/// Where each payload of `spans` stands in `text`, checked: each is found
/// again at its path, at the span its reader said.
fn locate_all(text: &str, spans: &[PayloadSpan]) -> Result<Vec<Located>, FitError> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    let mut docs: HashMap<usize, (Range<usize>, Value)> = HashMap::new();
    let mut out = Vec::with_capacity(spans.len());
    for span in spans {
        let lost = |why: &str| FitError::Payload {
            line: span.line,
            path: span.path.clone(),
            why: why.to_owned(),
        };
        let steps = parse_path(&span.path).ok_or_else(|| lost("its path cannot be read"))?;
        let want = usize::try_from(span.span.start).unwrap_or(usize::MAX)
            ..usize::try_from(span.span.end).unwrap_or(usize::MAX);
        let borrowed: Vec<Step<'_>> = steps.iter().map(OwnedStep::step).collect();
        if let std::collections::hash_map::Entry::Vacant(slot) = docs.entry(span.line) {
            let start = *starts
                .get(span.line.wrapping_sub(1))
                .ok_or_else(|| lost("its line is not in the file"))?;
            let line_end =
                memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i);
            // The line when it is a whole value (JSON Lines), else the
            // document from it to the end.
            let doc = [start..line_end, start..text.len()]
                .into_iter()
                .find(|d| inner(text, d, &borrowed) == Some(want.clone()))
                .ok_or_else(|| lost("it is not found again at its path"))?;
            let value: Value =
                serde_json::from_str(&text[doc.clone()]).map_err(|e| lost(&e.to_string()))?;
            slot.insert((doc, value));
        }
        let (doc, value) = &docs[&span.line];
        if inner(text, doc, &borrowed) != Some(want.clone()) {
            return Err(lost("it is not found again at its path"));
        }
        // The part: the nearest ancestor that is an array element, or a
        // pydantic-ai object (`kind`), which may stand alone.
        let part_depth = (0..steps.len().saturating_sub(1)).rev().find(|&k| {
            matches!(steps[k], OwnedStep::Index(_))
                || value_at(value, &steps[..=k])
                    .and_then(|v| v.get("kind"))
                    .is_some_and(Value::is_string)
        });
        let part = part_depth
            .map(|k| {
                let at = &borrowed[..=k];
                let span = locate(&text[doc.clone()], at)
                    .map(|r| doc.start + r.start..doc.start + r.end)
                    .ok_or_else(|| lost("its part is not found"))?;
                Ok::<_, FitError>((span, shape(value_at(value, &steps[..=k]))))
            })
            .transpose()?;
        // The member naming its type: on the object holding it, or on an
        // object above it within its part (the AI SDK's `mediaType` beside
        // `data: {type: "data", data}`).
        let lowest = part_depth.map_or(steps.len().saturating_sub(1), |k| k + 1);
        let media_type = (lowest..steps.len())
            .rev()
            .find_map(|end| {
                let holder = &steps[..end];
                let key = value_at(value, holder).and_then(|p| {
                    MEDIA_TYPE_KEYS
                        .iter()
                        .find(|k| p.get(**k).is_some_and(Value::is_string))
                })?;
                let mut at: Vec<Step<'_>> = holder.iter().map(OwnedStep::step).collect();
                at.push(Step::Key(key));
                Some(at)
            })
            .and_then(|at| inner(text, doc, &at));
        out.push(Located {
            line: span.line,
            path: span.path.clone(),
            span: want,
            part,
            media_type,
        });
    }
    Ok(out)
}

/// The text between the quotes of the string at `at` in the document
/// `doc` of `text`.
fn inner(text: &str, doc: &Range<usize>, at: &[Step<'_>]) -> Option<Range<usize>> {
    let r = locate(text.get(doc.clone())?, at)?;
    let quoted = text.as_bytes().get(doc.start + r.start) == Some(&b'"') && r.len() >= 2;
    quoted.then(|| doc.start + r.start + 1..doc.start + r.end - 1)
}

fn value_at<'v>(value: &'v Value, steps: &[OwnedStep]) -> Option<&'v Value> {
    steps.iter().try_fold(value, |v, step| match step {
        OwnedStep::Key(k) => v.get(k),
        OwnedStep::Index(i) => v.get(i),
    })
}

/// What a part's stand-in is chosen by: its `type` and `kind`, and
/// whether it holds `inlineData` (not the payload itself).
fn shape(part: Option<&Value>) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(object) = part.and_then(Value::as_object) {
        for key in ["type", "kind"] {
            if let Some(v) = object.get(key) {
                out.insert(key.to_owned(), v.clone());
            }
        }
        if object.contains_key("inlineData") {
            out.insert("inlineData".to_owned(), json!({}));
        }
        return Value::Object(out);
    }
    Value::Null
}
