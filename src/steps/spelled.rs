//! The settings whose values are words, each word spelled once, as every
//! API that takes the setting spells it.

use std::fmt;

/// An enum of words: its values, their spelling, and reading one back.
macro_rules! spelled {
    (
        $(#[$meta:meta])*
        $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Its spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value spelled `name`.
            pub fn from_name(name: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.name() == name)
            }
        }

        impl Word for $name {
            fn from_name(name: &str) -> Option<$name> {
                $name::from_name(name)
            }

            fn spellings() -> String {
                let all: Vec<String> = Self::ALL.iter().map(|v| format!("\"{}\"", v.name())).collect();
                or_list(&all)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// A setting's word read back, and every word it may be, for a message.
pub(crate) trait Word: Sized {
    /// The value spelled `name`.
    fn from_name(name: &str) -> Option<Self>;
    /// The spellings: `"a", "b" or "c"`.
    fn spellings() -> String;
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

spelled!(
    /// How hard a reasoning model thinks before it answers.
    Effort {
        /// `low`.
        Low = "low",
        /// `medium`.
        Medium = "medium",
        /// `high`.
        High = "high",
    }
);

spelled!(
    /// How long a prompt-cache breakpoint keeps its prefix: Anthropic's
    /// `cache_control.ttl` and Bedrock's `cachePoint.ttl`, `5m` (the
    /// default) or `1h`
    /// (<https://platform.claude.com/docs/en/build-with-claude/prompt-caching#1-hour-cache-duration>
    /// and <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html>,
    /// read 2026-12-02).
    CacheTtl {
        /// `5m`.
        FiveMinutes = "5m",
        /// `1h`.
        OneHour = "1h",
    }
);

spelled!(
    /// OpenAI's `prompt_cache_retention`: `in_memory` or `24h` (Chat
    /// Completions and Responses, the SDK's request types in `openai`
    /// 3.57.0, which mark it deprecated in favour of `prompt_cache_options`
    /// and say that GPT-5.5, GPT-5.5 pro and later models take `24h` only).
    Retention {
        /// `in_memory`.
        InMemory = "in_memory",
        /// `24h`: extended caching, up to 24 hours.
        Hours24 = "24h",
    }
);

spelled!(
    /// How long an answer is: OpenAI's `verbosity` (Chat Completions) and
    /// `text.verbosity` (Responses), `low`, `medium` or `high` (the SDK's
    /// request types, `openai` 3.57.0).
    Verbosity {
        /// `low`.
        Low = "low",
        /// `medium`.
        Medium = "medium",
        /// `high`.
        High = "high",
    }
);

spelled!(
    /// The summary of its reasoning a Responses model writes:
    /// `reasoning.summary`, `auto`, `concise` or `detailed` (the SDK's
    /// `Reasoning`, `openai` 3.57.0).
    ReasoningSummary {
        /// `auto`.
        Auto = "auto",
        /// `concise`.
        Concise = "concise",
        /// `detailed`.
        Detailed = "detailed",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_word_reads_back() {
        for e in Effort::ALL {
            assert_eq!(Effort::from_name(e.name()), Some(*e));
            assert_eq!(e.to_string(), e.name());
        }
        assert_eq!(CacheTtl::from_name("1h"), Some(CacheTtl::OneHour));
        assert_eq!(Retention::from_name("forever"), None);
        assert_eq!(
            ReasoningSummary::spellings(),
            r#""auto", "concise" or "detailed""#
        );
        assert_eq!(or_list(&["a".into(), "b".into()]), "a or b");
        assert_eq!(or_list(&[]), "");
    }
}
