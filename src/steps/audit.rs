//! The first pass of every request-body reader: each entry of each list
//! the reader reads (messages, their blocks, parts or items, a result's
//! content) is looked up in the API's SDK tables ([`known`](super::known))
//! and counted by its kind ([`Tally`](super::tally::Tally)), before the
//! reader proper decides what becomes of it.
//!
//! * An entry of a kind the SDK does not list is refused, naming it and
//!   its JSON path — or, with [`ImportOptions::keep_unknown`], counted and
//!   left to the reader, which keeps it as a note.
//! * A member the SDK does not list for the entry's kind is noted (and
//!   counted as an `unlisted member`): the reader does not keep it.
//!
//! An API describes its lists once, as a tree of [`Walk`]s.

use serde_json::Value;

use super::imported::{ImportError, ImportedHistory};
use super::known::{Form, List, Refusal, Unlisted};

/// How a request body is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Keep an entry of a kind the API's pinned SDK does not list (as
    /// written, with a counted note) instead of refusing the input.
    pub keep_unknown: bool,
}

impl ImportOptions {
    /// Refuse what the SDKs do not list (the default).
    pub fn new() -> ImportOptions {
        ImportOptions::default()
    }

    /// [`ImportOptions::keep_unknown`].
    pub fn with_keep_unknown(mut self, keep: bool) -> ImportOptions {
        self.keep_unknown = keep;
        self
    }
}

/// A member an entry's kind does not have, as a tally counts it.
pub(crate) const UNLISTED_MEMBER: &str = "unlisted member";

/// One list of a body as its reader reads it.
pub(crate) struct Walk {
    /// Its kinds.
    pub list: &'static List,
    /// What an entry is called (`block`, `part`); `None` for an object the
    /// reader reads but does not count (Gemini's `functionResponse`).
    pub noun: Option<&'static str>,
    /// The lists (or objects) inside an entry that the reader reads: for
    /// an entry of each kind, the first that applies of each path.
    pub inner: &'static [Inner],
    /// Members the reader reads though the SDK does not list them (each
    /// reader says where they come from).
    pub also: &'static [&'static str],
}

impl Walk {
    /// A list whose entries, each called `noun`, hold no list the reader
    /// reads further, and no member beyond the SDK's.
    pub(crate) const fn leaf(list: &'static List, noun: &'static str) -> Walk {
        Walk {
            list,
            noun: Some(noun),
            inner: &[],
            also: &[],
        }
    }
}

/// A list (or an object) inside the entries of a kind.
pub(crate) struct Inner {
    /// The kind's tag.
    pub tag: &'static str,
    /// Only where the entry's member holds this string (a Responses
    /// message's `role`).
    pub when: Option<(&'static str, &'static str)>,
    /// Where, by member path (`toolResult.content`).
    pub path: &'static str,
    /// How it is read.
    pub walk: &'static Walk,
}

impl Inner {
    /// `walk` at `path` inside every entry of the kind `tag`.
    pub(crate) const fn at(tag: &'static str, path: &'static str, walk: &'static Walk) -> Inner {
        Inner {
            tag,
            when: None,
            path,
            walk,
        }
    }
}

/// What a body is read from: its members holding lists, or a bare list.
pub(crate) struct Shape {
    /// The SDK the tables come from.
    pub sdk: &'static str,
    /// A body's members and their walks (`messages`, `system`).
    pub members: &'static [(&'static str, &'static Walk)],
    /// The walk of a bare list, the input itself.
    pub bare: &'static Walk,
}

/// The label a tally counts an entry of `walk` under: `tool_use block`,
/// `"tool-call" part` for a kind the list does not have; `None` for a walk
/// that counts nothing.
pub(crate) fn label(walk: &Walk, entry: &Value) -> Option<String> {
    walk.noun.map(|noun| label_in(walk.list, noun, entry))
}

/// [`label`], for an entry of `list` called `noun`.
pub(crate) fn label_in(list: &List, noun: &str, entry: &Value) -> String {
    let tag = match list.kind_of(entry) {
        Ok(kind) => kind.tag.to_owned(),
        Err(Unlisted::Kind(tag)) => tag,
        Err(_) => "untyped".to_owned(),
    };
    if tag.is_empty() {
        noun.to_owned()
    } else {
        format!("{tag} {noun}")
    }
}

/// Audit `input` (a body, or a bare list) of an API shaped `shape`.
///
/// # Errors
/// [`ImportError::Invalid`] at the first entry of a kind the SDK does not
/// list (unless `options.keep_unknown`).
pub(crate) fn audit(
    input: &Value,
    shape: &Shape,
    options: &ImportOptions,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    let mut audit = Audit {
        sdk: shape.sdk,
        options,
        out,
    };
    match input {
        Value::Array(entries) => audit.list(entries, shape.bare, "$", None),
        Value::Object(body) => {
            for (member, walk) in shape.members {
                if let Some(value) = body.get(*member) {
                    audit.value(value, walk, &format!("$.{member}"), None)?;
                }
            }
            Ok(())
        }
        // The reader says what it expected.
        _ => Ok(()),
    }
}

struct Audit<'a> {
    sdk: &'static str,
    options: &'a ImportOptions,
    out: &'a mut ImportedHistory,
}

impl Audit<'_> {
    /// A list's entries, or one object read as an entry; anything else is
    /// the reader's to refuse (text content, a wrong shape).
    fn value(
        &mut self,
        value: &Value,
        walk: &Walk,
        at: &str,
        message: Option<usize>,
    ) -> Result<(), ImportError> {
        match value {
            Value::Array(entries) => self.list(entries, walk, at, message),
            // An object is one entry where the walk reads one (Gemini's
            // `functionResponse`); elsewhere the reader refuses it.
            Value::Object(_) if walk.list.form == Form::Single => {
                self.entry(value, walk, at, message.unwrap_or(0))
            }
            _ => Ok(()),
        }
    }

    fn list(
        &mut self,
        entries: &[Value],
        walk: &Walk,
        at: &str,
        message: Option<usize>,
    ) -> Result<(), ImportError> {
        for (i, entry) in entries.iter().enumerate() {
            self.entry(entry, walk, &format!("{at}[{i}]"), message.unwrap_or(i))?;
        }
        Ok(())
    }

    fn entry(
        &mut self,
        entry: &Value,
        walk: &Walk,
        at: &str,
        message: usize,
    ) -> Result<(), ImportError> {
        let noun = walk.noun.unwrap_or("entry");
        let kind = match walk.list.kind_of(entry) {
            Ok(kind) => kind,
            // Not an object, or a message without a role or of a role the
            // API does not have: the reader's types name what they
            // expected.
            Err(Unlisted::NotAnObject) => return Ok(()),
            Err(_) if walk.list.form == Form::Role => return Ok(()),
            Err(why) => {
                let refusal = Refusal {
                    why: &why,
                    list: walk.list,
                    sdk: self.sdk,
                    noun,
                };
                if !self.options.keep_unknown {
                    return Err(ImportError::at(
                        at,
                        format!("{refusal}; --keep-unknown keeps it as a note"),
                    ));
                }
                // Counted here; the reader notes where it went.
                if let Some(label) = label(walk, entry) {
                    self.out.tally.read(&label, 1);
                }
                return Ok(());
            }
        };
        if let Some(label) = label(walk, entry) {
            self.out.tally.read(&label, 1);
        }
        let mut extra = walk.list.unlisted_members(kind, entry);
        extra.retain(|m| !walk.also.contains(&m.as_str()));
        if !extra.is_empty() {
            self.out.tally.read(UNLISTED_MEMBER, extra.len());
            for member in &extra {
                self.out.tally.noted(UNLISTED_MEMBER);
                self.out.note(
                    message,
                    format!(
                        "{at}.{member}: a member the {} types do not list for a {} {noun}: not kept",
                        self.sdk,
                        if kind.tag.is_empty() { "" } else { kind.tag }
                    )
                    .replace("a  ", "a "),
                );
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for inner in walk.inner.iter().filter(|i| i.tag == kind.tag) {
            let applies = inner.when.is_none_or(|(member, value)| {
                entry.get(member).and_then(Value::as_str) == Some(value)
            });
            if !applies || seen.contains(&inner.path) {
                continue;
            }
            seen.push(inner.path);
            let mut value = Some(entry);
            for step in inner.path.split('.') {
                value = value.and_then(|v| v.get(step));
            }
            if let Some(value) = value {
                self.value(
                    value,
                    inner.walk,
                    &format!("{at}.{}", inner.path),
                    Some(message),
                )?;
            }
        }
        Ok(())
    }
}

/// The labels of the entries inside `entry` (of `walk`) that the audit
/// counts, depth first: what a reader that keeps `entry` whole keeps with
/// it.
pub(crate) fn nested(walk: &Walk, entry: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(kind) = walk.list.kind_of(entry) else {
        return out;
    };
    let mut seen: Vec<&str> = Vec::new();
    for inner in walk.inner.iter().filter(|i| i.tag == kind.tag) {
        let applies = inner
            .when
            .is_none_or(|(member, value)| entry.get(member).and_then(Value::as_str) == Some(value));
        if !applies || seen.contains(&inner.path) {
            continue;
        }
        seen.push(inner.path);
        let mut value = Some(entry);
        for step in inner.path.split('.') {
            value = value.and_then(|v| v.get(step));
        }
        let entries: Vec<&Value> = match value {
            Some(Value::Array(items)) => items.iter().collect(),
            Some(v @ Value::Object(_)) if inner.walk.list.form == Form::Single => vec![v],
            _ => Vec::new(),
        };
        for e in entries {
            if !matches!(e, Value::Object(_)) {
                continue;
            }
            out.extend(label(inner.walk, e));
            out.extend(nested(inner.walk, e));
        }
    }
    out
}

/// Audit one entry of `walk` (a record read on its own), at `at`.
///
/// # Errors
/// As [`audit`].
pub(crate) fn audit_one(
    entry: &Value,
    walk: &Walk,
    sdk: &'static str,
    at: &str,
    message: usize,
    options: &ImportOptions,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    Audit { sdk, options, out }.entry(entry, walk, at, message)
}
