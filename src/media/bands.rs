//! The pass down a band at a time: which rows of the pass across each band
//! of rows out reads, so an image read by rows ([`rows`](super::rows))
//! holds a window of them (a 2880×1800 screenshot fitted to 2000×1250:
//! 267 rows of the pass across, 1.6 MB, instead of all 1800, 10.8 MB).
//!
//! The schedule is a function of the heights alone, and an image decoded
//! whole ([`resize`](super::resize)) is resampled down by the same steps,
//! from the same rows: both ways give the same pixels. Each step hands the
//! resampler a window of rows and the part of it its rows out come from
//! (a crop in the window's coordinates); the window reaches a row past
//! every tap of those rows on either side, so the resampler never clips a
//! tap at a window's edge that is not the image's.

use std::ops::Range;

/// The Lanczos kernel's reach, in rows of the source at scale 1.
const SUPPORT: f64 = 3.0;

/// Rows decoded before they are resampled across: a small part of the
/// raster (256 rows of 2880 RGB pixels are 2.2 MB of 15.6), and enough
/// that the resampler's set-up for each call (weighing the taps of every
/// output column) is spread over them: 8 calls for a 2880×1800
/// screenshot, its set-up then 2 % of a cold conversion's cycles. An image
/// decoded whole is resampled down by the same steps.
pub(crate) const BAND: u32 = 256;

/// The steps of resampling `from` rows down to `to` rows, reading the
/// source `band` rows at a time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bands {
    from: u32,
    to: u32,
    band: u32,
    /// Source rows per row out.
    scale: f64,
    /// How far a row out reaches into the source, either side of its
    /// centre.
    radius: f64,
}

/// One step: once the source's rows up to `read` are read, the window
/// holds rows `first..read` and the rows `out` are written from it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Step {
    /// The first source row the window holds.
    pub(crate) first: u32,
    /// The source rows read so far: the window ends here.
    pub(crate) read: u32,
    /// The rows out written at this step (maybe none).
    pub(crate) out: Range<u32>,
    /// Where `out` comes from, in the window's rows: its top and height.
    pub(crate) crop: (f64, f64),
}

impl Bands {
    /// The schedule for `from` rows down to `to` (fewer, at least one),
    /// `band` (at least one) read at a time.
    pub(crate) fn new(from: u32, to: u32, band: u32) -> Bands {
        let scale = f64::from(from) / f64::from(to.max(1));
        Bands {
            from,
            to: to.max(1),
            band: band.max(1),
            scale,
            radius: SUPPORT * scale.max(1.0),
        }
    }

    /// The source rows row `i` out reads, as the resampler bounds them
    /// over the whole source, widened by a row either side.
    fn taps(&self, i: u32) -> (u32, u32) {
        let centre = (f64::from(i) + 0.5) * self.scale;
        let first = (centre - self.radius).floor().max(0.0) as u32;
        let end = ((centre + self.radius).ceil() as u32).min(self.from);
        (
            first.saturating_sub(1),
            end.saturating_add(1).min(self.from),
        )
    }

    /// Every step, in order: each reads `band` more rows (the last fewer),
    /// and writes the rows out whose taps it now holds.
    pub(crate) fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        let mut read = 0;
        let mut done = 0;
        std::iter::from_fn(move || {
            if read == self.from {
                return None;
            }
            read = (read + self.band).min(self.from);
            let start = done;
            while done < self.to && (read == self.from || self.taps(done).1 <= read) {
                done += 1;
            }
            // The rows out's taps move down with them, and overlap from one
            // row to the next, so the window never starts below what is read.
            let first = self.taps(start.min(self.to - 1)).0;
            // The crop ends where the last row's source ends, or at the
            // window's end, which the resampler checks it does not pass.
            let window = f64::from(read - first);
            let top = f64::from(start) * self.scale - f64::from(first);
            let mut height = (f64::from(done) * self.scale - f64::from(first)).min(window) - top;
            while height > 0.0 && top + height > window {
                height = height.next_down();
            }
            Some(Step {
                first,
                read,
                out: start..done,
                crop: (top, height),
            })
        })
    }

    /// The most rows a window holds, over every step.
    pub(crate) fn window(&self) -> u32 {
        self.steps().map(|s| s.read - s.first).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Every row out is written once, in order; windows only move
        /// down; each holds every tap of its rows out, as the resampler
        /// bounds them over the whole source, with a row to spare either
        /// side (but at the image's edges); and a window is at most a band
        /// and two reaches of the kernel tall.
        #[test]
        fn each_row_out_is_written_once_from_a_window_holding_its_taps(
            from in 2u32..20_000,
            permille in 0u64..1_000,
            band in 1u32..600,
        ) {
            let to = 1 + u32::try_from(u64::from(from - 2) * permille / 1000).unwrap();
            let bands = Bands::new(from, to, band);
            let mut next = 0;
            let mut first = 0;
            let mut read = 0;
            for step in bands.steps() {
                proptest::prop_assert_eq!(step.out.start, next);
                proptest::prop_assert!(step.first >= first && step.read > read);
                // What the window keeps was read at the steps before.
                proptest::prop_assert!(step.first <= read);
                proptest::prop_assert!(step.read - read <= band);
                for i in step.out.clone() {
                    let centre = (f64::from(i) + 0.5) * bands.scale;
                    let low = (centre - bands.radius).floor().max(0.0);
                    let high = (centre + bands.radius).ceil().min(f64::from(from));
                    proptest::prop_assert!(f64::from(step.first) <= (low - 1.0).max(0.0));
                    proptest::prop_assert!(f64::from(step.read) >= (high + 1.0).min(f64::from(from)));
                }
                if !step.out.is_empty() {
                    let (top, height) = step.crop;
                    let start = f64::from(step.out.start) * bands.scale;
                    proptest::prop_assert!((top + f64::from(step.first) - start).abs() < 1e-6);
                    proptest::prop_assert!(top >= 0.0 && height > 0.0);
                    proptest::prop_assert!(top + height <= f64::from(step.read - step.first));
                    let end = f64::from(step.out.end) * bands.scale - f64::from(step.first);
                    proptest::prop_assert!((top + height - end).abs() < 1e-6);
                }
                next = step.out.end;
                first = step.first;
                read = step.read;
            }
            proptest::prop_assert_eq!(next, to);
            proptest::prop_assert_eq!(read, from);
            let reach = 2 * bands.radius.ceil() as u32 + 4;
            proptest::prop_assert!(bands.window() <= band + reach, "{} > {} + {}", bands.window(), band, reach);
        }
    }

    #[test]
    fn a_screenshot_fitted_to_2000_px_holds_267_rows_of_1800() {
        let bands = Bands::new(1800, 1250, 256);
        assert_eq!(bands.steps().count(), 8);
        assert_eq!(bands.window(), 267);
        let last = bands.steps().last().unwrap();
        assert_eq!((last.read, last.out.end), (1800, 1250));
    }
}
