//! What the crate knows of each provider and model, as dated data.
//!
//! Providers retire models and change limits and formulas every month, so
//! those facts are not code: TOML files compiled into the crate
//! (`src/facts/data/`), read once, each value with the page it was read on
//! and the date ([`Provenance`]). Code keeps the formulas ([`Sizing`]); the
//! data keeps the numbers. A user's own file, with the same keys, is laid
//! over the built-in data ([`Facts::layered`]), so a new model or a changed
//! limit needs no release; [`Facts::check_model`] says when a model is past
//! its documented retirement date or not in the data at all.
//!
//! ```
//! use tool_carrier::facts::{Date, Facts, Syntax};
//! use tool_carrier::provider::Provider;
//!
//! let facts = Facts::builtin();
//! assert_eq!(facts.image_tokens(Provider::Anthropic, "claude-sonnet-5-5", 1000, 1000), Some(1296));
//!
//! let mine = facts.layered(
//!     r#"
//!     [models.claude-test-9]
//!     family = "claude"
//!     apis = ["anthropic"]
//!     max_images = 3
//!     sizing = { scheme = "claude-patches", long_edge = 1000, max_patches = 1000, patch = 28 }
//!     "#,
//!     Syntax::Toml,
//!     "mine.toml",
//! )?;
//! assert_eq!(mine.max_images(Provider::Anthropic, "claude-test-9"), 3);
//! assert_eq!(mine.view(Provider::Anthropic, "claude-test-9").unwrap().long_edge, 1000);
//! let today: Date = "2026-12-01".parse().unwrap();
//! assert!(mine.check_model(Provider::Anthropic, "claude-test-9", today).is_none());
//! assert!(facts.check_model(Provider::Anthropic, "claude-test-9", today).is_some());
//! # Ok::<(), tool_carrier::facts::FactsError>(())
//! ```

mod builtin;
mod date;
mod detail;
mod error;
pub(crate) mod ids;
mod layer;
mod profile;
mod profiles;
pub(crate) mod provider;
mod resolve;
mod schema;
mod sizing;
mod stale;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Serialize;

use crate::media::{Budget, Measure, MediaType, View};

pub use date::{BadDate, Date};
pub(crate) use detail::takes as takes_detail;
pub use detail::{Detail, UnknownDetail};
pub use error::FactsError;
pub use ids::Family;
pub use layer::{Provenance, Syntax};
pub(crate) use profile::BRIDGE;
pub use profile::{IdRule, Profile, ProfileError};
pub use profiles::UnknownProfile;
pub(crate) use provider::Provider;
pub use sizing::Sizing;
pub use stale::ModelWarning;

use layer::Layer;

/// What a family's models share, or what one model states for itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Traits {
    /// How images are sized and counted.
    pub sizing: Option<Sizing>,
    /// The most images one request may carry.
    pub max_images: Option<usize>,
    /// The most PDF pages one request may carry, all documents together.
    pub max_pages: Option<usize>,
    /// Whether images and documents may sit inside a tool result.
    pub media_in_tool_result: Option<bool>,
    /// Whether the models take a per-image detail level, where they differ
    /// from their API ([`Api::image_detail`]): Gemini 2.x do not.
    pub image_detail: Option<bool>,
    /// The shortest prompt prefix a cache mark caches, in tokens.
    pub cache_min_tokens: Option<u64>,
    /// Whether the models take a caller's explicit prompt-cache
    /// breakpoints on content parts where their API has them (OpenAI
    /// Responses' `prompt_cache_breakpoint`), though they cache prefixes
    /// on their own.
    pub cache_breakpoints: Option<bool>,
    /// Whether the models take a JSON Schema their answer must follow
    /// (structured outputs: the setting `response_format` with a schema).
    pub structured_outputs: Option<bool>,
    /// The sizing at a detail level where it differs from
    /// [`Traits::sizing`] (which is `auto`'s), by level name: OpenAI's
    /// `high` and `original` on the models where they differ, Gemini 3's
    /// media resolutions. `low` on OpenAI's schemes follows from the
    /// scheme ([`Sizing::at_low`]) unless given here.
    pub detail_sizing: BTreeMap<String, Sizing>,
}

impl Traits {
    /// `self`, each fact it leaves out taken from `under`.
    fn over(&self, under: &Traits) -> Traits {
        Traits {
            sizing: self.sizing.or(under.sizing),
            max_images: self.max_images.or(under.max_images),
            max_pages: self.max_pages.or(under.max_pages),
            media_in_tool_result: self.media_in_tool_result.or(under.media_in_tool_result),
            image_detail: self.image_detail.or(under.image_detail),
            cache_min_tokens: self.cache_min_tokens.or(under.cache_min_tokens),
            cache_breakpoints: self.cache_breakpoints.or(under.cache_breakpoints),
            structured_outputs: self.structured_outputs.or(under.structured_outputs),
            detail_sizing: {
                let mut levels = under.detail_sizing.clone();
                levels.extend(self.detail_sizing.iter().map(|(k, v)| (k.clone(), *v)));
                levels
            },
        }
    }
}

/// One model, as the data describes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Model {
    /// The id the provider's API names it by (without a date suffix).
    pub id: String,
    /// Its family, whose traits it shares.
    pub family: Option<String>,
    /// The APIs that serve it.
    pub apis: Vec<Provider>,
    /// The provider's display name.
    pub name: Option<String>,
    /// Context window, tokens.
    pub context: Option<u64>,
    /// Most output tokens.
    pub max_output: Option<u64>,
    /// Whether it is a reasoning (thinking) model.
    pub reasoning: Option<bool>,
    /// Whether it takes the sampling settings (`temperature`, `top_p`,
    /// `top_k`); `Some(false)` where the provider documents that it
    /// refuses them.
    pub sampling: Option<bool>,
    /// How its thinking is asked for, where the data says.
    pub thinking: Option<Thinking>,
    /// The image detail levels it takes.
    pub detail: Vec<String>,
    /// What it states for itself (its family fills in the rest).
    pub traits: Traits,
    /// Its documented shutdown date on every API that serves it, unless
    /// [`Model::retires_on`] names one for an API.
    pub retires: Option<Date>,
    /// Shutdown dates that differ by API.
    pub retires_on: BTreeMap<String, Date>,
    /// The model the provider names as its replacement.
    pub successor: Option<String>,
}

impl Model {
    /// Its documented shutdown date on `api`.
    pub fn retires_at(&self, api: Provider) -> Option<Date> {
        self.retires_on.get(api.name()).copied().or(self.retires)
    }
}

/// What one API takes in a request, as the data states it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Limits {
    /// The largest image and document, measured by [`Limits::measure`].
    pub image_bytes: Option<u64>,
    /// The largest document, when it differs from images'.
    pub document_bytes: Option<u64>,
    /// How the byte caps are measured.
    pub measure: Measure,
    /// Image types sent as they are (others are sent as PNG).
    pub image_types: Vec<MediaType>,
    /// Whether PDFs can be sent.
    pub documents: bool,
    /// Whether images can be sent as `http(s)` URLs.
    pub image_urls: bool,
    /// Whether documents can be sent as `http(s)` URLs.
    pub document_urls: bool,
    /// Most images in one request.
    pub max_images: Option<u64>,
    /// Most documents in one request.
    pub max_documents: Option<u64>,
    /// Most PDF pages in one request, all documents together (a model
    /// may take fewer: [`Traits::max_pages`]).
    pub max_pages: Option<u64>,
    /// Whether encrypted (password-protected) PDFs are taken; `Some(false)`
    /// where the provider documents that it refuses them.
    pub encrypted_documents: Option<bool>,
    /// Most base64 characters of inline media in one request.
    pub max_total: Option<u64>,
    /// Largest width or height of an image.
    pub max_dim: Option<u32>,
    /// A smaller size for every image of a request with many.
    pub many_images: Option<ManyImages>,
}

/// How a model's thinking is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Thinking {
    /// With a token budget (Anthropic's `{"type": "enabled",
    /// "budget_tokens": n}`).
    Budget,
    /// Adaptively, its depth set by an effort level (Anthropic's
    /// `{"type": "adaptive"}` and `output_config.effort`); a budget is
    /// refused.
    Adaptive,
}

/// When a request holds more than [`ManyImages::over`] images (and,
/// where [`ManyImages::documents`] says, documents), each image must fit
/// [`ManyImages::max_dim`] × [`ManyImages::max_dim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ManyImages {
    /// The count over which the smaller size holds.
    pub over: u64,
    /// The largest side then.
    pub max_dim: u32,
    /// Whether documents (PDFs) count with the images.
    pub documents: bool,
}

impl Limits {
    /// The budget each attachment is prepared for.
    pub fn budget(&self) -> Budget {
        let cap =
            |c: Option<u64>| c.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        let image = cap(self.image_bytes);
        Budget::new(image, self.measure).with_document_cap(
            self.document_bytes
                .map_or(image, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        )
    }
}

/// One API, as the data states it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Api {
    /// The API.
    pub provider: Provider,
    /// The model used when none is given.
    pub default_model: String,
    /// The family assumed for an id the data does not know.
    pub family: Option<String>,
    /// Whether the provider documents its model list (an id the data does
    /// not know is then worth a warning).
    pub documented_models: bool,
    /// The largest request body, bytes.
    pub request_bytes: Option<u64>,
    /// Whether system text goes to a reasoning model (one whose facts say
    /// [`Model::reasoning`]) as `developer` messages, as the API documents
    /// for them.
    pub reasoning_developer_role: bool,
    /// How the API writes model ids, and what an id says of the family.
    pub model_ids: ids::ModelIds,
    /// Whether the API has a per-image detail level (a family may say its
    /// models take none: [`Traits::image_detail`]).
    pub image_detail: bool,
    /// What one request may carry.
    pub limits: Limits,
}

/// Every fact: the built-in data, and any user file laid over it.
#[derive(Clone, Debug)]
pub struct Facts {
    sizings: BTreeMap<String, Sizing>,
    families: BTreeMap<String, Traits>,
    models: Vec<Model>,
    /// Indices of `models`, longest id first (the order ids are matched in).
    by_length: Vec<usize>,
    apis: Vec<Api>,
    profiles: BTreeMap<String, Profile>,
    layer: Layer,
}

impl Facts {
    /// The data compiled into the crate, read on first use.
    ///
    /// # Panics
    /// Never for the data shipped: a test reads it.
    pub fn builtin() -> &'static Facts {
        static BUILTIN: OnceLock<Facts> = OnceLock::new();
        BUILTIN.get_or_init(|| match builtin::layer().and_then(Facts::resolve) {
            Ok(facts) => facts,
            Err(e) => panic!("the built-in facts do not read: {e}"),
        })
    }

    /// These facts with a user's file laid over them: the same keys; a
    /// table merges key by key, any other value replaces what was there.
    /// Values that name no source are shown as coming from `origin` (the
    /// file's name).
    ///
    /// # Errors
    /// The text is not TOML or JSON, a key is unknown, a value is of the
    /// wrong kind, or a name (a family, a sizing, an API) is not defined:
    /// the error names the key.
    pub fn layered(&self, text: &str, format: Syntax, origin: &str) -> Result<Facts, FactsError> {
        let user = Layer::parse(
            text,
            format,
            Provenance {
                source: Some(origin.to_owned()),
                read: None,
            },
        )?;
        Facts::resolve(self.layer.clone().overlay(user))
    }

    /// What the data states of `provider`'s API.
    pub fn api(&self, provider: Provider) -> &Api {
        &self.apis[provider as usize]
    }

    /// The model used when none is given.
    pub fn default_model(&self, provider: Provider) -> &str {
        &self.api(provider).default_model
    }

    /// Every model the data knows, by id.
    pub fn models(&self) -> &[Model] {
        &self.models
    }

    /// The families, by name.
    pub fn families(&self) -> &BTreeMap<String, Traits> {
        &self.families
    }

    /// The named sizings.
    pub fn sizings(&self) -> &BTreeMap<String, Sizing> {
        &self.sizings
    }

    /// The OpenAI-compatible server profiles, by name.
    pub fn profiles(&self) -> &BTreeMap<String, Profile> {
        &self.profiles
    }

    /// Where the value at `key` (a dotted key: `models."gpt-5.5".context`)
    /// comes from.
    pub fn provenance(&self, key: &str) -> Option<&Provenance> {
        self.layer.provenance.get(key)
    }

    /// Every value's key and where it comes from.
    pub fn provenances(&self) -> impl Iterator<Item = (&str, &Provenance)> {
        self.layer.provenance.iter().map(|(k, p)| (k.as_str(), p))
    }

    /// Where one fact of `model` (a key of its entry: `max_output`,
    /// `context`, …) comes from.
    pub fn provenance_of(&self, model: &Model, fact: &str) -> Option<&Provenance> {
        let mut key = String::from("models.");
        layer::push_key(&mut key, &model.id);
        key.push('.');
        key.push_str(fact);
        self.provenance(&key)
    }

    /// Where `model`'s values come from: each page once, the page most of
    /// its values were read on first.
    pub fn sources(&self, model: &Model) -> Vec<&Provenance> {
        let mut prefix = String::from("models.");
        layer::push_key(&mut prefix, &model.id);
        prefix.push('.');
        let mut counted: Vec<(usize, &Provenance)> = Vec::new();
        for (_, p) in self
            .layer
            .provenance
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
        {
            match counted.iter_mut().find(|(_, q)| *q == p) {
                Some((n, _)) => *n += 1,
                None => counted.push((1, p)),
            }
        }
        counted.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.source.cmp(&b.1.source)));
        counted.into_iter().map(|(_, p)| p).collect()
    }

    /// The model `id` names at `provider`, if the data knows it: the
    /// entry whose id is `id`, or begins it followed by a snapshot suffix
    /// (a date, `-latest`, `-preview…`, Bedrock's `-v1:0`, Vertex's
    /// `@20250929`), the longest first; not by a version number, so
    /// `claude-sonnet-4-7` is not taken for `claude-sonnet-4`. Bedrock ids
    /// are read past their inference-profile and vendor prefixes, Gemini's
    /// past `models/`.
    ///
    /// ```
    /// use tool_carrier::facts::Facts;
    /// use tool_carrier::provider::Provider;
    /// let facts = Facts::builtin();
    /// let m = facts.model(Provider::Bedrock, "us.anthropic.claude-sonnet-4-5-20250929-v1:0").unwrap();
    /// assert_eq!(m.id, "claude-sonnet-4-5");
    /// let dated = facts.model(Provider::OpenAiChat, "gpt-4o-2024-08-06").unwrap();
    /// assert_eq!(dated.id, "gpt-4o");
    /// assert!(facts.model(Provider::Anthropic, "claude-sonnet-4-9").is_none());
    /// ```
    pub fn model(&self, provider: Provider, id: &str) -> Option<&Model> {
        let id = self.api(provider).model_ids.base(id);
        self.by_length.iter().map(|&i| &self.models[i]).find(|m| {
            m.apis.contains(&provider)
                && id.strip_prefix(m.id.as_str()).is_some_and(snapshot_suffix)
        })
    }

    /// The family assumed for an id the data does not know.
    pub(crate) fn family_of_unknown(&self, provider: Provider, id: &str) -> Option<String> {
        self.family_name(provider, id, None, None)
    }

    /// The family a model belongs to at `provider`: the data's, else what
    /// the id or `family` says, else the API's.
    fn family_name(
        &self,
        provider: Provider,
        id: &str,
        known: Option<&Model>,
        family: Option<&str>,
    ) -> Option<String> {
        if let Some(f) = family {
            return Some(f.to_owned());
        }
        if let Some(f) = known.and_then(|m| m.family.clone()) {
            return Some(f);
        }
        let api = self.api(provider);
        match api.model_ids.family(id) {
            Some(f) => Some(f.to_owned()),
            None => api.family.clone(),
        }
    }

    /// What the data states of `model` at `provider`, its family's traits
    /// filling in what the model leaves out. `family` names the family
    /// when the id does not say (Bedrock's `--family`).
    pub fn traits(&self, provider: Provider, model: &str, family: Option<&str>) -> Traits {
        let known = self.model(provider, model);
        let family = self
            .family_name(provider, model, known, family)
            .and_then(|f| self.families.get(&f))
            .cloned()
            .unwrap_or_default();
        match known {
            Some(m) => m.traits.over(&family),
            None => family,
        }
    }

    /// The input tokens of a `width` × `height` image as sent to `model`
    /// at `provider`, by the provider's own count; `None` where none is
    /// documented.
    pub fn image_tokens(
        &self,
        provider: Provider,
        model: &str,
        width: u32,
        height: u32,
    ) -> Option<u64> {
        self.image_tokens_at(provider, model, Detail::Auto, width, height)
    }

    /// The size `model` at `provider` processes images at; `None` where
    /// none is documented.
    pub fn view(&self, provider: Provider, model: &str) -> Option<View> {
        self.view_at(provider, model, Detail::Auto)
    }

    /// How `model` at `provider` sizes and counts an image sent at
    /// `detail`: the level's own sizing where the data gives one
    /// ([`Traits::detail_sizing`]), `low` on OpenAI's schemes by their
    /// rule ([`Sizing::at_low`]), else the model's sizing (`auto`'s).
    ///
    /// ```
    /// use tool_carrier::facts::{Detail, Facts};
    /// use tool_carrier::provider::Provider;
    /// let facts = Facts::builtin();
    /// let at = |d| facts.sizing_at(Provider::OpenAiResponses, "gpt-5.4", d).unwrap().tokens(2880, 1800);
    /// // auto is high on GPT-5.4: 2,500 patches at most, times 1.2.
    /// assert_eq!(at(Detail::Auto), at(Detail::High));
    /// assert!(at(Detail::Low) < at(Detail::High) && at(Detail::High) < at(Detail::Original));
    /// ```
    pub fn sizing_at(&self, provider: Provider, model: &str, detail: Detail) -> Option<Sizing> {
        let traits = self.traits(provider, model, None);
        if detail == Detail::Auto {
            return traits.sizing;
        }
        if let Some(s) = traits.detail_sizing.get(detail.name()) {
            return Some(*s);
        }
        match detail {
            Detail::Low => traits.sizing.map(|s| s.at_low().unwrap_or(s)),
            _ => traits.sizing,
        }
    }

    /// [`Facts::image_tokens`] at a detail level ([`Facts::sizing_at`]).
    pub fn image_tokens_at(
        &self,
        provider: Provider,
        model: &str,
        detail: Detail,
        width: u32,
        height: u32,
    ) -> Option<u64> {
        self.sizing_at(provider, model, detail)
            .map(|s| s.tokens(width, height))
    }

    /// [`Facts::view`] at a detail level ([`Facts::sizing_at`]).
    pub fn view_at(&self, provider: Provider, model: &str, detail: Detail) -> Option<View> {
        self.sizing_at(provider, model, detail)
            .and_then(|s| s.view())
    }

    /// The most images one request to `model` at `provider` may carry:
    /// the API's cap and the model's, whichever is lower.
    pub fn max_images(&self, provider: Provider, model: &str) -> usize {
        let api = self
            .api(provider)
            .limits
            .max_images
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        api.min(
            self.traits(provider, model, None)
                .max_images
                .unwrap_or(usize::MAX),
        )
    }

    /// The most PDF pages one request to `model` at `provider` may carry,
    /// all documents together: the API's cap and the model's, whichever
    /// is lower; `usize::MAX` where neither is documented.
    pub fn max_pages(&self, provider: Provider, model: &str, family: Option<&str>) -> usize {
        let api = self
            .api(provider)
            .limits
            .max_pages
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        api.min(
            self.traits(provider, model, family)
                .max_pages
                .unwrap_or(usize::MAX),
        )
    }

    /// A warning when `model` at `provider` is past (or within 90 days
    /// of) its documented retirement date on `today`, or is not in the
    /// data though the provider documents its models.
    pub fn check_model(
        &self,
        provider: Provider,
        model: &str,
        today: Date,
    ) -> Option<ModelWarning> {
        stale::check(self, provider, model, today)
    }

    /// The built-in profile or one a facts file adds, called `name`.
    pub fn profile(&self, name: &str) -> Option<&Profile> {
        self.profiles.get(name)
    }
}

/// Whether what follows a model's id names a snapshot of the same model:
/// nothing, `@…` or `:…`, or `-` and a date (four digits or more), `v`
/// and a version, `latest`, `preview` or `exp`. A short number after `-`
/// is a version of its own (`-4-7` after `-4`).
fn snapshot_suffix(rest: &str) -> bool {
    if rest.is_empty() || rest.starts_with(['@', ':']) {
        return true;
    }
    let Some(tail) = rest.strip_prefix('-') else {
        return false;
    };
    let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
    let next = tail.as_bytes().get(digits);
    (digits >= 4 && next.is_none_or(|&b| !b.is_ascii_alphabetic()))
        || (tail.starts_with('v') && tail.as_bytes().get(1).is_some_and(u8::is_ascii_digit))
        || ["latest", "preview", "exp"].iter().any(|w| {
            tail.strip_prefix(w)
                .is_some_and(|r| r.is_empty() || r.starts_with('-'))
        })
}

/// Whether `id`, written as `ids` says, names the model `model_id` by the
/// rules of [`Facts::model`], whether or not the data lists its API.
pub(crate) fn names_model(ids: ids::ModelIds, id: &str, model_id: &str) -> bool {
    ids.base(id)
        .strip_prefix(model_id)
        .is_some_and(snapshot_suffix)
}

fn path(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| (*s).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_match_and_versions_do_not() {
        for rest in [
            "",
            "-20250929",
            "-2024-08-06",
            "-v1:0",
            "@20250929",
            ":0",
            "-latest",
            "-preview-09-2025",
            "-exp",
        ] {
            assert!(snapshot_suffix(rest), "{rest:?}");
        }
        for rest in [
            "-5",
            "-50",
            "-4-7",
            "-mini",
            "-pro",
            "0",
            ".5",
            "-2025x",
            "-vision",
            "-preview2",
        ] {
            assert!(!snapshot_suffix(rest), "{rest:?}");
        }
    }
}
