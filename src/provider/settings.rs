//! The generation settings a build takes: each refused where the API or
//! the model does not take it (or, for `max_tokens`, over the model's
//! documented output limit), and the `max_tokens` sent by default.

use crate::facts::Provider;
use crate::steps::model as capabilities;
use crate::steps::params::{ResponseFormat, Setting, ToolChoice};
use crate::steps::spec::SettingAsk;

use super::{BuildError, Options};

/// Refuse a generation setting the API (or the model) does not take, and
/// a `max_tokens` over the model's documented output limit (one the facts
/// hold no limit for is sent, with a note in `notes`); else the
/// `max_tokens` an API that requires one is sent by default: the model's
/// documented output limit, at most [`NON_STREAMING_MAX_TOKENS`], else
/// 4096.
pub(super) fn settings(
    provider: Provider,
    model: &str,
    caps: &capabilities::Capabilities,
    options: &Options,
    notes: &mut Vec<String>,
) -> Result<u32, BuildError> {
    let spec = provider.spec();
    let known = options.facts().model(provider, model);
    let params = &options.params;
    let unsupported = |setting: Setting, why: String| BuildError::Unsupported {
        setting: setting.key(),
        api: spec.display_name,
        why,
    };
    let mut takes: Vec<Setting> = spec.settings.to_vec();
    if caps.claude {
        takes.extend_from_slice(spec.claude_settings);
    }
    let ask = SettingAsk {
        model,
        family: (spec.family)(model, options.family),
        params,
        cache_breakpoints: options.cache_breakpoints,
    };
    if let Some((setting, why)) = (spec.refuses_setting)(&ask) {
        return Err(unsupported(setting, why));
    }
    if let Some(setting) = params.refused(&takes) {
        let why = if spec.claude_settings.contains(&setting) {
            format!("only for Claude models, and {model} is not one")
        } else if setting == Setting::CacheTtl {
            // OpenAI and Gemini cache prefixes on their own, Ollama not at
            // all; none documents a TTL a request can set per breakpoint.
            "only Anthropic and Claude on Bedrock take a cache TTL (OpenAI's cache settings are prompt_cache_key and prompt_cache_retention)".into()
        } else {
            String::new()
        };
        return Err(unsupported(setting, why));
    }
    let given = |setting: Setting| params.given().any(|s| s == setting);
    if let Some(tier) = &params.service_tier {
        if !spec.service_tiers.contains(&tier.as_str()) {
            return Err(unsupported(
                Setting::ServiceTier,
                format!(
                    "no tier {tier:?}: it takes {}",
                    crate::steps::spelled::or_list(
                        &spec
                            .service_tiers
                            .iter()
                            .map(|t| format!("{t:?}"))
                            .collect::<Vec<_>>()
                    )
                ),
            ));
        }
    }
    // Claude from 4.5 on takes `temperature` or `top_p`, not both
    // (<https://platform.claude.com/docs/en/about-claude/models/migrating-to-claude-4>,
    // read 2026-12-02).
    if caps.claude && given(Setting::Temperature) && given(Setting::TopP) {
        return Err(unsupported(
            Setting::TopP,
            "Claude models take temperature or top_p, not both".into(),
        ));
    }
    if let Some(m) = known {
        let name = m.name.as_deref().unwrap_or(model);
        if m.sampling == Some(false) {
            for setting in [Setting::Temperature, Setting::TopP, Setting::TopK] {
                if given(setting) {
                    return Err(unsupported(
                        setting,
                        format!("{name} refuses sampling settings"),
                    ));
                }
            }
        }
        let adaptive = m.thinking == Some(crate::facts::Thinking::Adaptive);
        if adaptive && given(Setting::ThinkingBudget) {
            return Err(unsupported(
                Setting::ThinkingBudget,
                format!("{name} thinks adaptively: give reasoning_effort instead"),
            ));
        }
        // Where a Claude takes an effort at all (Bedrock passes none).
        if caps.claude && !adaptive && given(Setting::ReasoningEffort) {
            return Err(unsupported(
                Setting::ReasoningEffort,
                format!("{name} takes a thinking budget (thinking_budget), not an effort level"),
            ));
        }
    }
    if let Some(given) = params.max_tokens {
        match known.and_then(|m| Some((m, m.max_output?))) {
            Some((m, cap)) if u64::from(given) > cap => {
                let source = options.facts().provenance_of(m, "max_output").and_then(|p| {
                    let page = p.source.clone()?;
                    Some(match p.read {
                        Some(read) => format!("{page}, read {read}"),
                        None => page,
                    })
                });
                return Err(BuildError::OutputTokens {
                    given,
                    cap,
                    model: m.name.clone().unwrap_or_else(|| model.to_owned()),
                    page: source,
                });
            }
            Some(_) => {}
            None => notes.push(format!(
                "max_tokens {given}: sent as given: the facts hold no output limit for {model} to check it against"
            )),
        }
    }
    if known.and_then(|m| m.reasoning) == Some(false) {
        for setting in [Setting::ReasoningEffort, Setting::ThinkingBudget] {
            if params.given().any(|s| s == setting) {
                return Err(unsupported(
                    setting,
                    format!("the facts say {model} does not reason"),
                ));
            }
        }
    }
    if let Some(format) = &params.response_format {
        response_format(format, spec, model, caps, options, notes)
            .map_err(|why| unsupported(Setting::ResponseFormat, why))?;
    }
    Ok(known
        .and_then(|m| m.max_output)
        .and_then(|n| u32::try_from(n).ok())
        .map_or(4096, |n| n.min(NON_STREAMING_MAX_TOKENS)))
}

/// Why the API or the model cannot take `format`: JSON mode where the API
/// takes a schema only, a schema where the model's facts say it takes
/// none. A schema for a model the facts say nothing of is sent, with a
/// note, where the API documents its models.
fn response_format(
    format: &ResponseFormat,
    spec: &crate::steps::spec::Spec,
    model: &str,
    caps: &capabilities::Capabilities,
    options: &Options,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    if *format == ResponseFormat::Json && !spec.json_mode {
        return Err(format!(
            "{} has no JSON mode: give a JSON Schema ({{\"schema\": {{…}}}})",
            spec.display_name
        ));
    }
    if format.schema().is_none() {
        return Ok(());
    }
    let name = options
        .facts()
        .model(spec.provider, model)
        .and_then(|m| m.name.as_deref())
        .unwrap_or(model);
    match caps.structured_outputs {
        Some(true) => Ok(()),
        Some(false) => Err(format!(
            "the facts say {name} takes no JSON Schema for its answer"
        )),
        None => {
            if options.facts().api(spec.provider).documented_models {
                notes.push(format!(
                    "response_format: sent as given: the facts do not say whether {name} takes a JSON Schema for its answer"
                ));
            }
            Ok(())
        }
    }
}

/// The most `max_tokens` sent by default. The body asks for no stream, and
/// Anthropic's SDKs refuse a request without one that they expect to take
/// over ten minutes (one hour × `max_tokens` / 128,000): "Avoid setting a
/// large `max_tokens` value without using streaming"
/// (<https://platform.claude.com/docs/en/cli-sdks-libraries/sdks/python#long-requests>,
/// read 2026-12-01). A caller streaming the request may give more.
const NON_STREAMING_MAX_TOKENS: u32 = 128_000 / 6;

/// The caller's `tool_choice` as the request sends it, a named tool by the
/// name the API knows it by (`names`); `None` when none was given.
///
/// # Errors
/// [`BuildError::ToolChoice`] when nothing is declared, when only stand-ins
/// are (the model would be asked to call a tool it has no definition of),
/// when the tool named has no definition, and for `none` beside
/// `parallel_tool_calls` (no call can be made, so whether several could is
/// no question).
pub(super) fn tool_choice(
    options: &Options,
    declarations: &crate::steps::declare::Declarations,
    names: &mut crate::steps::names::Rename,
) -> Result<Option<ToolChoice>, BuildError> {
    let Some(choice) = &options.params.tool_choice else {
        return Ok(None);
    };
    let refuse = |problem: String| BuildError::ToolChoice {
        choice: choice.clone(),
        problem,
    };
    if options.params.parallel_tool_calls.is_some() && *choice == ToolChoice::None {
        return Err(refuse(
            "no tool can be called, so parallel_tool_calls says nothing: leave one out".into(),
        ));
    }
    if declarations.is_empty() {
        return Err(refuse(
            "no tools are declared (give their definitions)".into(),
        ));
    }
    if declarations.choice_none && *choice != ToolChoice::None {
        return Err(refuse(
            "the tools the history calls are declared only as stand-ins: give their definitions for the model to call them".into(),
        ));
    }
    let ToolChoice::Tool(name) = choice else {
        return Ok(Some(choice.clone()));
    };
    let defined: Vec<&str> = options
        .tools
        .iter()
        .flat_map(|tools| tools.iter().map(|t| t.name()))
        .collect();
    if !defined.contains(&name.as_str()) {
        return Err(refuse(format!(
            "no tool of that name is defined (defined: {})",
            defined.join(", ")
        )));
    }
    Ok(Some(ToolChoice::Tool(names.get(name))))
}
