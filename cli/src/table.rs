//! What `tool-carrier inspect` prints without `--json`: a table, one row a
//! record.

use std::io::{self, Write};

use tool_carrier::history::IntoHistoryReader;
use tool_carrier::inspect::{for_each_line, InspectLine, InspectSummary};

/// Write a table, one row a record: index, role, carrier shape and state,
/// attachments, and the start of the body; then a summary line.
/// `progress` is called with the input bytes consumed so far.
///
/// # Errors
/// I/O errors of `input` or `output`, and the reader's refusals.
pub fn write_table<W: Write>(
    input: impl IntoHistoryReader,
    mut output: W,
    progress: impl FnMut(u64),
) -> io::Result<InspectSummary> {
    writeln!(
        output,
        "{:>6}  {:<9}  {:<15}  {:<30}  body",
        "index", "role", "carrier", "attachments"
    )?;
    let summary = for_each_line(input, progress, |line| match line {
        InspectLine::Error { index, error } => writeln!(output, "{index:>6}  error: {error}"),
        InspectLine::Message {
            index,
            role,
            carrier,
            attachments,
            rejected,
        } => {
            let list = |atts: &[tool_carrier::Attachment<'_>]| {
                atts.iter()
                    .map(|a| format!("{}:{}", a.kind.as_str(), a.target))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let (shape, mut atts, body) = match carrier {
                None => ("-".to_owned(), String::new(), String::new()),
                Some(c) => {
                    let state = if c.declared { "declared" } else { "legacy" };
                    let atts = list(&c.attachments);
                    (
                        format!("{} {state}", c.kind.as_str()),
                        atts,
                        c.body.to_string(),
                    )
                }
            };
            // The user's own, after a carrier's.
            if !attachments.is_empty() {
                if !atts.is_empty() {
                    atts.push(' ');
                }
                atts.push_str(&list(attachments));
            }
            writeln!(
                output,
                "{index:>6}  {:<9}  {shape:<15}  {:<30}  {}",
                clip(role, 9),
                clip(&atts, 30),
                clip(&body, 60)
            )?;
            // What the grammar skips, convert fails: said under the row.
            for (i, why) in rejected {
                writeln!(
                    output,
                    "{:>6}  not an attachment: attachments[{i}]: {why}",
                    ""
                )?;
            }
            Ok(())
        }
    })?;
    writeln!(
        output,
        "{} records: {} carriers ({} legacy), {} not messages",
        summary.records, summary.carriers, summary.legacy, summary.errors
    )?;
    output.flush()?;
    Ok(summary)
}

/// At most `width` characters of `text` on one line: control characters
/// escaped, an ellipsis where it was cut.
fn clip(text: &str, width: usize) -> String {
    let mut chars = text
        .chars()
        .flat_map(|c| -> Box<dyn Iterator<Item = char>> {
            if c.is_control() {
                Box::new(c.escape_default())
            } else {
                Box::new(std::iter::once(c))
            }
        });
    let mut out: String = chars.by_ref().take(width).collect();
    if chars.next().is_some() {
        out.pop();
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_shows_shape_state_attachments_and_body() {
        let history = concat!(
            "{\"role\":\"tool\",\"content\":\"{\\\"content\\\":\\\"ok\\\",\\\"attachments\\\":[{\\\"kind\\\":\\\"image\\\",\\\"target\\\":\\\"/s.png\\\"}]}\"}\n",
            "{\"role\":\"user\",\"content\":\"[Tool results]\\nold\"}\n",
            "{\"role\":\"user\",\"content\":\"hi\"}\n",
            "not json\n",
        );
        let mut out = Vec::new();
        let s = write_table(history.as_bytes(), &mut out, |_| {}).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<_> = text.lines().collect();
        assert!(
            rows[1].contains("native declared")
                && rows[1].contains("image:/s.png")
                && rows[1].ends_with("ok"),
            "{}",
            rows[1]
        );
        assert!(
            rows[2].contains("prompt legacy") && rows[2].ends_with(r"[Tool results]\nold"),
            "{}",
            rows[2]
        );
        assert!(rows[3].contains(" - "), "{}", rows[3]);
        assert!(
            rows[4].contains("error: line 4: invalid JSON"),
            "{}",
            rows[4]
        );
        assert_eq!(rows[5], "4 records: 2 carriers (1 legacy), 1 not messages");
        assert_eq!(
            s,
            InspectSummary {
                records: 4,
                errors: 1,
                carriers: 2,
                legacy: 1
            }
        );
    }

    #[test]
    fn a_users_own_attachments_are_listed_and_what_declares_none_said() {
        let history = "{\"role\":\"user\",\"content\":\"look\",\"attachments\":[{\"kind\":\"image\",\"target\":\"a.png\"},{\"kind\":\"x\",\"target\":\"b\"}]}\n";
        let mut out = Vec::new();
        write_table(history.as_bytes(), &mut out, |_| {}).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<_> = text.lines().collect();
        assert!(
            rows[1].contains(" - ") && rows[1].contains("image:a.png"),
            "{}",
            rows[1]
        );
        assert!(
            rows[2].contains("not an attachment: attachments[1]: its kind \"x\""),
            "{}",
            rows[2]
        );
    }

    #[test]
    fn clip_escapes_and_shortens() {
        assert_eq!(clip("a\nb", 10), "a\\nb");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abcd", 4), "abcd");
        assert_eq!(clip("\"q\"", 4), "\"q\"");
    }
}
