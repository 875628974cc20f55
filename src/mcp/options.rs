//! Whom the images of a result are prepared for: [`FitOptions`].

use crate::facts::{Facts, Provider};
use crate::media::{Budget, MediaType, Policy};
use crate::steps::model::limits;

/// The model a result's images are prepared for, and what that means for
/// the media pipeline: the size it processes images at, the API's byte
/// cap per image and the image types it takes.
///
/// The decisions are those a conversion makes for the same provider and
/// model ([`build_request`](crate::provider::build_request)), taken from
/// the same facts:
///
/// * each image fits within 2000 px a side ([`Policy::DEFAULT_MAX_DIM`])
///   and the API's largest side, and, unless [`FitOptions::with_max_dim`]
///   says otherwise, the size the model processes images at
///   ([`Facts::view`]);
/// * a request with many images takes smaller ones on some APIs
///   (Anthropic: more than 20 images, 2000 px a side). A tool result joins
///   a conversation whose image count cannot be seen from here, so that
///   smaller side is always kept;
/// * the byte cap is the API's ([`Limits::budget`](crate::facts::Limits::budget)),
///   and an image of a type the API does not take is written as one it does.
///
/// ```
/// use tool_carrier::facts::Facts;
/// use tool_carrier::mcp::FitOptions;
/// use tool_carrier::provider::Provider;
///
/// let facts = Facts::builtin();
/// let options = FitOptions::new(facts, Provider::Anthropic, Some("claude-haiku-4-5"));
/// // Claude Haiku 4.5 processes a 2880×1800 screenshot at 1389×868 (1550 patches of 28 px; 1568 at most).
/// assert_eq!(options.processing_size(2880, 1800), (1389, 868));
/// let default = FitOptions::new(facts, Provider::Anthropic, None);
/// assert_eq!(default.model(), facts.default_model(Provider::Anthropic));
/// let boxed = default.with_max_dim(800);
/// assert_eq!(boxed.processing_size(2880, 1800), (800, 500));
/// ```
#[derive(Clone, Debug)]
pub struct FitOptions {
    provider: Provider,
    model: String,
    policy: Policy,
    budget: Budget,
    image_types: Vec<MediaType>,
    /// The API's largest side, and the smaller one of a request with many
    /// images: no `--max-dim` goes past it.
    api_max_dim: u32,
    /// Whether a resized image's scale is also said in a text block.
    say_scale: bool,
}

impl FitOptions {
    /// Images prepared for `model` (the provider's default model when
    /// `None`) at `provider`, by `facts`.
    pub fn new(facts: &Facts, provider: Provider, model: Option<&str>) -> FitOptions {
        let model = model.unwrap_or_else(|| facts.default_model(provider));
        let limits = limits(facts, provider, model, None);
        let api_max_dim = match limits.many_images {
            Some((_, edge, _)) => edge.min(limits.max_dim),
            None => limits.max_dim,
        };
        let mut policy = Policy::default();
        if policy.max_dim() > api_max_dim {
            policy = policy.with_max_dim(api_max_dim);
        }
        if let Some(view) = facts.view(provider, model) {
            policy = policy.with_view(view);
        }
        FitOptions {
            provider,
            model: model.to_owned(),
            policy,
            budget: limits.budget,
            image_types: limits.image_types.into_owned(),
            api_max_dim,
            say_scale: false,
        }
    }

    /// Fit images within `max_dim` × `max_dim` instead of to the model's
    /// processing size (still within the API's largest side).
    pub fn with_max_dim(self, max_dim: u32) -> FitOptions {
        let mut policy = Policy::default().with_max_dim(max_dim.min(self.api_max_dim));
        policy = policy
            .with_max_pixels(self.policy.max_pixels())
            .with_max_alloc(self.policy.max_alloc());
        FitOptions { policy, ..self }
    }

    /// Say a resized image's scale to the model too: a text block after
    /// it ("scaled from 2880×1800 to 1389×868: multiply coordinates by
    /// 2.073"). The scale is always written under
    /// [`SCALE_META`](super::SCALE_META) in the image's `_meta`.
    pub fn with_say_scale(self, say: bool) -> FitOptions {
        FitOptions {
            say_scale: say,
            ..self
        }
    }

    /// Whether a resized image's scale is said in a text block too.
    pub fn says_scale(&self) -> bool {
        self.say_scale
    }

    /// The provider.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The model.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The media policy images are prepared under: the longest side and
    /// the model's processing size.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The byte cap of one image.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The image types sent as they are; any other is re-encoded.
    pub fn image_types(&self) -> &[MediaType] {
        &self.image_types
    }

    /// The size a `width` × `height` image is sent at (aspect kept, never
    /// scaled up), before any further scaling a byte cap may need.
    pub fn processing_size(&self, width: u32, height: u32) -> (u32, u32) {
        let edge = self.policy.long_edge_for(width, height);
        crate::media::fit_within(width, height, edge)
    }
}
