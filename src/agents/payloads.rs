//! Where a line's media payloads stand: each base64 or `data:` string a
//! provider's shapes carry media in, found by its shape in the part of
//! the line a reader reads, with its JSON path and byte span.
//!
//! | shape | the payload |
//! |---|---|
//! | an object with `"type": "base64"` (Anthropic's `source`) | its `data` |
//! | `inlineData` (Gemini's blob) | its `data` |
//! | `image_url` or `file_data` holding a `data:` URL, or `{"url": "data:…"}` (OpenAI's) | the URL |

use serde_json::Value;

use crate::json::scan::locate;
pub(crate) use crate::json::scan::Step;
use crate::media::data_uri::is_data_uri;
use crate::steps::imported::PayloadSpan;

use super::lines::Line;

/// The payloads inside `value` (the line's value at `root`, a member
/// path), pushed to `out` with their spans in the input.
pub(crate) fn find(line: &Line<'_>, root: &[Step<'_>], value: &Value, out: &mut Vec<PayloadSpan>) {
    let mut path: Vec<Step<'_>> = root.to_vec();
    let mut found = Vec::new();
    walk(value, &mut path, &mut found);
    for steps in found {
        // The value was parsed from this very text: it is there.
        let Some(span) = locate(line.text, &steps) else {
            continue;
        };
        // Without its quotes.
        let span = span.start + 1..span.end - 1;
        out.push(PayloadSpan {
            line: line.number,
            path: path_text(&steps),
            span: line.start + span.start as u64..line.start + span.end as u64,
        });
    }
}

/// The paths (from `value`) of the payloads inside `value`.
pub(crate) fn paths(value: &Value) -> Vec<Vec<Step<'_>>> {
    let mut found = Vec::new();
    walk(value, &mut Vec::new(), &mut found);
    found
}

fn walk<'v>(value: &'v Value, path: &mut Vec<Step<'v>>, found: &mut Vec<Vec<Step<'v>>>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                walk(item, path, found);
                path.pop();
            }
        }
        Value::Object(map) => {
            let base64 = map.get("type").and_then(Value::as_str) == Some("base64");
            for (key, member) in map {
                path.push(Step::Key(key));
                let payload = match (key.as_str(), member) {
                    ("data", Value::String(_)) => base64,
                    ("image_url" | "file_data" | "url", Value::String(s)) => data_url(s),
                    _ => false,
                };
                if payload {
                    found.push(path.clone());
                } else if key == "inlineData" {
                    if member.get("data").is_some_and(Value::is_string) {
                        path.push(Step::Key("data"));
                        found.push(path.clone());
                        path.pop();
                    }
                } else {
                    walk(member, path, found);
                }
                path.pop();
            }
        }
        _ => {}
    }
}

fn data_url(s: &str) -> bool {
    s.split_once(',')
        .is_some_and(|(head, _)| is_data_uri(head) && head.ends_with(";base64"))
}

/// `$.a[0].b`, a key that is no plain name quoted (`$["a b"]`).
pub(crate) fn path_text(steps: &[Step<'_>]) -> String {
    let mut out = String::from("$");
    for step in steps {
        match step {
            Step::Index(i) => out.push_str(&format!("[{i}]")),
            Step::Key(k)
                if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.push('.');
                out.push_str(k);
            }
            Step::Key(k) => out.push_str(&format!("[{}]", Value::String((*k).to_owned()))),
        }
    }
    out
}

/// A step of a path read back from its text ([`parse_path`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum OwnedStep {
    Key(String),
    Index(usize),
}

impl OwnedStep {
    pub(crate) fn step(&self) -> Step<'_> {
        match self {
            OwnedStep::Key(k) => Step::Key(k),
            OwnedStep::Index(i) => Step::Index(*i),
        }
    }
}

/// The steps of a path [`path_text`] wrote; `None` for any other text.
pub(crate) fn parse_path(text: &str) -> Option<Vec<OwnedStep>> {
    let mut rest = text.strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            out.push(OwnedStep::Key(r[..end].to_owned()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("[\"") {
            // A JSON string up to its closing quote, then `]`.
            let mut escaped = false;
            let close = r.char_indices().find_map(|(i, c)| {
                let end = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                end.then_some(i)
            })?;
            let key: String = serde_json::from_str(&rest[1..close + 3]).ok()?;
            out.push(OwnedStep::Key(key));
            rest = r[close + 1..].strip_prefix(']')?;
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let digits = &r[..end];
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            out.push(OwnedStep::Index(digits.parse().ok()?));
            rest = &r[end + 1..];
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_is_found_with_its_span() {
        let text = r#"{"m":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"QUJD"}},{"inlineData":{"mimeType":"image/png","data":"REVG"}},{"type":"input_image","image_url":"data:image/png;base64,R0g="},{"image_url":{"url":"data:image/gif;base64,SUo="}},{"type":"text","text":"data:image/png;base64,AAAA"},{"url":"https://x/y.png"}]}}"#;
        let line = Line {
            number: 7,
            start: 100,
            text,
        };
        let value: Value = serde_json::from_str(text).unwrap();
        let mut out = Vec::new();
        find(&line, &[Step::Key("m")], &value["m"], &mut out);
        let got: Vec<(String, String)> = out
            .iter()
            .map(|p| {
                assert_eq!(p.line, 7);
                let s = (p.span.start - 100) as usize..(p.span.end - 100) as usize;
                (p.path.clone(), text[s].to_owned())
            })
            .collect();
        assert_eq!(
            got,
            [
                ("$.m.content[0].source.data".into(), "QUJD".into()),
                ("$.m.content[1].inlineData.data".into(), "REVG".into()),
                (
                    "$.m.content[2].image_url".into(),
                    "data:image/png;base64,R0g=".into()
                ),
                (
                    "$.m.content[3].image_url.url".into(),
                    "data:image/gif;base64,SUo=".into()
                ),
            ]
        );
    }

    #[test]
    fn odd_keys_are_quoted_in_the_path() {
        assert_eq!(
            path_text(&[Step::Key("a b"), Step::Index(2), Step::Key("c_1")]),
            r#"$["a b"][2].c_1"#
        );
    }

    #[test]
    fn a_path_reads_back_as_its_steps() {
        let steps = [
            Step::Key("message"),
            Step::Index(12),
            Step::Key("a \"b\"]"),
            Step::Key("c_1"),
            Step::Key(""),
        ];
        let text = path_text(&steps);
        let back = parse_path(&text).unwrap();
        assert_eq!(back.iter().map(OwnedStep::step).collect::<Vec<_>>(), steps);
        for bad in ["", "a", "$.", "$[x]", "$[1", "$[\"a\"", "$.a b", "$[-1]"] {
            assert_eq!(parse_path(bad), None, "{bad}");
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
        #[test]
        fn every_written_path_reads_back(keys in proptest::collection::vec(
            prop_oneof![
                "[ -~]{0,6}".prop_map(Ok),
                (0usize..1000).prop_map(Err),
            ], 0..6)) {
            let steps: Vec<Step<'_>> = keys.iter().map(|k| match k {
                Ok(k) => Step::Key(k),
                Err(i) => Step::Index(*i),
            }).collect();
            let back = parse_path(&path_text(&steps)).unwrap();
            prop_assert_eq!(back.iter().map(OwnedStep::step).collect::<Vec<_>>(), steps);
        }
        }
    }
}
