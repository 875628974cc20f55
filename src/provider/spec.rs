//! One table of what the crate knows of each provider's API shape: its
//! names, where its requests go, its patterns for tool names and ids, what
//! it can be told about tools. The facts that change with the provider's
//! pages (models, limits, image sizes, defaults) are data:
//! [`crate::facts`].

use std::fmt;

use super::names::Pattern;
use super::Provider;

/// What the crate knows of one provider.
#[derive(Debug)]
pub struct Spec {
    /// The provider.
    pub provider: Provider,
    /// The command-line name: `anthropic`, `openai-chat`, …
    pub name: &'static str,
    /// The name used in notes: `Anthropic`, `OpenAI`, …
    pub display_name: &'static str,
    /// The HTTP method requests are sent with.
    pub method: &'static str,
    /// The URL, with `{model}` (and Bedrock's `{region}`) left to fill.
    pub url: &'static str,
    /// Whether the model is named in the body (else in the URL).
    pub model_in_body: bool,
    /// Whether a request replaying tool calls must declare the tools it
    /// calls (Ollama replays calls without declarations and cannot be told
    /// not to call, so minimal declarations would only invite calls).
    pub needs_declared_calls: bool,
    /// Whether the API can be told not to call any tool.
    pub choice_none: bool,
    pub(crate) names: Pattern,
    pub(crate) ids: Pattern,
}

/// Where a request is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `POST`.
    pub method: &'static str,
    /// The URL, the model filled in.
    pub url: String,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.url)
    }
}

/// Gemini's entry, which `gemini-2` shares but for its name and model.
const GEMINI_SPEC: Spec = Spec {
    provider: Provider::Gemini,
    name: "gemini",
    display_name: "Gemini",
    method: "POST",
    url: "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent",
    model_in_body: false,
    needs_declared_calls: true,
    choice_none: true,
    names: Pattern::GEMINI_NAME,
    ids: Pattern::ANY_ID,
};

/// The table, in the order of [`Provider::ALL`].
pub(crate) const SPECS: [Spec; 8] = [
    Spec {
        provider: Provider::Anthropic,
        name: "anthropic",
        display_name: "Anthropic",
        method: "POST",
        url: "https://api.anthropic.com/v1/messages",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::ANTHROPIC_ID,
    },
    Spec {
        provider: Provider::OpenAiChat,
        name: "openai-chat",
        display_name: "OpenAI",
        method: "POST",
        url: "https://api.openai.com/v1/chat/completions",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::OPENAI_ID,
    },
    Spec {
        provider: Provider::OpenAiResponses,
        name: "openai-responses",
        display_name: "OpenAI",
        method: "POST",
        url: "https://api.openai.com/v1/responses",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::RESPONSES_ID,
    },
    GEMINI_SPEC,
    // The same API; the name keeps Gemini 2.x defaults and placement.
    Spec {
        provider: Provider::Gemini2,
        name: "gemini-2",
        ..GEMINI_SPEC
    },
    Spec {
        provider: Provider::Bedrock,
        name: "bedrock",
        display_name: "Bedrock",
        method: "POST",
        url: "https://bedrock-runtime.{region}.amazonaws.com/model/{model}/converse",
        model_in_body: false,
        needs_declared_calls: true,
        // Converse's toolChoice is auto, any or tool.
        choice_none: false,
        names: Pattern::TOOL_NAME,
        ids: Pattern::BEDROCK_ID,
    },
    Spec {
        provider: Provider::Ollama,
        name: "ollama",
        display_name: "Ollama",
        method: "POST",
        url: "http://localhost:11434/api/chat",
        model_in_body: true,
        needs_declared_calls: false,
        choice_none: false,
        names: Pattern::ANY,
        ids: Pattern::ANY_ID,
    },
    // What depends on the server is its profile's (profile.rs, the
    // facts' [profiles]); this entry holds the generic profile's URL.
    Spec {
        provider: Provider::OpenAiCompatible,
        name: "openai-compatible",
        display_name: "OpenAI-compatible",
        method: "POST",
        url: "http://localhost:8000/v1/chat/completions",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::OPENAI_ID,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compatible_entry_holds_the_generic_profile() {
        let spec = Provider::OpenAiCompatible.spec();
        assert_eq!(spec.url, super::super::Profile::generic().url());
    }

    #[test]
    fn the_table_is_in_the_order_of_all() {
        for (i, p) in Provider::ALL.into_iter().enumerate() {
            assert_eq!(SPECS[i].provider, p);
            assert_eq!(p.spec().name, Provider::NAMES[i]);
        }
    }

    #[test]
    fn only_gemini_and_bedrock_name_the_model_in_the_url() {
        for spec in &SPECS {
            assert_eq!(
                spec.url.contains("{model}"),
                !spec.model_in_body,
                "{}",
                spec.name
            );
        }
    }
}
