//! Migration of arbitrary histories: idempotent, the bytes between records
//! kept, and every record reads back with the same body and attachments.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::history::{Chunk, HistoryReader};
use tool_carrier::migrate::{migrate_history, MigrateOptions};
use tool_carrier::{classify, CarrierKind};

fn migrate(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    migrate_history(data, &mut out, &MigrateOptions::default(), |_| {}).unwrap();
    out
}

type Rec = (Vec<u8>, Option<(String, String)>);

fn split(data: &[u8]) -> (Vec<Vec<u8>>, Vec<Rec>) {
    let mut reader = HistoryReader::new(data).unwrap();
    let (mut verbatim, mut records) = (Vec::new(), Vec::new());
    while let Some(chunk) = reader.next_chunk().unwrap() {
        match chunk {
            Chunk::Verbatim(v) => verbatim.push(v.to_vec()),
            Chunk::Record(r) => {
                let m = r
                    .message
                    .ok()
                    .map(|m| (m.role.into_owned(), m.content.into_owned()));
                records.push((r.raw.to_vec(), m));
            }
        }
    }
    (verbatim, records)
}

fuzz_target!(|data: &[u8]| {
    // Binary data (a first record that is not text) is refused before any
    // record; the history fuzz target checks that.
    if HistoryReader::new(data).is_err() {
        return;
    }
    let once = migrate(data);
    assert_eq!(migrate(&once), once, "migrating twice changes nothing");
    let (vb, rb) = split(data);
    let (va, ra) = split(&once);
    assert_eq!(vb, va);
    assert_eq!(rb.len(), ra.len());
    for ((raw_b, mb), (raw_a, ma)) in rb.iter().zip(&ra) {
        let (Some((role, cb)), Some((role_a, ca))) = (mb, ma) else {
            assert_eq!(raw_b, raw_a);
            continue;
        };
        assert_eq!(role, role_a);
        if cb == ca {
            assert_eq!(raw_b, raw_a);
            continue;
        }
        let b = classify(role, cb).unwrap();
        let a = classify(role, ca).unwrap();
        assert!(!b.declared && a.declared);
        assert_eq!(a.attachments, b.attachments);
        let body = match b.kind {
            CarrierKind::Native => b.body.as_ref(),
            CarrierKind::Prompt => {
                let rest = b.body.strip_prefix("[Tool results]").unwrap();
                rest.strip_prefix('\n').unwrap_or(rest)
            }
        };
        assert_eq!(a.body, body);
    }
});
