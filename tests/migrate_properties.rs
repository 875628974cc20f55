//! Migration over generated histories: idempotent, lossless, and every
//! record reads back with the same body and attachments.

use proptest::prelude::*;
use tool_carrier::history::{Chunk, HistoryReader, InputError, Message};
use tool_carrier::migrate::{migrate_history, MigrateOptions};
use tool_carrier::{
    classify, render_native_tool_carrier, render_prompt_tool_carrier, Attachment, CarrierKind,
};

const BODIES: &[&str] = &[
    "",
    "ok",
    "line one\nline two\n",
    "[IMAGE:/etc/passwd]",
    "[Tool attachments: 1]\n[IMAGE:/x.png]\nrest",
    "quote \" backslash \\ tab \t",
    "é ü 😀 \u{2028}",
    "{\"content\":\"nested\"}",
];

fn body() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(BODIES).prop_map(str::to_owned),
        "\\PC{0,30}"
    ]
}

/// A content value of every interesting shape.
fn content() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        // legacy envelopes, with other members before and after
        (body(), any::<bool>()).prop_map(|(b, after)| {
            let c = serde_json::to_string(&b).unwrap();
            let env = if after {
                format!("{{\"tool_call_id\": \"c\", \"content\": {c}, \"ms\": 1.50}}")
            } else {
                format!("{{ \"content\":{c} }}")
            };
            ("tool".to_owned(), env)
        }),
        // declared envelopes
        body().prop_map(|b| (
            "tool".into(),
            render_native_tool_carrier(&b, &[Attachment::image("/a.png")]).unwrap()
        )),
        // raw tool text and other non-envelopes
        prop::sample::select(vec![
            "raw text",
            "",
            "[1, 2]",
            "{\"content\":1}",
            "{\"content\":\"a\",\"content\":\"b\"}",
            "{\"content\":\"a\",\"attachments\":null}"
        ])
        .prop_map(|c| ("tool".to_owned(), c.to_owned())),
        // legacy prompt carriers, exact or not
        (
            prop::sample::select(vec![
                "[Tool results]\n",
                "[Tool results]",
                "  [Tool results]\n",
                "[Tool results]\r\n",
                "[Tool results]x\n"
            ]),
            body()
        )
            .prop_map(|(p, b)| (
                "user".to_owned(),
                if p == "[Tool results]" {
                    p.to_owned()
                } else {
                    format!("{p}{b}")
                }
            )),
        // declared prompt carriers
        body().prop_map(|b| (
            "user".into(),
            render_prompt_tool_carrier(&b, &[Attachment::image("/a.png")]).unwrap()
        )),
        // not carriers
        (
            prop::sample::select(vec!["user", "assistant", "system"]),
            body()
        )
            .prop_map(|(r, b)| (r.to_owned(), b)),
    ]
}

/// A JSON string literal with some characters escaped the long way.
fn literal(s: &str, long_escapes: bool) -> String {
    if !long_escapes {
        return serde_json::to_string(s).unwrap();
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            c if c.is_ascii_alphanumeric() || c == ' ' => out.push(c),
            c => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

#[derive(Debug, Clone)]
enum Rec {
    Message {
        role: String,
        content: String,
        long_escapes: bool,
        extra_first: bool,
    },
    Bad(Vec<u8>),
    Blank(&'static str),
}

fn record() -> impl Strategy<Value = Rec> {
    prop_oneof![
        8 => (content(), any::<bool>(), any::<bool>()).prop_map(|((role, content), long_escapes, extra_first)| Rec::Message { role, content, long_escapes, extra_first }),
        1 => prop::sample::select(vec![&b"not json"[..], b"[1]", b"{\"role\":\"tool\"}", b"\xff\xfe", b"{\"role\":\"user\",\"content\":1}"]).prop_map(|b| Rec::Bad(b.to_vec())),
        1 => prop::sample::select(vec!["", "  ", "\t"]).prop_map(Rec::Blank),
    ]
}

fn render(records: &[Rec], array: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if array {
        out.extend_from_slice(b"[\n");
    }
    let mut first = true;
    for r in records {
        let bytes = match r {
            Rec::Message {
                role,
                content,
                long_escapes,
                extra_first,
            } => {
                let c = literal(content, *long_escapes);
                let r = serde_json::to_string(role).unwrap();
                if *extra_first {
                    format!("{{\"ts\": 1.0e3, \"role\":{r}, \"content\" :{c}}}").into_bytes()
                } else {
                    format!("{{\"role\":{r},\"content\":{c},\"meta\":{{\"k\":[1,2]}}}}")
                        .into_bytes()
                }
            }
            // An array cannot hold invalid UTF-8 or blank elements.
            Rec::Bad(b) if array => {
                if std::str::from_utf8(b).is_err()
                    || serde_json::from_slice::<serde_json::Value>(b).is_err()
                {
                    continue;
                }
                b.clone()
            }
            Rec::Bad(b) => b.clone(),
            Rec::Blank(_) if array => continue,
            Rec::Blank(s) => s.as_bytes().to_vec(),
        };
        if array && !first {
            out.extend_from_slice(b",\n");
        }
        first = false;
        out.extend_from_slice(&bytes);
        if !array {
            out.push(b'\n');
        }
    }
    if array {
        out.extend_from_slice(b"\n]\n");
    }
    out
}

/// Whether the reader refuses `input` as binary data, which it does when
/// the first record is not text (here, `\xff\xfe` first): migration then
/// fails before writing anything, and there is nothing to compare.
fn refused(input: &[u8]) -> bool {
    match HistoryReader::new(input) {
        Ok(_) => false,
        Err(e) => {
            assert!(
                matches!(InputError::of(&e), Some(InputError::Binary { .. })),
                "{e}"
            );
            let mut out = Vec::new();
            assert!(migrate_history(input, &mut out, &MigrateOptions::default(), |_| {}).is_err());
            assert!(out.is_empty());
            true
        }
    }
}

fn migrate(input: &[u8]) -> (Vec<u8>, tool_carrier::migrate::MigrationReport) {
    let mut out = Vec::new();
    let report = migrate_history(input, &mut out, &MigrateOptions::default(), |_| {}).unwrap();
    (out, report)
}

/// Every record of a history: raw bytes and the message, if it is one.
type Seen = (Vec<u8>, Option<(String, String, std::ops::Range<usize>)>);

fn records(input: &[u8]) -> Vec<Seen> {
    let mut reader = HistoryReader::new(input).unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk().unwrap() {
        if let Chunk::Record(r) = chunk {
            let m = r
                .message
                .ok()
                .map(|m: Message| (m.role.into_owned(), m.content.into_owned(), m.content_span));
            out.push((r.raw.to_vec(), m));
        }
    }
    out
}

fn verbatim(input: &[u8]) -> Vec<Vec<u8>> {
    let mut reader = HistoryReader::new(input).unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk().unwrap() {
        if let Chunk::Verbatim(v) = chunk {
            out.push(v.to_vec());
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn migrating_twice_changes_nothing_more(recs in prop::collection::vec(record(), 0..12), array in any::<bool>()) {
        let input = render(&recs, array);
        prop_assume!(!refused(&input));
        let (once, _) = migrate(&input);
        let (twice, report) = migrate(&once);
        prop_assert_eq!(&twice, &once);
        prop_assert!(!report.changed());
    }

    #[test]
    fn every_record_reads_back_the_same(recs in prop::collection::vec(record(), 0..12), array in any::<bool>()) {
        let input = render(&recs, array);
        prop_assume!(!refused(&input));
        let (output, report) = migrate(&input);
        let before = records(&input);
        let after = records(&output);
        prop_assert_eq!(before.len(), after.len());
        prop_assert_eq!(report.records, before.len());
        prop_assert_eq!(verbatim(&input), verbatim(&output), "bytes between records are kept");
        let mut upgraded = 0;
        for ((raw_b, m_b), (raw_a, m_a)) in before.iter().zip(&after) {
            let (Some((role, content_b, span_b)), Some((role_a, content_a, span_a))) = (m_b, m_a) else {
                prop_assert_eq!(raw_b, raw_a, "a bad record passes through verbatim");
                continue;
            };
            prop_assert_eq!(role, role_a);
            // Outside the content literal, not a byte moves.
            prop_assert_eq!(&raw_b[..span_b.start], &raw_a[..span_a.start]);
            prop_assert_eq!(&raw_b[span_b.end..], &raw_a[span_a.end..]);
            let b = classify(role, content_b);
            let a = classify(role, content_a);
            prop_assert_eq!(b.is_some(), a.is_some());
            let (Some(b), Some(a)) = (b, a) else {
                prop_assert_eq!(raw_b, raw_a);
                continue;
            };
            prop_assert_eq!(&a.attachments, &b.attachments);
            if content_a == content_b {
                prop_assert_eq!(raw_b, raw_a, "an untouched record is byte-identical");
                continue;
            }
            upgraded += 1;
            prop_assert!(!b.declared && a.declared);
            let expected_body = match b.kind {
                CarrierKind::Native => b.body.as_ref(),
                CarrierKind::Prompt => {
                    let rest = b.body.strip_prefix("[Tool results]").unwrap();
                    rest.strip_prefix('\n').unwrap_or(rest)
                }
            };
            prop_assert_eq!(a.body.as_ref(), expected_body);
        }
        prop_assert_eq!(upgraded, report.upgraded());
    }
}
