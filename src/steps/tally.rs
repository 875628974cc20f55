//! Accounting for what a reader or a conversion read: for each kind of
//! thing (a call, an image, a `tool_use` block), how many were read and
//! how many of them were sent (for an import: kept as they came), noted
//! (kept in another form, or left out with a note) or refused (failed:
//! left out with a note that `--strict` refuses). Every one read is one
//! of the three: the numbers balance.

use std::fmt;

/// What a reader or a conversion read, and what became of it.
///
/// ```
/// use tool_carrier::provider::{build_request, Options, Provider};
///
/// let history = [
///     ("assistant", r#"{"content":null,"tool_calls":[{"id":"c1","name":"shot","arguments":"{}"}]}"#),
///     ("tool", r#"{"tool_call_id":"c1","content":"Saved.","attachments":[{"kind":"image","target":"/nowhere/a.png"}]}"#),
/// ];
/// let request = build_request(Provider::Anthropic, &history, &Options::new())?;
/// let tally = &request.report.tally;
/// assert!(tally.is_balanced());
/// assert_eq!(tally.get("call").map(|c| (c.read, c.sent)), Some((1, 1)));
/// assert_eq!(tally.get("image").map(|c| (c.read, c.refused)), Some((1, 1)));
/// assert_eq!(
///     tally.summary("sent").to_string(),
///     "read 1 call, 1 result, 1 image: sent 1 call, 1 result; refused 1 image"
/// );
/// # Ok::<(), tool_carrier::provider::BuildError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    rows: Vec<Count>,
}

/// One kind of thing read, and what became of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Count {
    /// What it is, in the singular (`call`, `image`, `tool_use block`).
    pub what: String,
    /// How many were read.
    pub read: usize,
    /// How many were sent (an import: kept as they came).
    pub sent: usize,
    /// How many were kept in another form, or left out with a note, by
    /// design (an option of the caller's, a limit of the provider's).
    pub noted: usize,
    /// How many failed: left out with a note (`--strict` refuses them).
    pub refused: usize,
}

impl Count {
    /// Whether every one read was sent, noted or refused, once.
    pub fn is_balanced(&self) -> bool {
        self.read == self.sent + self.noted + self.refused
    }
}

/// Which outcome.
#[derive(Clone, Copy)]
enum Fate {
    Read,
    Sent,
    Noted,
    Refused,
}

impl Tally {
    /// Every kind read, in the order first read.
    pub fn rows(&self) -> &[Count] {
        &self.rows
    }

    /// The count of `what`, if any was read or had an outcome.
    pub fn get(&self, what: &str) -> Option<&Count> {
        self.rows.iter().find(|r| r.what == what)
    }

    /// Whether every kind balances ([`Count::is_balanced`]).
    pub fn is_balanced(&self) -> bool {
        self.rows.iter().all(Count::is_balanced)
    }

    /// How many of every kind were refused.
    pub fn refusals(&self) -> usize {
        self.rows.iter().map(|r| r.refused).sum()
    }

    /// A line saying what was read and what became of it, the outcome of
    /// being sent called `sent` (`"sent"`, `"kept"`).
    pub fn summary<'a>(&'a self, sent: &'a str) -> Summary<'a> {
        Summary { tally: self, sent }
    }

    fn add(&mut self, what: &str, fate: Fate, n: usize) {
        if n == 0 {
            return;
        }
        let row = match self.rows.iter().position(|r| r.what == what) {
            Some(i) => &mut self.rows[i],
            None => {
                self.rows.push(Count {
                    what: what.to_owned(),
                    read: 0,
                    sent: 0,
                    noted: 0,
                    refused: 0,
                });
                self.rows.last_mut().expect("just pushed")
            }
        };
        match fate {
            Fate::Read => row.read += n,
            Fate::Sent => row.sent += n,
            Fate::Noted => row.noted += n,
            Fate::Refused => row.refused += n,
        }
    }

    /// `n` of `what` read.
    pub(crate) fn read(&mut self, what: &str, n: usize) {
        self.add(what, Fate::Read, n);
    }

    /// One `what` sent (kept as it came).
    pub(crate) fn sent(&mut self, what: &str) {
        self.add(what, Fate::Sent, 1);
    }

    /// `n` of `what` sent.
    pub(crate) fn sent_n(&mut self, what: &str, n: usize) {
        self.add(what, Fate::Sent, n);
    }

    /// One `what` kept in another form or left out by design, with a note.
    pub(crate) fn noted(&mut self, what: &str) {
        self.add(what, Fate::Noted, 1);
    }

    /// One `what` failed, left out with a note.
    pub(crate) fn refused(&mut self, what: &str) {
        self.add(what, Fate::Refused, 1);
    }

    /// Everything sent so far counted as left out, with a note, instead
    /// (a part of an input read, then found to be out of the history: a
    /// transcript's records before a compaction).
    pub(crate) fn all_left_out(&mut self) {
        for row in &mut self.rows {
            row.noted += std::mem::take(&mut row.sent);
        }
    }

    /// Add every count of `other` (the tally of several inputs read one
    /// after the other).
    pub fn extend(&mut self, other: &Tally) {
        for row in &other.rows {
            self.add(&row.what, Fate::Read, row.read);
            self.add(&row.what, Fate::Sent, row.sent);
            self.add(&row.what, Fate::Noted, row.noted);
            self.add(&row.what, Fate::Refused, row.refused);
        }
    }
}

/// [`Tally::summary`]: `read 2 calls, 2 results, 2 images: all sent`, or
/// `read …: sent …; noted …; refused …` (and what is unaccounted for,
/// should a count not balance).
pub struct Summary<'a> {
    tally: &'a Tally,
    sent: &'a str,
}

/// `n what`, plural by an `s` (every noun counted ends in one that takes it).
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows = &self.tally.rows;
        let list = |of: &dyn Fn(&Count) -> usize| {
            rows.iter()
                .filter(|r| of(r) > 0)
                .map(|r| counted(of(r), &r.what))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let read = list(&|r| r.read);
        if read.is_empty() {
            return write!(f, "read nothing to account for");
        }
        write!(f, "read {read}: ")?;
        if rows.iter().all(|r| r.sent == r.read && r.is_balanced()) {
            return write!(f, "all {}", self.sent);
        }
        let mut parts = Vec::new();
        for (name, of) in [
            (self.sent, &(|r: &Count| r.sent) as &dyn Fn(&Count) -> usize),
            ("noted", &|r: &Count| r.noted),
            ("refused", &|r: &Count| r.refused),
        ] {
            let l = list(of);
            if !l.is_empty() {
                parts.push(format!("{name} {l}"));
            }
        }
        let off = list(&|r| r.read.abs_diff(r.sent + r.noted + r.refused));
        if !off.is_empty() {
            parts.push(format!("unaccounted for {off}"));
        }
        write!(f, "{}", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_balances_when_every_one_read_has_one_fate() {
        let mut t = Tally::default();
        t.read("call", 2);
        t.sent("call");
        assert!(!t.is_balanced());
        t.noted("call");
        assert!(t.is_balanced());
        t.read("image", 1);
        t.refused("image");
        assert!(t.is_balanced());
        assert_eq!(t.refusals(), 1);
        assert_eq!(
            t.summary("sent").to_string(),
            "read 2 calls, 1 image: sent 1 call; noted 1 call; refused 1 image"
        );
    }

    #[test]
    fn the_summary_says_all_when_nothing_was_left_out() {
        let mut t = Tally::default();
        t.read("text block", 2);
        t.sent_n("text block", 2);
        assert_eq!(
            t.summary("kept").to_string(),
            "read 2 text blocks: all kept"
        );
        assert_eq!(
            Tally::default().summary("kept").to_string(),
            "read nothing to account for"
        );
    }

    #[test]
    fn what_does_not_balance_is_said() {
        let mut t = Tally::default();
        t.read("part", 3);
        t.sent("part");
        assert_eq!(
            t.summary("kept").to_string(),
            "read 3 parts: kept 1 part; unaccounted for 2 parts"
        );
    }
}
