//! What depends on the model, not only on the provider.
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
//! ```
//! use tool_carrier::provider::model::bedrock_family;
//! use tool_carrier::provider::Family;
//!
//! assert_eq!(bedrock_family("us.anthropic.claude-sonnet-4-5-20250929-v1:0"), Some(Family::Claude));
//! assert_eq!(bedrock_family("amazon.nova-pro-v1:0"), Some(Family::Nova));
//! assert_eq!(bedrock_family("meta.llama3-2-90b-instruct-v1:0"), Some(Family::Other));
//! assert_eq!(
//!     bedrock_family("arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0"),
//!     Some(Family::Claude)
//! );
//! // An application inference profile says nothing of its model.
//! assert_eq!(bedrock_family("arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc123"), None);
//! ```
//!
//! An id the table does not recognise gets the placement every model
//! accepts (media after the results), unless
//! [`Options::with_family`](super::Options::with_family) (`convert
//! --family`) says which family it is.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::attach::Limits;
use super::declare::TypedTools;
use super::Provider;

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

/// The family of a Bedrock model id (a base model id, a cross-region
/// inference profile id, or an ARN naming either); `None` when the id
/// does not say.
pub fn bedrock_family(model: &str) -> Option<Family> {
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
    if vendor.is_empty() || name.is_empty() {
        return None;
    }
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

/// Claude models with a 1M-token context window (the others have 200k),
/// from <https://platform.claude.com/docs/en/about-claude/models/overview>,
/// read 2026-12-01. An id is matched by prefix, so dated and platform
/// forms (`claude-opus-4-6-v1`) count too.
const MILLION_CONTEXT: &[&str] = &[
    "claude-fable-5",
    // "shares Claude Fable 5's specifications" (models/fable-5/overview,
    // read 2026-12-01); AWS's model card says "Context window: 1M tokens".
    "claude-mythos-5",
    "claude-opus-5",
    "claude-sonnet-5",
    "claude-opus-4-8",
    "claude-opus-4-7",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
];

/// Whether a Claude model id names a 1M-token-context model.
///
/// ```
/// use tool_carrier::provider::model::anthropic_million_context;
/// assert!(anthropic_million_context("claude-sonnet-5"));
/// assert!(!anthropic_million_context("claude-sonnet-4-5-20250929"));
/// ```
pub fn anthropic_million_context(model: &str) -> bool {
    MILLION_CONTEXT.iter().any(|m| model.starts_with(m))
}

/// The major version of a Gemini model id (`gemini-3.8-flash` → 3,
/// `models/gemini-2.5-pro` → 2); `None` for anything else.
///
/// ```
/// use tool_carrier::provider::model::gemini_generation;
/// assert_eq!(gemini_generation("gemini-3.1-pro-preview"), Some(3));
/// assert_eq!(gemini_generation("models/gemini-2.5-flash-lite"), Some(2));
/// assert_eq!(gemini_generation("gemma-3-27b"), None);
/// ```
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
///
/// ```
/// use tool_carrier::provider::model::gemini_3_or_later;
/// assert!(gemini_3_or_later("gemini-3.8-flash"));
/// assert!(gemini_3_or_later("gemini-flash-latest"));
/// assert!(!gemini_3_or_later("gemini-2.5-flash-lite"));
/// ```
pub fn gemini_3_or_later(model: &str) -> bool {
    gemini_generation(model).is_none_or(|g| g >= 3)
}

/// What one model takes, as far as the request body is concerned.
#[derive(Clone, Debug)]
pub(crate) struct Facts {
    /// Whether images and documents may sit inside a tool result.
    pub media_in_tool_result: bool,
    /// How Anthropic's typed tools are declared.
    pub typed_tools: TypedTools,
    /// What one request may carry.
    pub limits: Cow<'static, Limits>,
    /// Whether the model caches prompts only at marks the request places:
    /// Anthropic (`cache_control`) and Claude on Bedrock (`cachePoint`;
    /// <https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html>,
    /// read 2026-12-01). OpenAI and Gemini cache prefixes on their own.
    pub cache_marks: bool,
    /// Whether the model takes images at all (an OpenAI-compatible
    /// server's profile may say not; documents are apart).
    pub vision: bool,
}

impl Facts {
    /// The facts for `model` at `provider`; `family` overrides what the
    /// model id says.
    pub fn of(provider: Provider, model: &str, family: Option<Family>) -> Facts {
        let bedrock_claude = provider == Provider::Bedrock
            && family.or_else(|| bedrock_family(model)) == Some(Family::Claude);
        let (media_in_tool_result, typed_tools) = match provider {
            Provider::Bedrock => {
                let family = family.or_else(|| bedrock_family(model));
                let typed = if family == Some(Family::Claude) {
                    TypedTools::InExtraFields
                } else {
                    TypedTools::AsFunctions
                };
                (matches!(family, Some(Family::Claude | Family::Nova)), typed)
            }
            Provider::Anthropic => (true, TypedTools::AsThemselves),
            Provider::OpenAiResponses => (true, TypedTools::AsFunctions),
            // Media in a function response: Gemini 3 and later only
            // (https://ai.google.dev/gemini-api/docs/function-calling,
            // "Multimodal function responses", read 2026-12-01).
            // An id that names no generation (an alias such as
            // `gemini-flash-latest`, a tuned model) is taken as current.
            Provider::Gemini => (gemini_3_or_later(model), TypedTools::AsFunctions),
            Provider::OpenAiChat
            | Provider::Gemini2
            | Provider::Ollama
            | Provider::OpenAiCompatible => (false, TypedTools::AsFunctions),
        };
        Facts {
            media_in_tool_result,
            typed_tools,
            limits: Cow::Borrowed(provider.limits_for(model)),
            cache_marks: provider == Provider::Anthropic || bedrock_claude,
            vision: true,
        }
    }

    /// The facts an OpenAI-compatible server's profile states.
    pub fn compatible(profile: &super::Profile) -> Facts {
        Facts {
            media_in_tool_result: profile.images_in_tool_messages,
            typed_tools: TypedTools::AsFunctions,
            limits: Cow::Owned(profile.limits()),
            cache_marks: false,
            vision: profile.vision && profile.writes_images(),
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
    fn only_claude_and_nova_keep_media_inside_tool_results() {
        let facts = |m: &str, f| Facts::of(Provider::Bedrock, m, f);
        assert!(facts("us.anthropic.claude-sonnet-4-5-20250929-v1:0", None).media_in_tool_result);
        assert!(facts("amazon.nova-pro-v1:0", None).media_in_tool_result);
        assert!(!facts("meta.llama3-2-90b-instruct-v1:0", None).media_in_tool_result);
        assert!(
            !facts(
                "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
                None
            )
            .media_in_tool_result
        );
        assert!(
            facts(
                "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
                Some(Family::Claude)
            )
            .media_in_tool_result
        );
        assert!(!facts("amazon.nova-pro-v1:0", Some(Family::Other)).media_in_tool_result);
    }

    #[test]
    fn family_names_round_trip() {
        for name in Family::NAMES {
            assert_eq!(name.parse::<Family>().unwrap().name(), name);
        }
        assert!("Claude".parse::<Family>().is_err());
    }
}
