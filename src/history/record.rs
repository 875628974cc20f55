//! [`Record`]: one message of a history, owned — its role, its content
//! and the record's other members as they were written, a user's own
//! attachments among them — and [`AsRecord`], what a conversion reads of
//! a message.

use crate::carrier::{Attachment, Rejected};
use crate::json::push_json_str;

/// One message of a history: `{"role", "content", …}`.
///
/// A `user` record may carry an `attachments` member beside its string
/// `content`: the user's own images and documents, declared with the same
/// attachment objects a native carrier declares
/// (`{"kind", "target", "name"?}`). It is a member of the record, never
/// read from the user's text: a user's text is as untrusted as a tool's
/// output, and text shaped like an `attachments` member inside it is text.
/// Only a writer puts it there ([`UserMessage`](super::UserMessage), the
/// importers) or a history read from a file that has it
/// ([`read`](super::read)).
///
/// Every other member is kept as it was written (its JSON text), in
/// order, and written back after `role`, `content` and `attachments`
/// ([`Record::to_json`]).
///
/// Today's `(role, content)` pairs convert with [`From`], and a
/// conversion takes either ([`AsRecord`]).
///
/// ```
/// use tool_carrier::history::Record;
///
/// let r = Record::parse(r#"{"role":"user","content":"look","attachments":[{"kind":"image","target":"a.png"}],"id":7}"#)?;
/// assert_eq!((r.role(), r.content()), ("user", "look"));
/// assert_eq!(r.attachments()[0].target, "a.png");
/// assert_eq!(r.member("id"), Some("7"));
/// assert_eq!(Record::from(("user", "hi")).to_json(), r#"{"role":"user","content":"hi"}"#);
/// # Ok::<(), tool_carrier::history::MessageError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    role: String,
    content: String,
    /// The JSON text of a user record's `attachments` array, as written.
    attachments: Option<String>,
    /// `(name, JSON text)` of every other member, in order.
    members: Vec<(String, String)>,
}

impl Record {
    /// A record of `role` saying `content`, with no other member.
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Record {
        Record {
            role: role.into(),
            content: content.into(),
            ..Record::default()
        }
    }

    /// Read one record's JSON text.
    ///
    /// # Errors
    /// [`MessageError`](super::MessageError) saying why `raw` is no record
    /// (as [`Message::parse`](super::Message::parse)).
    pub fn parse(raw: &str) -> Result<Record, super::MessageError> {
        super::Message::parse(raw).map(|m| Record::of(&m, raw))
    }

    /// The record a message read from `raw` is.
    pub(crate) fn of(m: &super::Message<'_>, raw: &str) -> Record {
        Record {
            role: m.role.clone().into_owned(),
            content: m.content.clone().into_owned(),
            attachments: m.attachments.clone().map(|span| raw[span].to_owned()),
            members: m
                .members
                .iter()
                .map(|(name, span)| (name.clone().into_owned(), raw[span.clone()].to_owned()))
                .collect(),
        }
    }

    /// A user's record declaring `attachments` (rendered as a native
    /// carrier's array).
    pub(crate) fn user(content: String, attachments: &[Attachment<'_>]) -> Record {
        let mut record = Record::new("user", content);
        if !attachments.is_empty() {
            let mut json = String::new();
            crate::carrier::push_attachment_array(&mut json, attachments);
            record.attachments = Some(json);
        }
        record
    }

    /// The `role` member.
    pub fn role(&self) -> &str {
        &self.role
    }

    /// The `content` member, decoded.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// `(role, content)`, taken out.
    pub fn into_pair(self) -> (String, String) {
        (self.role, self.content)
    }

    /// The attachments the record declares (a user's own), in order; the
    /// items of its array that declare none are left out here (a
    /// conversion notes each as a failed attachment).
    pub fn attachments(&self) -> Vec<Attachment<'_>> {
        self.declared().into_iter().filter_map(Result::ok).collect()
    }

    /// Every item of the `attachments` array: the attachment it declares,
    /// or why it is none.
    pub fn declared(&self) -> Vec<Result<Attachment<'_>, Rejected>> {
        self.attachments
            .as_deref()
            .map(crate::carrier::checked_records)
            .unwrap_or_default()
    }

    /// A member other than `role`, `content` and `attachments`, as its JSON
    /// text.
    pub fn member(&self, name: &str) -> Option<&str> {
        self.members
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, json)| json.as_str())
    }

    /// The record marked as the end of a prefix to cache (its `cache`
    /// member `true`), or unmarked (the member taken out).
    ///
    /// ```
    /// use tool_carrier::history::{AsRecord, Record};
    ///
    /// let r = Record::new("user", "the brief").with_cache(true);
    /// assert_eq!(r.to_json(), r#"{"role":"user","content":"the brief","cache":true}"#);
    /// assert!(r.cache());
    /// assert!(!r.with_cache(false).cache());
    /// ```
    pub fn with_cache(mut self, cache: bool) -> Record {
        self.members.retain(|(name, _)| name != "cache");
        if cache {
            self.members.push(("cache".to_owned(), "true".to_owned()));
        }
        self
    }

    /// The members other than `role`, `content` and `attachments`, as
    /// `(name, JSON text)`, in order.
    pub fn members(&self) -> &[(String, String)] {
        &self.members
    }

    /// The record's JSON text, one JSON Lines line without its line feed:
    /// `role`, `content`, `attachments` when there are any, then the other
    /// members as they were written.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.content.len() + self.content.len() / 8 + 32);
        self.push_json(&mut out);
        out
    }

    /// Append [`Record::to_json`] to `out`.
    pub(crate) fn push_json(&self, out: &mut String) {
        out.push_str("{\"role\":");
        push_json_str(out, &self.role);
        out.push_str(",\"content\":");
        push_json_str(out, &self.content);
        if let Some(json) = &self.attachments {
            out.push_str(",\"attachments\":");
            out.push_str(json);
        }
        super::write::push_members(out, &self.members);
        out.push('}');
    }
}

impl<R: Into<String>, C: Into<String>> From<(R, C)> for Record {
    fn from((role, content): (R, C)) -> Record {
        Record::new(role, content)
    }
}

/// A record is the pair `(role, content)` when it is nothing more: no
/// attachments and no other member.
impl<R: AsRef<str>, C: AsRef<str>> PartialEq<(R, C)> for Record {
    fn eq(&self, (role, content): &(R, C)) -> bool {
        self.role == role.as_ref()
            && self.content == content.as_ref()
            && self.attachments.is_none()
            && self.members.is_empty()
    }
}

/// What a conversion reads of one message of a history: a [`Record`], or a
/// `(role, content)` pair of anything that is text.
pub trait AsRecord {
    /// The `role` member.
    fn role(&self) -> &str;
    /// The `content` member.
    fn content(&self) -> &str;
    /// The JSON text of a user record's `attachments` array, if it has one.
    fn attachments_json(&self) -> Option<&str> {
        None
    }
    /// Whether the record carries `"cache": true`: the caller marks it as
    /// the end of a prefix to cache.
    fn cache(&self) -> bool {
        false
    }
}

impl AsRecord for Record {
    fn role(&self) -> &str {
        &self.role
    }
    fn content(&self) -> &str {
        &self.content
    }
    fn attachments_json(&self) -> Option<&str> {
        self.attachments.as_deref()
    }
    fn cache(&self) -> bool {
        self.member("cache") == Some("true")
    }
}

impl<R: AsRef<str>, C: AsRef<str>> AsRecord for (R, C) {
    fn role(&self) -> &str {
        self.0.as_ref()
    }
    fn content(&self) -> &str {
        self.1.as_ref()
    }
}

impl<T: AsRecord + ?Sized> AsRecord for &T {
    fn role(&self) -> &str {
        (**self).role()
    }
    fn content(&self) -> &str {
        (**self).content()
    }
    fn attachments_json(&self) -> Option<&str> {
        (**self).attachments_json()
    }
    fn cache(&self) -> bool {
        (**self).cache()
    }
}
