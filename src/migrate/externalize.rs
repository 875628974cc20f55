//! Moving inline media out of a history: every declared `data:` target
//! becomes a content-addressed file, declared by its name
//! ([`media::store`](crate::media::store)).
//!
//! Histories that keep every screenshot inline grow to gigabytes holding
//! the same image many times. [`externalize_history`] streams the history
//! (one record in memory at a time), decodes each declared `data:` target,
//! hands the bytes to a [`MediaStore`] (identical bytes are stored once)
//! and declares the file's name instead. Only the `attachments` member (or
//! a prompt carrier's marker lines) changes, and the `target` strings of
//! a user record's own `attachments`; the body, the other members and
//! every other byte of the record stay as they were.
//! A `data:` target that is not canonical base64 of a known type is left
//! as it is, with a note. Externalizing twice changes nothing.
//!
//! ```
//! use tool_carrier::media::store::InlineStore;
//! use tool_carrier::migrate::externalize_history;
//!
//! // With no data: targets, nothing changes.
//! let input = "{\"role\":\"tool\",\"content\":\"{\\\"content\\\":\\\"ok\\\",\\\"attachments\\\":[]}\"}\n";
//! let mut out = Vec::new();
//! let report = externalize_history(input.as_bytes(), &mut out, &mut InlineStore, |_| {})?;
//! assert_eq!(out, input.as_bytes());
//! assert_eq!(report.files_written, 0);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::io::{self, Write};

use crate::carrier::{checked_records, rebuild_carrier, Carrier, CarrierParts};
use crate::history::IntoHistoryReader;
use crate::media::data_uri::{decode_data_uri, is_data_uri};
use crate::media::store::MediaStore;
use crate::{Attachment, Role};

use super::records::{self, Rewrite};
use super::{Notes, RecordNote};

/// What [`externalize_history`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalizeReport {
    /// Records read.
    pub records: usize,
    /// Carriers whose declaration changed.
    pub carriers: usize,
    /// User records whose own `attachments` changed.
    pub users: usize,
    /// `data:` targets replaced by a file's name.
    pub targets: usize,
    /// Files written.
    pub files_written: usize,
    /// Targets whose bytes were already stored (this run or before).
    pub duplicates_folded: usize,
    /// Bytes read and bytes written: the history's size before and after.
    pub bytes_in: u64,
    /// See [`ExternalizeReport::bytes_in`].
    pub bytes_out: u64,
    /// `data:` targets left inline, with the reason.
    pub left: Notes,
    /// Records that are not messages, copied through verbatim (`Display`
    /// names the first 10 and counts the rest).
    pub bad_records: Notes,
}

impl ExternalizeReport {
    /// How much smaller the history got.
    pub fn bytes_saved(&self) -> u64 {
        self.bytes_in.saturating_sub(self.bytes_out)
    }
}

impl fmt::Display for ExternalizeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} records read: {} data: targets in {} carriers{} moved out, {} files written, {} duplicates folded, {} bytes saved ({} → {}), {} left inline, {} not messages",
            self.records,
            self.targets,
            self.carriers,
            match self.users {
                0 => String::new(),
                1 => " and 1 user message".to_owned(),
                n => format!(" and {n} user messages"),
            },
            self.files_written,
            self.duplicates_folded,
            self.bytes_saved(),
            self.bytes_in,
            self.bytes_out,
            self.left.len(),
            self.bad_records.len()
        )?;
        super::write_notes(f, [("left inline", &self.left)])?;
        super::write_not_messages(f, &self.bad_records)
    }
}

/// Copy the history in `input` (a `BufRead`, or a
/// [`HistoryReader`](crate::history::HistoryReader) set up with its
/// limits) to `output` with every declared `data:` target moved into
/// `store`. `progress` is called with the input bytes consumed so far.
///
/// # Errors
/// I/O errors of `input`, `output` or `store`, and the reader's refusals
/// ([`InputError`](crate::history::InputError)). Bad records and
/// undecodable targets are reported, not errors.
pub fn externalize_history<W: Write>(
    input: impl IntoHistoryReader,
    output: W,
    store: &mut dyn MediaStore,
    progress: impl FnMut(u64),
) -> io::Result<ExternalizeReport> {
    let mut report = ExternalizeReport::default();
    let mut output = Counting {
        inner: output,
        n: 0,
    };
    let tally = records::rewrite(
        input,
        &mut output,
        progress,
        |record, message, note, output| {
            // A message's record is UTF-8.
            let raw = std::str::from_utf8(record.raw).unwrap_or_default();
            let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
            if let Some(content) =
                externalized(&message.role, &message.content, store, &mut report, note)?
            {
                let mut literal = String::with_capacity(content.len() + 16);
                crate::json::push_json_str(&mut literal, &content);
                edits.push((message.content_span.clone(), literal));
            }
            if let Some(span) = message.attachments.clone() {
                if let Some(array) = own_externalized(&raw[span.clone()], store, &mut report, note)?
                {
                    edits.push((span, array));
                }
            }
            if edits.is_empty() {
                return Ok(Rewrite::Unchanged);
            }
            edits.sort_by_key(|(span, _)| span.start);
            let mut at = 0;
            for (span, text) in edits {
                output.write_all(&record.raw[at..span.start])?;
                output.write_all(text.as_bytes())?;
                at = span.end;
            }
            output.write_all(&record.raw[at..])?;
            Ok(Rewrite::Written)
        },
    )?;
    report.records = tally.records;
    report.bad_records = tally.bad_records;
    report.bytes_in = tally.bytes_in;
    report.bytes_out = output.n;
    Ok(report)
}

/// The carrier's content with its `data:` targets stored, or `None` when
/// nothing changes.
fn externalized(
    role: &str,
    content: &str,
    store: &mut dyn MediaStore,
    report: &mut ExternalizeReport,
    note: &dyn Fn(String) -> RecordNote,
) -> io::Result<Option<String>> {
    let Some(carrier) = Carrier::read(Role::parse(role), content) else {
        return Ok(None);
    };
    if !carrier.attachments().iter().any(|a| is_data_uri(&a.target)) {
        return Ok(None);
    }
    let mut changed = 0;
    let mut attachments: Vec<Attachment<'_>> = Vec::with_capacity(carrier.attachments().len());
    for a in carrier.attachments() {
        match stored(a, store, report, note)? {
            Some(target) => {
                changed += 1;
                attachments.push(Attachment {
                    target: target.into(),
                    ..a.clone()
                });
            }
            None => attachments.push(a.clone()),
        }
    }
    if changed == 0 {
        return Ok(None);
    }
    let parts = CarrierParts {
        kind: carrier.kind,
        declared: true,
        attachments: carrier.attachments().to_vec(),
        body: carrier.body.clone(),
    };
    match rebuild_carrier(role, content, &parts, &attachments) {
        Ok(new) => {
            report.carriers += 1;
            report.targets += changed;
            Ok(Some(new))
        }
        Err(e) => {
            report.left.push(note(format!("carrier not rebuilt: {e}")));
            Ok(None)
        }
    }
}

/// The target `a` is declared by once its `data:` bytes are in `store`;
/// `None` for a target that is no `data:` URL, or one that does not
/// decode (noted, and left as it is).
fn stored(
    a: &Attachment<'_>,
    store: &mut dyn MediaStore,
    report: &mut ExternalizeReport,
    note: &dyn Fn(String) -> RecordNote,
) -> io::Result<Option<String>> {
    if !is_data_uri(&a.target) {
        return Ok(None);
    }
    match decode_data_uri(&a.target, usize::MAX) {
        Ok((_, bytes)) => {
            let stored = store.put(&bytes)?;
            if stored.written {
                report.files_written += 1;
            } else {
                report.duplicates_folded += 1;
            }
            Ok(Some(stored.target))
        }
        Err(e) => {
            report
                .left
                .push(note(format!("{} target: {e}", a.kind.as_str())));
            Ok(None)
        }
    }
}

/// A user record's `attachments` array (its JSON text) with its `data:`
/// targets stored, or `None` when nothing changes. Only each stored
/// item's `target` string changes: its other members, the items that
/// declare nothing and the white space stay as written.
fn own_externalized(
    array: &str,
    store: &mut dyn MediaStore,
    report: &mut ExternalizeReport,
    note: &dyn Fn(String) -> RecordNote,
) -> io::Result<Option<String>> {
    let spans = crate::json::scan::array(array).unwrap_or_default();
    let mut out = String::with_capacity(array.len());
    let (mut at, mut changed) = (0, 0);
    for (span, item) in spans.into_iter().zip(checked_records(array)) {
        let Ok(a) = item else { continue };
        let Some(target) = stored(&a, store, report, note)? else {
            continue;
        };
        let text = &array[span.clone()];
        let picked = crate::json::scan::pick(text, ["target"]).and_then(|p| {
            let [target] = p.picks;
            target.one()
        });
        let Some(member) = picked else { continue };
        out.push_str(&array[at..span.start + member.value.start]);
        crate::json::push_json_str(&mut out, &target);
        at = span.start + member.value.end;
        changed += 1;
    }
    if changed == 0 {
        return Ok(None);
    }
    out.push_str(&array[at..]);
    report.users += 1;
    report.targets += changed;
    Ok(Some(out))
}

/// A writer that counts what it writes.
struct Counting<W> {
    inner: W,
    n: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
