//! Provider bodies of any shape (Anthropic, Chat Completions, Responses):
//! reading one back never panics, and what is accepted is a carrier
//! history: every tool message a declared native carrier with non-empty
//! targets, every assistant message either text or an envelope the
//! converter reads, and the history converts for the same provider. Every
//! reading accounts for what it read (its tally balances), with or without
//! `keep_unknown`, and so does the conversion; with images, the body
//! written in two passes is the body serialized in one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_carrier::import::{from_provider, ImportOptions};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::Carrier;
use tool_carrier::Role;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for provider in Provider::ALL {
        let keep = ImportOptions::new().with_keep_unknown(true);
        let kept = from_provider(provider, &value, &mut InlineStore, &keep);
        let Ok(history) = from_provider(
            provider,
            &value,
            &mut InlineStore,
            &ImportOptions::default(),
        ) else {
            if let Ok(kept) = kept {
                assert!(kept.tally.is_balanced(), "{:?}", kept.tally);
            }
            continue;
        };
        assert!(history.tally.is_balanced(), "{:?}", history.tally);
        // What reads without keeping unknown kinds reads the same with.
        assert_eq!(
            kept.map(|k| k.messages).ok().as_ref(),
            Some(&history.messages)
        );
        for record in &history.messages {
            let (role, content) = (record.role(), record.content());
            assert!(
                matches!(role, "system" | "user" | "assistant" | "tool"),
                "{role}"
            );
            // Only a user's record declares its own attachments, each whole.
            assert!(role == "user" || record.declared().is_empty(), "{role}");
            assert!(record
                .declared()
                .iter()
                .all(|a| a.as_ref().is_ok_and(|a| !a.target.is_empty())));
            if role == "tool" {
                let c = Carrier::read(Role::Tool, content).expect("a tool message is a carrier");
                assert!(c.is_declared(), "{content}");
                assert!(c.attachments().iter().all(|a| !a.target.is_empty()));
            }
        }
        // No file is read (no roots) and no tool is declared by name; with
        // vision on, the images it holds (data: URLs) are prepared and sent.
        // Either way the conversion balances and the body written in two
        // passes is its serialization in one.
        for options in [Options::new().with_vision(false), Options::new()] {
            if let Ok(request) = build_request(provider, &history.messages, &options) {
                assert!(
                    request.report.tally.is_balanced(),
                    "{:?}",
                    request.report.tally
                );
                assert_eq!(request.json(), request.body.to_json());
            }
        }
    }
});
