//! What assistant messages kept as an API wrote it goes back only where
//! it may: each entry checked against the API's SDK tables before it is
//! sent, an image inside one fitted and counted like any other, and what
//! does not go back left out with a note.

use serde_json::{json, Value};

use tool_carrier::media::store::{InlineStore, MediaStore};
use tool_carrier::provider::{build_request, BuildError, Options, Provider};

fn screenshot(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn computer_history(png: &[u8]) -> Vec<(String, String)> {
    let url = InlineStore.put(png).unwrap().target;
    let turn = json!({"content": null, "tool_calls": [], "openai_items": [
        {"type": "computer_call", "call_id": "cu_1", "id": "cu_item_1", "status": "completed",
         "action": {"type": "screenshot"}, "pending_safety_checks": []},
        {"type": "computer_call_output", "call_id": "cu_1",
         "output": {"type": "computer_screenshot", "image_url": url}}
    ]});
    vec![
        ("user".into(), "Open the dashboard.".into()),
        ("assistant".into(), turn.to_string()),
        ("user".into(), "Now?".into()),
    ]
}

#[test]
fn a_computer_calls_screenshot_goes_back_to_responses_fitted_and_counted() {
    let history = computer_history(&screenshot(2880, 1800));
    let request = build_request(Provider::OpenAiResponses, &history, &Options::new()).unwrap();
    let body = request.body.to_value();
    let output = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "computer_call_output")
        .expect("the output goes back");
    let url = output["output"]["image_url"].as_str().unwrap();
    let (_, b64) = url.split_once(";base64,").unwrap();
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let fitted = image::load_from_memory(&bytes).unwrap();
    assert!(
        fitted.width() <= 2048 && fitted.height() <= 2048 && fitted.width() < 2880,
        "{}x{}",
        fitted.width(),
        fitted.height()
    );
    assert_eq!(request.report.images, 1);
    assert!(request.report.image_tokens.is_some_and(|t| t > 0));
    let tally = &request.report.tally;
    assert!(tally.is_balanced());
    assert_eq!(
        tally
            .get("computer_call_output item")
            .map(|c| (c.read, c.sent)),
        Some((1, 1))
    );
}

#[test]
fn a_computer_call_is_refused_where_the_api_has_no_computer() {
    let history = computer_history(&screenshot(64, 40));
    for provider in [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::Gemini,
        Provider::Bedrock,
    ] {
        let request = build_request(provider, &history, &Options::new()).unwrap();
        let json = request.json();
        assert!(!json.contains("cu_1"), "{provider}");
        assert!(
            !json.contains("base64,"),
            "{provider}: the screenshot is not sent"
        );
        let whats: Vec<&str> = request
            .report
            .replay_notes
            .iter()
            .map(|n| n.what.as_str())
            .collect();
        assert_eq!(
            whats,
            ["computer_call item", "computer_call_output item"],
            "{provider}"
        );
        assert!(
            request.report.replay_notes.iter().all(|n| n.failure),
            "{provider}"
        );
        assert!(matches!(
            build_request(provider, &history, &Options::new().with_strict(true)),
            Err(BuildError::Replayed(notes)) if notes.len() == 2
        ));
    }
}

#[test]
fn a_screenshot_that_cannot_be_read_leaves_its_item_out() {
    let mut png = screenshot(64, 40);
    png.truncate(png.len() - 30);
    let history = computer_history(&png);
    let request = build_request(Provider::OpenAiResponses, &history, &Options::new()).unwrap();
    let notes: Vec<&str> = request
        .report
        .replay_notes
        .iter()
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("a computer_call_output item is left out: its image at /output/image_url: corrupt or truncated PNG"),
        "{notes:?}"
    );
    assert_eq!(request.report.tally.refusals(), 1);
}

#[test]
fn bedrock_is_given_back_its_reasoning_blocks_alone_each_checked() {
    let reasoning =
        json!({"reasoningContent": {"reasoningText": {"text": "Hm.", "signature": "c2ln"}}});
    let redacted = json!({"reasoningContent": {"redactedContent": "AAEC"}});
    let turn = json!({"content": "Done.", "tool_calls": [], "bedrock_blocks": [
        reasoning,
        {"citationsContent": {"content": [], "citations": []}},
        {"reasoningContent": null},
        {"reasoningContent": {}, "text": "two kinds"},
        {"reasoningContent": {"reasoningText": {"text": "x"}, "ts": 1}},
        redacted,
    ]});
    let history = [("user", "Go."), ("assistant", &turn.to_string())];
    let request = build_request(
        Provider::Bedrock,
        &history.map(|(r, c)| (r.to_owned(), c.to_owned())),
        &Options::new(),
    )
    .unwrap();
    let body = request.body.to_value();
    let blocks = &body["messages"][1]["content"];
    assert_eq!(blocks[0], reasoning);
    assert_eq!(blocks[1], redacted);
    assert_eq!(blocks[2], json!({"text": "Done."}));
    let notes: Vec<&str> = request
        .report
        .replay_notes
        .iter()
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(
        notes,
        [
            "a citationsContent block is left out: Bedrock is given back only its reasoningContent",
            "a reasoningContent block is left out: a block holding none of audio, cachePoint, citationsContent, document, guardContent, image, reasoningContent, searchResult, text, toolAddition, toolRemoval, toolResult, toolUse, video is no kind the botocore 1.44.8 types list for content",
            "a reasoningContent block is left out: a block holds both `reasoningContent` and `text` (one kind to a block)",
            "a reasoningContent block is left out: a member the botocore 1.44.8 types do not list for it: `reasoningContent.ts`",
        ]
    );
    assert!(request.report.tally.is_balanced());
}

#[test]
fn a_kept_member_that_is_not_a_list_of_objects_is_said() {
    let history = [
        ("user".to_owned(), "Go.".to_owned()),
        (
            "assistant".to_owned(),
            r#"{"content":"Done.","tool_calls":[],"openai_items":"not a list","ollama_thinking":7}"#.to_owned(),
        ),
    ];
    for provider in Provider::ALL {
        let request = build_request(provider, &history, &Options::new()).unwrap();
        let whats: Vec<&str> = request
            .report
            .replay_notes
            .iter()
            .map(|n| n.what.as_str())
            .collect();
        assert_eq!(
            whats,
            ["openai_items member", "ollama_thinking member"],
            "{provider}"
        );
        assert_eq!(request.report.tally.refusals(), 2, "{provider}");
    }
}

#[test]
fn responses_items_read_from_a_response_go_back_without_their_output_members() {
    let item = json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
        "action": {"type": "search", "query": "q"}});
    let turn = json!({"content": "Found.", "tool_calls": [], "openai_items": [item,
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gA", "unlisted": 1}]});
    let history = [
        ("user".to_owned(), "Go.".to_owned()),
        ("assistant".to_owned(), turn.to_string()),
    ];
    let request = build_request(Provider::OpenAiResponses, &history, &Options::new()).unwrap();
    let input: &Value = &request.body.to_value()["input"];
    assert_eq!(input[1], item);
    assert!(
        !request.json().contains("rs_1"),
        "an unlisted member keeps the item out"
    );
    assert_eq!(request.report.replay_notes.len(), 1);
}
