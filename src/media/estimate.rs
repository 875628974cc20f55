//! What an attachment costs: a fixed character estimate for history
//! compaction, and per-provider token estimates from the pixel size.

use serde::Serialize;

/// [`Estimates::chars`].
const CHARS_PER_ATTACHMENT: usize = 4800;

/// Estimated cost of one attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Estimates {
    /// Always 4,800: the fixed size, in characters, that history compaction
    /// counts for one attachment, whatever its base64 length (so a large
    /// image does not push the rest of the conversation out of the
    /// retention window).
    pub chars: usize,
    /// Anthropic's estimate for most Claude models (28-px patches, the image
    /// fitted within 1568 px and 1568 tokens first); `None` for a PDF.
    pub anthropic_tokens: Option<u64>,
    /// OpenAI's high-detail tile estimate (85 + 170 per 512-px tile, the
    /// image fitted within 2048 px and 768 px on its short side first);
    /// `None` for a PDF.
    pub openai_tokens: Option<u64>,
}

impl Estimates {
    /// The estimates for an image of this size, or a document (`None`).
    ///
    /// ```
    /// use tool_carrier::media::Estimates;
    /// let e = Estimates::for_size(Some((1000, 1000)));
    /// assert_eq!((e.chars, e.anthropic_tokens, e.openai_tokens), (4800, Some(1296), Some(765)));
    /// assert_eq!(Estimates::for_size(None).anthropic_tokens, None);
    /// ```
    pub fn for_size(size: Option<(u32, u32)>) -> Estimates {
        Estimates {
            chars: CHARS_PER_ATTACHMENT,
            anthropic_tokens: size.map(|(w, h)| anthropic_tokens(w, h)),
            openai_tokens: size.map(|(w, h)| openai_tokens(w, h)),
        }
    }
}

/// Claude's visual tokens for an image of `width` × `height` on most
/// models: ⌈w / 28⌉ × ⌈h / 28⌉ patches of the size it is processed at,
/// scaled down first to at most 1568 px on the long edge and 1568 tokens
/// (<https://platform.claude.com/docs/en/build-with-claude/vision>, read
/// 2026-12-01; the page's table gives each value below). The models with
/// high-resolution support count at their own limits:
/// [`Provider::image_tokens`](crate::provider::Provider::image_tokens).
pub fn anthropic_tokens(width: u32, height: u32) -> u64 {
    let view = crate::media::View::new(1568)
        .with_max_patches(1568)
        .with_patch(28);
    let (w, h) = view.fit(width, height);
    view.patches(w, h)
}

/// OpenAI's high-detail image token estimate: the image is scaled down to
/// fit 2048 × 2048, then down so its short side is at most 768 px; each
/// 512-px tile costs 170 tokens, plus 85.
pub fn openai_tokens(width: u32, height: u32) -> u64 {
    openai_tile_tokens(width, height, 85, 170)
}

/// OpenAI's tile-based count with a model's own figures: fitted as in
/// [`openai_tokens`], then `base + tile ×` the 512-px tiles it covers
/// (GPT-5: 70 and 140; GPT-4o, GPT-4.1: 85 and 170; o1, o3: 75 and 150;
/// <https://developers.openai.com/api/docs/guides/images-vision#tile-based-image-tokenization>,
/// read 2026-12-01).
pub fn openai_tile_tokens(width: u32, height: u32, base: u64, tile: u64) -> u64 {
    base + tile * tile_tokens(width, height, 2048, 768, 512)
}

/// The `tile_size` tiles an image covers once fitted into `fit` × `fit`
/// and then its short side to `short_edge` (never scaled up).
pub(crate) fn tile_tokens(
    width: u32,
    height: u32,
    fit: u32,
    short_edge: u32,
    tile_size: u32,
) -> u64 {
    let (mut w, mut h) = (u64::from(width.max(1)), u64::from(height.max(1)));
    let (fit, short_edge) = (u64::from(fit.max(1)), u64::from(short_edge.max(1)));
    if w > fit || h > fit {
        let long = w.max(h);
        (w, h) = (scale(w, fit, long), scale(h, fit, long));
    }
    let short = w.min(h);
    if short > short_edge {
        (w, h) = (scale(w, short_edge, short), scale(h, short_edge, short));
    }
    let tile = u64::from(tile_size.max(1));
    w.div_ceil(tile) * h.div_ceil(tile)
}

/// The `patch` × `patch`-px patches OpenAI's patch-based models count for
/// an image under a patch budget (32 px for the guide's models): an image
/// that covers more is first shrunk, its aspect kept, the way the API
/// documents (shrink factor √(patch² × budget / area), lowered until whole
/// patches fit), and the count is capped at the budget. Multiply by the
/// model's multiplier for billed tokens
/// (<https://developers.openai.com/api/docs/guides/images-vision#patch-based-image-tokenization>,
/// read 2026-12-01).
pub(crate) fn patches_within(width: u32, height: u32, patch: u32, budget: u64) -> u64 {
    let (w, h) = (u64::from(width.max(1)), u64::from(height.max(1)));
    let p = u64::from(patch.max(1));
    let pf = p as f64;
    let patches = w.div_ceil(p) * h.div_ceil(p);
    if patches <= budget {
        return patches;
    }
    let (wf, hf) = (w as f64, h as f64);
    let shrink = (pf * pf * budget as f64 / (wf * hf)).sqrt();
    let fit = |side: f64| {
        let whole = side * shrink / pf;
        whole.floor() / whole
    };
    let adjusted = shrink * fit(wf).min(fit(hf));
    // A hair below the whole patch the arithmetic lands on is the same
    // patch; a hair above it is not, so the product is rounded down.
    let side = |x: f64| ((x * adjusted + 1e-6).floor() as u64).max(1);
    (side(wf).div_ceil(p) * side(hf).div_ceil(p)).min(budget)
}

/// The tiles Gemini 2 cuts an image into, 258 tokens each: one when both
/// sides are at most `small` (384 px), else squares of a "crop unit" of
/// ⌊min(width, height) / `divisor`⌋ px (1.5)
/// (<https://ai.google.dev/gemini-api/docs/image-understanding>, read
/// 2026-12-01: "an image of dimensions 960x540 would have a crop unit size
/// of 360. Divide each dimension by 360 and the number of tile is 3 * 2 =
/// 6"). Google calls the crop unit "roughly" this; `countTokens` is exact.
pub(crate) fn crop_tiles(width: u32, height: u32, small: u32, divisor: f64) -> u64 {
    if width <= small && height <= small {
        return 1;
    }
    // ⌊short / divisor⌋, with a hair of slack so 540 / 1.5 is 360.
    let crop = ((f64::from(width.min(height)) / divisor.max(1.0)) + 1e-9).floor();
    let crop = (crop as u64).max(1);
    u64::from(width).div_ceil(crop) * u64::from(height).div_ceil(crop)
}

/// `x × num / den`, rounded to nearest, at least 1.
fn scale(x: u64, num: u64, den: u64) -> u64 {
    ((x * num + den / 2) / den).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_is_area_over_750() {
        assert_eq!(anthropic_tokens(28, 1), 1);
        assert_eq!(anthropic_tokens(29, 1), 2);
        assert_eq!(anthropic_tokens(1568, 30), 112);
        assert_eq!(anthropic_tokens(0, 0), 0);
    }

    #[test]
    fn openai_fits_2048_then_768_short_side() {
        assert_eq!(openai_tokens(2000, 1500), 85 + 170 * 4); // 1024×768
        assert_eq!(openai_tokens(4096, 8192), 85 + 170 * 6); // 1024×2048 → 768×1536
        assert_eq!(openai_tokens(512, 512), 85 + 170);
        assert_eq!(openai_tokens(513, 512), 85 + 170 * 2);
        assert_eq!(openai_tokens(u32::MAX, 1), 85 + 170 * 4); // 2048×1
    }

    fn openai_patches(width: u32, height: u32, budget: u64) -> u64 {
        patches_within(width, height, 32, budget)
    }

    #[test]
    fn gemini_2_tiles_follow_the_documented_example() {
        let tokens = |w, h| 258 * crop_tiles(w, h, 384, 1.5);
        assert_eq!(tokens(384, 200), 258);
        assert_eq!(tokens(960, 540), 258 * 6); // Google's example
        assert_eq!(tokens(1000, 700), 258 * 3 * 2); // crop unit 466
    }

    #[test]
    fn openai_patches_follow_the_documented_example() {
        // The 1,536-patch example of the guide.
        assert_eq!(openai_patches(1800, 2400, 1536), 33 * 44);
        assert_eq!(openai_patches(1024, 1024, 1536), 1024);
        assert_eq!(openai_patches(1800, 2400, 1536), 1452); // shrunk to 1056×1408
                                                            // A patch may reach past the edge.
        assert_eq!(openai_patches(33, 1, 1536), 2);
        for (w, h, budget) in [
            (2880, 1800, 2500),
            (6000, 10, 100),
            (7, 9000, 1536),
            (u32::MAX, u32::MAX, 10_000),
        ] {
            let p = openai_patches(w, h, budget);
            assert!(p <= budget && p > 0, "{w}×{h} under {budget}: {p}");
        }
    }

    #[test]
    fn the_documented_examples() {
        assert_eq!(anthropic_tokens(200, 200), 64);
        assert_eq!(anthropic_tokens(1000, 1000), 1296);
        assert_eq!(anthropic_tokens(1092, 1092), 1521);
        assert_eq!(anthropic_tokens(1920, 1080), 1560); // processed at 1456×819
        assert_eq!(anthropic_tokens(2000, 1500), 1564);
        assert_eq!(anthropic_tokens(3840, 2160), 1560);
        assert_eq!(openai_tokens(1024, 1024), 765); // 768×768: 4 tiles
        assert_eq!(openai_tokens(2048, 4096), 1105); // 768×1536: 6 tiles
        assert_eq!(openai_tokens(100, 100), 255); // 1 tile; never scaled up
        assert_eq!(openai_tile_tokens(1024, 1024, 70, 140), 70 + 140 * 4);
    }
}
