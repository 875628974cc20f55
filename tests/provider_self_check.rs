//! Every body checks itself before it leaves: `build_request` serializes
//! the body once, runs every rule of its API on those bytes, and returns
//! an error instead of a body the API would refuse. Over the request size
//! limit it first leaves out the oldest media, and refuses only where the
//! text alone is too large.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use support::{calls, line, noise_png, result, Fixture};
use tool_carrier::provider::{build_request, BuildError, NoteReason, Options, Provider};
use tool_carrier::rules::{check_json, size_limit, Target};

#[test]
fn an_empty_history_is_refused_by_the_rule_that_says_so() {
    let empty: [(&str, &str); 0] = [];
    for provider in Provider::ALL {
        let err = build_request(provider, &empty, &Options::new()).unwrap_err();
        let BuildError::Refused { violation, .. } = &err else {
            panic!("{provider}: {err}");
        };
        let rule = violation.rule.id;
        assert!(
            rule.ends_with("/message-count")
                || rule.ends_with("/messages-present")
                || rule.ends_with("/contents-present")
                || rule.ends_with("/input-present"),
            "{provider}: {rule}"
        );
        assert!(err.to_string().contains("would be refused"), "{err}");
        assert!(
            err.to_string().contains("https://"),
            "names its source: {err}"
        );
    }
}

#[test]
fn system_text_alone_is_no_conversation_for_anthropic() {
    let history = [("system", "Be brief.")];
    let err = build_request(Provider::Anthropic, &history, &Options::new()).unwrap_err();
    assert!(
        matches!(&err, BuildError::Refused { violation, .. } if violation.rule.id == "anthropic/message-count"),
        "{err}"
    );
}

#[test]
fn a_returned_body_is_the_checked_json() {
    let history = [("user", "Hello.")];
    for provider in Provider::ALL {
        let request = build_request(provider, &history, &Options::new()).unwrap();
        assert_eq!(
            request.json(),
            serde_json::to_string(&request.body).unwrap(),
            "{provider}"
        );
        let broken = check_json(&Target::of(&request), request.json()).unwrap();
        assert!(broken.is_empty(), "{provider}: {broken:?}");
    }
}

/// A body is written once, payloads encoded into their places; serialized
/// again (compact, indented, as a `Value`) it is the same body, for every
/// provider, with or without a history text that holds what the writer
/// marks a payload's place with (then written the ordinary way).
#[test]
fn a_body_with_payloads_is_the_same_however_it_is_written() {
    let fixture = Fixture::new();
    fixture.add("shots/noise.png", &noise_png(64, 48));
    let marker = "\u{0}\u{1}tool-carrier payload\u{1}\u{0}";
    for text in ["plain", marker] {
        let history = line("user", &format!("Look: {text}"))
            + &calls(&[("c1", "screenshot"), ("c2", "screenshot")])
            + &result("c1", "ok", &["shots/noise.png"])
            + &result("c2", text, &["shots/noise.png"]);
        let messages = support::history_lines(&history);
        for provider in Provider::ALL {
            let request = support::build(provider, &messages, &fixture.options());
            assert_eq!(request.report.images, 2, "{provider}");
            let json = request.json();
            assert_eq!(json, request.body.to_json(), "{provider}");
            assert_eq!(json, serde_json::to_string(&request.body).unwrap());
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(value, request.body.to_value(), "{provider}");
            let mut pretty = Vec::new();
            request.write_pretty(&mut pretty).unwrap();
            let back: serde_json::Value = serde_json::from_slice(&pretty).unwrap();
            assert_eq!(back, value, "{provider}");
            // The history's own text, marker or not, is sent as it is.
            let escaped = serde_json::to_string(text).unwrap();
            assert!(json.contains(&escaped[1..escaped.len() - 1]), "{provider}");
        }
    }
}

/// `mb` megabytes of text in 1 MB user and assistant messages, then
/// `shots` tool rounds of one incompressible 600×400 screenshot each
/// (about 0.96 MB of base64).
fn big_history(fixture: &Fixture, mb: usize, shots: usize) -> String {
    let mut history = String::new();
    let text = "word ".repeat(200_000);
    for i in 0..mb {
        history += &line(if i % 2 == 0 { "user" } else { "assistant" }, &text);
    }
    fixture.add("shots/noise.png", &noise_png(600, 400));
    for i in 0..shots {
        let id = format!("call_{i}");
        history += &calls(&[(&id, "screenshot")]);
        history += &result(&id, &format!("round {i}"), &["shots/noise.png"]);
    }
    history
}

#[test]
fn over_the_size_limit_the_oldest_media_are_left_out_until_it_fits() {
    let fixture = Fixture::new();
    let history = big_history(&fixture, 30, 12);
    let messages = support::history_lines(&history);
    let options = fixture.options();
    let request = support::build(Provider::Anthropic, &messages, &options);
    let (_, limit) = size_limit(&Target::of(&request)).unwrap();
    assert!(request.json().len() <= limit, "{}", request.json().len());
    let report = &request.report;
    assert!(report.images >= 1, "the newest screenshots still go");
    assert_eq!(report.images + report.notes.len(), 12);
    assert!(report
        .notes
        .iter()
        .all(|n| n.reason == NoteReason::OverTotal && n.text.contains("request size limit")));
    // The oldest rounds are the ones left out: every note's message comes
    // before every sent screenshot's.
    let last_noted = report.notes.iter().map(|n| n.index).max().unwrap();
    assert_eq!(last_noted, messages.len() - 1 - 2 * report.images);
}

#[test]
fn leaving_media_out_for_size_keeps_the_eviction_step() {
    let fixture = Fixture::new();
    let history = big_history(&fixture, 30, 12);
    let messages = support::history_lines(&history);
    let options = fixture.options().with_evict_step(4);
    let request = support::build(Provider::Anthropic, &messages, &options);
    assert_eq!(request.report.notes.len() % 4, 0, "{}", request.report);
}

#[test]
fn text_alone_over_the_limit_is_an_error_saying_by_how_much() {
    let fixture = Fixture::new();
    let history = big_history(&fixture, 33, 2);
    let messages = support::history_lines(&history);
    let err = build_request(Provider::Anthropic, &messages, &fixture.options()).unwrap_err();
    let BuildError::TooLarge {
        size, limit, rule, ..
    } = &err
    else {
        panic!("{err}");
    };
    assert_eq!((rule.id, *limit), ("anthropic/request-size", 32_000_000));
    assert!(*size > 33_000_000);
    let text = err.to_string();
    assert!(text.contains(&format!("{} over", size - limit)), "{text}");
    assert!(text.contains("compact the history"), "{text}");
    // A compactor still gets the images' count, to weigh what to drop.
    let tokens = tool_carrier::provider::history_image_tokens(
        Provider::Anthropic,
        &messages,
        &fixture.options(),
    )
    .unwrap();
    assert!(tokens.is_some_and(|t| t > 0), "{tokens:?}");
    // The same history fits OpenAI's larger limit.
    let request = support::build(Provider::OpenAiChat, &messages, &fixture.options());
    assert_eq!(request.report.images, 2);
}

#[test]
fn strict_refuses_a_request_whose_attachments_failed() {
    let fixture = Fixture::new();
    let history = calls(&[("c1", "screenshot"), ("c2", "screenshot")])
        + &result("c1", "ok", &["shots/dashboard.png"])
        + &result("c2", "ok", &["missing.png", "../outside.png"]);
    let messages = support::history_lines(&history);
    let loose = support::build(Provider::Anthropic, &messages, &fixture.options());
    assert_eq!(loose.report.images, 1);
    assert_eq!(loose.report.failures().count(), 2);
    let err = build_request(
        Provider::Anthropic,
        &messages,
        &fixture.options().with_strict(true),
    )
    .unwrap_err();
    let BuildError::Attachments(failed) = &err else {
        panic!("{err}");
    };
    assert_eq!(failed.len(), 2);
    assert!(
        err.to_string().starts_with("2 declared attachments failed"),
        "{err}"
    );
    // Evictions the caller asked for are no failure.
    let kept = fixture
        .options()
        .with_strict(true)
        .with_keep_images(0)
        .with_vision(false);
    let history = calls(&[("c1", "screenshot")]) + &result("c1", "ok", &["shots/dashboard.png"]);
    let request = support::build(
        Provider::Anthropic,
        &support::history_lines(&history),
        &kept,
    );
    assert_eq!(request.report.notes.len(), 1);
}

#[test]
fn tool_arguments_nested_past_the_readers_depth_are_checked_not_a_panic() {
    // Arguments are sent verbatim at any depth; serde_json reads at most
    // 128 levels, the rules' tree skips what lies deeper.
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let call = format!(
        r#"{{"content":null,"tool_calls":[{{"id":"c1","name":"f","arguments":{{"a":{deep}}}}}]}}"#
    );
    let history = [
        ("user", "hi".to_owned()),
        ("assistant", call),
        (
            "tool",
            r#"{"tool_call_id":"c1","content":"done"}"#.to_owned(),
        ),
    ];
    for provider in Provider::ALL {
        let request = build_request(provider, &history, &Options::new())
            .unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert!(request.json().contains(&deep), "{provider}: sent verbatim");
    }
}
