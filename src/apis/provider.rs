//! What the crate knows of each provider, looked up through its API's row
//! ([`super::APIS`]): its request shape ([`Spec`]) and, by the built-in
//! facts, its defaults, budgets and image sizes.

use crate::facts::{Facts, Profile, Provider};
use crate::media::Budget;
use crate::steps::spec::{Endpoint, Spec};

impl Provider {
    /// Everything the crate knows of this provider that does not depend on
    /// the model: see [`Spec`].
    pub fn spec(self) -> &'static Spec {
        super::api(self).spec
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
        if self.spec().profiled {
            Profile::generic().limits().budget
        } else {
            Facts::builtin().api(self).limits.budget()
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
            assert_eq!(p.spec().provider, p);
            assert_eq!(p.spec().name, Provider::NAMES[i]);
            assert_eq!(p.spec().display_name, p.display_name());
            assert!(p.spec().url.starts_with("http"), "{p}");
        }
    }

    #[test]
    fn only_gemini_and_bedrock_name_the_model_in_the_url() {
        for spec in Provider::ALL.map(Provider::spec) {
            assert_eq!(
                spec.url.contains("{model}"),
                !spec.model_in_body,
                "{}",
                spec.name
            );
        }
    }
}
