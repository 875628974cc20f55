//! Any bytes as an agent's transcript, for every agent's reader and for
//! `--from auto`: reading never panics; what is read balances (every
//! part sent, noted or refused), each tool message is a declared
//! carrier, each payload span lies inside the input and holds no quote,
//! and the history converts for Anthropic with its own tally balanced.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::import::{from_agent, read_auto, Agent, ImportOptions, ImportedHistory};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::Carrier;
use tool_carrier::Role;

fn check(data: &[u8], history: &ImportedHistory) {
    assert!(history.tally.is_balanced(), "{:?}", history.tally);
    for record in &history.messages {
        let role = record.role();
        assert!(role == "user" || record.declared().is_empty(), "{role}");
        if role == "tool" {
            let c =
                Carrier::read(Role::Tool, record.content()).expect("a tool message is a carrier");
            assert!(c.is_declared(), "{}", record.content());
        }
    }
    for payload in &history.payloads {
        let (start, end) = (payload.span.start as usize, payload.span.end as usize);
        assert!(start <= end && end <= data.len(), "{payload:?}");
        assert!(!data[start..end].contains(&b'"'), "{payload:?}");
    }
    if let Ok(request) = build_request(
        Provider::Anthropic,
        &history.messages,
        &Options::new().with_vision(false),
    ) {
        assert!(
            request.report.tally.is_balanced(),
            "{:?}",
            request.report.tally
        );
    }
}

fuzz_target!(|data: &[u8]| {
    for agent in Agent::ALL {
        let mut input = data;
        if let Ok(history) = from_agent(agent, &mut input, &mut InlineStore, &ImportOptions::new())
        {
            check(data, &history);
        }
    }
    let mut input = data;
    if let Ok(read) = read_auto(&mut input, &mut InlineStore, &ImportOptions::new()) {
        check(data, &read.history);
    }
});
