//! The caller's cache marks: `"cache": true` on a record or an attachment
//! puts a prompt-cache breakpoint after that record's (or attachment's)
//! content where the model caches at marks (Claude on Anthropic and
//! Bedrock), beside the crate's own and within the API's four; elsewhere
//! each is left out and counted in a note.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use proptest::prelude::*;
use serde_json::{json, Value};
use support::{build_lines, calls, line, lit, Fixture};
use tool_carrier::history::{self, AsRecord, MessageError, Record};
use tool_carrier::provider::{build_request, BuildError, NoteReason, Provider, Request};
use tool_carrier::{parse_native_tool_carrier, render_native_tool_carrier, Attachment};

const BEDROCK_CLAUDE: &str = "us.anthropic.claude-sonnet-5";

/// The request's body as JSON.
fn value(request: &Request) -> Value {
    serde_json::from_str(&request.to_json()).unwrap()
}

/// A history line with `"cache": true`.
fn marked(role: &str, content: &str) -> String {
    format!(
        "{{\"role\":{},\"content\":{},\"cache\":true}}\n",
        lit(role),
        lit(content)
    )
}

/// A native carrier line answering `id`, its one image marked when
/// `image_marked`, the record marked when `record_marked`.
fn result(id: &str, body: &str, image: &str, image_marked: bool, record_marked: bool) -> String {
    let mut attachment = json!({"kind": "image", "target": image});
    if image_marked {
        attachment["cache"] = json!(true);
    }
    let content =
        json!({"tool_call_id": id, "content": body, "attachments": [attachment]}).to_string();
    if record_marked {
        marked("tool", &content)
    } else {
        line("tool", &content)
    }
}

/// The paths of every block carrying `cache_control`, in body order.
fn anthropic_marks(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(system) = body["system"].as_array() {
        for (i, b) in system.iter().enumerate() {
            if b.get("cache_control").is_some() {
                out.push(format!("system[{i}]"));
            }
        }
    }
    for (i, t) in body["tools"].as_array().into_iter().flatten().enumerate() {
        if t.get("cache_control").is_some() {
            out.push(format!("tools[{i}]"));
        }
    }
    for (m, message) in body["messages"].as_array().unwrap().iter().enumerate() {
        for (b, block) in message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if block.get("cache_control").is_some() {
                out.push(format!(
                    "messages[{m}][{b}]:{}",
                    block["type"].as_str().unwrap()
                ));
            }
        }
    }
    out
}

/// What each Bedrock `cachePoint` follows: `system`, `tools`, or the
/// block before it (`messages[m]:kind`).
fn bedrock_points(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let point = |b: &Value| b.get("cachePoint").is_some();
    if body["system"].as_array().into_iter().flatten().any(point) {
        out.push("system".to_owned());
    }
    if body["toolConfig"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .any(point)
    {
        out.push("tools".to_owned());
    }
    for (m, message) in body["messages"].as_array().unwrap().iter().enumerate() {
        let content = message["content"].as_array().unwrap();
        for (b, block) in content.iter().enumerate() {
            if point(block) {
                let before = content[b - 1].as_object().unwrap().keys().next().unwrap();
                out.push(format!("messages[{m}]:{before}"));
            }
        }
    }
    out
}

/// System text, a user's pasted screenshot, a round of two calls and a
/// closing user message, marked as the flags say.
fn round(system: bool, pasted: bool, first_image: bool, second_result: bool, last: bool) -> String {
    let pasted_line = json!({
        "role": "user",
        "content": "Mine looks wrong.",
        "attachments": [{"kind": "image", "target": "shots/editor.png", "cache": pasted}],
    })
    .to_string();
    let system_line = if system {
        marked("system", "Review dashboards.")
    } else {
        line("system", "Review dashboards.")
    };
    let last_line = if last {
        marked("user", "Why?")
    } else {
        line("user", "Why?")
    };
    system_line
        + &pasted_line
        + "\n"
        + &calls(&[("c1", "shot"), ("c2", "shot")])
        + &result(
            "c1",
            "Dashboard.",
            "shots/dashboard.png",
            first_image,
            false,
        )
        + &result("c2", "Settings.", "shots/panel7.png", false, second_result)
        + &line("assistant", "Red on both.")
        + &last_line
}

#[test]
fn each_mark_falls_after_what_it_marks_for_claude() {
    let fixture = Fixture::new();
    let history = round(true, true, true, false, true);
    let anthropic = value(&build_lines(
        Provider::Anthropic,
        &history,
        &fixture.options(),
    ));
    // User 1 holds the pasted text and image; assistant 2; user 3 holds
    // both results (their images inside); assistant 4; user 5.
    assert_eq!(
        anthropic_marks(&anthropic),
        [
            "system[0]",
            "messages[0][1]:image",
            "messages[2][0]:tool_result",
            "messages[4][0]:text",
        ],
        "{anthropic:#}"
    );
    let options = fixture.options().with_model(BEDROCK_CLAUDE);
    let bedrock = value(&build_lines(Provider::Bedrock, &history, &options));
    assert_eq!(
        bedrock_points(&bedrock),
        [
            "system",
            "messages[0]:image",
            "messages[2]:toolResult",
            "messages[4]:text",
        ],
        "{bedrock:#}"
    );
}

#[test]
fn more_marks_than_the_api_takes_are_refused_by_its_rule() {
    let fixture = Fixture::new();
    // Five: system, the pasted image, two results, the last message.
    let history = round(true, true, true, true, true);
    for (provider, model, rule) in [
        (
            Provider::Anthropic,
            "claude-sonnet-4-6",
            "anthropic/cache-breakpoints",
        ),
        (Provider::Bedrock, BEDROCK_CLAUDE, "bedrock/cache-points"),
    ] {
        let messages = history::read(history.as_bytes()).unwrap();
        let options = fixture.options().with_model(model);
        match build_request(provider, &messages, &options) {
            Err(BuildError::Refused { violation, .. }) => {
                assert_eq!(violation.rule.id, rule, "{provider}")
            }
            other => panic!("{provider}: {other:?}"),
        }
    }
}

#[test]
fn the_crates_own_marks_fill_what_the_callers_leave() {
    let fixture = Fixture::new();
    // Long enough for Claude's minimum, so the crate places its own: the
    // head's and the last message's.
    let long = "word ".repeat(4000);
    let history = line("system", &long)
        + &line("user", "Look.")
        + &calls(&[("c1", "shot")])
        + &result("c1", "Dashboard.", "shots/dashboard.png", true, false)
        + &line("user", "Why?");
    let body = value(&build_lines(
        Provider::Anthropic,
        &history,
        &fixture.options(),
    ));
    let marks = anthropic_marks(&body);
    assert!(
        marks.contains(&"messages[2][0]:tool_result".to_owned()),
        "{marks:?}"
    );
    assert!(marks.contains(&"system[0]".to_owned()), "{marks:?}");
    assert!(
        marks.contains(&"messages[2][1]:text".to_owned()),
        "{marks:?}"
    );
    // Three of the caller's leave one: the last message's, then none.
    let history = marked("system", &long)
        + &marked("user", "Look.")
        + &calls(&[("c1", "shot")])
        + &result("c1", "Dashboard.", "shots/dashboard.png", true, true)
        + &marked("assistant", "Seen.")
        + &line("user", "Why?");
    let body = value(&build_lines(
        Provider::Anthropic,
        &history,
        &fixture.options(),
    ));
    assert_eq!(
        anthropic_marks(&body),
        [
            "system[0]",
            "messages[0][0]:text",
            "messages[2][0]:tool_result",
            "messages[3][0]:text",
        ]
    );
    // With the crate's own turned off, the caller's alone.
    let options = fixture.options().with_cache_breakpoints(false);
    let history = line("system", &long)
        + &line("user", "Look.")
        + &calls(&[("c1", "shot")])
        + &result("c1", "Dashboard.", "shots/dashboard.png", true, false)
        + &line("user", "Why?");
    let body = value(&build_lines(Provider::Anthropic, &history, &options));
    assert_eq!(anthropic_marks(&body), ["messages[2][0]:tool_result"]);
}

#[test]
fn a_mark_on_a_message_that_writes_nothing_ends_the_prefix_before_it() {
    let fixture = Fixture::new();
    let history = line("user", "Look.") + &marked("user", "   ");
    let body = value(&build_lines(
        Provider::Anthropic,
        &history,
        &fixture.options(),
    ));
    assert_eq!(anthropic_marks(&body), ["messages[0][0]:text"], "{body:#}");
}

#[test]
fn models_that_take_no_marks_get_none_and_a_note() {
    let fixture = Fixture::new();
    let history = round(true, true, true, false, true);
    let unmarked = round(false, false, false, false, false);
    for provider in Provider::ALL {
        if provider == Provider::Anthropic {
            continue;
        }
        let mut options = fixture.options();
        if provider == Provider::Bedrock {
            options = options.with_model("us.amazon.nova-pro-v1:0");
        }
        let request = build_lines(provider, &history, &options);
        let plain = build_lines(provider, &unmarked, &options);
        assert_eq!(request.to_json(), plain.to_json(), "{provider}");
        let notes = &request.report.setting_notes;
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("4 cache marks left out: ")),
            "{provider}: {notes:?}"
        );
        assert!(plain.report.setting_notes.is_empty(), "{provider}");
    }
}

#[test]
fn a_cache_member_that_is_no_boolean_is_refused_where_it_stands() {
    assert_eq!(
        Record::parse(r#"{"role":"user","content":"x","cache":"yes"}"#),
        Err(MessageError::NotABoolean("cache"))
    );
    assert_eq!(
        Record::parse(r#"{"role":"user","content":"x","cache":true,"cache":false}"#),
        Err(MessageError::Duplicate("cache"))
    );
    let r = Record::parse(r#"{"role":"user","content":"x","cache":false}"#).unwrap();
    assert!(!r.cache());
    // An attachment's: the item declares nothing, and says why.
    let r = Record::parse(
        r#"{"role":"user","content":"x","attachments":[{"kind":"image","target":"a.png","cache":1}]}"#,
    )
    .unwrap();
    let why = r.declared()[0].clone().unwrap_err();
    assert_eq!(why.to_string(), "its \"cache\" is not true or false");
    // Converted, it is a failed attachment in the report, never an image.
    let fixture = Fixture::new();
    let request = build_request(Provider::Anthropic, &[r], &fixture.options()).unwrap();
    let notes = &request.report.notes;
    assert_eq!(notes.len(), 1, "{:?}", request.report);
    assert_eq!(notes[0].reason, NoteReason::InvalidRecord);
}

#[test]
fn marks_survive_the_records_and_carriers_they_are_written_in() {
    let content = render_native_tool_carrier(
        "shot",
        &[
            Attachment::image("a.png").with_cache(true),
            Attachment::image("b.png"),
        ],
    )
    .unwrap();
    let parts = parse_native_tool_carrier(&content);
    assert!(parts.attachments[0].cache && !parts.attachments[1].cache);
    // A marker line has no room for one: refused, not dropped.
    let err = tool_carrier::marker_line(&Attachment::image("a.png").with_cache(true)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "attachment 0: a marker line cannot carry a cache mark (mark the message instead)"
    );
    let r = Record::new("tool", content).with_cache(true);
    let back = Record::parse(&r.to_json()).unwrap();
    assert_eq!(back, r);
    assert!(back.cache());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever is marked: every mark the caller asks for is written for
    /// Claude (at most four asked here), the request carries at most four,
    /// and no other provider's body changes.
    #[test]
    fn every_callers_mark_is_written_and_the_total_stays_within_four(
        flags in proptest::collection::vec(any::<bool>(), 5),
    ) {
        let asked = flags.iter().filter(|f| **f).count();
        prop_assume!(asked <= 4);
        let fixture = Fixture::new();
        let history = round(flags[0], flags[1], flags[2], flags[3], flags[4]);
        let body = value(&build_lines(Provider::Anthropic, &history, &fixture.options()));
        let marks = anthropic_marks(&body);
        prop_assert!(marks.len() >= asked && marks.len() <= 4, "{marks:?}");
        let options = fixture.options().with_model(BEDROCK_CLAUDE);
        let bedrock = value(&build_lines(Provider::Bedrock, &history, &options));
        let points = bedrock_points(&bedrock);
        prop_assert!(points.len() >= asked && points.len() <= 4, "{points:?}");
        let plain = round(false, false, false, false, false);
        for provider in [Provider::OpenAiChat, Provider::Gemini, Provider::Ollama] {
            prop_assert_eq!(
                build_lines(provider, &history, &fixture.options()).to_json(),
                build_lines(provider, &plain, &fixture.options()).to_json()
            );
        }
    }
}

/// Where each `prompt_cache_breakpoint` is in a Responses body:
/// `input[i]:type/part-type`.
fn responses_marks(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (i, item) in body["input"].as_array().unwrap().iter().enumerate() {
        let kind = item["type"].as_str().unwrap_or("message");
        let parts = item
            .get("content")
            .or_else(|| item.get("output"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(point) = part.get("prompt_cache_breakpoint") {
                assert_eq!(point, &json!({"mode": "explicit"}));
                out.push(format!(
                    "input[{i}]:{kind}/{}",
                    part["type"].as_str().unwrap()
                ));
            }
        }
    }
    out
}

#[test]
fn responses_models_that_take_explicit_breakpoints_get_each_mark_on_its_part() {
    let fixture = Fixture::new();
    let options = fixture.options().with_model("gpt-5.6");
    let history = round(true, true, true, true, true);
    let request = build_lines(Provider::OpenAiResponses, &history, &options);
    let body = value(&request);
    // system, the pasted image, each result's output (the first for its
    // image, the second as a record), the last user message. OpenAI takes
    // more than four: it writes the latest and matches on the rest.
    assert_eq!(
        responses_marks(&body),
        [
            "input[0]:message/input_text",
            "input[1]:message/input_image",
            "input[4]:function_call_output/input_image",
            "input[5]:function_call_output/input_image",
            "input[7]:message/input_text",
        ],
        "{body:#}"
    );
    assert!(request.report.setting_notes.is_empty());
    // An assistant's message takes none: its mark ends the prefix at the
    // item before that does.
    let history = line("user", "Look.") + &marked("assistant", "Seen.");
    let body = value(&build_lines(Provider::OpenAiResponses, &history, &options));
    assert_eq!(responses_marks(&body), ["input[0]:message/input_text"]);
    // GPT-5.5 takes none: left out and said.
    let request = build_lines(Provider::OpenAiResponses, &history, &fixture.options());
    assert!(responses_marks(&value(&request)).is_empty());
    assert_eq!(request.report.setting_notes.len(), 1);
}
