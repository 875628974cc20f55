//! What a model takes in a request body, by the facts: where its media
//! may go, how its typed tools are declared, what one request may carry.
//! Reading model ids (Bedrock's families, Gemini's generations) is
//! [`crate::facts::ids`]'s.

use crate::facts::ids::Family;

use std::borrow::Cow;

use crate::facts::Facts;
use crate::media::{Budget, Measure, MediaType};

use super::declare::TypedTools;
use super::spec::ToolMedia;
use crate::facts::Provider;

/// What a provider accepts in one request.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    /// Each attachment is prepared for this budget.
    pub budget: Budget,
    /// Image types sent as they are; any other image is sent as PNG.
    pub image_types: Cow<'static, [MediaType]>,
    /// Whether PDFs can be sent.
    pub documents: bool,
    /// Whether images can be sent as `http(s)` URLs.
    pub image_urls: bool,
    /// Whether documents can be sent as `http(s)` URLs.
    pub document_urls: bool,
    /// Most images (inline or URL) in one request.
    pub max_images: usize,
    /// Most documents in one request.
    pub max_documents: usize,
    /// Most PDF pages in one request, all documents together.
    pub max_pages: usize,
    /// Whether the provider refuses encrypted PDFs.
    pub refuses_encrypted: bool,
    /// Most base64 characters of inline media in one request.
    pub max_total: usize,
    /// Largest width or height of an image.
    pub max_dim: u32,
    /// `(n, edge, documents)`: when a request holds more than `n` images
    /// (counted with its documents when `documents`), each fits `edge` ×
    /// `edge`.
    pub many_images: Option<(usize, u32, bool)>,
}

/// What one model takes, as far as the request body is concerned.
#[derive(Clone, Debug)]
pub(crate) struct Capabilities {
    /// Whether images and documents may sit inside a tool result.
    pub media_in_tool_result: bool,
    /// How Anthropic's typed tools are declared.
    pub typed_tools: TypedTools,
    /// What one request may carry.
    pub limits: Limits,
    /// Whether the model caches prompts only at marks the request places:
    /// Anthropic (`cache_control`) and Claude on Bedrock (`cachePoint`;
    /// <https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html>,
    /// read 2026-12-01). OpenAI and Gemini cache prefixes on their own.
    pub cache_marks: bool,
    /// Whether the model takes the caller's cache marks (`"cache": true`):
    /// where it caches at marks, and where its API has explicit
    /// breakpoints ([`Spec::cache_parts`](crate::steps::spec::Spec)) its
    /// facts say it takes.
    pub takes_marks: bool,
    /// Whether the model takes images at all (an OpenAI-compatible
    /// server's profile may say not; documents are apart).
    pub vision: bool,
    /// Whether the model is Claude (on Anthropic, or on Bedrock by its id
    /// or the family given).
    pub claude: bool,
    /// Whether system text goes as `developer` messages: a reasoning model
    /// (its facts' `reasoning`) on an API whose facts say so
    /// (`reasoning_developer_role`: OpenAI Chat Completions).
    pub developer_role: bool,
    /// Whether the model takes a JSON Schema its answer follows, as its
    /// facts say (`structured_outputs`); `None` where they say nothing.
    pub structured_outputs: Option<bool>,
}

impl Capabilities {
    /// What `model` at `provider` takes, by `facts`; `family` overrides
    /// what the model id says.
    pub fn of(
        facts: &Facts,
        provider: Provider,
        model: &str,
        family: Option<Family>,
    ) -> Capabilities {
        let spec = provider.spec();
        let shape = (spec.family)(model, family);
        let claude = shape == Some(Family::Claude);
        let traits = facts.traits(provider, model, family.map(Family::facts_name));
        let media_in_tool_result = match spec.tool_media {
            ToolMedia::Inside => true,
            ToolMedia::After => false,
            // Where the API's shape leaves the choice to the model
            // (Bedrock's families, Gemini's generations), the data says.
            ToolMedia::AsTheFactsSay => traits.media_in_tool_result.unwrap_or(false),
        };
        Capabilities {
            media_in_tool_result,
            typed_tools: (spec.typed_tools)(shape),
            limits: limits(facts, provider, model, family),
            cache_marks: claude,
            takes_marks: claude || (spec.cache_parts && traits.cache_breakpoints == Some(true)),
            vision: true,
            claude,
            developer_role: facts.api(provider).reasoning_developer_role
                && facts.model(provider, model).and_then(|m| m.reasoning) == Some(true),
            structured_outputs: traits.structured_outputs,
        }
    }

    /// What an OpenAI-compatible server's profile states.
    pub fn compatible(profile: &crate::facts::Profile) -> Capabilities {
        Capabilities {
            media_in_tool_result: profile.images_in_tool_messages,
            typed_tools: TypedTools::AsFunctions,
            limits: profile.limits(),
            cache_marks: false,
            takes_marks: false,
            vision: profile.vision && profile.writes_images(),
            claude: false,
            developer_role: false,
            structured_outputs: None,
        }
    }
}

impl crate::facts::Profile {
    /// What one request may carry, as the attachment step reads it.
    pub(crate) fn limits(&self) -> Limits {
        let at_most =
            |c: Option<u64>| c.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        // The request cap is kept in base64 characters, as the tally counts.
        let total = self.max_request_image_bytes.map(|n| match self.measure {
            Measure::Base64 => n,
            // Whole groups of 3 bytes: a payload within that many base64
            // characters is within `n` bytes.
            Measure::Raw => (n / 3).saturating_mul(4),
        });
        Limits {
            budget: self.budget(),
            image_types: Cow::Owned(self.image_types.clone()),
            documents: self.pdf,
            image_urls: self.image_urls,
            document_urls: false,
            max_images: at_most(self.max_images),
            max_documents: if self.pdf { usize::MAX } else { 0 },
            max_pages: usize::MAX,
            refuses_encrypted: false,
            max_total: at_most(total),
            // The pipeline's smallest box.
            max_dim: self.max_dim.map_or(u32::MAX, |d| d.max(16)),
            many_images: None,
        }
    }
}

/// What one request to `model` at `provider` may carry, by `facts`: the
/// API's limits, the image count the lower of the API's and the model's.
pub(crate) fn limits(
    facts: &Facts,
    provider: Provider,
    model: &str,
    family: Option<Family>,
) -> Limits {
    if provider.spec().profiled {
        return crate::facts::Profile::generic().limits();
    }
    let l = &facts.api(provider).limits;
    let count = |n: Option<u64>| n.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let model_images = facts
        .traits(provider, model, family.map(Family::facts_name))
        .max_images
        .unwrap_or(usize::MAX);
    Limits {
        budget: l.budget(),
        image_types: l.image_types.clone().into(),
        documents: l.documents,
        image_urls: l.image_urls,
        document_urls: l.document_urls,
        max_images: count(l.max_images).min(model_images),
        max_documents: count(l.max_documents),
        max_pages: facts.max_pages(provider, model, family.map(Family::facts_name)),
        refuses_encrypted: l.encrypted_documents == Some(false),
        max_total: count(l.max_total),
        max_dim: l.max_dim.unwrap_or(u32::MAX),
        many_images: l.many_images.map(|m| {
            (
                usize::try_from(m.over).unwrap_or(usize::MAX),
                m.max_dim,
                m.documents,
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_claude_and_nova_keep_media_inside_tool_results() {
        let facts = |m: &str, f| Capabilities::of(Facts::builtin(), Provider::Bedrock, m, f);
        assert!(facts("us.anthropic.claude-sonnet-4-5-20250929-v1:0", None).media_in_tool_result);
        assert!(facts("amazon.nova-pro-v1:0", None).media_in_tool_result);
        assert!(!facts("meta.llama3-2-90b-instruct-v1:0", None).media_in_tool_result);
        assert!(
            !facts(
                "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
                None
            )
            .media_in_tool_result
        );
        assert!(
            facts(
                "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
                Some(Family::Claude)
            )
            .media_in_tool_result
        );
        assert!(!facts("amazon.nova-pro-v1:0", Some(Family::Other)).media_in_tool_result);
    }
}
