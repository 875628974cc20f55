//! Native envelopes: rebuild with the parsed values is the identity; a
//! rebuild with new values reads back as them and keeps every other member
//! byte for byte.
#![no_main]

use std::fmt;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use tool_carrier::{
    parse_native_tool_carrier, rebuild_carrier, Attachment, AttachmentKind, RebuildError,
};

#[derive(Debug, Arbitrary)]
struct Input<'a> {
    content: &'a str,
    new_body: Option<&'a str>,
    new_attachments: Vec<(u8, &'a str)>,
}

/// Every member of an object as (key, raw value text), in order.
struct Members(Vec<(String, String)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    let v: &RawValue = map.next_value()?;
                    out.push((k, v.get().to_owned()));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn others(text: &str) -> Vec<(String, String)> {
    let Members(all) = serde_json::from_str(text).expect("an object");
    all.into_iter()
        .filter(|(k, _)| k != "content" && k != "attachments")
        .collect()
}

fuzz_target!(|input: Input<'_>| {
    let parts = parse_native_tool_carrier(input.content);
    let original_body = parts.body.clone().into_owned();
    let was_declared = parts.declared;
    let same = rebuild_carrier("tool", input.content, &parts, &parts.attachments);
    if was_declared {
        assert_eq!(
            same.as_deref(),
            Ok(input.content),
            "identity on declared envelopes"
        );
    }
    let mut parts = parts;
    if let Some(b) = input.new_body {
        parts.body = b.into();
    }
    let atts: Vec<Attachment<'_>> = input
        .new_attachments
        .iter()
        .map(|&(k, t)| {
            let a = Attachment::new(AttachmentKind::ALL[usize::from(k) % 4], t);
            // Some records carry a name (the target's text again).
            if k & 4 != 0 {
                a.with_name(t)
            } else {
                a
            }
        })
        .collect();
    match rebuild_carrier("tool", input.content, &parts, &atts) {
        Ok(out) => {
            let back = parse_native_tool_carrier(&out);
            assert!(back.declared);
            assert_eq!(back.body, parts.body);
            assert_eq!(back.attachments, atts);
            assert_eq!(others(input.content), others(&out), "other members kept");
        }
        Err(RebuildError::NotAnEnvelope { .. }) => {
            assert!(!was_declared && original_body == input.content);
        }
        Err(RebuildError::Render(_)) => assert!(atts.iter().any(|a| a.target.is_empty())),
        Err(e) => panic!("{e}"),
    }
});
