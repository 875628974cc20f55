//! The scale of an image sent smaller than it came, said where a
//! computer-use agent can map the model's coordinates back: under
//! [`SCALE_META`] in the image's `_meta`, and, asked
//! ([`FitOptions::with_say_scale`](super::FitOptions::with_say_scale)), in
//! a text block beside it for the model.

use std::ops::Range;

use crate::json::push_json_str;
use crate::json::scan::{self, Member};
use crate::media::scale::Scale;

use super::rewrite::Edit;

/// The `_meta` key under which a resized image's original and sent
/// sizes and the factor between them are written (`_meta` keys take a
/// reverse-DNS prefix: MCP 2025-11-25, "General fields", `_meta`).
pub const SCALE_META: &str = "dev.tool-carrier/scale";

impl Scale {
    /// `{"original":{"width","height"},"sent":{"width","height"},"factor"}`.
    fn json(&self) -> String {
        format!(
            r#"{{"original":{{"width":{},"height":{}}},"sent":{{"width":{},"height":{}}},"factor":{:.4}}}"#,
            self.from.0,
            self.from.1,
            self.to.0,
            self.to.1,
            self.factor()
        )
    }

    /// The edit that writes this scale under [`SCALE_META`] in the object
    /// of `members` (read from `src` at `start`): into its `_meta` (the
    /// key's value replaced when there), or a `_meta` added as its last
    /// member. `None` when its `_meta` is not an object.
    pub(crate) fn meta_edit(
        &self,
        src: &str,
        start: usize,
        members: &[Member<'_>],
    ) -> Option<Edit> {
        let abs = |r: &Range<usize>| start + r.start..start + r.end;
        let mut key = String::new();
        push_json_str(&mut key, SCALE_META);
        let Some(meta) = members.iter().rfind(|m| m.key == "_meta") else {
            let end = members.last().map_or(0, |m| m.value.end);
            let at = start + end;
            let comma = if members.is_empty() { "" } else { "," };
            return Some((
                at..at,
                format!("{comma}\"_meta\":{{{key}:{}}}", self.json()),
            ));
        };
        let span = abs(&meta.value);
        let inner = scan::object(&src[span.clone()], &[])?;
        if let Some(old) = inner.iter().rfind(|m| m.key == SCALE_META) {
            let at = span.start + old.value.start..span.start + old.value.end;
            return Some((at, self.json()));
        }
        let open = span.start + src[span.clone()].find('{')? + 1;
        let comma = if inner.is_empty() { "" } else { "," };
        Some((open..open, format!("{key}:{}{comma}", self.json())))
    }

    /// A text content block saying the scale, written after a block.
    pub(crate) fn text_block(&self) -> String {
        let mut text = String::new();
        push_json_str(&mut text, &self.text());
        format!(",{{\"type\":\"text\",\"text\":{text}}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::scale::sized as facts;

    fn edited(src: &str, scale: &Scale) -> String {
        let members = scan::object(src, &[]).unwrap();
        let (span, with) = scale.meta_edit(src, 0, &members).unwrap();
        format!("{}{with}{}", &src[..span.start], &src[span.end..])
    }

    #[test]
    fn the_scale_goes_into_meta_whatever_is_there() {
        let scale = Scale::of(&facts(2880, 1800), &facts(1389, 868)).unwrap();
        let value = r#"{"original":{"width":2880,"height":1800},"sent":{"width":1389,"height":868},"factor":2.0734}"#;
        assert_eq!(
            edited(r#"{"type":"image","data":"x"}"#, &scale),
            format!(
                r#"{{"type":"image","data":"x","_meta":{{"dev.tool-carrier/scale":{value}}}}}"#
            )
        );
        assert_eq!(
            edited(r#"{"_meta": {}, "type":"image"}"#, &scale),
            format!(r#"{{"_meta": {{"dev.tool-carrier/scale":{value}}}, "type":"image"}}"#)
        );
        assert_eq!(
            edited(r#"{"_meta":{"a":1}}"#, &scale),
            format!(r#"{{"_meta":{{"dev.tool-carrier/scale":{value},"a":1}}}}"#)
        );
        // Written again over an earlier scale.
        let again = edited(&edited(r#"{"_meta":{"a":1}}"#, &scale), &scale);
        assert_eq!(
            again,
            format!(r#"{{"_meta":{{"dev.tool-carrier/scale":{value},"a":1}}}}"#)
        );
        let members = scan::object(r#"{"_meta":7}"#, &[]).unwrap();
        assert!(scale.meta_edit(r#"{"_meta":7}"#, 0, &members).is_none());
    }
}
