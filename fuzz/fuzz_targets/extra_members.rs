//! Extra members: any paths and JSON values never panic; a set `Extra`
//! accepts either fails the build with a reason (a member the crate owns
//! or writes, or one the API's SDK does not list) or gives a body that
//! holds every extra where its path says, every member the body had
//! without them, and passes every rule of the API.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_carrier::provider::{build_request, BuildError, Extra, Options, Provider};
use tool_carrier::rules::{check_json, Target};

/// `extra` merged into `base`, as the crate merges it, or `None` where
/// they conflict.
fn merged(base: &Value, extra: &Value) -> Option<Value> {
    match (base, extra) {
        (Value::Object(b), Value::Object(e)) => {
            let mut out = b.clone();
            for (k, v) in e {
                let m = match b.get(k) {
                    Some(old) => merged(old, v)?,
                    None => v.clone(),
                };
                out.insert(k.clone(), m);
            }
            Some(Value::Object(out))
        }
        (b, e) if b == e => Some(b.clone()),
        _ => None,
    }
}

fuzz_target!(|input: (u8, Vec<(String, String)>)| {
    let (which, pairs) = input;
    let mut extra = Extra::new();
    for (path, text) in pairs.iter().take(6) {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return;
        };
        match extra.clone().with(path, value) {
            Ok(e) => extra = e,
            Err(e) => {
                assert!(e.to_string().starts_with("extra member "));
                return;
            }
        }
    }
    let provider = Provider::ALL[which as usize % Provider::ALL.len()];
    let history = [("user", "Hi.")];
    let base = build_request(provider, &history, &Options::new())
        .unwrap()
        .body
        .to_value();
    match build_request(
        provider,
        &history,
        &Options::new().with_extra(extra.clone()),
    ) {
        Ok(request) => {
            let body: Value = serde_json::from_str(request.json()).unwrap();
            // Both through one write and one read (serde_json reads a long
            // float back to within a unit in the last place).
            let expected = merged(&base, extra.tree()).unwrap();
            let expected: Value =
                serde_json::from_str(&serde_json::to_string(&expected).unwrap()).unwrap();
            assert_eq!(body, expected);
            let again: Value = serde_json::from_str(&request.body.to_json()).unwrap();
            assert_eq!(again, body);
            let target = Target::of(&request);
            assert!(check_json(&target, request.json()).unwrap().is_empty());
        }
        Err(BuildError::Extra(_)) => {}
        Err(BuildError::Refused { violation, .. }) => {
            // Only what the extras added can be refused.
            let model = Options::new().model_for(provider).to_owned();
            let before = check_json(&Target::new(provider, &model), &base.to_string()).unwrap();
            assert!(!before.contains(&violation), "{violation}");
        }
        Err(BuildError::TooLarge { .. }) => {}
        Err(e) => panic!("{provider}: {e}"),
    }
});
