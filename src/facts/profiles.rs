//! The built-in [`Profile`]s: entries of the facts data
//! (`src/apis/openai_compatible/facts.toml`), each fact with its source
//! and the date it was read. Where a server states nothing, the profile
//! keeps [`Profile::generic`]'s choice, which every documented server
//! accepts.

use std::fmt;

use super::profile::Profile;
use super::Facts;

/// A profile name that is neither built in nor added by a facts file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown profile {:?} (built in: {}; or give a .toml or .json file)",
            self.0,
            Profile::BUILTIN.join(", ")
        )
    }
}

impl std::error::Error for UnknownProfile {}

impl Profile {
    /// The built-in profile names, in the order of the table in docs/providers.md.
    pub const BUILTIN: [&'static str; 11] = [
        "generic",
        "vllm",
        "llama-cpp",
        "lm-studio",
        "ollama-openai",
        "mistral",
        "deepseek",
        "groq",
        "xai",
        "openrouter",
        "azure-openai",
    ];

    /// The built-in profile called `name`.
    ///
    /// ```
    /// use tool_carrier::facts::Profile;
    /// assert!(!Profile::builtin("mistral")?.user_after_tool);
    /// assert!(Profile::builtin("nope").is_err());
    /// # Ok::<(), tool_carrier::facts::UnknownProfile>(())
    /// ```
    ///
    /// # Errors
    /// `name` is not one of [`Profile::BUILTIN`].
    pub fn builtin(name: &str) -> Result<Profile, UnknownProfile> {
        Profile::named(Facts::builtin(), name)
    }

    /// The profile called `name` in `facts`: a built-in one, or one a
    /// facts file adds (`[profiles.NAME]`).
    ///
    /// # Errors
    /// `facts` has no profile called `name`.
    pub fn named(facts: &Facts, name: &str) -> Result<Profile, UnknownProfile> {
        facts
            .profile(name)
            .cloned()
            .ok_or_else(|| UnknownProfile(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_named_by_its_name_and_reads_back() {
        for name in Profile::BUILTIN {
            let p = Profile::builtin(name).unwrap();
            assert_eq!(p.name, name);
            assert_eq!(Profile::from_value(&p.to_value()).unwrap(), p);
            assert!(p.url().ends_with("/chat/completions"), "{name}");
        }
        let err = Profile::builtin("vLLM").unwrap_err().to_string();
        assert!(err.contains("unknown profile \"vLLM\"") && err.contains("vllm, llama-cpp"));
    }

    #[test]
    fn the_data_holds_the_builtin_profiles_and_no_others() {
        let names: Vec<&str> = Facts::builtin()
            .profiles()
            .keys()
            .map(String::as_str)
            .collect();
        let mut builtin = Profile::BUILTIN.to_vec();
        builtin.sort_unstable();
        assert_eq!(names, builtin);
    }

    #[test]
    fn the_generic_entry_is_the_generic_profile() {
        assert_eq!(Profile::builtin("generic").unwrap(), Profile::generic());
    }
}
