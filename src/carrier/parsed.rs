//! A carrier opened at its fixed position, with the spans an editor needs
//! and, for a legacy carrier, the reason it is one.
//!
//! Every reader of carriers goes through [`Carrier`]: the free parse
//! functions, [`rebuild_carrier`](super::rebuild_carrier), migration and the
//! provider walk. Whether a carrier is legacy, and why, is decided here
//! once.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use super::{native, prompt, Attachment, AttachmentKind, CarrierKind, CarrierParts, Rejected};
use crate::Role;

/// A tool-result carrier opened at its fixed position.
///
/// Spans are byte ranges of the content it was read from.
///
/// # Example
/// ```
/// use tool_carrier::{Carrier, Declaration, Legacy};
/// use tool_carrier::Role;
///
/// let content = r#"{"tool_call_id":"c1","content":"saved"}"#;
/// let c = Carrier::read(Role::Tool, content).unwrap();
/// assert_eq!(c.body, "saved");
/// assert_eq!(&content[c.body_span.clone()], r#""saved""#);
/// assert_eq!(c.declaration, Declaration::Legacy(Legacy::NoDeclaration));
/// // An upgrade would write the declaration after the last member.
/// assert_eq!(c.declaration_span, Some(content.len() - 1..content.len() - 1));
/// assert_eq!(c.call_id.as_deref(), Some("c1"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Carrier<'a> {
    /// Which shape the carrier takes.
    pub kind: CarrierKind,
    /// The verbatim tool output; never a prompt carrier's line 1.
    ///
    /// For a native envelope, the decoded `content` member; for native
    /// content that is no envelope, the whole content; for a prompt
    /// carrier, every byte after the header (after line 1 when it is
    /// legacy).
    pub body: Cow<'a, str>,
    /// Where the body is written: a native envelope's `content` string
    /// literal (quotes included), or the body's own bytes.
    pub body_span: Range<usize>,
    /// The declared attachments, or why there are none.
    pub declaration: Declaration<'a>,
    /// Where the declaration is written (a native `attachments` value,
    /// also one that is not an array; a prompt carrier's count and marker
    /// lines), or the empty span where an upgrade writes one. `None` when
    /// the carrier cannot take one without a guess.
    pub declaration_span: Option<Range<usize>>,
    /// A native envelope's `tool_call_id`: a non-empty string member that
    /// occurs once. Always `None` for a prompt carrier.
    pub call_id: Option<Cow<'a, str>>,
    /// Whether a native envelope says the tool failed: an [`IS_ERROR`]
    /// member that occurs once and is `true`. Always `false` for a prompt
    /// carrier.
    ///
    /// [`IS_ERROR`]: super::IS_ERROR
    pub is_error: bool,
    /// How many items of a native declaration declare no attachment (the
    /// grammar skips them; [`Carrier::items`] says why). Always `0` for a
    /// prompt carrier.
    pub skipped: usize,
}

/// What a carrier's fixed position holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Declaration<'a> {
    /// A declaration, with its valid records in order (possibly none).
    Declared(Vec<Attachment<'a>>),
    /// No declaration: a legacy carrier, no attachments, body untouched.
    Legacy(Legacy),
}

/// Why a carrier is legacy.
///
/// [`Legacy::upgradable`] tells the reasons migration can mend by writing
/// an empty declaration from those it leaves alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Legacy {
    /// A tool message whose content is not JSON: raw tool text.
    RawText,
    /// A tool message whose content is JSON but not an object.
    NotAnObject,
    /// A JSON object with a key that is no text (a lone surrogate escape).
    UndecodableKey,
    /// An envelope with no string `content` member.
    NoStringContent,
    /// An envelope with a repeated `content` or `attachments` member (the
    /// one repeated first).
    DuplicateMember(&'static str),
    /// An envelope whose `attachments` member is not an array.
    AttachmentsNotArray,
    /// An envelope without `attachments`, or a prompt carrier whose line 2
    /// is no count line.
    NoDeclaration,
    /// A prompt carrier whose count line promises more marker lines than
    /// follow it (the lines are body).
    ShortDeclaration,
    /// A prompt carrier with white space before `[Tool results]`.
    IndentedPrefix,
    /// A prompt carrier whose line 1 ends in `\r\n`.
    CrlfPrefix,
    /// A prompt carrier whose line 1 holds more than `[Tool results]`.
    TextAfterPrefix,
}

impl Legacy {
    /// Whether an empty declaration can be written at the carrier's
    /// [`declaration_span`](Carrier::declaration_span) without a guess:
    /// [`Legacy::NoDeclaration`] and [`Legacy::ShortDeclaration`].
    pub fn upgradable(self) -> bool {
        matches!(self, Legacy::NoDeclaration | Legacy::ShortDeclaration)
    }
}

impl fmt::Display for Legacy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Legacy::RawText => f.write_str("raw tool text, not a JSON envelope"),
            Legacy::NotAnObject => f.write_str("JSON content that is not an object"),
            Legacy::UndecodableKey => f.write_str("envelope with a key that does not decode"),
            Legacy::NoStringContent => f.write_str("envelope without a string \"content\""),
            Legacy::DuplicateMember(m) => write!(f, "envelope with a duplicated {m:?} member"),
            Legacy::AttachmentsNotArray => {
                f.write_str("envelope whose \"attachments\" is not an array")
            }
            Legacy::NoDeclaration => f.write_str("no attachment declaration"),
            Legacy::ShortDeclaration => {
                f.write_str("count line with fewer marker lines than it declares")
            }
            Legacy::IndentedPrefix => f.write_str("indented [Tool results] prefix"),
            Legacy::CrlfPrefix => f.write_str("[Tool results] prefix ends in CRLF"),
            Legacy::TextAfterPrefix => f.write_str("text after [Tool results] on line 1"),
        }
    }
}

impl<'a> Carrier<'a> {
    /// Open a message as a carrier: `Some` for every `tool` message (legacy
    /// or not) and every `user` message that
    /// [`is_prompt_tool_carrier`](super::is_prompt_tool_carrier); `None`
    /// for anything else.
    pub fn read(role: Role<'_>, content: &'a str) -> Option<Carrier<'a>> {
        match role {
            Role::Tool => Some(Carrier::native(content)),
            Role::User => Carrier::prompt(content),
            _ => None,
        }
    }

    /// Open `tool`-role content (total: content that is no envelope is a
    /// legacy carrier).
    pub fn native(content: &'a str) -> Carrier<'a> {
        native::open(content)
    }

    /// Open `user`-role content; `None` when it is no prompt carrier.
    pub fn prompt(content: &'a str) -> Option<Carrier<'a>> {
        prompt::open(content)
    }

    /// The declared attachments (empty for a legacy carrier).
    pub fn attachments(&self) -> &[Attachment<'a>] {
        match &self.declaration {
            Declaration::Declared(attachments) => attachments,
            Declaration::Legacy(_) => &[],
        }
    }

    /// Every item of a native carrier's declaration, read from `content`
    /// (the content this carrier was opened from), in order: the
    /// attachment it declares, or why it declares none (`[]` for a prompt
    /// carrier, whose declaration holds no item that is not a marker line,
    /// and for a legacy one). [`Carrier::attachments`] holds the first kind
    /// alone; the grammar skips the others, and a converter says so.
    ///
    /// ```
    /// use tool_carrier::{Carrier, Rejected};
    ///
    /// let content = r#"{"content":"x","attachments":[{"kind":"IMAGE","target":"a.png"},{"kind":"image","target":"b.png"}]}"#;
    /// let c = Carrier::native(content);
    /// assert_eq!(c.attachments().len(), 1);
    /// let items = c.items(content);
    /// assert_eq!(items[0], Err(Rejected::UnknownKind("IMAGE".into())));
    /// assert_eq!(items[1].as_ref().unwrap().target, "b.png");
    /// ```
    pub fn items(&self, content: &'a str) -> Vec<Result<Attachment<'a>, Rejected>> {
        match (&self.declaration, self.kind, &self.declaration_span) {
            (Declaration::Declared(_), CarrierKind::Native, Some(span)) => {
                native::checked_records(&content[span.clone()])
            }
            _ => Vec::new(),
        }
    }

    /// Whether the fixed position held a declaration.
    pub fn is_declared(&self) -> bool {
        matches!(self.declaration, Declaration::Declared(_))
    }

    /// Why the carrier is legacy; `None` when it is declared.
    pub fn legacy(&self) -> Option<Legacy> {
        match self.declaration {
            Declaration::Declared(_) => None,
            Declaration::Legacy(reason) => Some(reason),
        }
    }

    /// The image targets declared, in declaration order.
    pub fn image_refs(&self) -> impl Iterator<Item = &str> + '_ {
        self.attachments()
            .iter()
            .filter(|a| a.kind == AttachmentKind::Image)
            .map(|a| a.target.as_ref())
    }

    /// The seed's view of this carrier, read from `content`: a legacy
    /// prompt carrier's body is the whole content, and so is that of native
    /// content that is no envelope.
    pub(crate) fn into_parts(self, content: &'a str) -> CarrierParts<'a> {
        let declared = self.is_declared();
        let body = match (self.kind, declared) {
            (CarrierKind::Prompt, false) => Cow::Borrowed(content),
            _ => self.body,
        };
        let attachments = match self.declaration {
            Declaration::Declared(attachments) => attachments,
            Declaration::Legacy(_) => Vec::new(),
        };
        CarrierParts {
            kind: self.kind,
            declared,
            attachments,
            body,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(c: &str) -> Carrier<'_> {
        Carrier::native(c)
    }

    fn prompt(c: &str) -> Carrier<'_> {
        Carrier::prompt(c).expect("a prompt carrier")
    }

    #[test]
    fn a_declared_envelope_gives_both_spans() {
        let c = r#"{ "content" : "a\nb", "attachments" : [{"kind":"image","target":"/x"}] }"#;
        let carrier = native(c);
        assert_eq!(&c[carrier.body_span.clone()], r#""a\nb""#);
        assert_eq!(carrier.body, "a\nb");
        let span = carrier.declaration_span.clone().unwrap();
        assert_eq!(&c[span], r#"[{"kind":"image","target":"/x"}]"#);
        assert_eq!(carrier.attachments(), [Attachment::image("/x")]);
        assert_eq!(carrier.legacy(), None);
    }

    #[test]
    fn every_native_reason_is_told() {
        for (c, reason, span) in [
            ("raw text", Legacy::RawText, None),
            ("", Legacy::RawText, None),
            ("{", Legacy::RawText, None),
            ("[1, 2]", Legacy::NotAnObject, None),
            (
                r#"{"\ud800":1,"content":"x"}"#,
                Legacy::UndecodableKey,
                None,
            ),
            (r#"{"content":1}"#, Legacy::NoStringContent, None),
            (r#"{"content":"\ud800"}"#, Legacy::NoStringContent, None),
            (
                r#"{"attachments":[],"content":"a","attachments":[],"content":"b"}"#,
                Legacy::DuplicateMember("attachments"),
                None,
            ),
            (
                r#"{"content":"a","content":"b","attachments":[],"attachments":[]}"#,
                Legacy::DuplicateMember("content"),
                None,
            ),
            (
                r#"{"content":"a","attachments":7}"#,
                Legacy::AttachmentsNotArray,
                Some(29..30),
            ),
            (r#"{"content":"a" }"#, Legacy::NoDeclaration, Some(14..14)),
        ] {
            let carrier = native(c);
            assert_eq!(carrier.legacy(), Some(reason), "{c}");
            assert_eq!(carrier.declaration_span, span, "{c}");
            assert!(carrier.attachments().is_empty());
        }
    }

    #[test]
    fn a_call_id_is_read_whatever_the_envelope() {
        assert_eq!(
            native(r#"{"tool_call_id":"c","content":1}"#)
                .call_id
                .as_deref(),
            Some("c")
        );
        assert_eq!(
            native(r#"{"tool_call_id":"c","content":"a","content":"b"}"#)
                .call_id
                .as_deref(),
            Some("c")
        );
        assert_eq!(native("[Tool results]").call_id, None);
    }

    #[test]
    fn every_prompt_reason_is_told_and_the_body_never_holds_line_one() {
        for (c, reason, body, span) in [
            ("  [Tool results]\nx", Legacy::IndentedPrefix, "x", None),
            ("[Tool results]\r\nx", Legacy::CrlfPrefix, "x", None),
            ("[Tool results]xyz\nx", Legacy::TextAfterPrefix, "x", None),
            ("[Tool results]xyz", Legacy::TextAfterPrefix, "", None),
            ("[Tool results]", Legacy::NoDeclaration, "", Some(14..14)),
            (
                "[Tool results]\nold",
                Legacy::NoDeclaration,
                "old",
                Some(15..15),
            ),
            (
                "[Tool results]\n[Tool attachments: 2]\n[IMAGE:/a]\nb",
                Legacy::ShortDeclaration,
                "[Tool attachments: 2]\n[IMAGE:/a]\nb",
                Some(15..15),
            ),
        ] {
            let carrier = prompt(c);
            assert_eq!(carrier.legacy(), Some(reason), "{c:?}");
            assert_eq!(carrier.body, body, "{c:?}");
            assert_eq!(&c[carrier.body_span.clone()], body, "{c:?}");
            assert_eq!(carrier.declaration_span, span, "{c:?}");
        }
    }

    #[test]
    fn a_declared_prompt_carrier_spans_its_header_lines() {
        let c = "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/a]\nbody";
        let carrier = prompt(c);
        let span = carrier.declaration_span.clone().unwrap();
        assert_eq!(&c[span], "[Tool attachments: 1]\n[IMAGE:/a]\n");
        assert_eq!(&c[carrier.body_span.clone()], "body");
        assert_eq!(carrier.image_refs().collect::<Vec<_>>(), ["/a"]);
    }

    #[test]
    fn only_tool_and_user_messages_are_read() {
        assert!(Carrier::read(Role::Assistant, "[Tool results]").is_none());
        assert!(Carrier::read(Role::User, "hello").is_none());
        assert!(Carrier::read(Role::Tool, "hello").is_some());
    }

    #[test]
    fn upgradable_reasons_are_exactly_the_missing_declarations() {
        use Legacy::*;
        for r in [
            RawText,
            NotAnObject,
            UndecodableKey,
            NoStringContent,
            DuplicateMember("content"),
            AttachmentsNotArray,
            IndentedPrefix,
            CrlfPrefix,
            TextAfterPrefix,
        ] {
            assert!(!r.upgradable(), "{r}");
        }
        assert!(NoDeclaration.upgradable() && ShortDeclaration.upgradable());
    }
}
