//! The carrier grammar: where a tool round's attachments live in a history
//! (described on the crate's front page, where its names are exported).

use std::borrow::Cow;

use serde::Serialize;

mod error;
mod marker;
pub(crate) mod native;
mod parsed;
mod prompt;
mod rebuild;
#[cfg(any(test, fuzzing))]
mod reference;

pub use error::{RebuildError, RenderError};
pub use marker::{marker_line, parse_marker_line};
#[cfg(fuzzing)]
#[doc(hidden)]
pub use native::parse_native_tool_carrier_reference;
pub(crate) use native::{checked_records, push_attachment_array};
pub use native::{
    native_attachments, parse_native_tool_carrier, render_native_attachments,
    render_native_tool_carrier, Rejected,
};
pub use parsed::{Carrier, Declaration, Legacy};
pub use prompt::{parse_prompt_tool_carrier, render_prompt_tool_carrier};
pub use rebuild::rebuild_carrier;

/// Line 1 of a prompt-mode tool-result carrier.
///
/// Kept identical to the pre-attachment format, so every selector that keys
/// on this prefix keeps working on legacy and declared carriers alike.
pub const TOOL_RESULTS_PREFIX: &str = "[Tool results]";

/// The native envelope member that says a tool failed (`"is_error": true`):
/// what an import writes for a provider's or an MCP server's error flag,
/// and what `convert` writes back as the provider's own.
pub const IS_ERROR: &str = "is_error";

/// Which carrier shape a tool-result carrier uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CarrierKind {
    /// A `role = "tool"` message with a JSON envelope as its content.
    Native,
    /// A `role = "user"` message that opens with [`TOOL_RESULTS_PREFIX`].
    Prompt,
}

impl CarrierKind {
    /// The lowercase name used in `inspect --json` output: `native` or `prompt`.
    pub fn as_str(self) -> &'static str {
        match self {
            CarrierKind::Native => "native",
            CarrierKind::Prompt => "prompt",
        }
    }

    /// The message role that holds this shape: `tool` or `user`.
    pub fn role(self) -> &'static str {
        match self {
            CarrierKind::Native => "tool",
            CarrierKind::Prompt => "user",
        }
    }
}

/// What an attachment is. Only [`AttachmentKind::Image`] is ever resolved
/// into image parts; the other kinds are carried through untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AttachmentKind {
    /// `image` in an envelope, `IMAGE` in a marker line.
    Image,
    /// `audio` in an envelope, `AUDIO` in a marker line.
    Audio,
    /// `video` in an envelope, `VIDEO` in a marker line.
    Video,
    /// `document` in an envelope, `DOCUMENT` in a marker line.
    Document,
}

impl AttachmentKind {
    /// Every kind, in declaration order.
    pub const ALL: [AttachmentKind; 4] = [
        AttachmentKind::Image,
        AttachmentKind::Audio,
        AttachmentKind::Video,
        AttachmentKind::Document,
    ];

    /// The name written in a native envelope's `kind` member (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            AttachmentKind::Image => "image",
            AttachmentKind::Audio => "audio",
            AttachmentKind::Video => "video",
            AttachmentKind::Document => "document",
        }
    }

    /// The tag written in a marker line (uppercase): `[IMAGE:…]`.
    pub fn marker_tag(self) -> &'static str {
        match self {
            AttachmentKind::Image => "IMAGE",
            AttachmentKind::Audio => "AUDIO",
            AttachmentKind::Video => "VIDEO",
            AttachmentKind::Document => "DOCUMENT",
        }
    }

    /// The kind named by an envelope's `kind` value; exact, lowercase only.
    ///
    /// ```
    /// use tool_carrier::AttachmentKind;
    /// assert_eq!(AttachmentKind::from_name("image"), Some(AttachmentKind::Image));
    /// assert_eq!(AttachmentKind::from_name("Image"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<AttachmentKind> {
        AttachmentKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// One declared attachment: what it is, where it lives, and what it was
/// called.
///
/// The target is verbatim: a path, a `data:` URI or a URL, never interpreted
/// by the grammar. It borrows from the parsed text where no JSON escape
/// forced a copy. The name is the file name the attachment had where it
/// came from (a native envelope's `name` member; a marker line has none).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Attachment<'a> {
    /// What the target holds.
    pub kind: AttachmentKind,
    /// Where it lives, verbatim.
    pub target: Cow<'a, str>,
    /// Its original file name (`invoice.pdf`), verbatim; `None` when the
    /// declaration gives none (or gives an empty one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Cow<'a, str>>,
    /// Whether the declaration marks it as the end of a prefix to cache
    /// (`"cache": true`): where the request's API caches prompts at marks,
    /// a breakpoint is placed with it. Only a native record carries one;
    /// a marker line cannot.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cache: bool,
}

impl<'a> Attachment<'a> {
    /// An attachment of `kind` at `target`.
    pub fn new(kind: AttachmentKind, target: impl Into<Cow<'a, str>>) -> Self {
        Attachment {
            kind,
            target: target.into(),
            name: None,
            cache: false,
        }
    }

    /// The same attachment, called `name` where it came from (an empty
    /// name is none).
    ///
    /// ```
    /// use tool_carrier::{Attachment, AttachmentKind};
    ///
    /// let a = Attachment::new(AttachmentKind::Document, "media/11a6.pdf").with_name("invoice.pdf");
    /// assert_eq!(a.name.as_deref(), Some("invoice.pdf"));
    /// assert_eq!(Attachment::image("a.png").with_name("").name, None);
    /// ```
    pub fn with_name(self, name: impl Into<Cow<'a, str>>) -> Self {
        let name = name.into();
        Attachment {
            name: (!name.is_empty()).then_some(name),
            ..self
        }
    }

    /// The same attachment, marked (or not) as the end of a prefix to
    /// cache.
    ///
    /// ```
    /// use tool_carrier::{render_native_tool_carrier, Attachment};
    ///
    /// let a = Attachment::image("a.png").with_cache(true);
    /// assert_eq!(
    ///     render_native_tool_carrier("shot", &[a])?,
    ///     r#"{"content":"shot","attachments":[{"kind":"image","target":"a.png","cache":true}]}"#
    /// );
    /// # Ok::<(), tool_carrier::RenderError>(())
    /// ```
    pub fn with_cache(self, cache: bool) -> Self {
        Attachment { cache, ..self }
    }

    /// An image attachment at `target`.
    pub fn image(target: impl Into<Cow<'a, str>>) -> Self {
        Attachment::new(AttachmentKind::Image, target)
    }

    /// Detach from the parsed text.
    pub fn into_owned(self) -> Attachment<'static> {
        Attachment {
            kind: self.kind,
            target: Cow::Owned(self.target.into_owned()),
            name: self.name.map(|n| Cow::Owned(n.into_owned())),
            cache: self.cache,
        }
    }
}

/// A carrier opened at its fixed position.
///
/// The verbatim body, the declared attachments, whether the position carried
/// a declaration at all, and which shape the carrier takes. Serializes as the
/// `carrier` object of `inspect --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CarrierParts<'a> {
    /// Which shape the carrier takes.
    pub kind: CarrierKind,
    /// Whether the fixed position held a declaration (`attachments` array or
    /// count line). `false` means legacy: no attachments, body untouched.
    pub declared: bool,
    /// The declared attachments, in declaration order (empty when legacy).
    pub attachments: Vec<Attachment<'a>>,
    /// The verbatim tool output. For a legacy carrier that could not be
    /// opened, the whole content (a prompt carrier's prefix included).
    pub body: Cow<'a, str>,
}

impl<'a> CarrierParts<'a> {
    /// A legacy carrier: the whole content is the body, nothing declared.
    pub fn legacy(kind: CarrierKind, content: &'a str) -> Self {
        CarrierParts {
            kind,
            declared: false,
            attachments: Vec::new(),
            body: Cow::Borrowed(content),
        }
    }

    /// The image targets this carrier declared, in declaration order.
    /// Same as the free function [`image_refs`].
    pub fn image_refs(&self) -> impl Iterator<Item = &str> + '_ {
        image_refs(self)
    }

    /// Detach from the parsed text.
    pub fn into_owned(self) -> CarrierParts<'static> {
        CarrierParts {
            kind: self.kind,
            declared: self.declared,
            attachments: self
                .attachments
                .into_iter()
                .map(Attachment::into_owned)
                .collect(),
            body: Cow::Owned(self.body.into_owned()),
        }
    }
}

/// Classify a message as a tool-result carrier, whichever shape it takes,
/// and open it at its fixed position.
///
/// `Some` for every `tool` message (legacy or not) and for every `user`
/// message that [`is_prompt_tool_carrier`]; `None` for anything else.
///
/// # Example
/// ```
/// use tool_carrier::{classify, CarrierKind};
///
/// let parts = classify("user", "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/tmp/a.png]\nok")
///     .expect("a prompt carrier");
/// assert_eq!(parts.kind, CarrierKind::Prompt);
/// assert_eq!(parts.image_refs().collect::<Vec<_>>(), ["/tmp/a.png"]);
/// assert_eq!(parts.body, "ok");
/// assert!(classify("assistant", "[Tool results]").is_none());
/// ```
pub fn classify<'a>(role: &str, content: &'a str) -> Option<CarrierParts<'a>> {
    match role {
        "tool" => Some(parse_native_tool_carrier(content)),
        "user" => parse_prompt_tool_carrier(content),
        _ => None,
    }
}

/// Whether a message is a tool-result carrier in either shape, legacy
/// included. Never parses JSON: every `tool` message is a carrier, and a
/// `user` message is one when [`is_prompt_tool_carrier`] says so.
///
/// Always equal to `classify(role, content).is_some()`.
///
/// # Example
/// ```
/// use tool_carrier::is_tool_result_carrier;
/// assert!(is_tool_result_carrier("tool", "raw text, not JSON"));
/// assert!(is_tool_result_carrier("user", "  [Tool results]\nlegacy"));
/// assert!(!is_tool_result_carrier("system", "[Tool results]"));
/// ```
pub fn is_tool_result_carrier(role: &str, content: &str) -> bool {
    match role {
        "tool" => true,
        "user" => is_prompt_tool_carrier(content),
        _ => false,
    }
}

/// Whether user-role content is a prompt-mode tool-result carrier: after
/// leading Unicode white space (as [`str::trim_start`]) it starts with
/// [`TOOL_RESULTS_PREFIX`]. Legacy shapes count.
///
/// # Example
/// ```
/// use tool_carrier::is_prompt_tool_carrier;
/// assert!(is_prompt_tool_carrier("[Tool results]xyz"));
/// assert!(!is_prompt_tool_carrier("[Tool results-ish]"));
/// ```
pub fn is_prompt_tool_carrier(content: &str) -> bool {
    content.trim_start().starts_with(TOOL_RESULTS_PREFIX)
}

/// The image targets a carrier declared, in declaration order. Non-image
/// kinds are carried but never resolved into image parts.
///
/// # Example
/// ```
/// use tool_carrier::{image_refs, parse_native_tool_carrier};
///
/// let parts = parse_native_tool_carrier(
///     r#"{"content":"done","attachments":[{"kind":"audio","target":"a.ogg"},{"kind":"image","target":"b.png"}]}"#,
/// );
/// assert_eq!(image_refs(&parts).collect::<Vec<_>>(), ["b.png"]);
/// ```
pub fn image_refs<'p>(parts: &'p CarrierParts<'_>) -> impl Iterator<Item = &'p str> + 'p {
    parts
        .attachments
        .iter()
        .filter(|a| a.kind == AttachmentKind::Image)
        .map(|a| a.target.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_message_is_a_carrier() {
        for content in ["", "raw", "[1, 2]", "{}", "{\"content\":1}"] {
            assert!(is_tool_result_carrier("tool", content));
            assert_eq!(classify("tool", content).unwrap().kind, CarrierKind::Native);
        }
    }

    #[test]
    fn only_tool_and_user_roles_carry() {
        let c = "[Tool results]\n[Tool attachments: 0]\n";
        for role in ["system", "assistant", "developer", "Tool", "USER", ""] {
            assert!(!is_tool_result_carrier(role, c), "{role}");
            assert!(classify(role, c).is_none(), "{role}");
        }
    }

    #[test]
    fn prompt_detection_trims_unicode_white_space() {
        assert!(is_prompt_tool_carrier("\u{2003}\u{a0}\t\n[Tool results]"));
        assert!(
            !is_prompt_tool_carrier("\u{200b}[Tool results]"),
            "ZWSP is not White_Space"
        );
        assert!(!is_prompt_tool_carrier("[tool results]"));
        assert!(!is_prompt_tool_carrier(""));
    }

    #[test]
    fn attachment_kind_names_are_exact() {
        for k in AttachmentKind::ALL {
            assert_eq!(AttachmentKind::from_name(k.as_str()), Some(k));
            assert_eq!(k.as_str().to_uppercase(), k.marker_tag());
        }
        assert_eq!(AttachmentKind::from_name("IMAGE"), None);
        assert_eq!(AttachmentKind::from_name("photo"), None);
    }
}
