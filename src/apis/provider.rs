//! What the API table answers for a provider, inside the crate: its row's
//! request shape ([`Spec`]) and where a request goes. `Provider`'s public
//! methods are all in `facts/provider.rs`, beside the enum.

use crate::facts::Provider;
use crate::steps::spec::{Endpoint, Spec};

impl Provider {
    /// Everything the crate knows of this provider that does not depend on
    /// the model: see [`Spec`].
    pub(crate) fn spec(self) -> &'static Spec {
        super::api(self).spec
    }

    /// Where the body is sent, for `model`, streamed or not (Bedrock's
    /// region is left as `{region}`).
    pub(crate) fn endpoint(self, model: &str, stream: bool) -> Endpoint {
        let spec = self.spec();
        let url = match spec.stream_url {
            Some(url) if stream => url,
            _ => spec.url,
        };
        Endpoint {
            method: spec.method,
            url: url.replace("{model}", model),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{Facts, Profile};
    use crate::media::Budget;

    #[test]
    fn the_compatible_entry_holds_the_generic_profile() {
        let spec = Provider::OpenAiCompatible.spec();
        assert_eq!(spec.url, Profile::generic().url());
    }

    #[test]
    fn the_table_is_in_the_order_of_all() {
        for p in Provider::ALL {
            assert_eq!(p.spec().provider, p);
            assert_eq!(p.spec().display_name, p.display_name());
            assert!(p.spec().url.starts_with("http"), "{p}");
        }
    }

    #[test]
    fn an_endpoint_names_the_model_where_the_api_wants_it() {
        let endpoint = Provider::Gemini.endpoint("gemini-3.8-flash", false);
        assert_eq!(endpoint.method, "POST");
        assert_eq!(
            endpoint.to_string(),
            "POST https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:generateContent"
        );
        assert_eq!(
            Provider::Gemini.endpoint("gemini-3.8-flash", true).url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            Provider::Bedrock.endpoint("m", true).url,
            "https://bedrock-runtime.{region}.amazonaws.com/model/m/converse-stream"
        );
        // Where the body says so, the URL is the same.
        assert_eq!(
            Provider::Anthropic.endpoint("m", true),
            Provider::Anthropic.endpoint("m", false)
        );
    }

    #[test]
    fn the_budget_is_the_apis_own() {
        let budget = |p| Facts::builtin().api(p).limits.budget();
        assert_eq!(budget(Provider::Anthropic), Budget::ANTHROPIC);
        assert_eq!(budget(Provider::Bedrock), Budget::BEDROCK);
    }
}
