//! The tests of the readers' audit (`steps::audit`): for every reader and every list it reads, an
//! entry of any kind — one its SDK lists, or any other — is kept (or
//! refused only for its shape), or refused naming it and its path, or,
//! with `keep_unknown`, counted as noted; never dropped, never text.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::apis::{anthropic, bedrock, gemini, openai_chat, openai_responses};
use crate::media::store::InlineStore;
use crate::steps::audit::{ImportOptions, UNLISTED_MEMBER};
use crate::steps::imported::{ImportError, ImportedHistory};
use crate::steps::known::{Form, List};

/// A reader, a list it reads, and a body holding `entry` in that list.
struct Position {
    name: &'static str,
    list: &'static List,
    read: fn(&Value, &ImportOptions) -> Result<ImportedHistory, ImportError>,
    body: fn(Value) -> Value,
    /// The JSON path of the entry in the body.
    at: &'static str,
    /// What the tally calls such an entry.
    noun: &'static str,
}

fn positions() -> Vec<Position> {
    vec![
        Position {
            name: "anthropic user content",
            list: &anthropic::known::USER_CONTENT,
            read: |v, o| anthropic::read::read(v, &mut InlineStore, o),
            body: |e| json!({"messages": [{"role": "user", "content": [e]}]}),
            at: "$.messages[0].content[0]",
            noun: "block",
        },
        Position {
            name: "anthropic assistant content",
            list: &anthropic::known::ASSISTANT_CONTENT,
            read: |v, o| anthropic::read::read(v, &mut InlineStore, o),
            body: |e| json!({"messages": [{"role": "assistant", "content": [e]}]}),
            at: "$.messages[0].content[0]",
            noun: "block",
        },
        Position {
            name: "anthropic tool_result content",
            list: &anthropic::known::TOOL_RESULT_CONTENT,
            read: |v, o| anthropic::read::read(v, &mut InlineStore, o),
            body: |e| {
                json!({"messages": [{"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": [e]}]}]})
            },
            at: "$.messages[0].content[0].content[0]",
            noun: "block",
        },
        Position {
            name: "chat user content",
            list: &openai_chat::known::USER_CONTENT,
            read: |v, o| openai_chat::read::read(v, &mut InlineStore, o),
            body: |e| json!({"messages": [{"role": "user", "content": [e]}]}),
            at: "$.messages[0].content[0]",
            noun: "part",
        },
        Position {
            name: "chat assistant content",
            list: &openai_chat::known::ASSISTANT_CONTENT,
            read: |v, o| openai_chat::read::read(v, &mut InlineStore, o),
            body: |e| json!({"messages": [{"role": "assistant", "content": [e]}]}),
            at: "$.messages[0].content[0]",
            noun: "part",
        },
        Position {
            name: "responses input",
            list: &openai_responses::known::INPUT,
            read: |v, o| openai_responses::read::read(v, &mut InlineStore, o),
            body: |e| json!({"input": [e]}),
            at: "$.input[0]",
            noun: "item",
        },
        Position {
            name: "responses function_call_output output",
            list: &openai_responses::known::FUNCTION_CALL_OUTPUT_OUTPUT,
            read: |v, o| openai_responses::read::read(v, &mut InlineStore, o),
            body: |e| json!({"input": [{"type": "function_call_output", "call_id": "c", "output": [e]}]}),
            at: "$.input[0].output[0]",
            noun: "part",
        },
        Position {
            name: "gemini parts",
            list: &gemini::known::PART,
            read: |v, o| gemini::read::read(v, &mut InlineStore, o),
            body: |e| json!({"contents": [{"role": "model", "parts": [e]}]}),
            at: "$.contents[0].parts[0]",
            noun: "part",
        },
        Position {
            name: "bedrock content",
            list: &bedrock::known::CONTENT,
            read: |v, o| bedrock::read::read(v, &mut InlineStore, o),
            body: |e| json!({"messages": [{"role": "assistant", "content": [e]}]}),
            at: "$.messages[0].content[0]",
            noun: "block",
        },
    ]
}

/// An entry of kind `tag` for a list of `form`.
fn entry(form: Form, tag: &str) -> Value {
    match form {
        Form::Type => json!({"type": tag}),
        Form::KeyedSiblings | Form::KeyedInner => json!({ tag: {} }),
        Form::Role | Form::Single => unreachable!("no such position"),
    }
}

fn one_position(p: &Position, tag: &str, listed: bool) -> Result<(), TestCaseError> {
    let body = (p.body)(entry(p.list.form, tag));
    let strict = (p.read)(&body, &ImportOptions::new());
    let unknown_error = |e: &ImportError| {
        let text = e.to_string();
        text.starts_with(&format!("{}: a {tag:?} {}", p.at, p.noun))
            && text.contains("is not a kind the")
    };
    if listed {
        // Kept (and accounted), or refused for its shape: never as unknown.
        match &strict {
            Ok(h) => prop_assert!(h.tally.is_balanced(), "{}: {:?}", p.name, h.tally),
            Err(e) => prop_assert!(!unknown_error(e), "{}: {tag}: {e}", p.name),
        }
        return Ok(());
    }
    let err = strict.expect_err("an unlisted kind is refused");
    prop_assert!(unknown_error(&err), "{}: {tag}: {err}", p.name);
    let kept = (p.read)(&body, &ImportOptions::new().with_keep_unknown(true));
    let h = match kept {
        Ok(h) => h,
        Err(e) => return Err(TestCaseError::fail(format!("{}: {tag}: {e}", p.name))),
    };
    prop_assert!(h.tally.is_balanced(), "{}: {:?}", p.name, h.tally);
    let row = h.tally.get(&format!("{tag} {}", p.noun));
    prop_assert_eq!(row.map(|c| (c.read, c.noted)), Some((1, 1)), "{}", p.name);
    // Never written into any message's text (an envelope's `content`, or
    // the message itself); kept, at most, in a member kept as written.
    for content in h.messages.iter().map(|m| m.content()) {
        let text = match serde_json::from_str::<Value>(content) {
            Ok(Value::Object(m)) => m
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            _ => content.to_owned(),
        };
        prop_assert!(!text.contains(tag), "{}: {content}", p.name);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_reader_keeps_what_its_sdk_lists_and_refuses_or_notes_the_rest(
        which in 0usize..9,
        seed in any::<prop::sample::Index>(),
        other in "[a-zA-Z_-]{1,14}",
    ) {
        let positions = positions();
        let p = &positions[which % positions.len()];
        let known: Vec<&str> = p.list.kinds.iter().map(|k| k.tag).collect();
        // Half the time a listed kind, else any other name.
        let (tag, listed) = if seed.index(2) == 0 {
            (seed.get(&known).to_string(), true)
        } else {
            let listed = p.list.kind(&other).is_some();
            (other, listed)
        };
        one_position(p, &tag, listed)?;
    }
}

#[test]
fn a_listed_kind_with_a_member_its_sdk_does_not_list_is_noted_and_that_member_not_kept() {
    let body = json!({"messages": [{"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "signature": "s", "reasoning_details": [1]},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}, "call_id": "c1"}]}]});
    let h = anthropic::read::read(&body, &mut InlineStore, &ImportOptions::new()).unwrap();
    let notes: Vec<&str> = h.notes.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(
        notes,
        [
            "$.messages[0].content[0].reasoning_details: a member the anthropic 2.14.0 types do not list for a thinking block: not kept",
            "$.messages[0].content[1].call_id: a member the anthropic 2.14.0 types do not list for a tool_use block: not kept",
        ]
    );
    assert!(
        !h.messages[0].content().contains("reasoning_details"),
        "{}",
        h.messages[0].content()
    );
    assert!(
        !h.messages[0].content().contains("c1"),
        "{}",
        h.messages[0].content()
    );
    assert_eq!(
        h.tally.get(UNLISTED_MEMBER).map(|c| (c.read, c.noted)),
        Some((2, 2))
    );
    assert!(h.tally.is_balanced());
}

#[test]
fn positions_cover_every_form_the_readers_walk() {
    let forms: Vec<Form> = positions().iter().map(|p| p.list.form).collect();
    assert!(forms.contains(&Form::Type));
    assert!(forms.contains(&Form::KeyedSiblings));
    assert!(forms.contains(&Form::KeyedInner));
}
