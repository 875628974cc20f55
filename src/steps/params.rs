//! Generation settings, named once for every API: each API's writer puts
//! them where its API documents them, in its own spelling, and an API that
//! does not take one refuses the request ([`Params::refused`]).

use std::collections::BTreeMap;

use serde_json::Value;

pub use super::choice::ToolChoice;
pub use super::output::{OutputSchema, ResponseFormat};
use super::spelled::Word;
pub use super::spelled::{CacheTtl, Effort, ReasoningSummary, Retention, Verbosity};

/// Generation settings for a request, neutral of the API: see the table in
/// `docs/providers.md` for where each lands. Every setting is optional; one
/// left unset is not sent (except Anthropic's required `max_tokens`, which
/// defaults to the model's documented output limit).
///
/// Ranges are the APIs' own and are checked by each API's rules on the
/// body ([`crate::rules`]): a temperature of 1.5 is sent to OpenAI and
/// refused for Anthropic.
///
/// ```
/// use tool_carrier::provider::{Effort, Params};
/// let params = Params::from_json(&serde_json::json!({
///     "max_tokens": 2048, "temperature": 0.2, "stop": ["END"],
///     "reasoning_effort": "low"
/// }))?;
/// assert_eq!(params.max_tokens, Some(2048));
/// assert_eq!(params.reasoning_effort, Some(Effort::Low));
/// assert_eq!(params, Params::new().with_max_tokens(2048).with_temperature(0.2)
///     .with_stop(["END"]).with_reasoning_effort(Effort::Low));
/// let err = Params::from_json(&serde_json::json!({"temprature": 1})).unwrap_err();
/// assert_eq!(err.key, "temprature");
/// # Ok::<(), tool_carrier::provider::ParamsError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Params {
    /// `max_tokens`: the most tokens the answer may hold (at least 1).
    pub max_tokens: Option<u32>,
    /// `temperature`: sampling randomness; the range is the API's.
    pub temperature: Option<f64>,
    /// `top_p`: nucleus sampling, 0 to 1.
    pub top_p: Option<f64>,
    /// `top_k`: sample only from the k likeliest tokens.
    pub top_k: Option<u32>,
    /// `stop`: sequences that end the answer when generated.
    pub stop: Vec<String>,
    /// `seed`: a seed for sampling, where the API offers repeatable
    /// sampling.
    pub seed: Option<i64>,
    /// `reasoning_effort`: `low`, `medium` or `high`, for a reasoning
    /// model whose API takes an effort level.
    pub reasoning_effort: Option<Effort>,
    /// `thinking_budget`: the most tokens a reasoning model may think
    /// with, for an API that takes a token budget.
    pub thinking_budget: Option<u32>,
    /// `cache_ttl`: how long the prompt-cache breakpoints keep their
    /// prefix, where the API takes a TTL (Anthropic; Claude on Bedrock).
    pub cache_ttl: Option<CacheTtl>,
    /// `prompt_cache_key`: OpenAI's key for routing requests that share a
    /// prefix to the same cache (Chat Completions and Responses).
    pub prompt_cache_key: Option<String>,
    /// `prompt_cache_retention`: OpenAI's prompt-cache retention (Chat
    /// Completions and Responses).
    pub prompt_cache_retention: Option<Retention>,
    /// `stream`: whether the answer comes as a stream of events, where
    /// the API's body (Anthropic, OpenAI, Ollama) or its URL (Gemini,
    /// Bedrock) says so; OpenAI Chat also asks for the usage at the end.
    pub stream: Option<bool>,
    /// `store`: whether the provider keeps the request and its answer
    /// (OpenAI Chat and Responses; Gemini's logging).
    pub store: Option<bool>,
    /// `parallel_tool_calls`: whether the model may call several tools at
    /// once (OpenAI Chat and Responses; Anthropic's
    /// `disable_parallel_tool_use`). Only with tools declared.
    pub parallel_tool_calls: Option<bool>,
    /// `service_tier`: the processing tier, spelled as the API spells it
    /// (Anthropic `auto`, `standard_only`; OpenAI `auto`, `default`,
    /// `flex`, `scale`, `priority`, …; Gemini `standard`, `flex`,
    /// `priority`; Bedrock `default`, `flex`, `priority`, `reserved`).
    pub service_tier: Option<String>,
    /// `verbosity`: how long the answer is (OpenAI Chat `verbosity`,
    /// Responses `text.verbosity`).
    pub verbosity: Option<Verbosity>,
    /// `reasoning_summary`: the summary of its reasoning a Responses model
    /// writes (`reasoning.summary`).
    pub reasoning_summary: Option<ReasoningSummary>,
    /// `tool_choice`: whether the model may, must or must not call a tool,
    /// or which one it must call. Only with tools declared, and not beside
    /// `parallel_tool_calls` when it is `none`.
    pub tool_choice: Option<ToolChoice>,
    /// `user`: a stable, opaque id of the application's end user
    /// (Anthropic's `metadata.user_id`, OpenAI's `safety_identifier`).
    pub user: Option<String>,
    /// `metadata`: string pairs kept with the request (OpenAI's
    /// `metadata`, Bedrock's `requestMetadata`), by key.
    pub metadata: Option<BTreeMap<String, String>>,
    /// `response_format`: the answer as JSON, or as JSON a schema
    /// describes (structured outputs), where the API and the model take
    /// it.
    pub response_format: Option<ResponseFormat>,
}

/// One setting of [`Params`], by its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    MaxTokens,
    Temperature,
    TopP,
    TopK,
    Stop,
    Seed,
    ReasoningEffort,
    ThinkingBudget,
    CacheTtl,
    PromptCacheKey,
    PromptCacheRetention,
    Stream,
    Store,
    ParallelToolCalls,
    ServiceTier,
    Verbosity,
    ReasoningSummary,
    ToolChoice,
    User,
    Metadata,
    ResponseFormat,
}

impl Setting {
    pub(crate) const ALL: [Setting; 21] = [
        Setting::MaxTokens,
        Setting::Temperature,
        Setting::TopP,
        Setting::TopK,
        Setting::Stop,
        Setting::Seed,
        Setting::ReasoningEffort,
        Setting::ThinkingBudget,
        Setting::CacheTtl,
        Setting::PromptCacheKey,
        Setting::PromptCacheRetention,
        Setting::Stream,
        Setting::Store,
        Setting::ParallelToolCalls,
        Setting::ServiceTier,
        Setting::Verbosity,
        Setting::ReasoningSummary,
        Setting::ToolChoice,
        Setting::User,
        Setting::Metadata,
        Setting::ResponseFormat,
    ];

    /// The key [`Params::from_json`] reads it under.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Setting::MaxTokens => "max_tokens",
            Setting::Temperature => "temperature",
            Setting::TopP => "top_p",
            Setting::TopK => "top_k",
            Setting::Stop => "stop",
            Setting::Seed => "seed",
            Setting::ReasoningEffort => "reasoning_effort",
            Setting::ThinkingBudget => "thinking_budget",
            Setting::CacheTtl => "cache_ttl",
            Setting::PromptCacheKey => "prompt_cache_key",
            Setting::PromptCacheRetention => "prompt_cache_retention",
            Setting::Stream => "stream",
            Setting::Store => "store",
            Setting::ParallelToolCalls => "parallel_tool_calls",
            Setting::ServiceTier => "service_tier",
            Setting::Verbosity => "verbosity",
            Setting::ReasoningSummary => "reasoning_summary",
            Setting::ToolChoice => "tool_choice",
            Setting::User => "user",
            Setting::Metadata => "metadata",
            Setting::ResponseFormat => "response_format",
        }
    }
}

/// A settings object [`Params::from_json`] cannot read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parameter {key}: {problem}")]
#[non_exhaustive]
pub struct ParamsError {
    /// The key (empty when the whole value is not an object).
    pub key: String,
    /// What is wrong with it.
    pub problem: String,
}

/// The word `value` spells, for the setting `key`.
fn spelled<T: Word>(key: &str, value: &Value) -> Result<T, ParamsError> {
    value
        .as_str()
        .and_then(T::from_name)
        .ok_or_else(|| wrong(key, format!("expected {}, got {value}", T::spellings())))
}

fn wrong(key: &str, problem: impl Into<String>) -> ParamsError {
    ParamsError {
        key: key.to_owned(),
        problem: problem.into(),
    }
}

impl Params {
    /// No setting given.
    pub fn new() -> Params {
        Params::default()
    }

    /// Read settings from a JSON object whose keys are the field names
    /// (`max_tokens`, `temperature`, `top_p`, `top_k`, `stop`, `seed`,
    /// `reasoning_effort`, `thinking_budget`, `cache_ttl` (`"5m"` or
    /// `"1h"`), `prompt_cache_key`, `prompt_cache_retention` (`"in_memory"`
    /// or `"24h"`), `stream`, `store`, `parallel_tool_calls` (`true` or
    /// `false`), `service_tier`, `verbosity` (`"low"`, `"medium"` or
    /// `"high"`), `reasoning_summary` (`"auto"`, `"concise"` or
    /// `"detailed"`), `tool_choice` (`"auto"`, `"none"`, `"required"` or
    /// `{"tool": NAME}`), `user` (a string), `metadata` (an object of
    /// strings) and `response_format` (`"json"` or `{"schema": {…}, "name":
    /// …, "description": …, "strict": …}`)). `stop` may be one string or a list of them; `null`
    /// leaves a setting unset.
    ///
    /// # Errors
    /// A value that is not an object, an unknown key, or a value of the
    /// wrong kind, naming the key.
    pub fn from_json(value: &Value) -> Result<Params, ParamsError> {
        let object = value
            .as_object()
            .ok_or_else(|| wrong("", "settings must be a JSON object"))?;
        let mut params = Params::new();
        for (key, value) in object {
            params.set(key, value)?;
        }
        Ok(params)
    }

    /// Set one setting by its key, as [`Params::from_json`] reads it.
    ///
    /// # Errors
    /// An unknown key, or a value of the wrong kind.
    pub fn set(&mut self, key: &str, value: &Value) -> Result<(), ParamsError> {
        let setting = Setting::ALL
            .into_iter()
            .find(|s| s.key() == key)
            .ok_or_else(|| {
                let known: Vec<&str> = Setting::ALL.iter().map(|s| s.key()).collect();
                wrong(key, format!("unknown key (known: {})", known.join(", ")))
            })?;
        if value.is_null() {
            self.clear(setting);
            return Ok(());
        }
        let uint = || {
            value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    wrong(
                        key,
                        format!(
                            "expected a whole number from 0 to {}, got {value}",
                            u32::MAX
                        ),
                    )
                })
        };
        let number = || {
            value
                .as_f64()
                .ok_or_else(|| wrong(key, format!("expected a number, got {value}")))
        };
        let flag = || {
            value
                .as_bool()
                .ok_or_else(|| wrong(key, format!("expected true or false, got {value}")))
        };

        match setting {
            Setting::MaxTokens => {
                let n = uint()?;
                if n == 0 {
                    return Err(wrong(key, "must be at least 1"));
                }
                self.max_tokens = Some(n);
            }
            Setting::Temperature => self.temperature = Some(number()?),
            Setting::TopP => self.top_p = Some(number()?),
            Setting::TopK => self.top_k = Some(uint()?),
            Setting::ThinkingBudget => self.thinking_budget = Some(uint()?),
            Setting::Seed => {
                self.seed =
                    Some(value.as_i64().ok_or_else(|| {
                        wrong(key, format!("expected a whole number, got {value}"))
                    })?)
            }
            Setting::Stop => {
                let list = match value {
                    Value::String(s) => vec![s.clone()],
                    Value::Array(items) => items
                        .iter()
                        .map(|i| i.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| {
                            wrong(key, format!("expected a list of strings, got {value}"))
                        })?,
                    _ => {
                        return Err(wrong(
                            key,
                            format!("expected a string or a list of strings, got {value}"),
                        ))
                    }
                };
                self.stop = list;
            }
            Setting::ReasoningEffort => self.reasoning_effort = Some(spelled(key, value)?),
            Setting::CacheTtl => self.cache_ttl = Some(spelled(key, value)?),
            Setting::Stream => self.stream = Some(flag()?),
            Setting::Store => self.store = Some(flag()?),
            Setting::ParallelToolCalls => self.parallel_tool_calls = Some(flag()?),
            Setting::ServiceTier => {
                let tier = value.as_str().unwrap_or_default();
                if tier.is_empty() {
                    return Err(wrong(key, format!("expected a tier's name, got {value}")));
                }
                self.service_tier = Some(tier.to_owned());
            }
            Setting::Verbosity => self.verbosity = Some(spelled(key, value)?),
            Setting::ReasoningSummary => self.reasoning_summary = Some(spelled(key, value)?),
            Setting::ToolChoice => {
                self.tool_choice = Some(ToolChoice::from_json(value).map_err(|e| wrong(key, e))?)
            }
            Setting::User => match value.as_str() {
                Some(user) if !user.is_empty() => self.user = Some(user.to_owned()),
                _ => return Err(wrong(key, format!("expected a user's id, got {value}"))),
            },
            Setting::Metadata => {
                let pairs = value
                    .as_object()
                    .and_then(|object| {
                        object
                            .iter()
                            .map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                            .collect::<Option<BTreeMap<_, _>>>()
                    })
                    .ok_or_else(|| {
                        wrong(key, format!("expected an object of strings, got {value}"))
                    })?;
                self.metadata = Some(pairs);
            }
            Setting::ResponseFormat => {
                self.response_format =
                    Some(ResponseFormat::from_json(value).map_err(|e| wrong(key, e))?)
            }
            Setting::PromptCacheKey => {
                let text = value
                    .as_str()
                    .ok_or_else(|| wrong(key, format!("expected a string, got {value}")))?;
                self.prompt_cache_key = Some(text.to_owned());
            }
            Setting::PromptCacheRetention => {
                self.prompt_cache_retention = Some(spelled(key, value)?)
            }
        }
        Ok(())
    }

    fn clear(&mut self, setting: Setting) {
        match setting {
            Setting::MaxTokens => self.max_tokens = None,
            Setting::Temperature => self.temperature = None,
            Setting::TopP => self.top_p = None,
            Setting::TopK => self.top_k = None,
            Setting::Stop => self.stop.clear(),
            Setting::Seed => self.seed = None,
            Setting::ReasoningEffort => self.reasoning_effort = None,
            Setting::ThinkingBudget => self.thinking_budget = None,
            Setting::CacheTtl => self.cache_ttl = None,
            Setting::PromptCacheKey => self.prompt_cache_key = None,
            Setting::PromptCacheRetention => self.prompt_cache_retention = None,
            Setting::Stream => self.stream = None,
            Setting::Store => self.store = None,
            Setting::ParallelToolCalls => self.parallel_tool_calls = None,
            Setting::ServiceTier => self.service_tier = None,
            Setting::Verbosity => self.verbosity = None,
            Setting::ReasoningSummary => self.reasoning_summary = None,
            Setting::ToolChoice => self.tool_choice = None,
            Setting::User => self.user = None,
            Setting::Metadata => self.metadata = None,
            Setting::ResponseFormat => self.response_format = None,
        }
    }

    /// The settings given, in [`Setting::ALL`]'s order.
    pub(crate) fn given(&self) -> impl Iterator<Item = Setting> + '_ {
        Setting::ALL.into_iter().filter(|s| match s {
            Setting::MaxTokens => self.max_tokens.is_some(),
            Setting::Temperature => self.temperature.is_some(),
            Setting::TopP => self.top_p.is_some(),
            Setting::TopK => self.top_k.is_some(),
            Setting::Stop => !self.stop.is_empty(),
            Setting::Seed => self.seed.is_some(),
            Setting::ReasoningEffort => self.reasoning_effort.is_some(),
            Setting::ThinkingBudget => self.thinking_budget.is_some(),
            Setting::CacheTtl => self.cache_ttl.is_some(),
            Setting::PromptCacheKey => self.prompt_cache_key.is_some(),
            Setting::PromptCacheRetention => self.prompt_cache_retention.is_some(),
            Setting::Stream => self.stream.is_some(),
            Setting::Store => self.store.is_some(),
            Setting::ParallelToolCalls => self.parallel_tool_calls.is_some(),
            Setting::ServiceTier => self.service_tier.is_some(),
            Setting::Verbosity => self.verbosity.is_some(),
            Setting::ReasoningSummary => self.reasoning_summary.is_some(),
            Setting::ToolChoice => self.tool_choice.is_some(),
            Setting::User => self.user.is_some(),
            Setting::Metadata => self.metadata.is_some(),
            Setting::ResponseFormat => self.response_format.is_some(),
        })
    }

    /// The first setting given that is not in `takes`.
    pub(crate) fn refused(&self, takes: &[Setting]) -> Option<Setting> {
        self.given().find(|s| !takes.contains(s))
    }

    /// With `max_tokens`.
    pub fn with_max_tokens(self, n: u32) -> Params {
        Params {
            max_tokens: Some(n),
            ..self
        }
    }

    /// With `temperature`.
    pub fn with_temperature(self, t: f64) -> Params {
        Params {
            temperature: Some(t),
            ..self
        }
    }

    /// With `top_p`.
    pub fn with_top_p(self, p: f64) -> Params {
        Params {
            top_p: Some(p),
            ..self
        }
    }

    /// With `top_k`.
    pub fn with_top_k(self, k: u32) -> Params {
        Params {
            top_k: Some(k),
            ..self
        }
    }

    /// With these stop sequences.
    pub fn with_stop<S: Into<String>>(self, stop: impl IntoIterator<Item = S>) -> Params {
        Params {
            stop: stop.into_iter().map(Into::into).collect(),
            ..self
        }
    }

    /// With `seed`.
    pub fn with_seed(self, seed: i64) -> Params {
        Params {
            seed: Some(seed),
            ..self
        }
    }

    /// With `reasoning_effort`.
    pub fn with_reasoning_effort(self, effort: Effort) -> Params {
        Params {
            reasoning_effort: Some(effort),
            ..self
        }
    }

    /// With `cache_ttl`.
    pub fn with_cache_ttl(self, ttl: CacheTtl) -> Params {
        Params {
            cache_ttl: Some(ttl),
            ..self
        }
    }

    /// With `prompt_cache_key`.
    pub fn with_prompt_cache_key(self, key: impl Into<String>) -> Params {
        Params {
            prompt_cache_key: Some(key.into()),
            ..self
        }
    }

    /// With `prompt_cache_retention`.
    pub fn with_prompt_cache_retention(self, retention: Retention) -> Params {
        Params {
            prompt_cache_retention: Some(retention),
            ..self
        }
    }

    /// With `stream`.
    pub fn with_stream(self, stream: bool) -> Params {
        Params {
            stream: Some(stream),
            ..self
        }
    }

    /// With `store`.
    pub fn with_store(self, store: bool) -> Params {
        Params {
            store: Some(store),
            ..self
        }
    }

    /// With `parallel_tool_calls`.
    pub fn with_parallel_tool_calls(self, parallel: bool) -> Params {
        Params {
            parallel_tool_calls: Some(parallel),
            ..self
        }
    }

    /// With `service_tier`, as the API spells it.
    pub fn with_service_tier(self, tier: impl Into<String>) -> Params {
        Params {
            service_tier: Some(tier.into()),
            ..self
        }
    }

    /// With `verbosity`.
    pub fn with_verbosity(self, verbosity: Verbosity) -> Params {
        Params {
            verbosity: Some(verbosity),
            ..self
        }
    }

    /// With `reasoning_summary`.
    pub fn with_reasoning_summary(self, summary: ReasoningSummary) -> Params {
        Params {
            reasoning_summary: Some(summary),
            ..self
        }
    }

    /// With `tool_choice`.
    pub fn with_tool_choice(self, choice: ToolChoice) -> Params {
        Params {
            tool_choice: Some(choice),
            ..self
        }
    }

    /// With `user`.
    pub fn with_user(self, user: impl Into<String>) -> Params {
        Params {
            user: Some(user.into()),
            ..self
        }
    }

    /// With `metadata`.
    pub fn with_metadata<K: Into<String>, V: Into<String>>(
        self,
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Params {
        Params {
            metadata: Some(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
            ..self
        }
    }

    /// With `response_format`.
    pub fn with_response_format(self, format: ResponseFormat) -> Params {
        Params {
            response_format: Some(format),
            ..self
        }
    }

    /// With `thinking_budget`.
    pub fn with_thinking_budget(self, tokens: u32) -> Params {
        Params {
            thinking_budget: Some(tokens),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_key_reads_and_a_wrong_one_is_named() {
        let p = Params::from_json(&json!({
            "max_tokens": 10, "temperature": 0.5, "top_p": 0.9, "top_k": 40,
            "stop": "x", "seed": -3, "reasoning_effort": "high", "thinking_budget": 2048,
            "cache_ttl": "1h", "prompt_cache_key": "agent-7", "prompt_cache_retention": "24h",
            "stream": true, "store": false, "parallel_tool_calls": false, "service_tier": "flex",
            "verbosity": "low", "reasoning_summary": "concise",
            "tool_choice": {"tool": "shot"}, "user": "u-7", "metadata": {"run": "nightly"},
            "response_format": "json"
        }))
        .unwrap();
        assert_eq!(p.given().count(), Setting::ALL.len());
        assert_eq!(p.verbosity, Some(Verbosity::Low));
        assert_eq!(p.reasoning_summary, Some(ReasoningSummary::Concise));
        assert_eq!(
            (p.stream, p.store, p.parallel_tool_calls),
            (Some(true), Some(false), Some(false))
        );
        assert_eq!(p.cache_ttl, Some(CacheTtl::OneHour));
        assert_eq!(p.prompt_cache_retention, Some(Retention::Hours24));
        assert_eq!(p.stop, ["x"]);
        for (key, value) in [
            ("max_tokens", json!(0)),
            ("max_tokens", json!(1.5)),
            ("temperature", json!("hot")),
            ("top_k", json!(-1)),
            ("stop", json!([1])),
            ("seed", json!("7")),
            ("reasoning_effort", json!("extreme")),
            ("thinking_budget", json!(true)),
            ("cache_ttl", json!("10m")),
            ("prompt_cache_key", json!(7)),
            ("prompt_cache_retention", json!("forever")),
            ("stream", json!("yes")),
            ("store", json!(1)),
            ("parallel_tool_calls", json!("false")),
            ("service_tier", json!("")),
            ("service_tier", json!(2)),
            ("verbosity", json!("terse")),
            ("reasoning_summary", json!(true)),
            ("tool_choice", json!("any")),
            ("user", json!(7)),
            ("metadata", json!(["a"])),
            ("response_format", json!({"schema": []})),
            ("maxTokens", json!(1)),
        ] {
            let err = Params::from_json(&json!({ key: value })).unwrap_err();
            assert_eq!(err.key, key);
            assert!(err.to_string().contains(key), "{err}");
        }
        assert_eq!(Params::from_json(&json!([])).unwrap_err().key, "");
        assert_eq!(
            Params::from_json(&json!({"seed": null})).unwrap(),
            Params::new()
        );
    }
}
