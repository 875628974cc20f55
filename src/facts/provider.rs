//! The provider APIs a history can be converted for: their identity,
//! command-line names, and what the built-in facts say of each
//! ([`Facts::api`](super::Facts::api) for a user's). Every public method of
//! [`Provider`] is here; its request shape is the API table's, inside the
//! crate.

use std::fmt;
use std::str::FromStr;

use super::Facts;

/// Declares [`Provider`] from one line per API: its variant, its
/// command-line name and the name used in notes.
macro_rules! providers {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $display:literal;)*) => {
        /// A provider API a history can be converted for.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Provider {
            $($(#[$doc])* $variant,)*
        }

        impl Provider {
            /// How many there are.
            pub(crate) const COUNT: usize = [$(Provider::$variant),*].len();

            /// Every provider, in the order of [`Provider::NAMES`].
            pub const ALL: [Provider; Provider::COUNT] = [$(Provider::$variant),*];

            /// The command-line names, in the order of [`Provider::ALL`].
            pub const NAMES: [&'static str; Provider::COUNT] = [$($name),*];

            const DISPLAY_NAMES: [&'static str; Provider::COUNT] = [$($display),*];
        }
    };
}

providers! {
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic = "anthropic", "Anthropic";
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenAiChat = "openai-chat", "OpenAI";
    /// OpenAI Responses (`POST /v1/responses`).
    OpenAiResponses = "openai-responses", "OpenAI";
    /// Gemini 3 `generateContent`: images nested in the function responses.
    Gemini = "gemini", "Gemini";
    /// Gemini 2.x `generateContent`: images in a `user` content after the
    /// function responses.
    Gemini2 = "gemini-2", "Gemini";
    /// Amazon Bedrock Converse (`POST /model/{modelId}/converse`).
    Bedrock = "bedrock", "Bedrock";
    /// Ollama chat (`POST /api/chat`).
    Ollama = "ollama", "Ollama";
    /// A server that speaks Chat Completions (vLLM, llama.cpp, LM Studio,
    /// Mistral, Groq, …), as its [`Profile`](crate::facts::Profile) says it takes it
    /// ([`Options::with_profile`](crate::provider::Options::with_profile); [`Profile::generic`](crate::facts::Profile::generic) by default).
    OpenAiCompatible = "openai-compatible", "OpenAI-compatible";
}

/// A provider name that is not one of [`Provider::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProvider(pub String);

impl fmt::Display for UnknownProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown provider {:?} (expected one of: {})",
            self.0,
            Provider::NAMES.join(", ")
        )
    }
}

impl std::error::Error for UnknownProvider {}

impl Provider {
    /// The command-line name: `anthropic`, `openai-chat`, …
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Gemini2.name(), "gemini-2");
    /// assert_eq!("gemini-2".parse::<Provider>(), Ok(Provider::Gemini2));
    /// ```
    pub const fn name(self) -> &'static str {
        Provider::NAMES[self as usize]
    }

    /// The name used in notes: `Anthropic`, `OpenAI`, `Gemini`, …
    pub const fn display_name(self) -> &'static str {
        Provider::DISPLAY_NAMES[self as usize]
    }

    /// The model used when none is given, by the built-in facts
    /// ([`Facts::default_model`](super::Facts::default_model) for a
    /// user's).
    pub fn default_model(self) -> &'static str {
        Facts::builtin().default_model(self)
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
    /// the built-in facts ([`Facts::image_tokens`](super::Facts::image_tokens)
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
    /// ([`Facts::view`](super::Facts::view) for a user's).
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
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(s: &str) -> Result<Provider, UnknownProvider> {
        Provider::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownProvider(s.to_owned()))
    }
}

impl serde::Serialize for Provider {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
