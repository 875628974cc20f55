//! The machinery of the API rules: what a rule is, what breaking one
//! says, what a body is checked for, and the readers every API's rules
//! share. Each API's own rules are in its folder (`apis/NAME/rules.rs`);
//! [`crate::rules`] runs them.

use std::fmt;

use crate::facts::{Facts, Family, Profile, Provider};
use crate::json::tree::Json as Value;
use crate::steps::path::{Path, ROOT};

pub(crate) use super::payload::{data_url, decoded_len, image_b64, with_alphabet_known};

/// How a rule is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// The provider's documentation states it.
    Documented,
    /// The API enforces it (an error users quote) but its documentation
    /// does not state it.
    Observed,
    /// Neither documented nor reported for this API, but documented or
    /// observed for another, and cheap to keep: a body that keeps it is
    /// accepted either way.
    Prudent,
}

/// One rule of one API.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// A stable identifier, `provider/what`.
    pub id: &'static str,
    /// What the API demands, in a sentence (for an observed rule, the
    /// error it answers with).
    pub says: &'static str,
    /// Where it is written or reported.
    pub source: &'static str,
    /// When that source was read.
    pub read: &'static str,
    /// How it is known.
    pub basis: Basis,
}

/// A rule a body breaks, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: &'static Rule,
    /// Where in the body, as a JSON path (`$.messages[2].content[0]`).
    pub at: String,
    /// What is wrong there.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {}: {} ({}; {})",
            self.rule.id, self.at, self.detail, self.rule.says, self.rule.source
        )
    }
}

/// What a body is checked for: a provider, the model (Bedrock and Gemini
/// name it in the URL, not the body), and the model family when the id
/// does not say ([`Options::with_family`](crate::provider::Options::with_family)).
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The provider.
    pub provider: Provider,
    /// The model id.
    pub model: &'a str,
    /// The model's family, when given.
    pub family: Option<Family>,
    /// The server's profile, for [`Provider::OpenAiCompatible`] (the
    /// generic one when not given).
    pub profile: Option<&'a Profile>,
    /// The facts the limits are read from (the built-in ones unless
    /// given).
    pub facts: &'a Facts,
}

impl<'a> Target<'a> {
    /// `provider` and `model`, the family read from the model id.
    pub fn new(provider: Provider, model: &'a str) -> Target<'a> {
        Target {
            provider,
            model,
            family: None,
            profile: None,
            facts: Facts::builtin(),
        }
    }

    /// With the limits read from `facts`.
    pub fn with_facts(self, facts: &'a Facts) -> Target<'a> {
        Target { facts, ..self }
    }

    /// With the OpenAI-compatible server's profile given.
    pub fn with_profile(self, profile: &'a Profile) -> Target<'a> {
        Target {
            profile: Some(profile),
            ..self
        }
    }

    /// With the model's family given.
    pub fn with_family(self, family: Family) -> Target<'a> {
        Target {
            family: Some(family),
            ..self
        }
    }
}

/// One rule of an API, as a static: `rule!(NAME, "api/id", "what it
/// says", SOURCE, Basis)`; the date it was read is the calling file's
/// `READ`, or the date given last (`rule!(…, Basis, "2026-12-06")`).
macro_rules! rule {
    ($name:ident, $id:expr, $says:expr, $source:expr, $basis:ident) => {
        $crate::steps::rule::rule!($name, $id, $says, $source, $basis, READ);
    };
    ($name:ident, $id:expr, $says:expr, $source:expr, $basis:ident, $read:expr) => {
        pub(crate) static $name: $crate::steps::rule::Rule = $crate::steps::rule::Rule {
            id: $id,
            says: $says,
            source: $source,
            read: $read,
            basis: $crate::steps::rule::Basis::$basis,
        };
    };
}
pub(crate) use rule;

/// The violations found so far.
#[derive(Default)]
pub(crate) struct Out(pub(crate) Vec<Violation>);

impl Out {
    pub(crate) fn push(
        &mut self,
        rule: &'static Rule,
        at: impl Into<String>,
        detail: impl Into<String>,
    ) {
        self.0.push(Violation {
            rule,
            at: at.into(),
            detail: detail.into(),
        });
    }
}

// ---- helpers the provider files share ----

/// `value[key]` as an array, or empty.
pub(crate) fn array<'v, 'a>(value: &'v Value<'a>, key: &str) -> &'v [Value<'a>] {
    value.get(key).and_then(Value::as_array).unwrap_or(&[])
}

/// `value[key]` as a string.
pub(crate) fn string<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// The tool calls of the message a `tool` message at `m` answers: the
/// nearest message before it that is not a `tool` message (OpenAI Chat and
/// Ollama put a batch's results right after its calls).
pub(crate) fn calls_answered_at<'v, 'a>(messages: &'v [Value<'a>], m: usize) -> &'v [Value<'a>] {
    messages[..m]
        .iter()
        .rev()
        .find(|p| string(p, "role") != Some("tool"))
        .map_or(&[], |p| array(p, "tool_calls"))
}

/// Each member of the body that its API's SDK does not list (`members`,
/// an API's `Spec::members`, and the members it writes beside them,
/// `also`): one violation each, at the object that holds it.
pub(crate) fn members_listed(
    rule: &'static Rule,
    members: Option<(&crate::steps::members::Members, &str)>,
    also: &[(&str, &str)],
    body: &Value,
    out: &mut Out,
) {
    let Some((members, sdk)) = members else {
        return;
    };
    use crate::steps::members::Finding;
    for (path, name, finding) in crate::steps::members::unlisted(members, also, body) {
        let detail = match finding {
            Finding::Unlisted => {
                format!("`{name}` is not a member the request types of {sdk} list")
            }
            Finding::NotAnObject => {
                format!("`{name}` is an object in the request types of {sdk}, and this is none")
            }
        };
        let at = if path.is_empty() {
            "$".to_owned()
        } else {
            format!("$.{path}")
        };
        out.push(rule, at, detail);
    }
}

/// `body[key]` holds at least one message and at most `max`: a request
/// with no conversation is refused (or, at Ollama, only loads the model).
pub(crate) fn message_count(
    rule: &'static Rule,
    body: &Value,
    key: &str,
    max: usize,
    out: &mut Out,
) {
    let n = array(body, key).len();
    if n == 0 {
        out.push(
            rule,
            at("$", key),
            format!("no {key}: the request holds no conversation"),
        );
    } else if n > max {
        out.push(rule, at("$", key), format!("{n} {key}, over {max}"));
    }
}

/// Whether `s` is 1 to `max` characters, each `allowed`.
pub(crate) fn fits(s: &str, max: usize, allowed: fn(char) -> bool) -> bool {
    let n = s.chars().count();
    (1..=max).contains(&n) && s.chars().all(allowed)
}

/// `[a-zA-Z0-9_-]`.
pub(crate) fn word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `value[key]`, when present, is a number from `min` to `max`
/// (a generation setting's documented range).
pub(crate) fn in_range(
    rule: &'static Rule,
    value: &Value,
    base: &str,
    key: &str,
    (min, max): (f64, f64),
    out: &mut Out,
) {
    match value.get(key) {
        None => {}
        Some(Value::Number(n)) if (min..=max).contains(n) => {}
        Some(Value::Number(n)) => out.push(
            rule,
            at(base, key),
            format!("{key} is {n}, outside {min} to {max}"),
        ),
        Some(_) => out.push(rule, at(base, key), format!("{key} is not a number")),
    }
}

/// The output-token setting at `path` (members from the body's top) is
/// at most the model's documented output limit, where the facts hold one
/// (`max_output`, each with the page it was read on).
pub(crate) fn output_cap(
    rule: &'static Rule,
    target: &Target<'_>,
    body: &Value,
    path: &[&str],
    out: &mut Out,
) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut value = body;
    for key in parents {
        match value.get(key) {
            Some(v) => value = v,
            None => return,
        }
    }
    let Some(given) = number(value, last) else {
        return;
    };
    let Some(model) = target.facts.model(target.provider, target.model) else {
        return;
    };
    if let Some(cap) = model.max_output.filter(|&cap| given > cap as f64) {
        let at = std::iter::once("$")
            .chain(path.iter().copied())
            .collect::<Vec<_>>();
        out.push(
            rule,
            at.join("."),
            format!("{given} over the {cap}-token output limit of {}", model.id),
        );
    }
}

/// Every PDF payload of `value` with its path: a string of base64 that
/// decodes to `%PDF-` (bare, or a `data:application/pdf;base64,` URL),
/// wherever the API puts it. Only strings that open as a PDF's base64
/// does (`JVBERi0`) are decoded.
pub(crate) fn pdf_payloads(value: &Value, path: Path<'_>, out: &mut Vec<(String, Vec<u8>)>) {
    use base64::Engine;
    match value {
        Value::String(s) => {
            let b64 = s.strip_prefix("data:application/pdf;base64,").unwrap_or(s);
            if b64.starts_with("JVBERi0") {
                if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(b64) {
                    out.push((path.to_string(), bytes));
                }
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                pdf_payloads(v, path.key(k), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pdf_payloads(v, path.index(i), out);
            }
        }
        _ => {}
    }
}

/// The PDFs of `body` hold at most the request's page limit for
/// `target` ([`Facts::max_pages`](crate::facts::Facts::max_pages)), all
/// together; with `encrypted`, none is encrypted.
pub(crate) fn pdf_limits(
    pages_rule: &'static Rule,
    encrypted: Option<&'static Rule>,
    target: &Target<'_>,
    body: &Value,
    out: &mut Out,
) {
    let mut pdfs = Vec::new();
    pdf_payloads(body, ROOT, &mut pdfs);
    if pdfs.is_empty() {
        return;
    }
    let max = target.facts.max_pages(
        target.provider,
        target.model,
        target.family.map(crate::facts::Family::facts_name),
    );
    let mut pages = 0usize;
    for (path, bytes) in &pdfs {
        let info = crate::media::pdf_info(bytes);
        if let (true, Some(rule)) = (info.encrypted, encrypted) {
            out.push(rule, path.clone(), "an encrypted PDF");
        }
        pages = pages.saturating_add(info.pages.map_or(0, |n| n as usize));
        if pages > max {
            out.push(
                pages_rule,
                path.clone(),
                format!("{pages} PDF pages up to here, over the {max} a request takes"),
            );
            return;
        }
    }
}

/// `value[key]`, when present, as a number.
pub(crate) fn number(value: &Value, key: &str) -> Option<f64> {
    match value.get(key) {
        Some(Value::Number(n)) => Some(*n),
        _ => None,
    }
}

/// A JSON path segment.
pub(crate) fn at(base: &str, key: &str) -> String {
    format!("{base}.{key}")
}

/// A JSON path index.
pub(crate) fn idx(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// The paths of every object in `value` that has a member `key`, depth
/// first (for marks that may sit at any level, such as cache breakpoints).
/// An object's members are visited in key order, as a
/// `serde_json::Value` holds them, so a rule that names the fifth mark
/// names the same one whichever form the body was checked in.
pub(crate) fn members_named<'v, 'a>(
    value: &'v Value<'a>,
    key: &str,
    path: Path<'_>,
    out: &mut Vec<(String, &'v Value<'a>)>,
) {
    let mut member = |k: &str, v: &'v Value<'a>| {
        let here = path.key(k);
        if k == key {
            out.push((here.to_string(), v));
        }
        members_named(v, key, here, out);
    };
    match value {
        Value::Object(map) if map.into_iter().is_sorted_by(|a, b| a.0 <= b.0) => {
            for (k, v) in map {
                member(k, v);
            }
        }
        Value::Object(map) => {
            let mut members: Vec<(&str, &Value<'a>)> = map.into_iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            for (k, v) in members {
                member(k, v);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                members_named(v, key, path.index(i), out);
            }
        }
        _ => {}
    }
}
