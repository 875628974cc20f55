//! One table of what the crate knows of each provider: its names, where
//! its requests go, its patterns for tool names and ids, what it can be
//! told about tools, and (per model) what one request may carry. Every
//! fact about a provider that is not its body's shape lives here, each
//! limit with its source and the date it was read.

use std::borrow::Cow;
use std::fmt;

use crate::media::{self, Budget, Measure, MediaType, View};

use super::attach::Limits;
use super::names::Pattern;
use super::openai_images;
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
    /// The model used when none is given.
    pub default_model: &'static str,
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
    pub(crate) limits: fn(&str) -> &'static Limits,
    /// The provider's own count of an image's input tokens for a model,
    /// from its pixel size as sent; `None` where the provider documents
    /// none.
    pub(crate) image_tokens: fn(&str, u32, u32) -> Option<u64>,
    /// The size the model processes images at (larger ones are scaled
    /// down by the provider first); `None` where none is documented.
    pub(crate) view: fn(&str) -> Option<View>,
}

/// Claude: "Each patch is a 28×28 pixel block of the image, referred to
/// as a visual token"; an image larger than the model's limits is scaled
/// to "the largest aspect-preserving size that satisfies both" an edge
/// limit and a visual-token limit: "1568 tokens, and at most 1568 pixels
/// on the long edge" for most models, "4784 tokens, and at most 2576
/// pixels" for Claude Opus 4.7, Opus 4.8, Fable 5 and Mythos 5, the models
/// with high-resolution image support
/// (<https://platform.claude.com/docs/en/build-with-claude/vision>, read
/// 2026-12-01).
pub(crate) fn claude_view(model: &str) -> View {
    const HIGH_RESOLUTION: &[&str] = &[
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-fable-5",
        "claude-mythos-5",
    ];
    if HIGH_RESOLUTION.iter().any(|m| model.contains(m)) {
        View::new(2576).with_max_patches(4784).with_patch(28)
    } else {
        View::new(1568).with_max_patches(1568).with_patch(28)
    }
}

/// Claude's visual tokens for an image of `width` × `height` as sent to
/// `model`: the patches of the size the model processes it at.
pub(crate) fn claude_tokens(model: &str, width: u32, height: u32) -> u64 {
    let view = claude_view(model);
    let (w, h) = view.fit(width, height);
    view.patches(w, h)
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
    default_model: "gemini-3.8-flash",
    method: "POST",
    url: "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent",
    model_in_body: false,
    needs_declared_calls: true,
    choice_none: true,
    names: Pattern::GEMINI_NAME,
    ids: Pattern::ANY_ID,
    limits: |_| &GEMINI,
    image_tokens: |model, w, h| {
        Some(if super::model::gemini_3_or_later(model) {
            media::GEMINI_3_IMAGE_TOKENS
        } else {
            media::gemini_2_tokens(w, h)
        })
    },
    // Gemini tiles large images (2.x) or gives each a fixed budget (3):
    // no pixel size it scales down to is documented.
    view: |_| None,
};

/// The table, in the order of [`Provider::ALL`].
pub(crate) const SPECS: [Spec; 8] = [
    Spec {
        provider: Provider::Anthropic,
        name: "anthropic",
        display_name: "Anthropic",
        // https://platform.claude.com/docs/en/about-claude/models/overview
        // (read 2026-12-01): Claude Sonnet 5 is "Legacy … consider
        // migrating to Claude Sonnet 5.5"; Sonnet 5.5's retirement is "Not
        // sooner than September 28, 2027".
        default_model: "claude-sonnet-5-5",
        method: "POST",
        url: "https://api.anthropic.com/v1/messages",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::ANTHROPIC_ID,
        limits: |model| {
            if super::model::anthropic_million_context(model) {
                &ANTHROPIC_1M
            } else {
                &ANTHROPIC
            }
        },
        // https://platform.claude.com/docs/en/build-with-claude/vision (read 2026-12-01)
        image_tokens: |model, w, h| Some(claude_tokens(model, w, h)),
        view: |model| Some(claude_view(model)),
    },
    Spec {
        provider: Provider::OpenAiChat,
        name: "openai-chat",
        display_name: "OpenAI",
        // https://platform.openai.com/docs/deprecations (read 2026-12-01):
        // gpt-5 shuts down on 2026-12-11. gpt-5.5 is in the images-vision
        // guide's sizing table and has no shutdown date listed.
        default_model: "gpt-5.5",
        method: "POST",
        url: "https://api.openai.com/v1/chat/completions",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::OPENAI_ID,
        limits: |_| &OPENAI_CHAT,
        // Per model: see openai_images.rs.
        image_tokens: |model, w, h| Some(openai_images::sizing(model).tokens(w, h)),
        view: |model| openai_images::sizing(model).view(),
    },
    Spec {
        provider: Provider::OpenAiResponses,
        name: "openai-responses",
        display_name: "OpenAI",
        // https://platform.openai.com/docs/deprecations (read 2026-12-01):
        // gpt-5 shuts down on 2026-12-11. gpt-5.5 is in the images-vision
        // guide's sizing table and has no shutdown date listed.
        default_model: "gpt-5.5",
        method: "POST",
        url: "https://api.openai.com/v1/responses",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::RESPONSES_ID,
        limits: |_| &OPENAI_RESPONSES,
        image_tokens: |model, w, h| Some(openai_images::sizing(model).tokens(w, h)),
        view: |model| openai_images::sizing(model).view(),
    },
    // https://ai.google.dev/gemini-api/docs/models and /deprecations (read
    // 2026-12-01): gemini-3-pro-preview was shut down on 2026-03-09 and
    // gemini-2.5-flash on 2026-12-01; gemini-3.8-flash is a stable Gemini 3
    // model (media in function responses), gemini-2.5-flash-lite the 2.x
    // model still served.
    GEMINI_SPEC,
    // The same API; the name keeps Gemini 2.x defaults and placement.
    Spec {
        provider: Provider::Gemini2,
        name: "gemini-2",
        default_model: "gemini-2.5-flash-lite",
        ..GEMINI_SPEC
    },
    Spec {
        provider: Provider::Bedrock,
        name: "bedrock",
        display_name: "Bedrock",
        default_model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        method: "POST",
        url: "https://bedrock-runtime.{region}.amazonaws.com/model/{model}/converse",
        model_in_body: false,
        needs_declared_calls: true,
        // Converse's toolChoice is auto, any or tool.
        choice_none: false,
        names: Pattern::TOOL_NAME,
        ids: Pattern::BEDROCK_ID,
        limits: |_| &BEDROCK,
        // Claude counts as on Anthropic's API; AWS documents no formula for
        // the other families.
        image_tokens: |model, w, h| {
            (super::model::bedrock_family(model) == Some(super::Family::Claude))
                .then(|| claude_tokens(model, w, h))
        },
        view: |model| {
            (super::model::bedrock_family(model) == Some(super::Family::Claude))
                .then(|| claude_view(model))
        },
    },
    Spec {
        provider: Provider::Ollama,
        name: "ollama",
        display_name: "Ollama",
        default_model: "qwen3-vl",
        method: "POST",
        url: "http://localhost:11434/api/chat",
        model_in_body: true,
        needs_declared_calls: false,
        choice_none: false,
        names: Pattern::ANY,
        ids: Pattern::ANY_ID,
        limits: |_| &OLLAMA,
        // Each vision model counts its own way.
        image_tokens: |_, _, _| None,
        view: |_| None,
    },
    // What depends on the server is its profile's (profile.rs,
    // profiles.rs); this entry holds the generic profile's facts.
    Spec {
        provider: Provider::OpenAiCompatible,
        name: "openai-compatible",
        display_name: "OpenAI-compatible",
        default_model: "default",
        method: "POST",
        url: "http://localhost:8000/v1/chat/completions",
        model_in_body: true,
        needs_declared_calls: true,
        choice_none: true,
        names: Pattern::TOOL_NAME,
        ids: Pattern::OPENAI_ID,
        limits: |_| &COMPATIBLE,
        // The served model counts its own way.
        image_tokens: |_, _, _| None,
        view: |_| None,
    },
];

/// The command-line names, in table order.
pub(crate) const fn names() -> [&'static str; 8] {
    let mut out = [""; 8];
    let mut i = 0;
    while i < SPECS.len() {
        out[i] = SPECS[i].name;
        i += 1;
    }
    out
}

// Gemini: inline data up to 100 MB per request since 2026-01-08
// (https://ai.google.dev/gemini-api/docs/changelog, read
// 2026-12-01), an inline PDF up to 50 MB
// (https://ai.google.dev/gemini-api/docs/document-processing).
const GEMINI_BUDGET: Budget = Budget::new(50_000_000, Measure::Raw);
// Ollama documents no size limits; the OpenAI figures are a sane
// bound for a local model's context.
const OLLAMA_BUDGET: Budget = Budget::OPENAI;
const ALL_RASTERS: &[MediaType] = &[
    MediaType::Png,
    MediaType::Jpeg,
    MediaType::Gif,
    MediaType::Webp,
];
// https://platform.claude.com/docs/en/build-with-claude/vision
// (read 2026-12-01): "up to 100 images" for models with a
// 200k-token context window, 600 for the others; 8000×8000 px,
// 2000×2000 px each when a request holds more than 20 images;
// 10 MB per image on the base64 text on the Claude API itself and
// 5 MB on Bedrock and Google Cloud: 5 MB is kept (Budget::
// ANTHROPIC), so one body is accepted on every Claude platform.
// https://platform.claude.com/docs/en/api/overview: 32 MB per
// Messages request, 20 MB on Bedrock.
pub(crate) static ANTHROPIC: Limits = ANTHROPIC_LIMITS;
const ANTHROPIC_LIMITS: Limits = Limits {
    budget: Budget::ANTHROPIC,
    image_types: Cow::Borrowed(ALL_RASTERS),
    documents: true,
    image_urls: true,
    document_urls: true,
    max_images: 100,
    max_documents: usize::MAX,
    // 2 MB of the 32 kept for the text.
    max_total: 30_000_000,
    max_dim: 8000,
    many_images: Some((20, 2000)),
};
pub(crate) static ANTHROPIC_1M: Limits = Limits {
    max_images: 600,
    ..ANTHROPIC_LIMITS
};
// https://platform.openai.com/docs/guides/images-vision (read
// 2026-12-01): PNG, JPEG, WEBP, non-animated GIF; up to 1500
// images and 512 MB per request (since 2026-04; before, 500 and
// 50 MB). Requests over ~50 MB of images are still reported
// refused, so 45 MB is kept. PDFs: each file and all together
// under 50 MB (https://platform.openai.com/docs/guides/pdf-files).
pub(crate) static OPENAI_CHAT: Limits = OPENAI_CHAT_LIMITS;
const OPENAI_CHAT_LIMITS: Limits = Limits {
    budget: Budget::OPENAI,
    // A GIF is sent as PNG, so an animation cannot slip through.
    image_types: Cow::Borrowed(&[MediaType::Png, MediaType::Jpeg, MediaType::Webp]),
    documents: true,
    image_urls: true,
    // Chat `file` parts take `file_data` or `file_id`, not URLs.
    document_urls: false,
    max_images: 1500,
    max_documents: usize::MAX,
    max_total: 45_000_000,
    max_dim: u32::MAX,
    many_images: None,
};
pub(crate) static OPENAI_RESPONSES: Limits = Limits {
    // `input_file` takes a `file_url`.
    document_urls: true,
    ..OPENAI_CHAT_LIMITS
};
// https://ai.google.dev/gemini-api/docs/image-understanding (read
// 2026-12-01): PNG, JPEG, WEBP, HEIC, HEIF (no GIF, so a GIF is
// sent as PNG); up to 3,600 images per request.
pub(crate) static GEMINI: Limits = Limits {
    budget: GEMINI_BUDGET,
    image_types: Cow::Borrowed(&[MediaType::Png, MediaType::Jpeg, MediaType::Webp]),
    documents: true,
    // `fileData` takes Files API URIs, not arbitrary URLs.
    image_urls: false,
    document_urls: false,
    max_images: 3600,
    max_documents: usize::MAX,
    // 5 MB of the 100 kept for the text.
    max_total: 95_000_000,
    max_dim: u32::MAX,
    many_images: None,
};
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
// (read 2026-12-01): up to 20 images, each at most 3.75 MB and
// 8000×8000 px, and 5 documents of at most 4.5 MB (Budget::
// BEDROCK); Claude on Bedrock takes at most 20 MB a request
// (https://platform.claude.com/docs/en/api/overview).
pub(crate) static BEDROCK: Limits = Limits {
    budget: Budget::BEDROCK,
    image_types: Cow::Borrowed(ALL_RASTERS),
    documents: true,
    // Converse sources are bytes or S3 locations only.
    image_urls: false,
    document_urls: false,
    max_images: 20,
    max_documents: 5,
    // 2 MB of the 20 kept for the text.
    max_total: 18_000_000,
    max_dim: 8000,
    many_images: None,
};
pub(crate) static OLLAMA: Limits = Limits {
    budget: OLLAMA_BUDGET,
    // Vision models in Ollama are documented with PNG and JPEG;
    // anything else is sent as PNG.
    image_types: Cow::Borrowed(&[MediaType::Png, MediaType::Jpeg]),
    documents: false,
    image_urls: false,
    document_urls: false,
    max_images: usize::MAX,
    max_documents: 0,
    max_total: usize::MAX,
    max_dim: u32::MAX,
    many_images: None,
};

/// [`Profile::generic`](super::Profile::generic)'s limits (a test keeps
/// them equal).
pub(crate) static COMPATIBLE: Limits = Limits {
    budget: Budget::new(20_000_000, Measure::Raw),
    image_types: Cow::Borrowed(&[MediaType::Png, MediaType::Jpeg]),
    documents: false,
    image_urls: false,
    document_urls: false,
    max_images: usize::MAX,
    max_documents: 0,
    max_total: usize::MAX,
    max_dim: u32::MAX,
    many_images: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compatible_entry_holds_the_generic_profile() {
        let generic = super::super::Profile::generic().limits();
        assert_eq!(format!("{generic:?}"), format!("{COMPATIBLE:?}"));
        let spec = Provider::OpenAiCompatible.spec();
        assert_eq!(spec.url, super::super::Profile::generic().url());
        assert_eq!(
            spec.default_model,
            super::super::Profile::generic().default_model
        );
    }

    #[test]
    fn the_table_is_in_the_order_of_all() {
        for (i, p) in Provider::ALL.into_iter().enumerate() {
            assert_eq!(SPECS[i].provider, p);
            assert_eq!(p.spec().name, Provider::NAMES[i]);
        }
    }

    #[test]
    fn claude_counts_its_vision_pages_tables() {
        // https://platform.claude.com/docs/en/build-with-claude/vision
        // (read 2026-12-01), the tables for most models and for the models
        // with high-resolution support.
        let most = |w, h| Provider::Anthropic.image_tokens("claude-sonnet-5-5", w, h);
        for ((w, h), tokens) in [
            ((200, 200), 64),
            ((1000, 1000), 1296),
            ((1092, 1092), 1521),
            ((1920, 1080), 1560),
            ((2000, 1500), 1564),
            ((3840, 2160), 1560),
        ] {
            assert_eq!(most(w, h), Some(tokens), "{w}×{h}");
        }
        for model in [
            "claude-opus-4-7",
            "claude-opus-4-8",
            "claude-fable-5",
            "claude-mythos-5",
        ] {
            let high = |w, h| Provider::Anthropic.image_tokens(model, w, h);
            assert_eq!(high(1920, 1080), Some(2691), "{model}");
            assert_eq!(high(2000, 1500), Some(3888), "{model}");
            assert_eq!(high(3840, 2160), Some(4784), "{model}");
        }
        // "1920x1080, 2000x1500, and 3840x2160 … downscaled to 1456x819,
        // 1270x952 and 1456x819": the resizer rounds 952.5 up, so the
        // second lands a pixel narrower at the same 1564 tokens.
        let view = claude_view("claude-sonnet-5-5");
        assert_eq!(view.fit(1920, 1080), (1456, 819));
        assert_eq!(view.fit(3840, 2160), (1456, 819));
        assert_eq!(view.fit(2000, 1500), (1269, 952));
        assert_eq!(view.fit(1075, 1520), (924, 1307)); // the A4 scan
        assert_eq!(claude_view("claude-opus-4-8").fit(3840, 2160), (2576, 1449));
    }

    #[test]
    fn mythos_5_has_a_million_token_context_and_so_600_images() {
        // Anthropic's models page: Mythos 5 "shares Claude Fable 5's
        // specifications"; the vision page: 600 images a request for
        // models past a 200k-token context.
        assert_eq!(Provider::Anthropic.max_images("claude-mythos-5"), 600);
        assert_eq!(Provider::Anthropic.max_images("claude-fable-5"), 600);
        assert_eq!(Provider::Anthropic.max_images("claude-haiku-4-5"), 100);
    }

    #[test]
    fn image_tokens_follow_each_providers_formula() {
        let shot = (2880, 1800);
        let tokens = |p: Provider, model: &str| p.image_tokens(model, shot.0, shot.1);
        // Fitted to 1389×868: 50 × 31 visual tokens of 28 px.
        assert_eq!(tokens(Provider::Anthropic, "claude-sonnet-5-5"), Some(1550));
        assert_eq!(
            tokens(Provider::OpenAiChat, "gpt-5"),
            tokens(Provider::OpenAiResponses, "gpt-5")
        );
        // A crop unit of 1200 px: 3 × 2 tiles.
        assert_eq!(tokens(Provider::Gemini2, "gemini-2.5-flash"), Some(258 * 6));
        assert_eq!(tokens(Provider::Gemini, "gemini-3.8-flash"), Some(1120));
        // Gemini's own table decides by the model, whichever name was used.
        assert_eq!(tokens(Provider::Gemini, "gemini-2.0-flash"), Some(258 * 6));
        assert_eq!(
            tokens(
                Provider::Bedrock,
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
            ),
            tokens(Provider::Anthropic, "claude-sonnet-5-5")
        );
        assert_eq!(tokens(Provider::Bedrock, "amazon.nova-pro-v1:0"), None);
        assert_eq!(tokens(Provider::Ollama, "qwen3-vl"), None);
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
