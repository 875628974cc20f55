//! One table of what the crate knows of each provider's API shape: its
//! names, where its requests go, its patterns for tool names and ids, what
//! it can be told about tools. The facts that change with the provider's
//! pages (models, limits, image sizes, defaults) are data:
//! [`crate::facts`].

use std::fmt;

use crate::facts::{Facts, Profile};
use crate::media::Budget;

use super::names::Pattern;
use crate::facts::Provider;

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

impl Provider {
    /// Everything the crate knows of this provider that does not depend on
    /// the model: see [`Spec`].
    pub fn spec(self) -> &'static Spec {
        &SPECS[self as usize]
    }

    /// The model used when none is given, by the built-in facts
    /// ([`Facts::default_model`](crate::facts::Facts::default_model) for a
    /// user's).
    pub fn default_model(self) -> &'static str {
        Facts::builtin().default_model(self)
    }

    /// Whether the model is named inside the request body. Gemini and
    /// Bedrock name it in the URL instead ([`Provider::endpoint`]).
    pub fn model_in_body(self) -> bool {
        self.spec().model_in_body
    }

    /// Where the body is sent, for `model` (Bedrock's region is left as
    /// `{region}`).
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// let endpoint = Provider::Gemini.endpoint("gemini-3.8-flash");
    /// assert_eq!(endpoint.method, "POST");
    /// assert_eq!(
    ///     endpoint.to_string(),
    ///     "POST https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:generateContent"
    /// );
    /// ```
    pub fn endpoint(self, model: &str) -> Endpoint {
        let spec = self.spec();
        Endpoint {
            method: spec.method,
            url: spec.url.replace("{model}", model),
        }
    }

    /// The byte budget each attachment is prepared for.
    ///
    /// ```
    /// use tool_carrier::media::Budget;
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Anthropic.budget(), Budget::ANTHROPIC);
    /// assert_eq!(Provider::Bedrock.budget(), Budget::BEDROCK);
    /// ```
    pub fn budget(self) -> Budget {
        match self {
            Provider::OpenAiCompatible => Profile::generic().limits().budget,
            _ => Facts::builtin().api(self).limits.budget(),
        }
    }

    /// The most images one request for `model` may carry; older ones are
    /// dropped first.
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Anthropic.max_images("claude-haiku-4-5"), 100);
    /// assert_eq!(Provider::Anthropic.max_images("claude-opus-4-7"), 600);
    /// assert_eq!(Provider::Bedrock.max_images("amazon.nova-pro-v1:0"), 20);
    /// ```
    pub fn max_images(self, model: &str) -> usize {
        Facts::builtin().max_images(self, model)
    }

    /// The provider's own count of the input tokens an image of `width` ×
    /// `height` (as sent) costs with `model`; `None` where the provider
    /// documents no formula (Bedrock models other than Claude, Ollama). By
    /// the built-in facts ([`Facts::image_tokens`](crate::facts::Facts::image_tokens)
    /// for a user's).
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Anthropic.image_tokens("claude-sonnet-5-5", 1092, 1092), Some(1521));
    /// assert_eq!(Provider::Anthropic.image_tokens("claude-opus-4-8", 3840, 2160), Some(4784));
    /// assert_eq!(Provider::OpenAiChat.image_tokens("gpt-5", 1024, 1024), Some(630));
    /// assert_eq!(Provider::OpenAiChat.image_tokens("gpt-4o", 1024, 1024), Some(765));
    /// assert_eq!(Provider::OpenAiChat.image_tokens("gpt-4.1-mini", 1024, 1024), Some(1659));
    /// assert_eq!(Provider::Gemini2.image_tokens("gemini-2.5-flash", 960, 540), Some(1548));
    /// assert_eq!(Provider::Gemini.image_tokens("gemini-3.8-flash", 1000, 700), Some(1120));
    /// assert_eq!(Provider::Ollama.image_tokens("qwen3-vl", 1000, 700), None);
    /// ```
    pub fn image_tokens(self, model: &str, width: u32, height: u32) -> Option<u64> {
        Facts::builtin().image_tokens(self, model, width, height)
    }

    /// The size `model` processes images at, where the provider documents
    /// one: larger images are scaled down by the provider before the model
    /// sees them (and billed at that size). By the built-in facts
    /// ([`Facts::view`](crate::facts::Facts::view) for a user's).
    ///
    /// ```
    /// use tool_carrier::media::View;
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Anthropic.view("claude-haiku-4-5"), Some(View::new(1568).with_max_patches(1568).with_patch(28)));
    /// assert_eq!(Provider::Anthropic.view("claude-sonnet-5-5"), Some(View::new(2576).with_max_patches(4784).with_patch(28)));
    /// assert_eq!(Provider::OpenAiChat.view("gpt-5"), Some(View::new(2048).with_max_short_edge(768)));
    /// assert_eq!(Provider::OpenAiResponses.view("gpt-5.4"), Some(View::new(2048).with_max_patches(2500)));
    /// assert_eq!(Provider::Gemini.view("gemini-3.8-flash"), None);
    /// ```
    pub fn view(self, model: &str) -> Option<crate::media::View> {
        Facts::builtin().view(self, model)
    }

    /// Name used in notes: `Anthropic`, `OpenAI`, `Gemini`, …
    pub(crate) fn display_name(self) -> &'static str {
        self.spec().display_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compatible_entry_holds_the_generic_profile() {
        let spec = Provider::OpenAiCompatible.spec();
        assert_eq!(spec.url, crate::facts::Profile::generic().url());
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
