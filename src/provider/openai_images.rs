//! How each OpenAI model sizes and counts the images it is sent, at the
//! `auto` detail this crate sends (Chat Completions names no `detail`,
//! which is `auto`; Responses says `auto`), from
//! <https://developers.openai.com/api/docs/guides/images-vision#model-sizing-behavior>
//! and "Calculating costs" on the same page, read 2026-12-01.
//!
//! Two schemes: the older models fit an image into 2048 × 2048, then its
//! short side to 768, and count 512-px tiles; the newer ones count 32-px
//! patches under a per-model patch budget and longest side. GPT-5.6 at
//! `auto` (= `original`) does not resize at all.

use crate::media::{self, View};

/// One model's scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sizing {
    /// Tile-based: `base + tile ×` 512-px tiles of the fitted image.
    Tiles { base: u64, tile: u64 },
    /// Patch-based: at most `budget` patches and `long_edge` px (neither
    /// for GPT-5.6), tokens the patches × `multiplier` / 1000.
    Patches {
        budget: Option<u64>,
        long_edge: Option<u32>,
        multiplier: u64,
    },
}

const fn patches(budget: u64, long_edge: u32, multiplier: u64) -> Sizing {
    Sizing::Patches {
        budget: Some(budget),
        long_edge: Some(long_edge),
        multiplier,
    }
}

const fn tiles(base: u64, tile: u64) -> Sizing {
    Sizing::Tiles { base, tile }
}

/// Model ids by prefix, the more specific first. A prefix matches the id
/// itself or the id followed by `-` (a dated snapshot, a variant).
const MODELS: &[(&str, Sizing)] = &[
    // `original` and `auto` keep the input's dimensions.
    (
        "gpt-5.6",
        Sizing::Patches {
            budget: None,
            long_edge: None,
            multiplier: 1000,
        },
    ),
    // `auto` sizes as `original`: 10,000 patches, 6000 px.
    ("gpt-5.5", patches(10_000, 6000, 1000)),
    ("gpt-5.4-mini", patches(1536, 2048, 1620)),
    ("gpt-5.4-nano", patches(1536, 2048, 2460)),
    // `auto` sizes as `high`: 2,500 patches, 2048 px.
    ("gpt-5.4", patches(2500, 2048, 1000)),
    ("gpt-5.3-codex", patches(1536, 2048, 1000)),
    ("gpt-5.2-codex", patches(1536, 2048, 1000)),
    ("gpt-5.2-chat-latest", patches(1536, 2048, 1000)),
    ("gpt-5.2", patches(1536, 2048, 1000)),
    ("gpt-5.1-codex-mini", patches(1536, 2048, 1000)),
    ("gpt-5-codex-mini", patches(1536, 2048, 1000)),
    ("gpt-5-mini", patches(1536, 2048, 1620)),
    ("gpt-5-nano", patches(1536, 2048, 2460)),
    ("gpt-4.1-mini", patches(1536, 2048, 1620)),
    ("gpt-4.1-nano", patches(1536, 2048, 2460)),
    ("o4-mini", patches(1536, 2048, 1720)),
    ("gpt-5-chat-latest", tiles(70, 140)),
    ("gpt-5", tiles(70, 140)),
    ("gpt-4o-mini", tiles(2833, 5667)),
    ("gpt-4o", tiles(85, 170)),
    ("gpt-4.1", tiles(85, 170)),
    ("gpt-4.5", tiles(85, 170)),
    ("o1", tiles(75, 150)),
    ("o3", tiles(75, 150)),
    ("computer-use-preview", tiles(65, 129)),
];

/// The scheme of `model`; a model the table does not name (a newer one,
/// an Azure deployment's own name) counts as GPT-4o.
pub(crate) fn sizing(model: &str) -> Sizing {
    MODELS
        .iter()
        .find(|(prefix, _)| {
            model
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
        })
        .map_or(tiles(85, 170), |&(_, s)| s)
}

impl Sizing {
    /// The size the model processes images at; `None` where it keeps
    /// them as sent.
    pub(crate) fn view(self) -> Option<View> {
        match self {
            Sizing::Tiles { .. } => Some(View::new(2048).with_max_short_edge(768)),
            Sizing::Patches {
                budget: Some(budget),
                long_edge,
                ..
            } => Some(View::new(long_edge.unwrap_or(u32::MAX)).with_max_patches(budget)),
            Sizing::Patches {
                budget: None,
                long_edge,
                ..
            } => long_edge.map(View::new),
        }
    }

    /// The input tokens of a `width` × `height` image as sent.
    pub(crate) fn tokens(self, width: u32, height: u32) -> u64 {
        match self {
            Sizing::Tiles { base, tile } => media::openai_tile_tokens(width, height, base, tile),
            Sizing::Patches {
                budget,
                long_edge,
                multiplier,
            } => {
                let (mut w, mut h) = (width.max(1), height.max(1));
                if let Some(edge) = long_edge {
                    (w, h) = media::fit_within(w, h, edge);
                }
                let patches = media::openai_patches(w, h, budget.unwrap_or(u64::MAX));
                (patches * multiplier).div_ceil(1000)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_matched_most_specific_first() {
        assert_eq!(sizing("gpt-5.4-mini-2026-03-17"), patches(1536, 2048, 1620));
        assert_eq!(sizing("gpt-5.4"), patches(2500, 2048, 1000));
        assert_eq!(sizing("gpt-5-mini"), patches(1536, 2048, 1620));
        assert_eq!(sizing("gpt-5-2025-08-07"), tiles(70, 140));
        assert_eq!(sizing("gpt-4o-mini"), tiles(2833, 5667));
        assert_eq!(sizing("gpt-4o-2024-08-06"), tiles(85, 170));
        assert_eq!(sizing("o1-pro"), tiles(75, 150));
        // Not a prefix at a word boundary.
        assert_eq!(sizing("gpt-5.45"), tiles(85, 170));
        assert_eq!(sizing("my-azure-deployment"), tiles(85, 170));
    }

    #[test]
    fn views_and_tokens_follow_the_scheme() {
        let gpt5 = sizing("gpt-5");
        assert_eq!(gpt5.view(), Some(View::new(2048).with_max_short_edge(768)));
        assert_eq!(gpt5.tokens(1024, 1024), 70 + 140 * 4);
        let mini = sizing("gpt-5-mini");
        assert_eq!(mini.view(), Some(View::new(2048).with_max_patches(1536)));
        // 1024 patches × 1.62.
        assert_eq!(mini.tokens(1024, 1024), 1659);
        // The guide's example: 1452 patches after the shrink.
        assert_eq!(mini.tokens(1800, 2400), (1452 * 1620_u64).div_ceil(1000));
        assert_eq!(
            sizing("gpt-5.5").view(),
            Some(View::new(6000).with_max_patches(10_000))
        );
        let kept = sizing("gpt-5.6");
        assert_eq!(kept.view(), None);
        assert_eq!(kept.tokens(2880, 1800), 90 * 57);
    }
}
