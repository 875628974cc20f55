//! What the pipeline may read and how large things may get.

use crate::roots::Roots;

/// Limits and roots for resolving and preparing media.
///
/// The defaults suit a conversation's screenshots and photos: 2000 px a
/// side, 64 MiB files, 64 MiB `data:` payloads, 50 megapixels and 512 MiB
/// of decoder memory, and no roots (so no local file may be read until
/// roots are given).
///
/// ```
/// use tool_carrier::media::Policy;
/// let policy = Policy::default().with_max_dim(1568).with_max_pixels(24_000_000);
/// assert_eq!(policy.max_dim(), 1568);
/// assert!(policy.roots().is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Policy {
    max_dim: u32,
    view: Option<View>,
    max_file_bytes: u64,
    max_data_uri_len: usize,
    max_pixels: u64,
    max_alloc: u64,
    roots: Roots,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            max_dim: Policy::DEFAULT_MAX_DIM,
            view: None,
            max_file_bytes: 64 * 1024 * 1024,
            max_data_uri_len: 64 * 1024 * 1024,
            max_pixels: 50_000_000,
            max_alloc: 512 * 1024 * 1024,
            roots: Roots::default(),
        }
    }
}

impl Policy {
    /// The default longest side: 2000 px.
    pub const DEFAULT_MAX_DIM: u32 = 2000;

    /// This policy with these roots; local targets must resolve inside them.
    pub fn with_roots(self, roots: Roots) -> Policy {
        Policy { roots, ..self }
    }

    /// Images larger than `max_dim` on either side are resized to fit a
    /// `max_dim` × `max_dim` box. Clamped to 1..=65535 (JPEG's limit).
    pub fn with_max_dim(self, max_dim: u32) -> Policy {
        Policy {
            max_dim: max_dim.clamp(1, u32::from(u16::MAX)),
            ..self
        }
    }

    /// Also fit each image to the size a model processes images at
    /// ([`View`]): an image larger than that is scaled down by the
    /// provider before the model sees it (and billed at that size), so
    /// sending more pixels only costs bytes. [`Policy::max_dim`] still
    /// caps the long side.
    pub fn with_view(self, view: View) -> Policy {
        Policy {
            view: Some(view),
            ..self
        }
    }

    /// The model's processing size, when one was given.
    pub fn view(&self) -> Option<View> {
        self.view
    }

    /// The longest side an image of `width` × `height` is sent at: within
    /// [`Policy::max_dim`] and the [`View`], aspect kept; never more than
    /// the image's own.
    ///
    /// ```
    /// use tool_carrier::media::{Policy, View};
    /// let anthropic = Policy::default().with_view(View::new(1568).with_max_pixels(1_200_000));
    /// // 2880×1800: 1568 on the long side would be 1.54 MP; 1385×866 is 1.2 MP.
    /// assert_eq!(anthropic.long_edge_for(2880, 1800), 1385);
    /// assert_eq!(anthropic.long_edge_for(800, 600), 800);
    /// let openai = Policy::default().with_view(View::new(2048).with_max_short_edge(768));
    /// assert_eq!(openai.long_edge_for(2880, 1800), 1229); // 1229×768
    /// ```
    pub fn long_edge_for(&self, width: u32, height: u32) -> u32 {
        let (long, short) = (width.max(height).max(1), width.min(height).max(1));
        let mut edge = long.min(self.max_dim);
        if let Some(view) = self.view {
            edge = edge.min(view.long_edge);
            if let Some(max_short) = view.max_short_edge {
                // short × edge / long ≤ max_short
                let cap = u64::from(max_short) * u64::from(long) / u64::from(short);
                edge = edge.min(u32::try_from(cap).unwrap_or(u32::MAX));
            }
            if let Some(max_pixels) = view.max_pixels {
                // long² × short / long ... ≤ max_pixels, so edge² ≤ max_pixels × long / short
                let area = u128::from(max_pixels) * u128::from(long) / u128::from(short);
                let cap = u32::try_from(isqrt(area)).unwrap_or(u32::MAX);
                edge = edge.min(cap);
            }
            if let Some(max_patches) = view.max_patches {
                // (edge / p) × (edge × short / long / p) ≤ max_patches
                let side = u128::from(view.patch);
                let area =
                    u128::from(max_patches) * side * side * u128::from(long) / u128::from(short);
                let cap = u32::try_from(isqrt(area)).unwrap_or(u32::MAX);
                edge = edge.min(cap);
            }
            // The caps above are estimates within a pixel or two of where
            // the resizer's rounding lands: settle on the largest that holds.
            let upper = long.min(self.max_dim).min(view.long_edge);
            while edge > 1 && !view.holds(edge, short, long) {
                edge -= 1;
            }
            while edge < upper && view.holds(edge + 1, short, long) {
                edge += 1;
            }
        }
        edge.max(1)
    }

    /// Local files larger than this are refused before they are read.
    pub fn with_max_file_bytes(self, max_file_bytes: u64) -> Policy {
        Policy {
            max_file_bytes,
            ..self
        }
    }

    /// `data:` URIs whose base64 payload is longer than this are refused
    /// before decoding.
    pub fn with_max_data_uri_len(self, max_data_uri_len: usize) -> Policy {
        Policy {
            max_data_uri_len,
            ..self
        }
    }

    /// Images with more pixels than this (from the header) are refused
    /// before decoding, unless their codec can read them reduced to within
    /// it: a PNG of up to sixteen times as many (not interlaced), its rows
    /// averaged as they are decoded, and a JPEG that a half, a quarter or
    /// an eighth a side brings within it (not CMYK), by its scaled inverse
    /// DCT.
    pub fn with_max_pixels(self, max_pixels: u64) -> Policy {
        Policy { max_pixels, ..self }
    }

    /// The most memory a decoder may allocate for one image.
    pub fn with_max_alloc(self, max_alloc: u64) -> Policy {
        Policy { max_alloc, ..self }
    }

    /// The longest side an image may keep.
    pub fn max_dim(&self) -> u32 {
        self.max_dim
    }

    /// The largest local file that is read.
    pub fn max_file_bytes(&self) -> u64 {
        self.max_file_bytes
    }

    /// The longest `data:` payload (base64 characters) that is decoded.
    pub fn max_data_uri_len(&self) -> usize {
        self.max_data_uri_len
    }

    /// The most pixels an image may have to be decoded whole (a decoded
    /// raster never has more).
    pub fn max_pixels(&self) -> u64 {
        self.max_pixels
    }

    /// The most memory a decoder may allocate.
    pub fn max_alloc(&self) -> u64 {
        self.max_alloc
    }

    /// The folders local targets must stay inside.
    pub fn roots(&self) -> &Roots {
        &self.roots
    }
}

/// The size a model processes images at: larger images are scaled down
/// (aspect kept) by the provider until they fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// The longest side.
    pub long_edge: u32,
    /// The shortest side, when the provider caps it (OpenAI).
    pub max_short_edge: Option<u32>,
    /// The most pixels, when the provider caps them.
    pub max_pixels: Option<u64>,
    /// The most square patches of [`View::patch`] px a side (a patch may
    /// reach past the edge), when the provider caps them: OpenAI's
    /// patch-based models (32 px), Claude's visual tokens (28 px).
    pub max_patches: Option<u64>,
    /// The side of a patch, in pixels: 32 unless said otherwise.
    pub patch: u32,
}

impl View {
    /// A view capped on the long side.
    pub const fn new(long_edge: u32) -> View {
        View {
            long_edge,
            max_short_edge: None,
            max_pixels: None,
            max_patches: None,
            patch: 32,
        }
    }

    /// Also capped on the short side.
    pub const fn with_max_short_edge(self, edge: u32) -> View {
        View {
            max_short_edge: Some(edge),
            ..self
        }
    }

    /// Also capped in pixels.
    pub const fn with_max_pixels(self, pixels: u64) -> View {
        View {
            max_pixels: Some(pixels),
            ..self
        }
    }

    /// Also capped in patches (32 × 32 px unless [`View::with_patch`]
    /// says otherwise).
    pub const fn with_max_patches(self, patches: u64) -> View {
        View {
            max_patches: Some(patches),
            ..self
        }
    }

    /// Patches of `side` × `side` px.
    pub const fn with_patch(self, side: u32) -> View {
        View {
            patch: if side == 0 { 1 } else { side },
            ..self
        }
    }

    /// How many patches an image of `width` × `height` covers.
    pub fn patches(&self, width: u32, height: u32) -> u64 {
        u64::from(width.div_ceil(self.patch)) * u64::from(height.div_ceil(self.patch))
    }

    /// The size an image of `width` × `height` is processed at: scaled
    /// down, aspect kept (as the resizer rounds), to the largest size
    /// within every cap; never scaled up.
    ///
    /// ```
    /// use tool_carrier::media::View;
    /// // Claude's vision page: 1920×1080 is processed at 1456×819 (1560
    /// // visual tokens of 28 px), an A4 scan of 1075×1520 at 924×1307.
    /// let claude = View::new(1568).with_max_patches(1568).with_patch(28);
    /// assert_eq!(claude.fit(1920, 1080), (1456, 819));
    /// assert_eq!(claude.patches(1456, 819), 1560);
    /// assert_eq!(claude.fit(1075, 1520), (924, 1307));
    /// assert_eq!(claude.fit(200, 200), (200, 200));
    /// ```
    pub fn fit(&self, width: u32, height: u32) -> (u32, u32) {
        let edge = Policy::default()
            .with_max_dim(u32::MAX)
            .with_view(*self)
            .long_edge_for(width, height);
        crate::media::resize::fit_within(width, height, edge)
    }

    /// Whether an image whose long side is fitted to `edge` (its short
    /// side scaled from `short` / `long` as the resizer rounds it) fits.
    fn holds(&self, edge: u32, short: u32, long: u32) -> bool {
        let (w, h) = crate::media::resize::fit_within(long, short, edge);
        self.max_short_edge.is_none_or(|s| h <= s)
            && self
                .max_pixels
                .is_none_or(|p| u64::from(w) * u64::from(h) <= p)
            && self.max_patches.is_none_or(|p| self.patches(w, h) <= p)
    }
}

/// ⌊√n⌋.
fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    let mut x = (n as f64).sqrt() as u128;
    while x * x > n {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= n {
        x += 1;
    }
    x
}
