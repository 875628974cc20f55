//! Image detail levels: how finely a model is asked to look at an image
//! (OpenAI's `detail`, Gemini 3's media resolution).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::{Facts, Provider};

/// An image detail level, as OpenAI names them
/// (<https://developers.openai.com/api/docs/guides/images-vision#choose-an-image-detail-level>,
/// read 2026-12-02): `low` (a 512 × 512 px version, a fixed token count),
/// `high`, `original` (the newer models' full resolution, up to their
/// limits) and `auto` (the model chooses; what is sent when no level is
/// given). Which levels a model takes is in its facts
/// ([`Model::detail`](crate::facts::Model::detail)).
///
/// ```
/// use tool_carrier::facts::Detail;
/// let d: Detail = "original".parse()?;
/// assert_eq!(d, Detail::Original);
/// assert_eq!(d.name(), "original");
/// assert!("ultra".parse::<Detail>().is_err());
/// # Ok::<(), tool_carrier::facts::UnknownDetail>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// A low-resolution version, at a fixed cost.
    Low,
    /// Standard high fidelity.
    High,
    /// Full resolution, within the model's limits.
    Original,
    /// The model chooses.
    Auto,
}

impl Detail {
    /// Every level, in the order above.
    pub const ALL: [Detail; 4] = [Detail::Low, Detail::High, Detail::Original, Detail::Auto];

    /// The level's name (`low`, `high`, `original`, `auto`).
    pub fn name(self) -> &'static str {
        match self {
            Detail::Low => "low",
            Detail::High => "high",
            Detail::Original => "original",
            Detail::Auto => "auto",
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a detail level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a detail level (low, high, original, auto)")]
pub struct UnknownDetail(pub String);

impl FromStr for Detail {
    type Err = UnknownDetail;

    fn from_str(s: &str) -> Result<Detail, UnknownDetail> {
        Detail::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| UnknownDetail(s.to_owned()))
    }
}

/// Whether `model` at `provider` is sent a detail level: its API has one
/// ([`Api::image_detail`](super::Api::image_detail)) and the model's
/// family does not say otherwise ([`Traits::image_detail`](super::Traits::image_detail)).
pub(crate) fn takes(facts: &Facts, provider: Provider, model: &str) -> bool {
    facts.api(provider).image_detail
        && facts.traits(provider, model, None).image_detail != Some(false)
}
