//! The MCP result rules, one test per rule: what is prepared, what is kept
//! byte for byte, what becomes a text, which responses are looked at.
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod support;

use base64::Engine;
use image::GenericImageView;
use proptest::prelude::*;
use serde_json::{json, Value};
use support::*;
use tool_carrier::facts::Facts;
use tool_carrier::mcp::{
    fit_message, fit_result, Calls, FitOptions, Method, Outcome, Rewrite, SCALE_META,
};
use tool_carrier::media::{Budget, MediaType};
use tool_carrier::provider::Provider;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// A 1×1 GIF.
const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

fn anthropic() -> FitOptions {
    FitOptions::new(Facts::builtin(), Provider::Anthropic, None)
}

/// A small box keeps decoding and resizing quick in test builds.
fn small() -> FitOptions {
    anthropic().with_max_dim(200)
}

fn response(id: Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

fn image_block(bytes: &[u8], mime: &str) -> Value {
    json!({"type": "image", "data": B64.encode(bytes), "mimeType": mime})
}

fn parsed(rewrite: &Rewrite<'_>) -> Value {
    serde_json::from_str(&rewrite.text()).expect("the rewrite is JSON")
}

fn decoded(block: &Value, key: &str) -> image::DynamicImage {
    load(&B64.decode(block[key].as_str().unwrap()).unwrap())
}

#[test]
fn a_large_image_is_fitted_and_its_other_members_kept_as_written() {
    let png = png_rgb(&screenshot(640, 400, 1));
    // Members in an unusual order, spaced, with an escape: all kept.
    let message = format!(
        "{{ \"jsonrpc\": \"2.0\", \"id\": 4, \"result\": {{\"content\": [ {{\"annotations\": {{\"audience\": [\"user\"], \"priority\": 0.5}}, \"type\": \"image\", \"mimeType\": \"image/png\", \"data\": \"{}\", \"_meta\": {{\"k\": \"\\u00e9\"}}}} ], \"isError\": false}} }}\n",
        B64.encode(&png)
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    assert!(fitted.changed());
    let Outcome::Fitted { from, to } = &fitted.images()[0].outcome else {
        panic!("{:?}", fitted.images())
    };
    assert_eq!((from.width, from.height), (Some(640), Some(400)));
    assert_eq!((to.width, to.height), (Some(200), Some(125)));
    let text = fitted.text();
    let block = &parsed(&fitted)["result"]["content"][0];
    assert_eq!(decoded(block, "data").dimensions(), (200, 125));
    assert_eq!(block["mimeType"], "image/png");
    // Everything around the payload is the input's.
    let data_at = message.find("\"data\": \"").unwrap() + 9;
    assert_eq!(text[..data_at], message[..data_at]);
    // The scale joins what `_meta` held.
    let tail = message[message.find("\", \"_meta\"").unwrap()..].replacen(
        "{\"k\"",
        r#"{"dev.tool-carrier/scale":{"original":{"width":640,"height":400},"sent":{"width":200,"height":125},"factor":3.2000},"k""#,
        1,
    );
    assert!(
        text.ends_with(&tail),
        "{}",
        &text[text.len() - tail.len()..]
    );
    assert_eq!(fitted.len(), text.len());
    let mut written = Vec::new();
    fitted.write_to(&mut written).unwrap();
    assert_eq!(written, text.as_bytes());
}

#[test]
fn an_image_that_fits_leaves_the_message_as_it_came() {
    let png = png_rgb(&screenshot(120, 80, 2));
    let message = response(
        json!(1),
        json!({"content": [image_block(&png, "image/png")]}),
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    assert!(!fitted.changed());
    assert!(matches!(fitted.text(), std::borrow::Cow::Borrowed(t) if t == message));
    assert!(matches!(fitted.images()[0].outcome, Outcome::Kept(_)));
    // The MIME type's case does not matter.
    let upper = message.replace("image/png", "IMAGE/PNG");
    assert!(!fit_message(&upper, Method::ToolsCall, &small()).changed());
}

#[test]
fn a_wrong_or_missing_mime_type_is_corrected_and_nothing_else() {
    let message = response(
        json!(1),
        json!({"content": [{"type": "image", "data": GIF, "mimeType": "image/png"}]}),
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    assert_eq!(fitted.text(), message.replace("image/png", "image/gif"));
    assert!(
        matches!(&fitted.images()[0].outcome, Outcome::Relabeled { declared, .. } if declared == "image/png")
    );

    let message = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"image","data":"{GIF}"}}]}}}}"#
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    assert_eq!(
        fitted.text(),
        message.replace(
            &format!("\"{GIF}\""),
            &format!("\"{GIF}\",\"mimeType\":\"image/gif\"")
        )
    );
}

#[test]
fn an_image_that_cannot_be_prepared_becomes_a_text_saying_why() {
    let cases: Vec<(Value, &str)> = vec![
        (
            image_block(&truncated_png(), "image/png"),
            "corrupt or truncated PNG",
        ),
        (
            json!({"type": "image", "data": "not base64!", "mimeType": "image/png"}),
            "is not base64",
        ),
        (
            json!({"type": "image", "data": 12, "mimeType": "image/png"}),
            "is not a string",
        ),
        (
            json!({"type": "image", "mimeType": "image/png"}),
            "it has no \"data\"",
        ),
        (
            image_block(&one_page_pdf("x"), "image/png"),
            "it is a PDF, not an image",
        ),
        (
            image_block(b"II*\0\x08\0\0\0", "image/tiff"),
            "TIFF images are not supported",
        ),
        (
            image_block(b"plain text", "image/png"),
            "unrecognised bytes",
        ),
        (image_block(b"", "image/png"), "empty file"),
    ];
    for (mut block, why) in cases {
        block["annotations"] = json!({"audience": ["assistant"]});
        block["_meta"] = json!({"tool": "shot"});
        let message = response(
            json!("r"),
            json!({"content": [{"type": "text", "text": "before"}, block]}),
        );
        let fitted = fit_message(&message, Method::ToolsCall, &small());
        let Outcome::Replaced { reason } = &fitted.images()[0].outcome else {
            panic!("{why}: {:?}", fitted.images())
        };
        assert!(reason.contains(why), "{reason} / {why}");
        let content = &parsed(&fitted)["result"]["content"];
        assert_eq!(content[0], json!({"type": "text", "text": "before"}));
        let text = content[1]["text"].as_str().unwrap();
        assert_eq!(text, format!("[image content[1] not attached: {reason}]"));
        assert_eq!(content[1]["type"], "text");
        assert_eq!(
            content[1]["annotations"],
            json!({"audience": ["assistant"]})
        );
        assert_eq!(content[1]["_meta"], json!({"tool": "shot"}));
        assert!(content[1].get("data").is_none() && content[1].get("mimeType").is_none());
    }
}

#[test]
fn a_repeated_payload_member_is_no_image_anyone_reads_alike() {
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"image","data":"{GIF}","data":"{GIF}","mimeType":"image/gif"}}]}}}}"#
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    let content = &parsed(&fitted)["result"]["content"][0];
    assert_eq!(
        content["text"],
        "[image content[0] not attached: its \"data\" is repeated]"
    );
}

#[test]
fn escaped_and_unpadded_base64_is_read_as_it_says() {
    let png = png_rgb(&screenshot(300, 300, 3));
    let escaped = B64.encode(&png).replace('/', "\\/");
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"image","data":"{escaped}","mimeType":"image/png"}}]}}}}"#
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    let block = &parsed(&fitted)["result"]["content"][0];
    assert_eq!(decoded(block, "data").dimensions(), (200, 200));

    // Letters may be escapes too: still an image block, still a blob.
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"im\u0061ge","data":"{escaped}","mimeType":"image/png"}},{{"type":"resource","resource":{{"uri":"a","mimeType":"image/png","\u0062lob":"{escaped}"}}}}]}}}}"#
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    assert_eq!(fitted.images().len(), 2);
    assert!(fitted
        .images()
        .iter()
        .all(|i| matches!(i.outcome, Outcome::Fitted { .. })));

    let unpadded = GIF.trim_end_matches('=');
    let message = response(
        json!(1),
        json!({"content": [{"type": "image", "data": unpadded, "mimeType": "image/gif"}]}),
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    assert!(
        matches!(fitted.images()[0].outcome, Outcome::Kept(_)),
        "{:?}",
        fitted.images()
    );
}

#[test]
fn base64_wrapped_at_76_characters_is_read_and_sent_unwrapped() {
    // What Python's `base64.encodebytes` writes (RFC 2045).
    let wrap = |text: &str| {
        let lines: Vec<&str> = text
            .as_bytes()
            .chunks(76)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        lines.join("\n") + "\n"
    };
    // An image that fits: the same bytes, unwrapped, nothing else changed.
    let png = png_rgb(&screenshot(120, 80, 2));
    let block = json!({"type": "image", "data": wrap(&B64.encode(&png)), "mimeType": "image/png"});
    let message = response(json!(1), json!({"content": [block]}));
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    assert!(
        matches!(fitted.images()[0].outcome, Outcome::Kept(_)),
        "{:?}",
        fitted.images()
    );
    let sent = &parsed(&fitted)["result"]["content"][0];
    assert_eq!(sent["data"], B64.encode(&png));
    // One that does not: fitted, as an unwrapped one is.
    let png = png_rgb(&screenshot(300, 300, 3));
    let block = json!({"type": "image", "data": wrap(&B64.encode(&png)), "mimeType": "image/png"});
    let message = response(json!(1), json!({"content": [block]}));
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    let block = &parsed(&fitted)["result"]["content"][0];
    assert_eq!(decoded(block, "data").dimensions(), (200, 200));
}

#[test]
fn embedded_image_resources_are_prepared_and_other_resources_kept() {
    let png = png_rgb(&screenshot(400, 300, 4));
    let message = response(
        json!(2),
        json!({"content": [
            {"type": "resource", "resource": {"uri": "file:///shot.png", "mimeType": "image/png", "blob": B64.encode(&png), "_meta": {"a": 1}}, "annotations": {"priority": 1}},
            {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "notes"}},
            {"type": "resource", "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjQK"}},
            {"type": "resource", "resource": {"uri": "file:///bad.png", "mimeType": "image/png", "blob": B64.encode(truncated_png())}, "annotations": {"priority": 0}},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///big.png", "name": "big", "mimeType": "image/png"}
        ]}),
    );
    let fitted = fit_message(&message, Method::ToolsCall, &small());
    let ats: Vec<&str> = fitted.images().iter().map(|i| i.at.as_str()).collect();
    assert_eq!(ats, ["content[0].resource", "content[3].resource"]);
    let content = &parsed(&fitted)["result"]["content"];
    let original: Value = serde_json::from_str(&message).unwrap();
    let resource = &content[0]["resource"];
    assert_eq!(decoded(resource, "blob").dimensions(), (200, 150));
    assert_eq!(resource["uri"], "file:///shot.png");
    assert_eq!(resource["_meta"], json!({"a": 1}));
    assert_eq!(content[0]["annotations"], json!({"priority": 1}));
    for i in [1, 2, 4, 5] {
        assert_eq!(content[i], original["result"]["content"][i], "{i}");
    }
    assert_eq!(content[3]["type"], "text");
    assert_eq!(content[3]["annotations"], json!({"priority": 0}));
    assert!(content[3]["text"]
        .as_str()
        .unwrap()
        .starts_with("[image content[3].resource not attached: corrupt or truncated PNG"));
}

#[test]
fn resources_read_contents_are_prepared_and_a_failure_is_text_contents() {
    let png = png_rgb(&screenshot(400, 400, 5));
    let result = json!({"contents": [
        {"uri": "file:///a.png", "mimeType": "image/png", "blob": B64.encode(&png), "_meta": {"x": true}},
        {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "hello"},
        {"uri": "file:///c.png", "mimeType": "image/png", "blob": B64.encode(truncated_png()), "_meta": {"y": 1}}
    ], "ttlMs": 1000, "cacheScope": "private"});
    let text = result.to_string();
    let fitted = fit_result(&text, Method::ResourcesRead, &small());
    let out = parsed(&fitted);
    assert_eq!(
        decoded(&out["contents"][0], "blob").dimensions(),
        (200, 200)
    );
    assert_eq!(
        out["contents"][0]["_meta"],
        json!({"x": true, "dev.tool-carrier/scale": {"original": {"width": 400, "height": 400}, "sent": {"width": 200, "height": 200}, "factor": 2.0}})
    );
    assert_eq!(out["contents"][1], result["contents"][1]);
    let failed = &out["contents"][2];
    assert_eq!(failed["uri"], "file:///c.png");
    assert_eq!(failed["mimeType"], "text/plain");
    assert_eq!(failed["_meta"], json!({"y": 1}));
    assert!(failed.get("blob").is_none());
    assert!(failed["text"]
        .as_str()
        .unwrap()
        .starts_with("[image contents[2] not attached: corrupt or truncated PNG"));
    assert_eq!(out["ttlMs"], 1000);
    // A tools/call result's shape is not read as a resource's, nor back.
    assert!(!fit_result(&text, Method::ToolsCall, &small()).changed());
}

#[test]
fn only_complete_results_are_prepared() {
    let png = png_rgb(&screenshot(400, 400, 6));
    let content = json!([image_block(&png, "image/png")]);
    for (kind, prepared) in [
        (None, true),
        (Some("complete"), true),
        (Some("input_required"), false),
    ] {
        let mut result = json!({"content": content});
        if let Some(kind) = kind {
            result["resultType"] = json!(kind);
        }
        let text = result.to_string();
        assert_eq!(
            fit_result(&text, Method::ToolsCall, &small()).changed(),
            prepared,
            "{kind:?}"
        );
    }
}

#[test]
fn what_is_not_a_result_with_images_comes_back_as_it_came() {
    let png = B64.encode(png_rgb(&screenshot(400, 400, 7)));
    let image = json!({"type": "image", "data": png, "mimeType": "image/png"});
    let messages = [
        // A server's sampling request carries images the proxy leaves alone.
        json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": image}]}}).to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}).to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "no", "data": {"content": [image]}}}).to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"structuredContent": {"content": [image]}}}).to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": "not a list"}}).to_string(),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[".into(),
        "not json at all".into(),
        "".into(),
        "[]".into(),
        "\"string\"".into(),
    ];
    for message in &messages {
        let fitted = fit_message(message, Method::ToolsCall, &small());
        assert!(!fitted.changed(), "{message}");
        assert_eq!(fitted.text(), message.as_str());
    }
}

#[test]
fn a_batch_has_each_response_prepared() {
    let png = B64.encode(png_rgb(&screenshot(400, 400, 8)));
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "a"}]}},
        {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "image", "data": png, "mimeType": "image/png"}]}}
    ])
    .to_string();
    let fitted = fit_message(&batch, Method::ToolsCall, &small());
    assert_eq!(fitted.images()[0].at, "[1].content[0]");
    assert_eq!(fitted.images()[0].id.as_deref(), Some("2"));
    let out = parsed(&fitted);
    assert_eq!(
        decoded(&out[1]["result"]["content"][0], "data").dimensions(),
        (200, 200)
    );
    assert_eq!(out[0]["result"]["content"][0]["text"], "a");
}

#[test]
fn calls_follow_the_hosts_requests_by_id() {
    let image = response(
        json!(0),
        json!({"content": [{"type": "image", "data": GIF, "mimeType": "image/gif"}]}),
    );
    let answer = |id: &str| image.replacen("\"id\":0", &format!("\"id\":{id}"), 1);
    let mut calls = Calls::new();
    calls.from_host(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#);
    calls.from_host(
        r#"{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"file:///a"}}"#,
    );
    calls
        .from_host(r#"{"jsonrpc":"2.0","id":"t","method":"tasks/result","params":{"taskId":"9"}}"#);
    calls.from_host(r#"{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"p"}}"#);
    calls.from_host(r#"{"jsonrpc":"2.0","method":"tools/call"}"#); // no id: a notification
    calls.from_host(r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#); // the host answering the server
    assert_eq!(calls.pending(), 3);
    assert!(
        calls.from_server(&answer("3")).is_empty(),
        "prompts/get is not looked at"
    );
    assert!(
        calls.from_server(&answer("\"1\"")).is_empty(),
        "the string \"1\" is not the number 1"
    );
    assert_eq!(calls.from_server(&answer("1")).len(), 1);
    assert!(
        calls.from_server(&answer("1")).is_empty(),
        "an id is answered once"
    );
    // A string id is compared decoded.
    assert_eq!(calls.from_server(&answer(r#""\u0074""#)).len(), 1);
    // resources/read looks in contents, not content.
    assert!(calls.from_server(&answer("\"x\"")).is_empty());
    assert_eq!(calls.pending(), 0);

    // A cancelled request is forgotten; an error forgets it too.
    calls.from_host(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}"#);
    calls.from_host(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}}"#);
    calls.from_host(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}"#);
    assert_eq!(calls.pending(), 1);
    assert!(calls.from_server(&answer("5")).is_empty());
    calls.from_server(r#"{"jsonrpc":"2.0","id":6,"error":{"code":-1,"message":"failed"}}"#);
    assert_eq!(calls.pending(), 0);

    // A batch of requests, and one of responses.
    calls.from_host(r#"[{"jsonrpc":"2.0","id":7,"method":"tools/call"},{"jsonrpc":"2.0","id":8,"method":"ping"}]"#);
    assert_eq!(calls.pending(), 1);
    let batch = format!("[{},{}]", answer("8"), answer("7"));
    let plan = calls.from_server(&batch);
    assert_eq!(plan.len(), 1);
    let fitted = plan.prepare(&batch, &small());
    assert_eq!(fitted.images()[0].at, "[1].content[0]");
    // A plan is for the text it was made from.
    assert!(!plan.prepare(&answer("7"), &small()).changed());
    let blank = " ".repeat(batch.len());
    assert!(!plan.prepare(&blank, &small()).changed());
}

#[test]
fn a_message_is_one_json_object_or_batch() {
    let mut calls = Calls::new();
    for text in [
        r#"{"jsonrpc":"2.0","method":"x"}"#,
        " {} \n",
        "[1, {}]",
        "[]",
    ] {
        assert!(calls.from_host(text), "{text}");
        assert!(calls.from_server(text).is_message(), "{text}");
    }
    for text in [
        "", "\n", "\"x\"", "1", "{\"a\":}", "[1,", "{} {}", "not json",
    ] {
        assert!(!calls.from_host(text), "{text}");
        assert!(!calls.from_server(text).is_message(), "{text}");
    }
}

#[test]
fn options_follow_the_facts_for_the_provider_and_model() {
    let facts = Facts::builtin();
    let default = anthropic();
    assert_eq!(default.model(), facts.default_model(Provider::Anthropic));
    assert_eq!(default.budget(), Budget::ANTHROPIC);
    // Within 2000 px (Anthropic's side for a request of many images) and
    // the model's processing size.
    let view = facts.view(Provider::Anthropic, default.model()).unwrap();
    let (w, h) = default.processing_size(2880, 1800);
    assert!(w <= 2000 && (w, h) == view.fit(w, h));
    let haiku = FitOptions::new(facts, Provider::Anthropic, Some("claude-haiku-4-5"));
    let view = facts.view(Provider::Anthropic, "claude-haiku-4-5").unwrap();
    assert_eq!(haiku.processing_size(2880, 1800), view.fit(2880, 1800));
    let bedrock = FitOptions::new(facts, Provider::Bedrock, None);
    assert_eq!(bedrock.budget(), Budget::BEDROCK);
    let ollama = FitOptions::new(facts, Provider::Ollama, None);
    assert_eq!(ollama.image_types(), [MediaType::Png, MediaType::Jpeg]);
    // --max-dim replaces the processing size, within the API's side.
    assert_eq!(
        haiku.clone().with_max_dim(3000).processing_size(2880, 1800),
        (2000, 1250)
    );
    assert_eq!(
        haiku.with_max_dim(100).processing_size(2880, 1800),
        (100, 63)
    );
}

#[test]
fn an_image_type_the_api_does_not_take_is_written_as_one_it_does() {
    let ollama = FitOptions::new(Facts::builtin(), Provider::Ollama, None);
    let message = response(
        json!(1),
        json!({"content": [{"type": "image", "data": GIF, "mimeType": "image/gif"}]}),
    );
    let fitted = fit_message(&message, Method::ToolsCall, &ollama);
    let block = &parsed(&fitted)["result"]["content"][0];
    assert_eq!(block["mimeType"], "image/png");
    assert_eq!(decoded(block, "data").dimensions(), (1, 1));
}

/// JSON values with no image in them: no `"image"` type, no blob with an
/// image MIME type (keys and strings drawn from the protocol's own words).
fn no_image() -> impl Strategy<Value = Value> {
    let word = prop::sample::select(vec![
        "content",
        "contents",
        "type",
        "text",
        "result",
        "id",
        "jsonrpc",
        "data",
        "mimeType",
        "blob",
        "resource",
        "uri",
        "audio",
        "resource_link",
        "_meta",
        "annotations",
        "resultType",
        "complete",
        "image/png",
        "\u{e9}\"\\\n",
        "",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        word.clone().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((word.clone(), inner), 0..6).prop_map(|members| Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect()
            )),
        ]
    })
    .prop_filter("no image", |v| !has_image(v))
}

fn has_image(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get("type") == Some(&json!("image"))
                || (m.contains_key("blob")
                    && m.get("mimeType")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.to_ascii_lowercase().starts_with("image/")))
                || m.values().any(has_image)
        }
        Value::Array(a) => a.iter().any(has_image),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A message without images is returned byte for byte, however it is
    /// spaced, for every method, whether it answers a request or not.
    #[test]
    fn a_message_without_images_is_returned_byte_identical(
        result in no_image(),
        id in prop_oneof![any::<u32>().prop_map(Value::from), "[a-z0-9]{1,6}".prop_map(Value::from)],
        pretty in any::<bool>(),
    ) {
        let message = json!({"jsonrpc": "2.0", "id": id, "result": result});
        let text = if pretty { serde_json::to_string_pretty(&message).unwrap() } else { message.to_string() };
        for method in Method::ALL {
            let fitted = fit_message(&text, method, &small());
            prop_assert!(!fitted.changed());
            prop_assert_eq!(fitted.text(), text.as_str());
        }
        let mut calls = Calls::new();
        calls.from_host(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}).to_string());
        prop_assert!(calls.from_server(&text).is_empty());
    }

    /// So is any text at all that holds no image.
    #[test]
    fn any_text_without_an_image_is_returned_byte_identical(text in "\\PC{0,200}") {
        prop_assume!(!text.contains("image"));
        prop_assert_eq!(fit_message(&text, Method::ToolsCall, &small()).text(), text.as_str());
    }
}

#[test]
fn a_resized_image_says_its_scale_in_meta_and_asked_to_the_model() {
    let png = png_rgb(&screenshot(640, 400, 1));
    let result =
        json!({"content": [image_block(&png, "image/png"), {"type": "text", "text": "after"}]})
            .to_string();
    let scale = json!({"original": {"width": 640, "height": 400}, "sent": {"width": 200, "height": 125}, "factor": 3.2});
    let fitted = fit_result(&result, Method::ToolsCall, &small());
    let out = parsed(&fitted);
    assert_eq!(out["content"][0]["_meta"][SCALE_META], scale);
    assert_eq!(
        out["content"].as_array().unwrap().len(),
        2,
        "no text unless asked"
    );
    // Asked: a text block right after the image says it to the model.
    let said = fit_result(&result, Method::ToolsCall, &small().with_say_scale(true));
    let out = parsed(&said);
    let content = out["content"].as_array().unwrap();
    assert_eq!(content.len(), 3);
    assert_eq!(content[0]["_meta"][SCALE_META], scale);
    assert_eq!(
        content[1],
        json!({"type": "text", "text": "scaled from 640×400 to 200×125: multiply coordinates by 3.200"})
    );
    assert_eq!(content[2]["text"], "after");
    // Fitted again: nothing more to say.
    let again = said.text().into_owned();
    assert!(!fit_result(&again, Method::ToolsCall, &small().with_say_scale(true)).changed());
    // An image sent at its own size says nothing.
    let small_png = png_rgb(&screenshot(120, 80, 2));
    let kept = json!({"content": [image_block(&small_png, "image/png")]}).to_string();
    assert!(!fit_result(&kept, Method::ToolsCall, &small().with_say_scale(true)).changed());
}
