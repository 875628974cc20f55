//! Writing a history from an agent: assistant turns with their calls and
//! tool results with their call ids, read back by the grammar and paired
//! by id, not by position.
#![cfg(feature = "media")]

use serde_json::Value;
use tool_carrier::history::{AssistantTurn, ToolResult};
use tool_carrier::media::store::{AttachError, DirStore};
use tool_carrier::media::Policy;
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::roots::Roots;
use tool_carrier::{Attachment, AttachmentKind, Role};
use tool_carrier::{Carrier, Declaration};

const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn record(line: &str) -> (String, String) {
    let v: Value = serde_json::from_str(line).unwrap();
    (
        v["role"].as_str().unwrap().to_owned(),
        v["content"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn results_pair_with_their_calls_by_id_whatever_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let turn = AssistantTurn::new("Two things.")
        .call("call_a", "screenshot", "{}")
        .unwrap()
        .call("call_b", "read_file", r#"{"path":"a.rs"}"#)
        .unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    // The second call's result comes first, and carries the screenshot
    // given as bytes in memory.
    let b = ToolResult::new("call_b", "Read it.")
        .attach_bytes(PNG_1X1, &mut store)
        .unwrap();
    let a = ToolResult::new("call_a", "No display.").failed();
    let history = vec![
        ("user".to_owned(), "Go.".to_owned()),
        record(&turn.to_record()),
        record(&b.to_record().unwrap()),
        record(&a.to_record().unwrap()),
    ];
    let policy = Policy::default().with_roots(Roots::new([dir.path()]).unwrap());
    let req = build_request(
        Provider::Anthropic,
        &history,
        &Options::new().with_policy(policy),
    )
    .unwrap();
    let body = req.body.to_value();
    // Each result goes with its own call (the body puts them in the
    // calls' order): the failure with the screenshot call, the image with
    // the file read.
    let results = &body["messages"][2]["content"];
    assert_eq!(results[0]["tool_use_id"], "call_a");
    assert_eq!(results[0]["is_error"], true);
    assert_eq!(results[0]["content"], "No display.");
    assert_eq!(results[1]["tool_use_id"], "call_b");
    assert_eq!(results[1]["content"][0]["text"], "Read it.");
    assert_eq!(results[1]["content"][1]["type"], "image");
    assert_eq!(body["messages"][1]["content"][1]["id"], "call_a");
    assert_eq!(req.report.images, 1);
}

#[test]
fn arguments_keep_their_text() {
    // Key order and an integer beyond 64 bits survive into the record and
    // into a body that takes arguments as an object.
    let args = r#"{"z":1,"a":123456789012345678901234567890}"#;
    let turn = AssistantTurn::new("").call("c1", "t", args).unwrap();
    assert!(turn.to_json().contains(args));
    assert_eq!(turn.calls()[0].arguments, args);
    let history = vec![
        ("user".to_owned(), "Go.".to_owned()),
        record(&turn.to_record()),
    ];
    let req = build_request(Provider::Anthropic, &history, &Options::new()).unwrap();
    assert!(req
        .json()
        .contains(r#""input":{"z":1,"a":123456789012345678901234567890}"#));
    // No text and no calls: the record is the text itself.
    assert_eq!(AssistantTurn::new("Done.").to_json(), "Done.");
    // Blank arguments are an empty object.
    let blank = AssistantTurn::new("").call("c2", "t", " ").unwrap();
    assert_eq!(blank.calls()[0].arguments, "{}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let err = AssistantTurn::new("").call("c1", "t", "{nope").unwrap_err();
    assert_eq!(err.call_id, "c1");
    assert!(err
        .to_string()
        .starts_with("the arguments of call \"c1\" are not JSON: "));
    let empty = ToolResult::new("c1", "x").attach(Attachment::image(""));
    assert!(empty.to_json().is_err());

    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    let err = ToolResult::new("c1", "x")
        .attach_bytes(b"just text", &mut store)
        .unwrap_err();
    assert!(matches!(err, AttachError::Type(_)), "{err}");
    assert!(err.to_string().contains("unrecognised bytes"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_result_reads_back_as_a_declared_carrier() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path()).unwrap();
    let pdf = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";
    let result = ToolResult::new("call \"7\"", "line one\nline two")
        .attach(Attachment::image("shots/a.png"))
        .attach_bytes(pdf, &mut store)
        .unwrap()
        .attach_bytes(PNG_1X1, &mut store)
        .unwrap()
        .attach_bytes(PNG_1X1, &mut store)
        .unwrap();
    // The same bytes twice are one file.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    let json = result.to_json().unwrap();
    let c = Carrier::read(Role::Tool, &json).unwrap();
    assert_eq!(c.body, "line one\nline two");
    assert_eq!(c.call_id.as_deref(), Some("call \"7\""));
    let Declaration::Declared(atts) = &c.declaration else {
        panic!("{json}")
    };
    let kinds: Vec<AttachmentKind> = atts.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            AttachmentKind::Image,
            AttachmentKind::Document,
            AttachmentKind::Image,
            AttachmentKind::Image
        ]
    );
    assert!(atts[1].target.ends_with(".pdf"));
    assert_eq!(atts[2].target, atts[3].target);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v.get("is_error"), None);
    assert_eq!(
        record(&result.to_record().unwrap()),
        ("tool".to_owned(), json)
    );
}
