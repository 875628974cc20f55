//! A run of a provider's list (Responses items, Gemini contents) built
//! from a transcript's lines and read by the provider's own reader, with
//! every path its notes and errors name put back on the line and the
//! member it came from.

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

/// A provider's reader of a bare list.
pub(crate) type ListReader =
    fn(&Value, &mut dyn MediaStore, &ImportOptions) -> Result<ImportedHistory, ImportError>;

#[derive(Default)]
pub(crate) struct Segment {
    items: Vec<Value>,
    from: Vec<Origin>,
}

struct Origin {
    line: usize,
    /// The item's path in its line.
    path: String,
    /// The path of each of the item's parts, where the parts were
    /// gathered from elsewhere in the line.
    parts: Vec<String>,
}

impl Segment {
    /// `item`, from `path` on `line`.
    pub fn push(&mut self, item: Value, line: usize, path: impl Into<String>) {
        self.push_parts(item, line, path, Vec::new());
    }

    /// `item`, from `path` on `line`, its `parts` (Gemini's) each from its
    /// own path.
    pub fn push_parts(
        &mut self,
        item: Value,
        line: usize,
        path: impl Into<String>,
        parts: Vec<String>,
    ) {
        self.items.push(item);
        self.from.push(Origin {
            line,
            path: path.into(),
            parts,
        });
    }

    /// Read the items with `read` (the list's members named `key` in a
    /// body: `input`, `contents`) into `out`, and start again.
    ///
    /// # Errors
    /// The reader's, its path rebased.
    pub fn read(
        &mut self,
        read: ListReader,
        key: &str,
        store: &mut dyn MediaStore,
        options: &ImportOptions,
        out: &mut ImportedHistory,
    ) -> Result<(), ImportError> {
        if self.items.is_empty() {
            return Ok(());
        }
        let items = Value::Array(std::mem::take(&mut self.items));
        let from = std::mem::take(&mut self.from);
        let mut part = read(&items, store, options).map_err(|e| match e {
            ImportError::Invalid { at, what } => ImportError::Invalid {
                at: rebase(&from, &at, key).unwrap_or(at),
                what,
            },
            other => other,
        })?;
        for note in &mut part.notes {
            if let Some(o) = from.get(note.message) {
                note.message = o.line - 1;
            }
            let (at, rest) = note.text.split_once(": ").unwrap_or((&note.text, ""));
            if let Some(at) = rebase(&from, at, key) {
                note.text = format!("{at}: {rest}");
            }
        }
        out.absorb(part);
        Ok(())
    }
}

/// `$[K]…` or `$.KEY[K]…` as the line and path item K came from.
fn rebase(from: &[Origin], at: &str, key: &str) -> Option<String> {
    let rest = at.strip_prefix('$')?;
    let rest = rest.strip_prefix(&format!(".{key}")).unwrap_or(rest);
    let (k, rest) = rest.strip_prefix('[')?.split_once(']')?;
    let origin = from.get(k.parse::<usize>().ok()?)?;
    let part = rest
        .strip_prefix(".parts[")
        .and_then(|r| r.split_once(']'))
        .and_then(|(p, r)| Some((origin.parts.get(p.parse::<usize>().ok()?)?, r)));
    Some(match part {
        Some((path, rest)) => format!("line {}: {path}{rest}", origin.line),
        None => format!("line {}: {}{rest}", origin.line, origin.path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_go_back_to_their_lines() {
        let from = vec![
            Origin {
                line: 4,
                path: "$.payload".into(),
                parts: Vec::new(),
            },
            Origin {
                line: 9,
                path: "$".into(),
                parts: vec!["$.content[0]".into(), "$.toolCalls[1].result[0]".into()],
            },
        ];
        let r = |at: &str| rebase(&from, at, "input");
        assert_eq!(
            r("$[0].content[2]").as_deref(),
            Some("line 4: $.payload.content[2]")
        );
        assert_eq!(r("$.input[0]").as_deref(), Some("line 4: $.payload"));
        assert_eq!(
            r("$[1].parts[1].functionResponse").as_deref(),
            Some("line 9: $.toolCalls[1].result[0].functionResponse")
        );
        assert_eq!(r("$[1].role").as_deref(), Some("line 9: $.role"));
        assert_eq!(r("$[2]"), None);
        assert_eq!(r("system"), None);
    }
}
