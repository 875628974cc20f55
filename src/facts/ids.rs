//! Reading model ids: what an id says of its model's family.
//!
//! Bedrock serves many model families behind one Converse API, and they
//! differ where this crate cares: only Anthropic Claude (3 and later) and
//! Amazon Nova take images and documents inside a `toolResult`; other
//! vision models refuse them there and get them right after the results
//! instead. Claude on Bedrock also takes Anthropic's typed tools (computer
//! use) through `additionalModelRequestFields`.
//!
//! A Bedrock model id is recognised by its family prefix, after any
//! cross-region inference profile prefix (`us.`, `eu.`, `apac.`, `global.`,
//! …) and, in an ARN, after the last `/`:
//!
//! An id the table does not recognise gets the placement every model
//! accepts (media after the results), unless
//! [`Options::with_family`](crate::provider::Options::with_family)
//! (`convert --family`) says which family it is.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A family of models with the same capabilities on Bedrock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Anthropic Claude 3 and later.
    Claude,
    /// Amazon Nova.
    Nova,
    /// Any other model (Llama, Mistral, Pixtral, Cohere, DeepSeek, …).
    Other,
}

impl Family {
    /// The names `--family` takes, in order.
    pub const NAMES: [&'static str; 3] = ["claude", "nova", "other"];

    /// Its `--family` name.
    pub fn name(self) -> &'static str {
        match self {
            Family::Claude => "claude",
            Family::Nova => "nova",
            Family::Other => "other",
        }
    }
}

impl Family {
    /// The family's name in the facts data (`[families.NAME]`; other
    /// models have no entry, so nothing is assumed of them).
    pub(crate) fn facts_name(self) -> &'static str {
        match self {
            Family::Claude => "claude",
            Family::Nova => "nova",
            Family::Other => "other",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A family name that is not one of [`Family::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown model family {0:?} (expected one of: claude, nova, other)")]
pub struct UnknownFamily(pub String);

impl FromStr for Family {
    type Err = UnknownFamily;
    fn from_str(s: &str) -> Result<Family, UnknownFamily> {
        match s {
            "claude" => Ok(Family::Claude),
            "nova" => Ok(Family::Nova),
            "other" => Ok(Family::Other),
            _ => Err(UnknownFamily(s.to_owned())),
        }
    }
}

/// Cross-region inference profile prefixes
/// (<https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html>,
/// read 2026-12-01).
const PROFILE_PREFIXES: &[&str] = &[
    "us.", "us-gov.", "eu.", "apac.", "au.", "jp.", "ca.", "global.",
];

/// A Bedrock model id's vendor and the model's own id, past its ARN and
/// inference-profile prefix.
fn bedrock_parts(model: &str) -> Option<(&str, &str)> {
    let id = if model.starts_with("arn:") {
        let (kind, id) = model.rsplit_once('/')?;
        if !(kind.ends_with(":foundation-model") || kind.ends_with(":inference-profile")) {
            return None;
        }
        id
    } else {
        model
    };
    let id = PROFILE_PREFIXES
        .iter()
        .find_map(|p| id.strip_prefix(p))
        .unwrap_or(id);
    let (vendor, name) = id.split_once('.')?;
    (!vendor.is_empty() && !name.is_empty()).then_some((vendor, name))
}

/// A Bedrock model id past its ARN, inference-profile prefix and vendor:
/// `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929-v1:0`.
pub fn bedrock_base_id(model: &str) -> Option<&str> {
    bedrock_parts(model).map(|(_, name)| name)
}

/// The family of a Bedrock model id (a base model id, a cross-region
/// inference profile id, or an ARN naming either); `None` when the id
/// does not say.
pub fn bedrock_family(model: &str) -> Option<Family> {
    let (vendor, name) = bedrock_parts(model)?;
    Some(match vendor {
        // Claude 2 and Instant take no images at all; they are long
        // retired and treated like any other model.
        "anthropic" if name.starts_with("claude-v2") || name.starts_with("claude-instant") => {
            Family::Other
        }
        "anthropic" => Family::Claude,
        "amazon" if name.starts_with("nova") => Family::Nova,
        _ => Family::Other,
    })
}

/// The major version of a Gemini model id (`gemini-3.8-flash` → 3,
/// `models/gemini-2.5-pro` → 2); `None` for anything else.
pub fn gemini_generation(model: &str) -> Option<u32> {
    model
        .trim_start_matches("models/")
        .strip_prefix("gemini-")?
        .split(['.', '-'])
        .next()?
        .parse()
        .ok()
}

/// Whether a Gemini model id is of Gemini 3 or later, the models that take
/// media in function responses and want thought signatures on their calls.
/// An id that names no generation (`gemini-flash-latest`, a tuned model)
/// counts as current: only ids that say 1.x or 2.x are older.
pub fn gemini_3_or_later(model: &str) -> bool {
    gemini_generation(model).is_none_or(|g| g >= 3)
}

/// How an API writes its model ids, and what an id says of its model's
/// family: an API's fact (`model_ids` in its `facts.toml`), so the facts
/// that match ids name no API.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ModelIds {
    /// The model's own id, which names no family.
    #[default]
    Plain,
    /// Bedrock's: an ARN, a cross-region prefix and a vendor around the
    /// model's own id; the vendor names the family ([`bedrock_family`]).
    Bedrock,
    /// Gemini's: an optional `models/` prefix; the generation names the
    /// family (`gemini-3` from 3 on, [`gemini_3_or_later`]).
    Gemini,
}

impl ModelIds {
    /// `id` past what the API writes around the model's own id.
    pub fn base(self, id: &str) -> &str {
        match self {
            ModelIds::Plain => id,
            ModelIds::Bedrock => bedrock_base_id(id).unwrap_or(id),
            ModelIds::Gemini => id.strip_prefix("models/").unwrap_or(id),
        }
    }

    /// The family (its name in the facts) that `id` names, if it names one.
    pub fn family(self, id: &str) -> Option<&'static str> {
        match self {
            ModelIds::Plain => None,
            ModelIds::Bedrock => match bedrock_family(id)? {
                Family::Other => None,
                family => Some(family.facts_name()),
            },
            ModelIds::Gemini => Some(if gemini_3_or_later(id) {
                "gemini-3"
            } else {
                "gemini-2"
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bedrock_ids_are_read_through_profiles_and_arns() {
        let cases = [
            (
                "anthropic.claude-3-5-sonnet-20240620-v1:0",
                Some(Family::Claude),
            ),
            (
                "global.anthropic.claude-opus-4-5-20251101-v1:0",
                Some(Family::Claude),
            ),
            ("eu.amazon.nova-lite-v1:0", Some(Family::Nova)),
            ("apac.amazon.nova-micro-v1:0", Some(Family::Nova)),
            ("amazon.titan-text-express-v1", Some(Family::Other)),
            ("mistral.pixtral-large-2502-v1:0", Some(Family::Other)),
            (
                "us.meta.llama4-maverick-17b-instruct-v1:0",
                Some(Family::Other),
            ),
            ("anthropic.claude-v2:1", Some(Family::Other)),
            (
                "arn:aws:bedrock:us-west-2:111122223333:inference-profile/us.amazon.nova-pro-v1:0",
                Some(Family::Nova),
            ),
            (
                "arn:aws:bedrock:us-west-2:111122223333:custom-model/abc",
                None,
            ),
            ("claude", None),
            ("", None),
            (".x", None),
        ];
        for (id, family) in cases {
            assert_eq!(bedrock_family(id), family, "{id}");
        }
    }

    #[test]
    fn family_names_round_trip() {
        for name in Family::NAMES {
            assert_eq!(name.parse::<Family>().unwrap().name(), name);
        }
        assert!("Claude".parse::<Family>().is_err());
    }

    #[test]
    fn the_documented_examples() {
        use crate::facts::Family;
        assert_eq!(
            bedrock_family("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            Some(Family::Claude)
        );
        assert_eq!(bedrock_family("amazon.nova-pro-v1:0"), Some(Family::Nova));
        assert_eq!(
            bedrock_family("meta.llama3-2-90b-instruct-v1:0"),
            Some(Family::Other)
        );
        assert_eq!(
            bedrock_family("arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0"),
            Some(Family::Claude)
        );
        // An application inference profile says nothing of its model.
        assert_eq!(
            bedrock_family(
                "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc123"
            ),
            None
        );
        assert_eq!(
            bedrock_base_id("global.amazon.nova-pro-v1:0"),
            Some("nova-pro-v1:0")
        );
        assert_eq!(bedrock_base_id("claude"), None);
        assert_eq!(gemini_generation("gemini-3.1-pro-preview"), Some(3));
        assert_eq!(gemini_generation("models/gemini-2.5-flash-lite"), Some(2));
        assert_eq!(gemini_generation("gemma-3-27b"), None);
        assert!(gemini_3_or_later("gemini-3.8-flash"));
        assert!(gemini_3_or_later("gemini-flash-latest"));
        assert!(!gemini_3_or_later("gemini-2.5-flash-lite"));
        assert_eq!(
            ModelIds::Bedrock.base("us.anthropic.claude-sonnet-4-5-v1:0"),
            "claude-sonnet-4-5-v1:0"
        );
        assert_eq!(
            ModelIds::Gemini.base("models/gemini-3.8-flash"),
            "gemini-3.8-flash"
        );
        assert_eq!(ModelIds::Plain.base("models/x"), "models/x");
        assert_eq!(
            ModelIds::Bedrock.family("amazon.nova-pro-v1:0"),
            Some("nova")
        );
        assert_eq!(
            ModelIds::Bedrock.family("meta.llama3-2-90b-instruct-v1:0"),
            None
        );
        assert_eq!(
            ModelIds::Gemini.family("gemini-2.5-flash"),
            Some("gemini-2")
        );
        assert_eq!(ModelIds::Plain.family("claude-sonnet-4-6"), None);
    }
}
