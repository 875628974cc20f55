//! Which image detail level a request is sent with, and where the API has
//! no such setting, the note that says so.
//!
//! * OpenAI Chat Completions (`image_url.detail`) and Responses
//!   (`input_image.detail`) take `low`, `high`, `auto`, and on the newer
//!   models `original`
//!   (<https://developers.openai.com/api/docs/guides/images-vision#choose-an-image-detail-level>,
//!   read 2026-12-02).
//! * Gemini 3 takes a media resolution per part (`mediaResolution:
//!   {"level": …}`), "available in the v1beta API version", the version
//!   the crate writes
//!   (<https://ai.google.dev/gemini-api/docs/media-resolution>, read
//!   2026-12-02); Gemini 2.x has only the request-wide setting, whose
//!   levels count tokens differently, and is sent none.
//! * Anthropic, Bedrock, Ollama and OpenAI-compatible servers document no
//!   per-image detail: a level given has no effect there, and the report
//!   says so ([`Report::setting_notes`](crate::provider::Report::setting_notes)).
//!
//! The levels a model takes are its facts' `detail`; `auto` (what the
//! API assumes when none is sent) is taken by every model of an API that
//! has the setting.

use crate::facts::{takes_detail as takes, Detail, Facts, Provider};

use super::error::BuildError;
use super::report::Report;

/// What a detail level does for a model ([`detail_effect`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DetailEffect {
    /// The API takes the level for the model: it is written into the
    /// body, and images are fitted and counted at it.
    Sent(Detail),
    /// The API has no such setting for the model: nothing is written and
    /// images are fitted and counted as at `auto`. The text says why.
    NoEffect(String),
}

/// What `detail` does for `model` at `provider`, by `facts`: what
/// [`build_request`](crate::provider::build_request) does with
/// [`Options::with_detail`](crate::provider::Options::with_detail).
///
/// # Errors
/// [`BuildError::Detail`] for a level the model's facts do not list.
///
/// ```
/// use tool_carrier::facts::{Detail, Facts};
/// use tool_carrier::provider::Provider;
/// use tool_carrier::provider::{detail_effect, DetailEffect};
/// let facts = Facts::builtin();
/// let low = detail_effect(facts, Provider::OpenAiResponses, "gpt-5.4", Detail::Low);
/// assert_eq!(low.unwrap(), DetailEffect::Sent(Detail::Low));
/// let claude = detail_effect(facts, Provider::Anthropic, "claude-sonnet-4-6", Detail::Low);
/// assert!(matches!(claude.unwrap(), DetailEffect::NoEffect(_)));
/// assert!(detail_effect(facts, Provider::OpenAiChat, "gpt-5.2", Detail::Original).is_err());
/// ```
pub fn detail_effect(
    facts: &Facts,
    provider: Provider,
    model: &str,
    detail: Detail,
) -> Result<DetailEffect, BuildError> {
    if !takes(facts, provider, model) {
        return Ok(DetailEffect::NoEffect(
            if facts.api(provider).image_detail {
                format!("{model} takes no per-image detail level (its family's facts say so)")
            } else {
                format!(
                    "{} has no per-image detail setting",
                    provider.display_name()
                )
            },
        ));
    }
    let levels = facts
        .model(provider, model)
        .map(|m| m.detail.clone())
        .unwrap_or_default();
    if detail == Detail::Auto || levels.iter().any(|l| l == detail.name()) {
        return Ok(DetailEffect::Sent(detail));
    }
    Err(BuildError::Detail {
        detail,
        model: model.to_owned(),
        api: provider.name(),
        levels,
    })
}

/// The detail level the body is written with: `None` when none was given
/// or the API has no such setting (a note in `report` then says so).
///
/// # Errors
/// [`BuildError::Detail`] for a level the model's facts do not list.
pub(crate) fn decide(
    facts: &Facts,
    provider: Provider,
    model: &str,
    given: Option<Detail>,
    report: &mut Report,
) -> Result<Option<Detail>, BuildError> {
    let Some(detail) = given else {
        return Ok(None);
    };
    match detail_effect(facts, provider, model, detail)? {
        DetailEffect::Sent(detail) => Ok(Some(detail)),
        DetailEffect::NoEffect(why) => {
            report
                .setting_notes
                .push(format!("image detail {detail}: no effect: {why}"));
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide_for(
        provider: Provider,
        model: &str,
        d: Detail,
    ) -> (Result<Option<Detail>, String>, Vec<String>) {
        let mut report = Report::default();
        let got = decide(Facts::builtin(), provider, model, Some(d), &mut report)
            .map_err(|e| e.to_string());
        (got, report.setting_notes)
    }

    #[test]
    fn a_level_the_model_lists_is_sent() {
        assert_eq!(
            decide_for(Provider::OpenAiResponses, "gpt-5.5", Detail::Original).0,
            Ok(Some(Detail::Original))
        );
        assert_eq!(
            decide_for(Provider::OpenAiChat, "gpt-4o", Detail::Low).0,
            Ok(Some(Detail::Low))
        );
        assert_eq!(
            decide_for(Provider::Gemini, "gemini-3.5-flash", Detail::Low).0,
            Ok(Some(Detail::Low))
        );
    }

    #[test]
    fn a_level_the_model_does_not_list_names_the_model_and_its_levels() {
        let (got, _) = decide_for(Provider::OpenAiChat, "gpt-5.2", Detail::Original);
        assert_eq!(
            got,
            Err("gpt-5.2 on openai-chat does not take image detail original: it takes low, high, auto".into())
        );
        // A model the data does not know takes `auto` alone.
        let (got, _) = decide_for(Provider::OpenAiChat, "my-deployment", Detail::High);
        assert!(got
            .unwrap_err()
            .contains("the facts list no detail levels for it"));
        assert_eq!(
            decide_for(Provider::OpenAiChat, "my-deployment", Detail::Auto).0,
            Ok(Some(Detail::Auto))
        );
    }

    #[test]
    fn apis_without_the_setting_get_a_note_not_an_error() {
        for (provider, model) in [
            (Provider::Anthropic, "claude-sonnet-4-6"),
            (Provider::Bedrock, "amazon.nova-pro-v1:0"),
            (Provider::Ollama, "qwen3-vl"),
            (Provider::OpenAiCompatible, "x"),
            (Provider::Gemini2, "gemini-2.5-flash"),
        ] {
            let (got, notes) = decide_for(provider, model, Detail::Low);
            assert_eq!(got, Ok(None), "{provider}");
            assert_eq!(notes.len(), 1, "{provider}");
            assert!(
                notes[0].starts_with("image detail low: no effect: "),
                "{}",
                notes[0]
            );
        }
        // Nothing given, nothing said.
        let mut report = Report::default();
        let got = decide(
            Facts::builtin(),
            Provider::Anthropic,
            "claude-sonnet-4-6",
            None,
            &mut report,
        );
        assert_eq!(got.unwrap(), None);
        assert!(report.setting_notes.is_empty());
    }
}
