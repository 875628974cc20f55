//! Any bytes as a file to fit, read as each agent's transcript and by its
//! shape: fitting never panics; what it reports balances (every payload
//! kept, fitted or left out); the file written is as long as it says;
//! a file with nothing to change is written as it came; and fitting what
//! it wrote changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::fit::fit;
use tool_carrier::import::{Agent, Detected};
use tool_carrier::provider::{Options, Provider};

fuzz_target!(|data: &[u8]| {
    let options = Options::new();
    let froms = Agent::ALL.map(|a| Some(Detected::Agent(a)));
    for from in froms.into_iter().chain([None]) {
        let Ok(fitted) = fit(data, from, Provider::Anthropic, &options) else {
            continue;
        };
        let report = fitted.report();
        assert_eq!(
            report.kept() + report.fitted() + report.left_out(),
            report.items.len()
        );
        let out = fitted.to_vec();
        assert_eq!(out.len(), fitted.len());
        if !report.changes() {
            assert_eq!(out, data);
            continue;
        }
        let again = fit(&out, Some(report.format), Provider::Anthropic, &options)
            .expect("what fit wrote fits again");
        assert!(!again.report().changes(), "{}", again.report());
    }
});
