//! How a model sizes and counts an image: the formulas, whose numbers
//! come from the facts ([`Sizing`]).

use serde::{Deserialize, Serialize};

use crate::media::{self, View};

/// One model's image sizing: the size it processes images at and what an
/// image costs in input tokens. Each scheme is a provider's documented
/// formula; the numbers are the model's facts.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "scheme", rename_all = "kebab-case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Sizing {
    /// Claude: scaled (aspect kept) to at most `long_edge` px and
    /// `max_patches` patches of `patch` px a side; one token a patch.
    ClaudePatches {
        /// The longest side.
        long_edge: u32,
        /// The most patches.
        max_patches: u64,
        /// A patch's side, px.
        patch: u32,
    },
    /// OpenAI's older models: fitted into `fit` × `fit`, then the short
    /// side to `short_edge`; `base` + `tile` tokens a `tile_size` tile.
    OpenaiTiles {
        /// The square the image is fitted into first.
        fit: u32,
        /// The short side's cap after that.
        short_edge: u32,
        /// A tile's side, px.
        tile_size: u32,
        /// Tokens for every image.
        base: u64,
        /// Tokens a tile.
        tile: u64,
    },
    /// OpenAI's patch-based models: at most `budget` patches of `patch`
    /// px and `long_edge` px (either absent: no cap); tokens = patches ×
    /// `multiplier` / 1000.
    OpenaiPatches {
        /// A patch's side, px.
        patch: u32,
        /// The most patches.
        #[serde(default)]
        budget: Option<u64>,
        /// The longest side.
        #[serde(default)]
        long_edge: Option<u32>,
        /// Tokens per 1000 patches.
        multiplier: u64,
    },
    /// Gemini 2: one tile when both sides are at most `small`, else
    /// square tiles of ⌊min(w, h) / `crop_divisor`⌋ px; `tokens` a tile.
    GeminiTiles {
        /// The largest side of a one-tile image.
        small: u32,
        /// The short side over this is the crop unit.
        crop_divisor: f64,
        /// Tokens a tile.
        tokens: u64,
    },
    /// The same tokens for every image (Gemini 3's media resolution, a
    /// server's flat count), processed at most at `long_edge` px when a
    /// size is documented.
    Fixed {
        /// Tokens an image.
        tokens: u64,
        /// The longest side, when documented.
        #[serde(default)]
        long_edge: Option<u32>,
    },
}

impl Sizing {
    /// The size images are processed at; `None` where they are kept as
    /// sent (or no size is documented).
    ///
    /// ```
    /// use tool_carrier::facts::Sizing;
    /// use tool_carrier::media::View;
    /// let claude = Sizing::ClaudePatches { long_edge: 1568, max_patches: 1568, patch: 28 };
    /// assert_eq!(claude.view(), Some(View::new(1568).with_max_patches(1568).with_patch(28)));
    /// ```
    pub fn view(&self) -> Option<View> {
        match *self {
            Sizing::ClaudePatches {
                long_edge,
                max_patches,
                patch,
            } => Some(
                View::new(long_edge)
                    .with_max_patches(max_patches)
                    .with_patch(patch),
            ),
            Sizing::OpenaiTiles {
                fit, short_edge, ..
            } => Some(View::new(fit).with_max_short_edge(short_edge)),
            Sizing::OpenaiPatches {
                patch,
                budget: Some(budget),
                long_edge,
                ..
            } => Some(
                View::new(long_edge.unwrap_or(u32::MAX))
                    .with_max_patches(budget)
                    .with_patch(patch),
            ),
            Sizing::OpenaiPatches {
                budget: None,
                long_edge,
                ..
            } => long_edge.map(View::new),
            Sizing::GeminiTiles { .. } => None,
            Sizing::Fixed { long_edge, .. } => long_edge.map(View::new),
        }
    }

    /// The input tokens of a `width` × `height` image as sent.
    ///
    /// ```
    /// use tool_carrier::facts::Sizing;
    /// // Google's example: 960×540 has a crop unit of 360, so 3 × 2 tiles.
    /// let gemini_2 = Sizing::GeminiTiles { small: 384, crop_divisor: 1.5, tokens: 258 };
    /// assert_eq!(gemini_2.tokens(960, 540), 258 * 6);
    /// ```
    pub fn tokens(&self, width: u32, height: u32) -> u64 {
        match *self {
            Sizing::ClaudePatches { .. } => {
                let view = self.view().unwrap_or(View::new(u32::MAX));
                let (w, h) = view.fit(width, height);
                view.patches(w, h)
            }
            Sizing::OpenaiTiles {
                fit,
                short_edge,
                tile_size,
                base,
                tile,
            } => media::tile_tokens(width, height, fit, short_edge, tile_size)
                .saturating_mul(tile)
                .saturating_add(base),
            Sizing::OpenaiPatches {
                patch,
                budget,
                long_edge,
                multiplier,
            } => {
                let (mut w, mut h) = (width.max(1), height.max(1));
                if let Some(edge) = long_edge {
                    (w, h) = media::fit_within(w, h, edge);
                }
                let patches = media::patches_within(w, h, patch, budget.unwrap_or(u64::MAX));
                patches.saturating_mul(multiplier).div_ceil(1000)
            }
            Sizing::GeminiTiles {
                small,
                crop_divisor,
                tokens,
            } => media::crop_tiles(width, height, small, crop_divisor).saturating_mul(tokens),
            Sizing::Fixed { tokens, .. } => tokens,
        }
    }

    /// The sizing at OpenAI's `low` detail, which follows from the scheme
    /// (<https://developers.openai.com/api/docs/guides/images-vision#choose-an-image-detail-level>,
    /// read 2026-12-02): "the model receives a low-resolution 512px x
    /// 512px version of the image", and on the tile-based models "any
    /// image with `detail: low` costs a set, base number of tokens" (the
    /// scheme's `base`). For the patch-based models the page states no
    /// separate count: the patches of the 512 px version (at most 16 × 16
    /// of 32 px) times the model's multiplier. `None` for the other
    /// providers' schemes, which have no such level.
    ///
    /// ```
    /// use tool_carrier::facts::Sizing;
    /// let gpt_4o = Sizing::OpenaiTiles { fit: 2048, short_edge: 768, tile_size: 512, base: 85, tile: 170 };
    /// let low = gpt_4o.at_low().unwrap();
    /// assert_eq!(low.tokens(2880, 1800), 85);
    /// assert_eq!(low.view().unwrap().long_edge, 512);
    /// let gpt_5_4 = Sizing::OpenaiPatches { patch: 32, budget: Some(2500), long_edge: Some(2048), multiplier: 1200 };
    /// // 2880×1800 as 512×320: 16 × 10 patches, × 1.2.
    /// assert_eq!(gpt_5_4.at_low().unwrap().tokens(2880, 1800), 192);
    /// ```
    pub fn at_low(&self) -> Option<Sizing> {
        const LOW_EDGE: u32 = 512;
        match *self {
            Sizing::OpenaiTiles { base, .. } => Some(Sizing::Fixed {
                tokens: base,
                long_edge: Some(LOW_EDGE),
            }),
            Sizing::OpenaiPatches {
                patch, multiplier, ..
            } => {
                let side = u64::from(LOW_EDGE.div_ceil(patch.max(1)));
                Some(Sizing::OpenaiPatches {
                    patch,
                    budget: Some(side * side),
                    long_edge: Some(LOW_EDGE),
                    multiplier,
                })
            }
            _ => None,
        }
    }

    /// Whether the numbers can be computed with: no zero sizes, a crop
    /// divisor of at least 1.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        let ok = match *self {
            Sizing::ClaudePatches {
                long_edge, patch, ..
            } => long_edge > 0 && patch > 0,
            Sizing::OpenaiTiles {
                fit,
                short_edge,
                tile_size,
                ..
            } => fit > 0 && short_edge > 0 && tile_size > 0,
            Sizing::OpenaiPatches {
                patch, long_edge, ..
            } => patch > 0 && long_edge != Some(0),
            Sizing::GeminiTiles {
                crop_divisor,
                small,
                ..
            } => crop_divisor.is_finite() && crop_divisor >= 1.0 && small > 0,
            Sizing::Fixed { long_edge, .. } => long_edge != Some(0),
        };
        if ok {
            Ok(())
        } else {
            Err("a size of 0 px, or a crop divisor under 1, cannot be computed with")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPT_4O: Sizing = Sizing::OpenaiTiles {
        fit: 2048,
        short_edge: 768,
        tile_size: 512,
        base: 85,
        tile: 170,
    };

    #[test]
    fn the_schemes_give_their_documented_examples() {
        assert_eq!(GPT_4O.tokens(1024, 1024), 765);
        assert_eq!(GPT_4O.tokens(2048, 4096), 1105);
        assert_eq!(
            GPT_4O.view(),
            Some(View::new(2048).with_max_short_edge(768))
        );
        let mini = Sizing::OpenaiPatches {
            patch: 32,
            budget: Some(1536),
            long_edge: Some(2048),
            multiplier: 1620,
        };
        assert_eq!(mini.tokens(1024, 1024), 1659);
        assert_eq!(mini.tokens(1800, 2400), (1452 * 1620_u64).div_ceil(1000));
        assert_eq!(mini.view(), Some(View::new(2048).with_max_patches(1536)));
        let kept = Sizing::OpenaiPatches {
            patch: 32,
            budget: None,
            long_edge: None,
            multiplier: 1000,
        };
        assert_eq!(kept.view(), None);
        assert_eq!(kept.tokens(2880, 1800), 90 * 57);
        let gemini = Sizing::GeminiTiles {
            small: 384,
            crop_divisor: 1.5,
            tokens: 258,
        };
        assert_eq!(gemini.tokens(384, 200), 258);
        assert_eq!(gemini.tokens(1000, 700), 258 * 6);
        let fixed = Sizing::Fixed {
            tokens: 1120,
            long_edge: None,
        };
        assert_eq!((fixed.tokens(1, 1), fixed.view()), (1120, None));
    }

    #[test]
    fn a_users_numbers_cannot_overflow_a_count() {
        let huge = Sizing::GeminiTiles {
            small: 1,
            crop_divisor: 1.0,
            tokens: u64::MAX,
        };
        assert_eq!(huge.tokens(u32::MAX, 1), u64::MAX);
        let tiles = Sizing::OpenaiTiles {
            fit: u32::MAX,
            short_edge: u32::MAX,
            tile_size: 1,
            base: u64::MAX,
            tile: u64::MAX,
        };
        assert_eq!(tiles.tokens(u32::MAX, u32::MAX), u64::MAX);
        let patches = Sizing::OpenaiPatches {
            patch: 1,
            budget: None,
            long_edge: None,
            multiplier: u64::MAX,
        };
        assert_eq!(patches.tokens(u32::MAX, u32::MAX), u64::MAX.div_ceil(1000));
    }

    #[test]
    fn numbers_that_cannot_be_computed_with_are_refused() {
        let bad = Sizing::GeminiTiles {
            small: 384,
            crop_divisor: 0.5,
            tokens: 258,
        };
        assert!(bad.check().is_err());
        assert!(GPT_4O.check().is_ok());
    }
}
