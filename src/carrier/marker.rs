//! Marker lines: `[KIND:target]`, one attachment a line.

use std::borrow::Cow;

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::char;
use nom::combinator::value;
use nom::sequence::delimited;
use nom::{IResult, Parser};

use super::{Attachment, AttachmentKind, RenderError};

/// kind := "IMAGE" | "AUDIO" | "VIDEO" | "DOCUMENT"   (case-sensitive)
fn kind(input: &str) -> IResult<&str, AttachmentKind> {
    alt((
        value(AttachmentKind::Image, tag("IMAGE")),
        value(AttachmentKind::Audio, tag("AUDIO")),
        value(AttachmentKind::Video, tag("VIDEO")),
        value(AttachmentKind::Document, tag("DOCUMENT")),
    ))
    .parse(input)
}

/// marker_open := "[" kind ":"
fn marker_open(input: &str) -> IResult<&str, AttachmentKind> {
    delimited(char('['), kind, char(':')).parse(input)
}

/// Parse one marker line back into an attachment record.
///
/// ```text
/// marker_line := "[" kind ":" target "]"
/// target      := one or more chars, no "\n"; may hold ":" "[" "]"
/// ```
///
/// The kind ends at the first `:`; the target is everything between it and
/// the line's final `]`, verbatim. Only the kinds this grammar writes are
/// accepted; anything else is not a marker line (`None`). The line must not
/// include its terminating `\n`.
///
/// # Example
/// ```
/// use tool_carrier::{parse_marker_line, AttachmentKind};
///
/// let a = parse_marker_line(r"[IMAGE:C:\shots\a[1].png]").unwrap();
/// assert_eq!(a.kind, AttachmentKind::Image);
/// assert_eq!(a.target, r"C:\shots\a[1].png");
/// assert!(parse_marker_line("[PHOTO:/a.png]").is_none());
/// assert!(parse_marker_line("[IMAGE:]").is_none());
/// ```
pub fn parse_marker_line(line: &str) -> Option<Attachment<'_>> {
    let (rest, kind) = marker_open(line).ok()?;
    let target = rest.strip_suffix(']')?;
    if target.is_empty() || target.contains('\n') {
        return None;
    }
    Some(Attachment {
        kind,
        target: Cow::Borrowed(target),
        name: None,
        cache: false,
    })
}

/// The marker line for one attachment, in the existing marker syntax
/// (without a line feed).
///
/// # Errors
/// [`RenderError::EmptyTarget`], [`RenderError::LineFeedInTarget`] or
/// [`RenderError::CacheInMarker`] (with index 0) when the line would not
/// parse back as the same attachment.
///
/// # Example
/// ```
/// use tool_carrier::{marker_line, Attachment, AttachmentKind};
///
/// let a = Attachment::new(AttachmentKind::Document, "/r/q3.pdf");
/// assert_eq!(marker_line(&a).unwrap(), "[DOCUMENT:/r/q3.pdf]");
/// assert!(marker_line(&Attachment::image("a\nb")).is_err());
/// ```
pub fn marker_line(attachment: &Attachment<'_>) -> Result<String, RenderError> {
    check_marker(0, attachment)?;
    let mut out = String::with_capacity(attachment.target.len() + 11);
    push_marker_line(&mut out, attachment);
    Ok(out)
}

/// Check that an attachment survives a marker line; `index` names it in
/// the error. Its `name` is not written and not asked for (a marker line
/// has none); a cache mark would be lost, so it is refused.
pub(crate) fn check_marker(index: usize, attachment: &Attachment<'_>) -> Result<(), RenderError> {
    let target = &attachment.target;
    if attachment.cache {
        Err(RenderError::CacheInMarker { index })
    } else if target.is_empty() {
        Err(RenderError::EmptyTarget { index })
    } else if target.contains('\n') {
        Err(RenderError::LineFeedInTarget { index })
    } else {
        Ok(())
    }
}

/// Append `[KIND:target]` to `out`; the target must have been checked.
pub(crate) fn push_marker_line(out: &mut String, attachment: &Attachment<'_>) {
    out.push('[');
    out.push_str(attachment.kind.marker_tag());
    out.push(':');
    out.push_str(&attachment.target);
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(line: &str) -> Option<String> {
        parse_marker_line(line).map(|a| a.target.into_owned())
    }

    #[test]
    fn each_kind_parses_case_sensitively() {
        for k in AttachmentKind::ALL {
            let line = format!("[{}:/x]", k.marker_tag());
            assert_eq!(parse_marker_line(&line).unwrap().kind, k);
            let lower = format!("[{}:/x]", k.as_str());
            assert!(parse_marker_line(&lower).is_none(), "{lower}");
        }
    }

    #[test]
    fn kind_ends_at_the_first_colon() {
        assert_eq!(target("[IMAGE:a:b]").as_deref(), Some("a:b"));
        assert_eq!(
            target("[IMAGE:data:image/png;base64,QUJD]").as_deref(),
            Some("data:image/png;base64,QUJD")
        );
        assert!(target("[IMAGES:a]").is_none());
        assert!(target("[IMAGE a]").is_none());
        assert!(target("[ IMAGE:a]").is_none());
    }

    #[test]
    fn target_is_verbatim_up_to_the_final_bracket() {
        assert_eq!(target("[IMAGE:a]]").as_deref(), Some("a]"));
        assert_eq!(target("[IMAGE:[x]]").as_deref(), Some("[x]"));
        assert_eq!(target("[IMAGE: spaced ]").as_deref(), Some(" spaced "));
        assert_eq!(target("[IMAGE:a\rb]").as_deref(), Some("a\rb"));
    }

    #[test]
    fn rejections() {
        for line in [
            "",
            "[",
            "[]",
            "[IMAGE]",
            "[IMAGE:]",
            "[IMAGE:/a.png",
            "[IMAGE:/a.png] ",
            "[IMAGE:/a.png]\r",
            " [IMAGE:/a.png]",
            "IMAGE:/a.png]",
            "[IMAGE:/a\n.png]",
            "[PHOTO:/a.png]",
            "[Image:/a.png]",
        ] {
            assert!(parse_marker_line(line).is_none(), "{line:?}");
        }
    }

    #[test]
    fn render_refuses_what_cannot_read_back() {
        assert_eq!(
            marker_line(&Attachment::image("")),
            Err(RenderError::EmptyTarget { index: 0 })
        );
        assert_eq!(
            marker_line(&Attachment::image("a\n")),
            Err(RenderError::LineFeedInTarget { index: 0 })
        );
    }

    #[test]
    fn render_then_parse_is_identity() {
        for k in AttachmentKind::ALL {
            for t in ["/a.png", "a]", "[", ":", "x:y:z", "\r"] {
                let a = Attachment::new(k, t);
                let line = marker_line(&a).unwrap();
                assert_eq!(parse_marker_line(&line), Some(a));
            }
        }
    }
}
