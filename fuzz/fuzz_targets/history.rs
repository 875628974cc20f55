//! Histories of arbitrary bytes: the chunks give back the input byte for
//! byte, each message's owned record writes back what reads as itself,
//! and inspect writes one valid JSON object a record; or the input
//! is refused as binary data (or for its byte order mark) before any
//! record, by every reader.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::history::{Chunk, HistoryReader, InputError, Record};

fuzz_target!(|data: &[u8]| {
    let mut reader = match HistoryReader::new(data) {
        Ok(reader) => reader,
        Err(e) => {
            let Some(InputError::Binary { at } | InputError::ByteOrderMark { at }) =
                InputError::of(&e)
            else {
                panic!("{e}");
            };
            assert!((*at as usize) < data.len());
            let mut out = Vec::new();
            assert!(tool_carrier::inspect::write_json(data, &mut out, |_| {}).is_err());
            assert!(out.is_empty());
            return;
        }
    };
    let mut copy = Vec::with_capacity(data.len());
    let mut records = 0;
    while let Some(chunk) = reader.next_chunk().unwrap() {
        match chunk {
            Chunk::Verbatim(v) => copy.extend_from_slice(v),
            Chunk::Record(r) => {
                assert_eq!(r.index, records);
                records += 1;
                copy.extend_from_slice(r.raw);
                let line = tool_carrier::inspect::InspectLine::of(&r);
                let json = serde_json::to_string(&line).unwrap();
                assert!(json.starts_with("{\"index\":"));
                if let Ok(m) = &r.message {
                    let literal = &r.raw[m.content_span.clone()];
                    assert_eq!(literal.first(), Some(&b'"'));
                    assert_eq!(literal.last(), Some(&b'"'));
                    // The owned record writes back what reads as itself,
                    // its attachments a user's and an array.
                    let raw = std::str::from_utf8(r.raw).unwrap();
                    let record = Record::parse(raw).unwrap();
                    assert_eq!(Record::parse(&record.to_json()).as_ref(), Ok(&record));
                    if let Some(span) = &m.attachments {
                        assert_eq!(m.role, "user");
                        assert_eq!(r.raw[span.start], b'[');
                    }
                }
            }
        }
    }
    assert_eq!(copy, data);
    assert_eq!(reader.consumed(), data.len() as u64);

    let mut out = Vec::new();
    let summary = tool_carrier::inspect::write_json(data, &mut out, |_| {}).unwrap();
    assert_eq!(summary.records, records);
    let text = std::str::from_utf8(&out).expect("inspect writes UTF-8");
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).expect("inspect writes JSON");
        assert_eq!(v["index"], i);
    }
});
