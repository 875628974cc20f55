//! The rules a provider's API enforces that its SDK types cannot see,
//! checked on a serialized request body.
//!
//! An SDK's request types say which members exist and what type each
//! has. They do not say that a request holding `tool_use` blocks must
//! declare `tools`, that each call is answered in the very next message,
//! that a Bedrock request takes at most 20 images, or that a model only
//! takes images inside tool results for some model families. A body can
//! pass every type and still be refused. [`check`] runs every such rule
//! this crate knows for a provider over a body and lists what it breaks.
//!
//! Each [`Rule`] says where it comes from ([`Rule::source`], with the date
//! it was read) and how it is known ([`Basis`]): documented by the
//! provider, or observed (an error the API returns that its docs do not
//! list, as quoted in users' reports), or kept as a precaution where
//! another API enforces the same thing. Rules this crate keeps for its own
//! reasons (joining consecutive turns, a text block before each moved
//! attachment) are not here; they are tested where they are made.
//!
//! The checks read the JSON, not the crate's builders, so a change in how
//! bodies are built cannot slip past them; the crate's own tests run them
//! on every body they produce.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tool_carrier::provider::Provider;
//! use tool_carrier::rules::{check, Target};
//!
//! let body = json!({
//!     "model": "claude-sonnet-5", "max_tokens": 1024,
//!     "messages": [
//!         {"role": "user", "content": "Look."},
//!         {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "screenshot", "input": {}}]},
//!         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "done"}]}
//!     ]
//! });
//! let broken = check(&Target::new(Provider::Anthropic, "claude-sonnet-5"), &body);
//! assert_eq!(broken[0].rule.id, "anthropic/tools-declared");
//! assert!(broken[0].to_string().contains("must define tools"));
//! ```

use crate::apis::api;
use crate::facts::Provider;
use crate::json::scan::Vouched;
use crate::json::tree::Json as Value;
use crate::steps::rule::Out;

pub use crate::steps::rule::{Basis, Rule, Target, Violation};

/// Every rule checked for `provider`.
pub fn rules(provider: Provider) -> &'static [&'static Rule] {
    api(provider).rules
}

/// Check `body` against every rule of `target`'s API; empty when it
/// breaks none.
pub fn check(target: &Target<'_>, body: &serde_json::Value) -> Vec<Violation> {
    check_tree(target, &Value::from_value(body))
}

/// [`check`] on the body as the rules read it.
fn check_tree(target: &Target<'_>, body: &Value<'_>) -> Vec<Violation> {
    let mut out = Out::default();
    (api(target.provider).check)(target, body, &mut out);
    out.0
}

/// [`check`] on serialized JSON: what is checked is exactly what is sent,
/// and the body's size is the size of this text. The text is read once,
/// its strings (payloads included) borrowed rather than copied, so the
/// check of a large body costs a fraction of writing it.
///
/// # Errors
/// The text is not JSON.
pub fn check_json(target: &Target<'_>, json: &str) -> Result<Vec<Violation>, serde_json::Error> {
    check_vouched(target, json, &[])
}

/// [`check_json`] of a body whose payload strings `vouched` are the
/// crate's own writing, taken as it vouches for them: the scan reading
/// the body does not read them again (the rules still measure each and
/// read its head).
pub(crate) fn check_vouched(
    target: &Target<'_>,
    json: &str,
    vouched: &[Vouched],
) -> Result<Vec<Violation>, serde_json::Error> {
    let (body, alphabet) = Value::read_vouched(json, vouched)?;
    let mut violations =
        crate::steps::rule::with_alphabet_known(json, alphabet, || check_tree(target, &body));
    if let Some((rule, limit)) = size_limit(target) {
        if json.len() > limit {
            violations.push(Violation {
                rule,
                at: "$".into(),
                detail: format!("the body is {} bytes, over {limit}", json.len()),
            });
        }
    }
    Ok(violations)
}

/// The most bytes a body for `target` may have, and the rule that says so;
/// `None` where the API states no limit.
///
/// ```
/// use tool_carrier::provider::Provider;
/// use tool_carrier::rules::{size_limit, Target};
/// let (rule, limit) = size_limit(&Target::new(Provider::Anthropic, "claude-sonnet-5")).unwrap();
/// assert_eq!((rule.id, limit), ("anthropic/request-size", 32_000_000));
/// assert!(size_limit(&Target::new(Provider::Ollama, "qwen3-vl")).is_none());
/// ```
pub fn size_limit(target: &Target<'_>) -> Option<(&'static Rule, usize)> {
    let rule = (api(target.provider).request_size)(target)?;
    let limit = target.facts.api(target.provider).request_bytes?;
    Some((rule, usize::try_from(limit).unwrap_or(usize::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_id_is_unique_and_names_its_provider() {
        let mut seen = std::collections::HashSet::new();
        for p in Provider::ALL {
            for rule in rules(p) {
                assert!(
                    seen.insert(rule.id) || matches!(p, Provider::Gemini2),
                    "{}",
                    rule.id
                );
                let prefix = rule.id.split('/').next().unwrap();
                assert!(p.name().starts_with(prefix), "{} under {p}", rule.id);
                assert!(rule.source.starts_with("https://"), "{}", rule.id);
                assert!(rule.read.starts_with("20"), "{}", rule.id);
            }
        }
    }

    #[test]
    fn the_size_of_the_serialized_body_is_checked() {
        let target = Target::new(Provider::Bedrock, "anthropic.claude-3-haiku-20240307-v1:0");
        let big = format!(
            r#"{{"messages":[{{"role":"user","content":[{{"text":"{}"}}]}}]}}"#,
            "x".repeat(20_000_001)
        );
        let v = check_json(&target, &big).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].rule.id, "bedrock/request-size");
        assert!(check_json(&target, "{").is_err());
    }
}
