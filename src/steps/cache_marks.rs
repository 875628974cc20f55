//! The caller's prompt-cache marks: `"cache": true` on a record or on an
//! attachment, read by the walk into the turns. A writer whose model
//! caches at marks places a breakpoint with each
//! ([`with_callers`](super::compose::with_callers)); for any other model
//! the marks are taken out here, counted, and said in one note, so none
//! goes missing without a word.

use super::walk::Turn;

/// How many marks `turns` hold: one for each marked record, one for each
/// marked attachment.
pub(crate) fn count<M>(turns: &[Turn<'_, M>]) -> usize {
    let slots = |slots: &[super::walk::Slot<'_, M>]| slots.iter().filter(|s| s.cache).count();
    turns
        .iter()
        .map(|turn| match turn {
            Turn::System(_, cache) | Turn::User(_, cache) => usize::from(*cache),
            Turn::Assistant(a) => usize::from(a.cache),
            Turn::Results(results) => results
                .iter()
                .map(|r| usize::from(r.cache) + slots(&r.slots))
                .sum(),
            Turn::Carrier(c) => usize::from(c.cache) + slots(&c.slots),
        })
        .sum()
}

/// Take every mark out of `turns`.
pub(crate) fn clear<M>(turns: &mut [Turn<'_, M>]) {
    for turn in turns {
        match turn {
            Turn::System(_, cache) | Turn::User(_, cache) => *cache = false,
            Turn::Assistant(a) => a.cache = false,
            Turn::Results(results) => {
                for r in results {
                    r.cache = false;
                    r.slots.iter_mut().for_each(|s| s.cache = false);
                }
            }
            Turn::Carrier(c) => {
                c.cache = false;
                c.slots.iter_mut().for_each(|s| s.cache = false);
            }
        }
    }
}

/// The note for `n` marks left out for `model` at `provider`.
pub(crate) fn left_out(n: usize, provider: &str, model: &str) -> String {
    let marks = if n == 1 { "mark" } else { "marks" };
    format!(
        "{n} cache {marks} left out: {model} at {provider} takes no prompt-cache breakpoints \
         from this crate (it writes them for Claude, as Anthropic's cache_control and \
         Bedrock's cachePoint, and for OpenAI Responses' GPT-5.6 and later, as \
         prompt_cache_breakpoint)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn marks_are_counted_on_records_and_attachments_and_cleared() {
        let messages = [
            crate::history::Record::new("system", "rules").with_cache(true),
            crate::history::Record::new("user", "hi"),
            crate::history::Record::parse(
                r#"{"role":"user","content":"see","attachments":[{"kind":"image","target":"a.png","cache":true},{"kind":"image","target":"b.png"}],"cache":true}"#,
            )
            .unwrap(),
        ];
        let mut turns = super::super::walk::walk(&messages);
        assert_eq!(count(&turns), 3);
        clear(&mut turns);
        assert_eq!(count(&turns), 0);
        assert!(matches!(&turns[1], Turn::User(Cow::Borrowed("hi"), false)));
    }

    #[test]
    fn the_note_counts_and_names_the_model() {
        assert_eq!(
            left_out(1, "Gemini", "gemini-3-pro"),
            "1 cache mark left out: gemini-3-pro at Gemini takes no prompt-cache breakpoints \
             from this crate (it writes them for Claude, as Anthropic's cache_control and \
             Bedrock's cachePoint, and for OpenAI Responses' GPT-5.6 and later, as \
             prompt_cache_breakpoint)"
        );
        assert!(left_out(2, "x", "y").starts_with("2 cache marks"));
    }
}
