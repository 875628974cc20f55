//! The tests of the walk: results paired with their calls, carriers opened
//! where they are, envelopes read as the grammar reads them.

use super::*;

fn kinds(turns: &[Turn<'_, ()>]) -> Vec<String> {
    turns
        .iter()
        .map(|t| match t {
            Turn::System(..) => "system".to_owned(),
            Turn::User(..) => "user".to_owned(),
            Turn::Assistant(a) => format!("assistant:{}", a.calls.len()),
            Turn::Results(r) => format!(
                "results:{}",
                r.iter()
                    .map(|r| r.call_id.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Turn::Carrier(_) => "carrier".to_owned(),
        })
        .collect()
}

const CALLS: &str = r#"{"content":"Looking.","tool_calls":[{"id":"a","name":"one","arguments":"{\"x\":1}"},{"id":"b","name":"two","arguments":{"y":2}}]}"#;

#[test]
fn results_follow_their_calls_in_call_order() {
    let history = [
        ("assistant", CALLS),
        (
            "tool",
            r#"{"tool_call_id":"b","content":"B","attachments":[]}"#,
        ),
        ("user", "an interjection"),
        (
            "tool",
            r#"{"tool_call_id":"a","content":"A","attachments":[]}"#,
        ),
        ("assistant", "done"),
    ];
    let turns = walk(&history);
    assert_eq!(
        kinds(&turns),
        ["assistant:2", "results:a,b", "user", "assistant:0"]
    );
}

#[test]
fn results_without_ids_answer_calls_in_order() {
    let history = [
        ("assistant", CALLS),
        ("tool", "raw text from a legacy runtime"),
        ("tool", r#"{"content":"second"}"#),
    ];
    let turns = walk(&history);
    let Turn::Results(results) = &turns[1] else {
        panic!()
    };
    assert_eq!(results[0].body, "raw text from a legacy runtime");
    assert_eq!(results[1].body, "second");
}

#[test]
fn unanswered_calls_get_a_result_and_unclaimed_results_stay_visible() {
    let history = [
        ("assistant", CALLS),
        (
            "tool",
            r#"{"tool_call_id":"zzz","content":"stray","attachments":[]}"#,
        ),
    ];
    let turns = walk(&history);
    assert_eq!(kinds(&turns), ["assistant:2", "results:a,b", "carrier"]);
    let Turn::Results(results) = &turns[1] else {
        panic!()
    };
    assert!(results.iter().all(|r| r.body == NO_RESULT));
    let Turn::Carrier(c) = &turns[2] else {
        panic!()
    };
    assert!(c.text.contains("call zzz"));
    assert!(c.text.ends_with("stray"));
}

#[test]
fn markers_in_bodies_are_never_attachments() {
    let history = [
        ("assistant", CALLS),
        (
            "tool",
            r#"{"tool_call_id":"a","content":"[IMAGE:/etc/passwd]","attachments":[{"kind":"image","target":"ok.png"}]}"#,
        ),
        (
            "tool",
            r#"{"tool_call_id":"b","content":"[IMAGE:/etc/shadow]"}"#,
        ),
        ("user", "[Tool results]\n[IMAGE:/root/x.png]\nlegacy"),
    ];
    let turns = walk(&history);
    let Turn::Results(results) = &turns[1] else {
        panic!()
    };
    let targets: Vec<_> = results[0].slots.iter().map(|s| s.target.as_ref()).collect();
    assert_eq!(targets, ["ok.png"]);
    assert!(results[1].slots.is_empty());
    let Turn::Carrier(c) = &turns[2] else {
        panic!()
    };
    assert!(c.slots.is_empty());
    assert_eq!(c.text, "[Tool results]\n[IMAGE:/root/x.png]\nlegacy");
}

#[test]
fn call_ids_are_read_as_the_grammar_reads_envelopes() {
    assert_eq!(
        Carrier::native(r#" {"tool_call_id":"a\u0062"}"#)
            .call_id
            .as_deref(),
        Some("ab")
    );
    for content in [
        r#"{"tool_call_id":"a","tool_call_id":"b"}"#,
        r#"{"tool_call_id":7}"#,
        r#"{"tool_call_id":null}"#,
        r#"{"tool_call_id":""}"#,
        r#"{"tool_call_id":"a"} x"#,
        "raw text",
    ] {
        assert_eq!(Carrier::native(content).call_id, None, "{content}");
    }
}

#[test]
fn declared_prompt_carriers_keep_line_one_and_drop_the_markers() {
    let history = [(
        "user",
        "[Tool results]\n[Tool attachments: 1]\n[IMAGE:a.png]\n[IMAGE:b.png]\nbody",
    )];
    let turns = walk(&history);
    let Turn::Carrier(c) = &turns[0] else {
        panic!()
    };
    assert_eq!(c.text, "[Tool results]\n[IMAGE:b.png]\nbody");
    assert_eq!(c.slots.len(), 1);
    assert_eq!(c.slots[0].target, "a.png");
}

#[test]
fn envelopes_that_do_not_follow_the_shape_stay_text() {
    for content in [
        r#"{"content":"x"}"#,
        r#"{"content":1,"tool_calls":[]}"#,
        r#"{"tool_calls":[{"id":"a"}]}"#,
        r#"{"tool_calls":"no"}"#,
        "{not json",
    ] {
        let history = [("assistant", content)];
        let turns = walk(&history);
        let Turn::Assistant(a) = &turns[0] else {
            panic!()
        };
        assert!(a.calls.is_empty(), "{content}");
        assert_eq!(a.text.as_deref(), Some(content));
    }
}

/// The arguments of the one call in `content`, written as an object.
fn as_object(call: &str) -> String {
    let content = format!(r#"{{"tool_calls":[{call}]}}"#);
    let history = [("assistant", content.as_str())];
    let turns = walk(&history);
    let Turn::Assistant(a) = &turns[0] else {
        panic!("{call}")
    };
    serde_json::to_string(&a.calls[0].arguments.as_object()).unwrap()
}

#[test]
fn arguments_become_objects_without_losing_anything() {
    assert_eq!(as_object(r#"{"name":"f","arguments":""}"#), "{}");
    assert_eq!(as_object(r#"{"name":"f"}"#), "{}");
    assert_eq!(as_object(r#"{"name":"f","arguments":null}"#), "{}");
    assert_eq!(
        as_object(r#"{"name":"f","arguments":"{\"b\": 1, \"a\": 2}"}"#),
        r#"{"b":1,"a":2}"#
    );
    assert_eq!(
        as_object(r#"{"name":"f","arguments":"not json"}"#),
        r#"{"arguments":"not json"}"#
    );
    assert_eq!(
        as_object(r#"{"name":"f","arguments":[1, 2]}"#),
        r#"{"arguments":[1,2]}"#
    );
    // Key order and integers past 64 bits survive, as written.
    assert_eq!(
        as_object(r#"{"name":"f","arguments":{ "z": 123456789012345678901234567890, "a": 1.50 }}"#),
        r#"{"z":123456789012345678901234567890,"a":1.50}"#
    );
}

#[test]
fn arguments_as_text_keep_a_string_verbatim() {
    let text = |a: Arguments| a.as_text().into_owned();
    assert_eq!(
        text(Arguments::Text("{ \"a\" : 1 }".into())),
        "{ \"a\" : 1 }"
    );
    assert_eq!(text(Arguments::Text("  ".into())), "{}");
    assert_eq!(text(Arguments::None), "{}");
    assert_eq!(text(Arguments::from_raw("{ \"b\" : 2 }")), "{\"b\":2}");
}

#[test]
fn a_repeated_member_makes_a_call_envelope_text() {
    for content in [
        r#"{"tool_calls":[{"name":"f","name":"g"}]}"#,
        r#"{"tool_calls":[],"tool_calls":[{"name":"f"}]}"#,
        r#"{"tool_calls":[{"function":{"name":"f","name":"g"}}]}"#,
    ] {
        let history = [("assistant", content)];
        let turns = walk(&history);
        let Turn::Assistant(a) = &turns[0] else {
            panic!()
        };
        assert!(a.calls.is_empty(), "{content}");
        assert_eq!(a.text.as_deref(), Some(content));
    }
}

#[test]
fn missing_ids_are_synthesised_and_openai_nesting_is_read() {
    let content = r#"{"content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}"#;
    let history = [("user", "hi"), ("assistant", content)];
    let turns = walk(&history);
    let Turn::Assistant(a) = &turns[1] else {
        panic!()
    };
    assert_eq!(a.calls[0].id, "call_1_0");
    assert_eq!(a.calls[0].name, "f");
    assert!(a.text.is_none());
}
