//! The provider APIs a history can be converted for: their identity and
//! command-line names. What the crate knows of each is data
//! ([`Facts::api`](super::Facts::api)) and, for its request shape, code
//! ([`Spec`](crate::provider::Spec)).

use std::fmt;
use std::str::FromStr;

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
    /// Mistral, Groq, …), as its [`Profile`](crate::provider::Profile) says it takes it
    /// ([`Options::with_profile`](crate::provider::Options::with_profile); [`Profile::generic`](crate::provider::Profile::generic) by default).
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
