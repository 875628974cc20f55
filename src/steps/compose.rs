//! Text every builder writes the same way: a result's body with its notes,
//! the label of an attachment moved out of its result, targets as shown to
//! a model, and messages of APIs whose roles alternate.

use super::walk::{Media, Slot};
use crate::media::data_uri::is_data_uri;

/// Where a builder puts the media of a tool result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Inside the result (or the carrier) itself.
    Inside,
    /// In a `user` message after the batch of results.
    NextMessage,
    /// In the same `user` message, after the batch's result blocks.
    AfterResults,
}

/// The text of a tool result or carrier: the body, then one line per
/// attachment that became a note, then (for builders that move media out
/// of the tool result) one line per attachment sent elsewhere.
pub(crate) fn text_with_notes(body: &str, slots: &[Slot<'_>], placement: Placement) -> String {
    let mut text = String::from(body);
    for slot in slots {
        let line = match (&slot.media, placement) {
            (Media::Note(_, note), _) => note.clone(),
            (_, Placement::NextMessage) => format!(
                "[{} {} follows in the next user message]",
                slot.kind.as_str(),
                shown(slot)
            ),
            (_, Placement::AfterResults) => {
                format!(
                    "[{} {} follows after the tool results]",
                    slot.kind.as_str(),
                    shown(slot)
                )
            }
            (_, Placement::Inside) => continue,
        };
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&line);
    }
    text
}

/// The label put before an attachment moved out of its tool result (into
/// a following user message), so the model knows where it came from.
pub(crate) fn attachment_label(name: &str, call_id: &str, slot: &Slot<'_>) -> String {
    format!(
        "Attachment of the {name} result (call {call_id}): {} {}",
        slot.kind.as_str(),
        shown(slot)
    )
}

/// Whether any slot will be sent as media (inline, by URL or by file id).
pub(crate) fn has_media(slots: &[Slot<'_>]) -> bool {
    slots.iter().any(|s| s.media.is_sent())
}

/// How notes and labels name a slot's attachment: its declared name, else
/// its target (see [`label_name`]).
pub(crate) fn shown<M>(slot: &Slot<'_, M>) -> String {
    label_name(slot.name.as_deref(), &slot.target)
}

/// How notes and labels name an attachment: by its declared `name` when
/// it has one; else by its target, except that a `data:` URI or a file
/// named by a content hash (what the crate's media stores write) is
/// named by its type alone (`unnamed PNG`): a label never shows a hash
/// or a payload. Control characters become spaces; anything long is cut.
pub(crate) fn label_name(name: Option<&str>, target: &str) -> String {
    if let Some(name) = name.filter(|n| !n.trim().is_empty()) {
        return display_target(name);
    }
    if is_data_uri(target) {
        let head = target[5..].split([';', ',']).next().unwrap_or("");
        let subtype = head.rsplit('/').next().unwrap_or("");
        return unnamed(subtype);
    }
    match file_name(target).and_then(hashed_name) {
        Some(ext) => unnamed(ext),
        None => display_target(target),
    }
}

/// `unnamed PNG`; `unnamed file` when the type says nothing usable.
fn unnamed(subtype: &str) -> String {
    let t = match subtype.to_ascii_lowercase().as_str() {
        "jpg" | "jpeg" => "JPEG".to_owned(),
        s if !s.is_empty() && s.len() <= 8 && s.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            s.to_ascii_uppercase()
        }
        _ => return "unnamed file".to_owned(),
    };
    format!("unnamed {t}")
}

/// The extension of a content-addressed file name (64 hex digits, a dot,
/// an extension): `Some("png")` for `11a6…ae31.png`.
fn hashed_name(name: &str) -> Option<&str> {
    let (stem, ext) = name.split_once('.')?;
    is_content_hash(stem).then_some(ext)
}

/// Whether a file stem is a content hash (64 hex digits, the name the
/// media store gives a file), which says nothing of what it holds.
pub(crate) fn is_content_hash(stem: &str) -> bool {
    stem.len() == 64 && stem.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The file name a provider is given for a slot's attachment: its
/// declared name, else the target's last path segment (see
/// [`file_name`]); `None` for an unnamed `data:` URI or a file named by
/// a content hash, which says nothing of what it holds.
pub(crate) fn slot_file_name<'s, M>(slot: &'s Slot<'_, M>) -> Option<&'s str> {
    match slot.name.as_deref().filter(|n| !n.trim().is_empty()) {
        Some(name) => file_name(name),
        None => file_name(&slot.target).filter(|n| hashed_name(n).is_none()),
    }
}

/// A target as shown where no better name is known: a `data:` URI by its
/// type and length, anything long cut short, control characters replaced.
pub(crate) fn display_target(target: &str) -> String {
    const MAX: usize = 160;
    if is_data_uri(target) {
        let head = target[5..].split([';', ',']).next().unwrap_or("");
        let head: String = head.chars().take(40).collect();
        return format!("data:{head}… ({} characters)", target.len());
    }
    let mut out: String = target
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if target.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}

/// The last path segment of a target (for file names): `a.pdf` for
/// `docs/a.pdf` or `https://x/a.pdf?v=1`; `None` for a `data:` URI.
pub(crate) fn file_name(target: &str) -> Option<&str> {
    if is_data_uri(target) {
        return None;
    }
    let path = target.split(['?', '#']).next().unwrap_or(target);
    path.rsplit(['/', '\\'])
        .next()
        .filter(|s| !s.is_empty() && !s.chars().any(char::is_control))
}

/// Messages for APIs whose roles must alternate (Anthropic, Bedrock):
/// content pushed for the role of the last message joins it. It keeps
/// where the caller's cache marks fall as the messages grow.
pub(crate) struct Alternating<R, B> {
    messages: Vec<(R, Vec<B>)>,
    /// The blocks the caller marks, as `(message, block)`.
    marks: Vec<(usize, usize)>,
}

/// The messages an [`Alternating`] built, and the blocks the caller marks
/// in them (`(message, block)`, in order, each once).
pub(crate) type Finished<R, B> = (Vec<(R, Vec<B>)>, Vec<(usize, usize)>);

impl<R: Copy + PartialEq, B> Alternating<R, B> {
    pub(crate) fn new() -> Self {
        Alternating {
            messages: Vec::new(),
            marks: Vec::new(),
        }
    }

    /// Push `blocks`, the caller marking those at `marked` (indices into
    /// `blocks`). A mark past the last block (content that wrote no
    /// block) falls on the last block before it, which ends the same
    /// prefix.
    pub(crate) fn push_marked(
        &mut self,
        role: R,
        blocks: Vec<B>,
        marked: impl IntoIterator<Item = usize>,
    ) {
        let (message, offset) = match self.messages.last() {
            Some((last, content)) if *last == role => (self.messages.len() - 1, content.len()),
            _ => (self.messages.len(), 0),
        };
        let count = blocks.len();
        for i in marked {
            if i < count {
                self.marks.push((message, offset + i));
            } else if let Some(last) = self.last_block() {
                self.marks.push(last);
            }
        }
        if blocks.is_empty() {
            return;
        }
        match self.messages.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => self.messages.push((role, blocks)),
        }
    }

    /// Push a record's `blocks`, its last marked when the caller marks the
    /// record.
    pub(crate) fn push_record(&mut self, role: R, blocks: Vec<B>, cache: bool) {
        let end = record_end(blocks.len(), cache);
        self.push_marked(role, blocks, end);
    }

    /// Where the last block pushed so far is.
    fn last_block(&self) -> Option<(usize, usize)> {
        let m = self.messages.len().checked_sub(1)?;
        Some((m, self.messages[m].1.len().checked_sub(1)?))
    }

    /// The messages, a `user` one holding `opening` put first when the
    /// history starts with the assistant (both APIs require a user turn
    /// first), and the blocks the caller marks.
    pub(crate) fn finish(mut self, user: R, opening: B) -> Finished<R, B> {
        if self.messages.first().is_some_and(|(role, _)| *role != user) {
            self.messages.insert(0, (user, vec![opening]));
            for (m, _) in &mut self.marks {
                *m += 1;
            }
        }
        self.marks.sort_unstable();
        self.marks.dedup();
        (self.messages, self.marks)
    }
}

/// The index a caller's mark on a record takes in [`Alternating::push_marked`]:
/// the last of the `count` blocks the record wrote (past the end when it
/// wrote none).
pub(crate) fn record_end(count: usize, cache: bool) -> Option<usize> {
    cache.then(|| count.saturating_sub(1))
}

/// Text of the user turn put first when a history opens with the assistant.
pub(crate) const OPENING_TEXT: &str = "(conversation continues)";

/// The input tokens of `text`, estimated: a token for every four
/// characters. No API that caches at marks documents a ratio; four is
/// OpenAI's rule of thumb for English
/// (<https://help.openai.com/en/articles/4936856-what-are-tokens-and-how-to-count-them>,
/// read 2026-12-02). Code, JSON and most other languages take fewer
/// characters a token, so for them the estimate falls short of the real
/// count; plain English prose of long words can take more (` word` is
/// five characters and one token), so a mark on such a prefix just past
/// the minimum may still cache nothing. Below the estimate's minimum no
/// mark is placed.
pub(crate) fn text_tokens(text: &str) -> u64 {
    u64::try_from(text.chars().count() / 4).unwrap_or(u64::MAX)
}

/// The marks of `marks` whose cached prefix, `before` tokens (tools and
/// system text) and the messages up to and including the marked one
/// (each block counted by `tokens`), reaches `min`: a breakpoint on a
/// shorter prefix caches nothing ("prompts shorter than this minimum …
/// will not be cached",
/// <https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations>,
/// read 2026-12-02) and takes one of the four marks a request may carry.
/// Without a documented minimum every mark is kept.
pub(crate) fn long_enough<R, B>(
    messages: &[(R, Vec<B>)],
    marks: Vec<usize>,
    before: u64,
    min: Option<u64>,
    tokens: impl Fn(&B) -> u64,
) -> Vec<usize> {
    let Some(min) = min else {
        return marks;
    };
    let mut prefix = before;
    let mut upto = Vec::with_capacity(messages.len());
    for (_, blocks) in messages {
        prefix = blocks.iter().map(&tokens).fold(prefix, u64::saturating_add);
        upto.push(prefix);
    }
    marks.into_iter().filter(|&i| upto[i] >= min).collect()
}

/// The messages that end in a prompt-cache breakpoint (none when `on` is
/// false): the last message, so the next turn reads the whole
/// conversation from the cache; and the last message before the first one
/// with a block that `sends_media`, the prefix no eviction ever changes
/// (evicting turns only the oldest media into notes, after it). At most
/// two, so with one for the tools or system text at most three: the APIs
/// that cache at marks take four.
pub(crate) fn cache_breakpoints<R, B>(
    messages: &[(R, Vec<B>)],
    sends_media: fn(&B) -> bool,
    on: bool,
) -> Vec<usize> {
    let Some(last) = messages.len().checked_sub(1).filter(|_| on) else {
        return Vec::new();
    };
    let stable = messages
        .iter()
        .position(|(_, blocks)| blocks.iter().any(sends_media))
        .and_then(|i| i.checked_sub(1))
        .filter(|&i| i != last);
    stable.into_iter().chain([last]).collect()
}

/// The blocks that end in a prompt-cache breakpoint, `(message, block)`
/// in order, and whether the head (the system text, else the last tool)
/// ends in one.
///
/// Every block the caller marks (`caller`, `caller_head`) keeps its mark;
/// then the crate's own, while the request has room for them (`limit`
/// marks in all, the head's among them), in the order they are worth:
/// the last message's (the next turn reads the whole conversation), the
/// head's, the stable prefix's (`own`: message indices from
/// [`cache_breakpoints`] after [`long_enough`], `own_head`). A mark falls
/// on the last block of its message, and on a block that cannot carry
/// one (`markable` false) it falls back to the nearest block before that
/// can, which ends a prefix of the one asked for. The caller's marks are
/// never cut to fit: more than `limit` are the request's to refuse, and
/// the API's rule says so.
pub(crate) fn with_callers<R, B>(
    messages: &[(R, Vec<B>)],
    (caller, caller_head): (Vec<(usize, usize)>, bool),
    (own, own_head): (Vec<usize>, bool),
    limit: usize,
    markable: impl Fn(&B) -> bool,
) -> (Vec<(usize, usize)>, bool) {
    let at_or_before = |(m, b): (usize, usize)| -> Option<(usize, usize)> {
        (0..=m).rev().find_map(|i| {
            let blocks = &messages[i].1;
            let end = if i == m { b + 1 } else { blocks.len() };
            (0..end.min(blocks.len()))
                .rev()
                .find(|&j| markable(&blocks[j]))
                .map(|j| (i, j))
        })
    };
    let mut blocks: Vec<(usize, usize)> = caller.into_iter().filter_map(at_or_before).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let mut head = caller_head;
    enum Own {
        Head,
        Block((usize, usize)),
    }
    let ends = |i: usize| at_or_before((i, messages[i].1.len().saturating_sub(1)));
    let mut worth: Vec<Own> = own
        .into_iter()
        .rev()
        .filter_map(ends)
        .map(Own::Block)
        .collect();
    if own_head {
        // The head's comes second: after the last message's.
        worth.insert(worth.len().min(1), Own::Head);
    }
    for mark in worth {
        if blocks.len() + usize::from(head) >= limit {
            break;
        }
        match mark {
            Own::Head => head = true,
            Own::Block(b) if !blocks.contains(&b) => blocks.push(b),
            Own::Block(_) => {}
        }
    }
    blocks.sort_unstable();
    (blocks, head)
}

#[cfg(test)]
mod cache_prefix_tests {
    use super::*;

    #[test]
    fn text_is_counted_at_four_characters_a_token_rounded_down() {
        assert_eq!(text_tokens(""), 0);
        assert_eq!(text_tokens("abc"), 0);
        assert_eq!(text_tokens("abcdefgh"), 2);
        // Characters, not bytes.
        assert_eq!(text_tokens("ééééé"), 1);
    }

    #[test]
    fn callers_marks_follow_their_blocks_as_messages_merge() {
        let mut m = Alternating::new();
        m.push_marked("a", vec![1, 2], record_end(2, true));
        m.push_marked("u", vec![3], []);
        // Joins message 1; its block 1 is the message's block 2.
        m.push_marked("u", vec![4, 5], [1]);
        // Writes nothing: the mark falls on the block before.
        m.push_marked("u", vec![], record_end(0, true));
        let (messages, marks) = m.finish("u", 0);
        assert_eq!(
            messages,
            [("u", vec![0]), ("a", vec![1, 2]), ("u", vec![3, 4, 5])]
        );
        // The opening user message shifted every mark by one.
        assert_eq!(marks, [(1, 1), (2, 2)]);
    }

    #[test]
    fn the_callers_marks_come_first_and_the_crates_fill_the_rest() {
        let messages = vec![("u", vec![1, 2]), ("a", vec![3]), ("u", vec![4, 5])];
        let any = |_: &i32| true;
        // Own: the stable prefix (message 1) and the last (message 2).
        let own = || (vec![1, 2], true);
        assert_eq!(
            with_callers(&messages, (vec![], false), own(), 4, any),
            (vec![(1, 0), (2, 1)], true)
        );
        // Two of the caller's leave two: the last message's, the head's.
        assert_eq!(
            with_callers(&messages, (vec![(0, 0), (0, 1)], false), own(), 4, any),
            (vec![(0, 0), (0, 1), (2, 1)], true)
        );
        // A caller's mark where the crate's would be counts once.
        assert_eq!(
            with_callers(&messages, (vec![(2, 1), (0, 0)], true), own(), 4, any),
            (vec![(0, 0), (1, 0), (2, 1)], true)
        );
        // More than the limit are kept, and the crate adds none.
        let five = vec![(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)];
        assert_eq!(
            with_callers(&messages, (five.clone(), true), own(), 4, any),
            (five, true)
        );
        // A block that takes no mark passes it to the nearest before.
        let odd = |b: &i32| b % 2 == 1;
        assert_eq!(
            with_callers(
                &messages,
                (vec![(2, 1), (1, 0)], false),
                (vec![], false),
                4,
                odd
            ),
            (vec![(1, 0), (2, 1)], false)
        );
        assert_eq!(
            with_callers(&messages, (vec![(2, 0)], false), (vec![], false), 4, odd),
            (vec![(1, 0)], false)
        );
    }

    #[test]
    fn a_mark_stays_only_where_its_prefix_reaches_the_minimum() {
        let messages = vec![("u", vec![300u64]), ("a", vec![200, 100]), ("u", vec![500])];
        let tokens = |t: &u64| *t;
        // Prefixes with 100 before: 400, 700, 1200.
        assert_eq!(
            long_enough(&messages, vec![0, 1, 2], 100, Some(700), tokens),
            [1, 2]
        );
        assert_eq!(
            long_enough(&messages, vec![0, 2], 100, Some(1201), tokens),
            Vec::<usize>::new()
        );
        // No documented minimum: every mark stays.
        assert_eq!(long_enough(&messages, vec![0, 2], 0, None, tokens), [0, 2]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AttachmentKind;
    use std::borrow::Cow;

    const HASH: &str = "11a6ea67a4b0c2d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7ae31";

    fn slot(target: &str, name: Option<&str>) -> Slot<'static, ()> {
        Slot {
            index: 0,
            kind: AttachmentKind::Document,
            target: Cow::Owned(target.to_owned()),
            name: name.map(|n| Cow::Owned(n.to_owned())),
            rejected: None,
            cache: false,
            media: (),
        }
    }

    #[test]
    fn labels_use_the_declared_name_first() {
        let hashed = format!("media/{HASH}.pdf");
        assert_eq!(label_name(Some("invoice.pdf"), &hashed), "invoice.pdf");
        assert_eq!(label_name(Some("a\nb.pdf"), "x.pdf"), "a b.pdf");
        // A blank name is none.
        assert_eq!(label_name(Some("  "), "docs/q3.pdf"), "docs/q3.pdf");
        assert_eq!(label_name(None, "docs/q3.pdf"), "docs/q3.pdf");
    }

    #[test]
    fn labels_never_show_a_hash_or_a_data_uri() {
        let uri = format!("data:image/png;base64,{}", "A".repeat(1_234_000));
        assert_eq!(label_name(None, &uri), "unnamed PNG");
        assert_eq!(
            label_name(None, "data:image/jpeg;base64,AA"),
            "unnamed JPEG"
        );
        assert_eq!(
            label_name(None, "DATA:application/pdf;base64,AA"),
            "unnamed PDF"
        );
        assert_eq!(label_name(None, "data:,x"), "unnamed file");
        assert_eq!(
            label_name(None, &format!("media/{HASH}.png")),
            "unnamed PNG"
        );
        assert_eq!(label_name(None, &format!("{HASH}.pdf")), "unnamed PDF");
        // Not 64 hex digits: a name like any other.
        assert_eq!(label_name(None, "abc123.png"), "abc123.png");
        for shown in [
            label_name(None, &uri),
            label_name(None, &format!("{HASH}.pdf")),
        ] {
            assert!(
                !shown.contains(HASH) && !shown.contains("base64"),
                "{shown}"
            );
        }
    }

    #[test]
    fn file_names_come_from_the_name_then_the_target() {
        assert_eq!(
            slot_file_name(&slot(&format!("media/{HASH}.pdf"), Some("invoice.pdf"))),
            Some("invoice.pdf")
        );
        // A name given with a path keeps its last segment.
        assert_eq!(
            slot_file_name(&slot("x.pdf", Some("reports/q3.pdf"))),
            Some("q3.pdf")
        );
        // The target's base name serves when none is declared (a marker
        // line), except a content hash or a data: URI, which say nothing.
        assert_eq!(
            slot_file_name(&slot("docs/notes.pdf", None)),
            Some("notes.pdf")
        );
        assert_eq!(
            slot_file_name(&slot(&format!("media/{HASH}.pdf"), None)),
            None
        );
        assert_eq!(
            slot_file_name(&slot("data:application/pdf;base64,AA", None)),
            None
        );
    }
}
