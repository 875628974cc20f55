//! Migrating legacy carriers to declared ones, losing nothing.
//!
//! * A legacy envelope (no `attachments` member) gets `"attachments":[]`
//!   inserted after its last member; every other byte stays.
//! * A legacy prompt carrier whose line 1 is exactly `[Tool results]` gets
//!   `[Tool attachments: 0]` inserted as line 2; the body stays.
//! * What cannot be upgraded without guessing is left byte-identical and
//!   reported with its reason ([`Legacy`]).
//!
//! The insertion is made inside the message's `content` string literal
//! without re-escaping the rest of it, so the record's other bytes — the
//! other members, their order and spelling, even the escapes used inside the
//! content — stay as they were. Migrating twice changes nothing.
//!
//! With [`MigrateOptions::lift_markers`], whole-line `[IMAGE:…]` markers in a
//! legacy body whose target is accepted become declared attachments; the
//! body keeps the lines. The caller says what is accepted
//! ([`Liftable`]): any regular file inside a root, or (feature `media`)
//! one within the size cap whose bytes are an image. Turning the feature
//! on does not change what a given choice means.

use std::fmt;
use std::io::{self, Write};

#[cfg(feature = "media")]
mod externalize;
mod records;
#[cfg(feature = "media")]
pub use externalize::{externalize_history, ExternalizeReport};

use crate::carrier::{marker_line, Carrier, Declaration, Legacy};
use crate::history::{IntoHistoryReader, Message};
use crate::roots::Roots;
use crate::{
    parse_marker_line, render_native_attachments, Attachment, AttachmentKind, CarrierKind, Role,
};
use records::Rewrite;

/// What migration may do beyond the plain upgrade.
#[derive(Clone, Debug, Default)]
pub struct MigrateOptions {
    /// Lift whole-line `[IMAGE:…]` markers from legacy bodies into the
    /// declaration, for the targets it accepts. `None`: never lift.
    pub lift_markers: Option<LiftMarkers>,
}

/// Which marker targets may be lifted: always confined to `roots`, and
/// checked as `accept` says. The caller chooses; no feature of the crate
/// changes what a given choice means.
#[derive(Clone, Debug)]
pub struct LiftMarkers {
    /// Targets must be regular files inside these folders (relative ones
    /// resolve against the first).
    pub roots: Roots,
    /// What else a target must be.
    pub accept: Liftable,
}

/// What a lifted target must be, beyond a regular file inside the roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Liftable {
    /// Nothing more: any regular file inside the roots.
    RegularFile,
    /// Within the media policy's size cap, with bytes that are an image
    /// (feature `media`).
    #[cfg(feature = "media")]
    Image,
}

/// The outcome for one message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageMigration<'a> {
    /// Not a carrier: nothing to do.
    NotACarrier,
    /// Already declared: nothing to do.
    AlreadyDeclared,
    /// Legacy, and left as it is, with the carrier grammar's reason (never
    /// [`Legacy::upgradable`] here).
    Left(Legacy),
    /// Upgraded: insert `text` at byte `at` of the decoded content.
    Upgraded {
        /// The shape upgraded.
        kind: CarrierKind,
        /// Byte offset in the content where `text` goes.
        at: usize,
        /// What to insert.
        text: String,
        /// Attachments lifted from body markers (empty without lifting).
        lifted: Vec<Attachment<'a>>,
    },
}

impl MessageMigration<'_> {
    /// The new content, for an upgrade.
    pub fn apply(&self, content: &str) -> Option<String> {
        match self {
            MessageMigration::Upgraded { at, text, .. } => {
                let mut out = String::with_capacity(content.len() + text.len());
                out.push_str(&content[..*at]);
                out.push_str(text);
                out.push_str(&content[*at..]);
                Some(out)
            }
            _ => None,
        }
    }
}

/// Decide what migration does to one message.
///
/// # Example
/// ```
/// use tool_carrier::migrate::{migrate_message, MigrateOptions};
///
/// let opts = MigrateOptions::default();
/// let m = migrate_message("user", "[Tool results]\nold output", &opts);
/// assert_eq!(m.apply("[Tool results]\nold output").unwrap(), "[Tool results]\n[Tool attachments: 0]\nold output");
/// let m = migrate_message("tool", r#"{"id":"c","content":"x"}"#, &opts);
/// assert_eq!(m.apply(r#"{"id":"c","content":"x"}"#).unwrap(), r#"{"id":"c","content":"x","attachments":[]}"#);
/// ```
pub fn migrate_message<'a>(
    role: &str,
    content: &'a str,
    options: &MigrateOptions,
) -> MessageMigration<'a> {
    let Some(carrier) = Carrier::read(Role::parse(role), content) else {
        return MessageMigration::NotACarrier;
    };
    let at = match (carrier.declaration, carrier.declaration_span) {
        (Declaration::Declared(_), _) => return MessageMigration::AlreadyDeclared,
        (Declaration::Legacy(reason), Some(span)) if reason.upgradable() => span.start,
        (Declaration::Legacy(reason), _) => return MessageMigration::Left(reason),
    };
    match carrier.kind {
        CarrierKind::Native => {
            let lifted: Vec<Attachment<'a>> = lift(&carrier.body, options)
                .into_iter()
                .map(Attachment::into_owned)
                .collect();
            let array =
                render_native_attachments(&lifted).expect("lifted targets are non-empty lines");
            MessageMigration::Upgraded {
                kind: CarrierKind::Native,
                at,
                text: format!(",\"attachments\":{array}"),
                lifted,
            }
        }
        CarrierKind::Prompt => {
            let lifted = lift(&content[carrier.body_span], options);
            let mut lines = vec![format!("[Tool attachments: {}]", lifted.len())];
            for a in &lifted {
                lines.push(marker_line(a).expect("lifted targets come from single lines"));
            }
            // The count line goes right after line 1's "\n"; when the
            // prefix is the whole content, it opens the line after it.
            let text = if at == content.len() && !content.ends_with('\n') {
                format!("\n{}", lines.join("\n"))
            } else {
                format!("{}\n", lines.join("\n"))
            };
            MessageMigration::Upgraded {
                kind: CarrierKind::Prompt,
                at,
                text,
                lifted,
            }
        }
    }
}

/// Whole-line image markers of `body` whose targets the media policy
/// accepts, each target once, in order.
fn lift<'b>(body: &'b str, options: &MigrateOptions) -> Vec<Attachment<'b>> {
    let Some(lift) = &options.lift_markers else {
        return Vec::new();
    };
    let mut out: Vec<Attachment<'b>> = Vec::new();
    for line in body.split('\n') {
        if let Some(a) = parse_marker_line(line) {
            if a.kind == AttachmentKind::Image
                && !out.iter().any(|seen| seen.target == a.target)
                && liftable(lift, &a.target)
            {
                out.push(a);
            }
        }
    }
    out
}

/// Whether `target` may be lifted, as `lift` says.
fn liftable(lift: &LiftMarkers, target: &str) -> bool {
    match lift.accept {
        Liftable::RegularFile => lift.roots.resolve(target).is_ok(),
        #[cfg(feature = "media")]
        Liftable::Image => {
            use crate::media::{sniff, DefaultResolver, Policy, Resolver, Sniffed, Source};
            let policy = Policy::default().with_roots(lift.roots.clone());
            match DefaultResolver::new(policy).resolve(target) {
                Ok(Source::Bytes(loaded)) => {
                    matches!(sniff(&loaded.bytes), Sniffed::Media(t) if t.is_image())
                }
                _ => false,
            }
        }
    }
}

/// A record migration left alone or could not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordNote {
    /// Position among the records, from 0.
    pub index: usize,
    /// 1-based line where the record starts.
    pub line: usize,
    /// What happened.
    pub what: String,
}

/// Notes of one kind: every one counted, the first [`Notes::KEPT`] kept, so
/// a report's memory does not grow with the history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    kept: Vec<RecordNote>,
    total: usize,
}

impl Notes {
    /// How many notes of a kind are kept; the rest are only counted.
    pub const KEPT: usize = 1000;

    pub(crate) fn push(&mut self, note: RecordNote) {
        self.total += 1;
        if self.kept.len() < Notes::KEPT {
            self.kept.push(note);
        }
    }

    /// How many there were.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether there were none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The kept notes, in record order.
    pub fn iter(&self) -> impl Iterator<Item = &RecordNote> {
        self.kept.iter()
    }

    /// How many were counted but not kept.
    pub fn omitted(&self) -> usize {
        self.total - self.kept.len()
    }
}

/// What a migration did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MigrationReport {
    /// Records read.
    pub records: usize,
    /// Native carriers upgraded.
    pub upgraded_native: usize,
    /// Prompt carriers upgraded.
    pub upgraded_prompt: usize,
    /// Carriers that were already declared.
    pub already_declared: usize,
    /// Messages that are not carriers.
    pub not_carriers: usize,
    /// Legacy carriers left as they are, with the reason.
    pub left: Notes,
    /// Records that are not messages, copied through verbatim (`Display`
    /// names the first 10 and counts the rest).
    pub bad_records: Notes,
    /// Attachments lifted from body markers, one note a target.
    pub lifted: Notes,
}

impl MigrationReport {
    /// Records rewritten.
    pub fn upgraded(&self) -> usize {
        self.upgraded_native + self.upgraded_prompt
    }

    /// Whether the output differs from the input.
    pub fn changed(&self) -> bool {
        self.upgraded() > 0
    }
}

impl MigrationReport {
    /// The report of a run that wrote nothing (`migrate --check`): the
    /// same lines, saying "would upgrade".
    ///
    /// ```
    /// use tool_carrier::migrate::MigrationReport;
    /// let report = MigrationReport::default();
    /// assert!(report.to_string().starts_with("0 records read: 0 upgraded"));
    /// assert!(report.as_check().to_string().starts_with("0 records read: 0 would upgrade"));
    /// ```
    pub fn as_check(&self) -> CheckReport<'_> {
        CheckReport(self)
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, verb: &str) -> fmt::Result {
        writeln!(
            f,
            "{} records read: {} {verb} ({} native, {} prompt), {} already declared, {} not carriers, {} legacy left, {} not messages",
            self.records,
            self.upgraded(),
            self.upgraded_native,
            self.upgraded_prompt,
            self.already_declared,
            self.not_carriers,
            self.left.len(),
            self.bad_records.len()
        )?;
        write_notes(f, [("lifted", &self.lifted), ("left", &self.left)])?;
        write_not_messages(f, &self.bad_records)
    }
}

/// How many records that are not messages a report's `Display` names; the
/// rest are counted in one line (all of them, not only the kept notes).
pub(crate) const SHOWN_NOT_MESSAGES: usize = 10;

/// The first [`SHOWN_NOT_MESSAGES`] records that are not messages, one line
/// each, then one line counting the others.
pub(crate) fn write_not_messages(f: &mut fmt::Formatter<'_>, notes: &Notes) -> fmt::Result {
    for n in notes.iter().take(SHOWN_NOT_MESSAGES) {
        writeln!(
            f,
            "  record {} (line {}): not a message: {}",
            n.index, n.line, n.what
        )?;
    }
    match notes.len().saturating_sub(SHOWN_NOT_MESSAGES) {
        0 => Ok(()),
        1 => writeln!(f, "  … and 1 more record that is not a message"),
        more => writeln!(f, "  … and {more} more records that are not messages"),
    }
}

/// One line per kept note, `label` before its text, and a count of those
/// not kept.
pub(crate) fn write_notes<const N: usize>(
    f: &mut fmt::Formatter<'_>,
    lists: [(&str, &Notes); N],
) -> fmt::Result {
    for (label, notes) in lists {
        for n in notes.iter() {
            writeln!(
                f,
                "  record {} (line {}): {label}: {}",
                n.index, n.line, n.what
            )?;
        }
        if notes.omitted() > 0 {
            writeln!(f, "  … and {} more {label}", notes.omitted())?;
        }
    }
    Ok(())
}

/// A [`MigrationReport`] shown for a run that wrote nothing: see
/// [`MigrationReport::as_check`].
#[derive(Clone, Copy, Debug)]
pub struct CheckReport<'a>(&'a MigrationReport);

impl fmt::Display for CheckReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(f, "would upgrade")
    }
}

impl fmt::Display for MigrationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "upgraded")
    }
}

/// Migrate the history in `input` (a `BufRead`, or a
/// [`HistoryReader`](crate::history::HistoryReader) set up with its
/// limits) to `output`, same format out as in. `progress` is called with
/// the input bytes consumed so far.
///
/// Every record and every byte between records is written; only the
/// `content` string values of upgraded carriers change, by an insertion.
///
/// # Errors
/// I/O errors of `input` or `output`, and the reader's refusals (binary
/// data, a record longer than the limit:
/// [`InputError`](crate::history::InputError)), after which `output` holds
/// part of the history only. Records that are not messages are reported,
/// not errors.
///
/// # Example
/// ```
/// use tool_carrier::migrate::{migrate_history, MigrateOptions};
///
/// let input = "{\"role\":\"tool\",\"content\":\"{\\\"content\\\":\\\"ok\\\"}\",\"ts\":1}\n";
/// let mut out = Vec::new();
/// let report = migrate_history(input.as_bytes(), &mut out, &MigrateOptions::default(), |_| {}).unwrap();
/// assert_eq!(report.upgraded_native, 1);
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "{\"role\":\"tool\",\"content\":\"{\\\"content\\\":\\\"ok\\\",\\\"attachments\\\":[]}\",\"ts\":1}\n",
/// );
/// ```
pub fn migrate_history<W: Write>(
    input: impl IntoHistoryReader,
    mut output: W,
    options: &MigrateOptions,
    progress: impl FnMut(u64),
) -> io::Result<MigrationReport> {
    let mut report = MigrationReport::default();
    let tally = records::rewrite(
        input,
        &mut output,
        progress,
        |record, message, note, output| {
            match migrate_message(&message.role, &message.content, options) {
                MessageMigration::NotACarrier => report.not_carriers += 1,
                MessageMigration::AlreadyDeclared => report.already_declared += 1,
                MessageMigration::Left(reason) => report.left.push(note(reason.to_string())),
                MessageMigration::Upgraded {
                    kind,
                    at,
                    text,
                    lifted,
                } => {
                    match kind {
                        CarrierKind::Native => report.upgraded_native += 1,
                        CarrierKind::Prompt => report.upgraded_prompt += 1,
                    }
                    for a in &lifted {
                        report.lifted.push(note(format!("image {}", a.target)));
                    }
                    write_with_insertion(output, record.raw, message, at, &text)?;
                    return Ok(Rewrite::Written);
                }
            }
            Ok(Rewrite::Unchanged)
        },
    )?;
    report.records = tally.records;
    report.bad_records = tally.bad_records;
    Ok(report)
}

/// Write `raw` with `text` inserted at decoded offset `at` of the message's
/// content, escaping only the inserted text.
fn write_with_insertion<W: Write>(
    output: &mut W,
    raw: &[u8],
    message: &Message<'_>,
    at: usize,
    text: &str,
) -> io::Result<()> {
    let literal = &raw[message.content_span.clone()];
    let split = message.content_span.start + raw_offset(literal, at);
    let mut escaped = String::with_capacity(text.len() + 16);
    crate::json::push_json_str(&mut escaped, text);
    output.write_all(&raw[..split])?;
    output.write_all(&escaped.as_bytes()[1..escaped.len() - 1])?;
    output.write_all(&raw[split..])
}

/// The byte offset in a JSON string literal (quotes included) where the
/// decoded text reaches byte `decoded`. `decoded` is a char boundary.
fn raw_offset(literal: &[u8], decoded: usize) -> usize {
    let mut raw = 1; // after the opening quote
    let mut seen = 0;
    while seen < decoded {
        if literal[raw] == b'\\' {
            if literal[raw + 1] == b'u' {
                let unit = u16::from_str_radix(
                    std::str::from_utf8(&literal[raw + 2..raw + 6]).expect("hex digits"),
                    16,
                )
                .expect("hex digits");
                if (0xD800..0xDC00).contains(&unit) {
                    // A surrogate pair: two escapes, one 4-byte character.
                    seen += 4;
                    raw += 12;
                } else {
                    seen += char::from_u32(u32::from(unit)).map_or(3, char::len_utf8);
                    raw += 6;
                }
            } else {
                seen += 1;
                raw += 2;
            }
        } else {
            seen += 1;
            raw += 1;
        }
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upgraded(role: &str, content: &str) -> String {
        migrate_message(role, content, &MigrateOptions::default())
            .apply(content)
            .unwrap_or_else(|| panic!("{content:?} should upgrade"))
    }

    fn left(role: &str, content: &str) -> Legacy {
        match migrate_message(role, content, &MigrateOptions::default()) {
            MessageMigration::Left(r) => r,
            other => panic!("{content:?}: {other:?}"),
        }
    }

    #[test]
    fn legacy_envelope_gets_an_empty_array_after_its_last_member() {
        assert_eq!(
            upgraded("tool", "{ \"content\" : \"x\\/y\" ,\"n\":1.0 \n}"),
            "{ \"content\" : \"x\\/y\" ,\"n\":1.0,\"attachments\":[] \n}"
        );
    }

    #[test]
    fn legacy_prompt_gets_a_zero_count_line() {
        assert_eq!(
            upgraded("user", "[Tool results]\nbody"),
            "[Tool results]\n[Tool attachments: 0]\nbody"
        );
        assert_eq!(
            upgraded("user", "[Tool results]\n"),
            "[Tool results]\n[Tool attachments: 0]\n"
        );
        assert_eq!(
            upgraded("user", "[Tool results]"),
            "[Tool results]\n[Tool attachments: 0]"
        );
        // A malformed declaration is legacy: it becomes body text.
        assert_eq!(
            upgraded(
                "user",
                "[Tool results]\n[Tool attachments: 2]\n[IMAGE:/a.png]\n"
            ),
            "[Tool results]\n[Tool attachments: 0]\n[Tool attachments: 2]\n[IMAGE:/a.png]\n"
        );
    }

    #[test]
    fn what_cannot_be_upgraded_is_left_with_a_reason() {
        assert_eq!(left("tool", "raw text"), Legacy::RawText);
        assert_eq!(left("tool", ""), Legacy::RawText);
        assert_eq!(left("tool", "[1, 2]"), Legacy::NotAnObject);
        assert_eq!(
            left("tool", r#"{"\ud800":1,"content":"x"}"#),
            Legacy::UndecodableKey
        );
        assert_eq!(left("tool", r#"{"content":42}"#), Legacy::NoStringContent);
        assert_eq!(left("tool", r#"{"id":1}"#), Legacy::NoStringContent);
        assert_eq!(
            left("tool", r#"{"content":"a","content":"b"}"#),
            Legacy::DuplicateMember("content")
        );
        assert_eq!(
            left(
                "tool",
                r#"{"content":"a","attachments":[],"attachments":[]}"#
            ),
            Legacy::DuplicateMember("attachments")
        );
        assert_eq!(
            left("tool", r#"{"content":"a","attachments":"nope"}"#),
            Legacy::AttachmentsNotArray
        );
        assert_eq!(
            left("tool", r#"{"content":"a","attachments":null}"#),
            Legacy::AttachmentsNotArray
        );
        assert_eq!(left("user", "  [Tool results]\nx"), Legacy::IndentedPrefix);
        assert_eq!(left("user", "[Tool results]\r\nx"), Legacy::CrlfPrefix);
        assert_eq!(
            left("user", "[Tool results]xyz\nx"),
            Legacy::TextAfterPrefix
        );
    }

    #[test]
    fn declared_carriers_and_other_messages_are_untouched() {
        let o = MigrateOptions::default();
        assert_eq!(
            migrate_message("tool", r#"{"content":"a","attachments":[]}"#, &o),
            MessageMigration::AlreadyDeclared
        );
        assert_eq!(
            migrate_message("user", "[Tool results]\n[Tool attachments: 0]\n", &o),
            MessageMigration::AlreadyDeclared
        );
        assert_eq!(
            migrate_message("user", "hello", &o),
            MessageMigration::NotACarrier
        );
        assert_eq!(
            migrate_message("assistant", "[Tool results]\n", &o),
            MessageMigration::NotACarrier
        );
    }

    #[test]
    fn notes_are_counted_but_kept_only_up_to_the_limit() {
        let mut input = String::new();
        for _ in 0..Notes::KEPT + 5 {
            input.push_str("{\"role\":\"tool\",\"content\":\"raw\"}\n");
        }
        let r = migrate_history(
            input.as_bytes(),
            std::io::sink(),
            &MigrateOptions::default(),
            |_| {},
        )
        .unwrap();
        assert_eq!(r.left.len(), Notes::KEPT + 5);
        assert_eq!(r.left.iter().count(), Notes::KEPT);
        assert_eq!(r.left.omitted(), 5);
        assert!(r.to_string().ends_with("  … and 5 more left\n"));
    }

    #[test]
    fn raw_offset_walks_escapes() {
        let literal = br#""a\n\u00e9\ud83d\ude00b""#;
        // decoded: a(1) \n(1) é(2) 😀(4) b(1)
        assert_eq!(raw_offset(literal, 0), 1);
        assert_eq!(raw_offset(literal, 1), 2);
        assert_eq!(raw_offset(literal, 2), 4);
        assert_eq!(raw_offset(literal, 4), 10);
        assert_eq!(raw_offset(literal, 8), 22);
        assert_eq!(raw_offset(literal, 9), 23);
    }

    #[test]
    fn insertion_keeps_the_literal_spelling() {
        let raw = br#"{"content":"[Tool results]\u000a\u003cb\u003e","role":"user"}"#;
        let m = Message::parse(std::str::from_utf8(raw).unwrap()).unwrap();
        let mm = migrate_message(&m.role, &m.content, &MigrateOptions::default());
        let MessageMigration::Upgraded { at, text, .. } = mm else {
            panic!()
        };
        let mut out = Vec::new();
        write_with_insertion(&mut out, raw, &m, at, &text).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"content":"[Tool results]\u000a[Tool attachments: 0]\n\u003cb\u003e","role":"user"}"#
        );
    }
}
