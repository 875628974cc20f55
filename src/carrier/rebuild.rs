//! Rebuilding a carrier with a new attachment list (and maybe a new body),
//! keeping every byte the caller did not change.

use std::ops::Range;

use super::native::push_native_attachments;
use super::{
    is_prompt_tool_carrier, render_prompt_tool_carrier, Attachment, Carrier, CarrierKind,
    CarrierParts, Declaration, Legacy, RebuildError, TOOL_RESULTS_PREFIX,
};
use crate::json::push_json_str;
use crate::Role;

/// Rebuild a carrier's content with a new attachment list, taking the body
/// from `parts` — the only text a caller may have rewritten — and keeping
/// every other byte of `content` untouched.
///
/// * **Native** (`role = "tool"`): only the `content` and `attachments`
///   member values are replaced, and each only when it changed (an unchanged
///   one keeps its raw spelling, escapes and all); `attachments` is inserted
///   after the last member when absent. Key order, white space, number
///   spellings and unknown members stay byte for byte. Rebuilding a
///   declared envelope with the values it parsed to returns `content`
///   unchanged.
/// * **Prompt** (`role = "user"`): the carrier is rendered anew from
///   `parts.body` and `attachments` (or returned unchanged when both are
///   what `content` already declares). For a legacy carrier (`parts.declared`
///   false, body = whole content) an exact first line `[Tool results]` is
///   taken off the body first, so the prefix is never written twice.
///
/// The result always reads back as a declared carrier with `parts.body` (a
/// legacy prompt body less its prefix line) and `attachments`.
///
/// # Errors
/// * [`RebuildError::NotACarrier`]: the role holds no carrier (or a `user`
///   message that is not one).
/// * [`RebuildError::KindMismatch`]: `parts.kind` is not the shape the role
///   holds.
/// * [`RebuildError::NotAnEnvelope`]: native content that is not an envelope
///   (raw text, no string `content`, duplicated members): there is nothing
///   to keep, and wrapping it would be a guess. Write a fresh one with
///   [`render_native_tool_carrier`](super::render_native_tool_carrier).
/// * [`RebuildError::InexactPrefix`]: a legacy prompt carrier whose first
///   line is indented, CRLF-terminated or longer than the prefix.
/// * [`RebuildError::Render`]: an attachment that cannot be written.
///
/// # Example
/// ```
/// use tool_carrier::{classify, rebuild_carrier, Attachment};
///
/// let content = r#"{ "tool_call_id": "c7", "content": "saved", "ms": 1.50 }"#;
/// let parts = classify("tool", content).unwrap();
/// let out = rebuild_carrier("tool", content, &parts, &[Attachment::image("/s.png")]).unwrap();
/// assert_eq!(
///     out,
///     r#"{ "tool_call_id": "c7", "content": "saved", "ms": 1.50,"attachments":[{"kind":"image","target":"/s.png"}] }"#,
/// );
/// ```
pub fn rebuild_carrier(
    role: &str,
    content: &str,
    parts: &CarrierParts<'_>,
    attachments: &[Attachment<'_>],
) -> Result<String, RebuildError> {
    let not_a_carrier = || RebuildError::NotACarrier {
        role: role.to_owned(),
    };
    let old = Carrier::read(Role::parse(role), content).ok_or_else(not_a_carrier)?;
    if parts.kind != old.kind {
        return Err(RebuildError::KindMismatch {
            role: role.to_owned(),
            kind: parts.kind,
        });
    }
    match old.kind {
        CarrierKind::Native => rebuild_native(content, &old, &parts.body, attachments),
        CarrierKind::Prompt => {
            // Nothing changed: keep the content as written. (A declared
            // carrier whose body is empty may end without the last `\n`
            // that rendering writes.)
            let unchanged = parts.declared && old.is_declared() && old.body == parts.body;
            if unchanged && old.attachments() == attachments {
                return Ok(content.to_owned());
            }
            let body = if parts.declared {
                &parts.body
            } else {
                strip_legacy_prefix(&parts.body)?
            };
            Ok(render_prompt_tool_carrier(body, attachments)?)
        }
    }
}

/// A legacy prompt body (the whole content, as the parse functions give
/// it) less its exact first line `[Tool results]`.
fn strip_legacy_prefix(body: &str) -> Result<&str, RebuildError> {
    match body.strip_prefix(TOOL_RESULTS_PREFIX) {
        Some("") => Ok(""),
        Some(rest) if rest.starts_with('\n') => Ok(&rest[1..]),
        _ if is_prompt_tool_carrier(body) => Err(RebuildError::InexactPrefix),
        // The caller replaced the body with text that holds no prefix.
        _ => Ok(body),
    }
}

fn rebuild_native(
    content: &str,
    old: &Carrier<'_>,
    body: &str,
    attachments: &[Attachment<'_>],
) -> Result<String, RebuildError> {
    let Some(declaration_span) = old.declaration_span.clone() else {
        let reason = old
            .legacy()
            .expect("a declared carrier has a declaration span");
        return Err(RebuildError::NotAnEnvelope { reason });
    };

    // Writing the array first checks every target.
    let mut new_array = String::new();
    push_native_attachments(&mut new_array, attachments)?;

    let mut edits: Vec<(Range<usize>, String)> = Vec::with_capacity(2);
    if old.body != body {
        let mut literal = String::with_capacity(body.len() + 2);
        push_json_str(&mut literal, body);
        edits.push((old.body_span.clone(), literal));
    }
    match &old.declaration {
        Declaration::Declared(have) if have == attachments => {}
        Declaration::Legacy(Legacy::NoDeclaration) => {
            edits.push((declaration_span, format!(",\"attachments\":{new_array}")));
        }
        _ => edits.push((declaration_span, new_array)),
    }
    edits.sort_by_key(|(span, _)| span.start);

    let grow: usize = edits.iter().map(|(_, text)| text.len()).sum();
    let mut out = String::with_capacity(content.len() + grow);
    let mut at = 0;
    for (span, text) in &edits {
        out.push_str(&content[at..span.start]);
        out.push_str(text);
        at = span.end;
    }
    out.push_str(&content[at..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{classify, parse_native_tool_carrier, AttachmentKind};

    fn rebuild_same(role: &str, content: &str) -> String {
        let parts = classify(role, content).unwrap();
        rebuild_carrier(role, content, &parts, &parts.attachments).unwrap()
    }

    #[test]
    fn native_rebuild_with_parsed_values_is_identity() {
        for c in [
            r#"{"tool_call_id":"c","content":"x","attachments":[]}"#,
            r#" {  "content" : "a\u00e9\/b" ,"n": 1.0e+3, "attachments" :[ {"kind":"image","target":"\/a.png","w":1}, 5 ] }  "#,
            r#"{"attachments":[{"kind":"image","target":"/a"},{"kind":"photo","target":"/b"}],"content":"first"}"#,
        ] {
            assert_eq!(rebuild_same("tool", c), c);
        }
    }

    #[test]
    fn native_rebuild_inserts_attachments_after_the_last_member() {
        let c = "{\"id\":\"c\",\n \"content\":\"x\"\n}";
        assert_eq!(
            rebuild_same("tool", c),
            "{\"id\":\"c\",\n \"content\":\"x\",\"attachments\":[]\n}"
        );
    }

    #[test]
    fn native_rebuild_replaces_only_the_two_values() {
        let c = r#"{"a":1.50,"content":"old\/","z":"\u0041","attachments":"nope","t":[ ]}"#;
        let mut parts = parse_native_tool_carrier(c);
        parts.body = "new \"body\"".into();
        let atts = [Attachment::new(AttachmentKind::Document, "/r.pdf")];
        let out = rebuild_carrier("tool", c, &parts, &atts).unwrap();
        assert_eq!(
            out,
            r#"{"a":1.50,"content":"new \"body\"","z":"\u0041","attachments":[{"kind":"document","target":"/r.pdf"}],"t":[ ]}"#
        );
        let back = parse_native_tool_carrier(&out);
        assert!(back.declared);
        assert_eq!(back.body, "new \"body\"");
        assert_eq!(back.attachments, atts);
    }

    #[test]
    fn native_rebuild_refuses_non_envelopes() {
        for c in [
            "raw",
            "[1]",
            r#"{"content":1}"#,
            r#"{"content":"a","content":"b"}"#,
            r#"{"content":"a","attachments":[],"attachments":[]}"#,
        ] {
            let parts = parse_native_tool_carrier(c);
            assert!(
                matches!(
                    rebuild_carrier("tool", c, &parts, &[]),
                    Err(RebuildError::NotAnEnvelope { .. })
                ),
                "{c}"
            );
        }
    }

    #[test]
    fn native_rebuild_refuses_empty_targets() {
        let c = r#"{"content":"x"}"#;
        let parts = parse_native_tool_carrier(c);
        assert_eq!(
            rebuild_carrier("tool", c, &parts, &[Attachment::image("")]),
            Err(RebuildError::Render(crate::RenderError::EmptyTarget {
                index: 0
            }))
        );
    }

    #[test]
    fn prompt_rebuild_with_parsed_values_is_identity() {
        let c = "[Tool results]\n[Tool attachments: 2]\n[IMAGE:/a]\n[AUDIO:/b]\nbody\n[IMAGE:/c]";
        assert_eq!(rebuild_same("user", c), c);
    }

    #[test]
    fn legacy_prompt_rebuild_never_duplicates_the_prefix() {
        let c = "[Tool results]\n<tool_result>\n[IMAGE:/x.png]\n</tool_result>";
        let out = rebuild_same("user", c);
        assert_eq!(
            out,
            "[Tool results]\n[Tool attachments: 0]\n<tool_result>\n[IMAGE:/x.png]\n</tool_result>"
        );
        assert_eq!(
            rebuild_same("user", "[Tool results]"),
            "[Tool results]\n[Tool attachments: 0]\n"
        );
    }

    #[test]
    fn legacy_prompt_with_an_inexact_prefix_is_refused() {
        for c in [
            "  [Tool results]\nx",
            "[Tool results]\r\nx",
            "[Tool results]xyz\nx",
        ] {
            let parts = classify("user", c).unwrap();
            assert_eq!(
                rebuild_carrier("user", c, &parts, &[]),
                Err(RebuildError::InexactPrefix),
                "{c:?}"
            );
        }
    }

    #[test]
    fn role_and_kind_must_agree() {
        let native = r#"{"content":"x","attachments":[]}"#;
        let prompt = "[Tool results]\n[Tool attachments: 0]\n";
        let np = classify("tool", native).unwrap();
        let pp = classify("user", prompt).unwrap();
        assert!(matches!(
            rebuild_carrier("tool", native, &pp, &[]),
            Err(RebuildError::KindMismatch { .. })
        ));
        assert!(matches!(
            rebuild_carrier("user", prompt, &np, &[]),
            Err(RebuildError::KindMismatch { .. })
        ));
        assert!(matches!(
            rebuild_carrier("assistant", prompt, &pp, &[]),
            Err(RebuildError::NotACarrier { .. })
        ));
        assert!(matches!(
            rebuild_carrier("user", "hi", &pp, &[]),
            Err(RebuildError::NotACarrier { .. })
        ));
    }
}
