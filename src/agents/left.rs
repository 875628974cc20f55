//! Lines a transcript holds that are no part of the conversation sent to
//! a model (a title, a session's settings, a file snapshot): each counted
//! as noted, and said once per kind, with how many and the first line, so
//! that a long transcript's report stays short.

use crate::steps::imported::ImportedHistory;

#[derive(Default)]
pub(crate) struct Left {
    /// `(what, whether kept, why, first line, how many)`, in the order
    /// first seen.
    kinds: Vec<(String, bool, &'static str, usize, usize)>,
}

impl Left {
    /// One `what` (`summary line`) on `line`, left out because `why`.
    pub fn one(&mut self, out: &mut ImportedHistory, what: &str, line: usize, why: &'static str) {
        self.add(out, what, false, line, why);
    }

    /// One `what` on `line`, kept in another form: `how`.
    pub fn changed(
        &mut self,
        out: &mut ImportedHistory,
        what: &str,
        line: usize,
        how: &'static str,
    ) {
        self.add(out, what, true, line, how);
    }

    fn add(
        &mut self,
        out: &mut ImportedHistory,
        what: &str,
        kept: bool,
        line: usize,
        why: &'static str,
    ) {
        out.tally.read(what, 1);
        out.tally.noted(what);
        match self.kinds.iter_mut().find(|k| k.0 == what) {
            Some(kind) => kind.4 += 1,
            None => self.kinds.push((what.to_owned(), kept, why, line, 1)),
        }
    }

    /// The notes, one per kind, on `out`.
    pub fn finish(self, out: &mut ImportedHistory) {
        for (what, kept, why, first, n) in self.kinds {
            let a = crate::steps::known::article(&what);
            let fate = if kept {
                "kept in another form"
            } else {
                "left out"
            };
            let text = if n == 1 {
                format!("line {first}: {a} {what} is {fate}: {why}")
            } else {
                format!("{n} {what}s (the first on line {first}) are {fate}: {why}")
            };
            out.note(first - 1, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_said_once_and_every_line_counted() {
        let mut out = ImportedHistory::default();
        let mut left = Left::default();
        left.one(&mut out, "summary line", 3, "a title");
        left.one(&mut out, "progress line", 4, "Claude Code's own");
        left.one(&mut out, "summary line", 9, "a title");
        left.changed(&mut out, "custom_tool_call item", 11, "a function call");
        left.finish(&mut out);
        let notes: Vec<&str> = out.notes.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(
            notes,
            [
                "2 summary lines (the first on line 3) are left out: a title",
                "line 4: a progress line is left out: Claude Code's own",
                "line 11: a custom_tool_call item is kept in another form: a function call",
            ]
        );
        assert_eq!(out.notes[0].message, 2);
        let summary = out.tally.get("summary line").unwrap();
        assert_eq!((summary.read, summary.noted), (2, 2));
        assert!(out.tally.is_balanced());
    }
}
