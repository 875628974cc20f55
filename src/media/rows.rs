//! An opaque PNG resized as it is decoded, a band of rows at a time: the
//! rows are resampled across as they come, and down as soon as the rows
//! across that each row out reads are in ([`bands`](super::bands)), so
//! neither the raster nor the pass across is ever held whole: a 2880×1800
//! screenshot fitted to 2000 px holds a band of 256 rows of its raster
//! (2.2 MB of 15.6) and a window of 267 rows across (1.6 MB of 10.8)
//! beside the pixels out. [`resize`](super::resize::resize) takes the
//! same steps for every opaque image, so the pixels are the same whichever
//! way the image was read.
//!
//! Only the layouts read as they are stored qualify: 8-bit RGB or RGBA,
//! not interlaced, no transparent colour, no EXIF orientation, a single
//! frame, a colour profile no bomb. A pixel found transparent, or an error
//! from the decoder, hands the image back to the whole decoder, which
//! reads it again and reports as it always does.

use std::borrow::Cow;
use std::io::Cursor;

use fast_image_resize::PixelType;
use image::{ColorType, DynamicImage};

use super::bands::{Bands, BAND};
use super::header::Header;
use super::memory::{reserve, Permit};
use super::policy::Policy;
use super::profile_bomb::without_profile_bomb;
use super::resize::{across, down};
use super::sniff::MediaType;
use super::whole::ensure_whole;
use super::workspace::{image_from, Workspace};

/// A PNG that can be read row by row, and what its header said.
pub(super) struct Rows {
    width: u32,
    height: u32,
    /// Samples a pixel as stored: 3 or 4.
    channels: u8,
}

impl Rows {
    /// `bytes` read row by row, if its layout qualifies (see the module)
    /// and its raster fits `policy`'s limits (an image over them goes to
    /// the whole decoder, which refuses or reduces it); with its colour
    /// profile.
    pub(super) fn open(
        bytes: &[u8],
        header: &Header,
        policy: &Policy,
    ) -> Option<(Rows, Option<Vec<u8>>)> {
        let pixels = u64::from(header.width) * u64::from(header.height);
        if header.animated || pixels > policy.max_pixels() {
            return None;
        }
        // Damage and bombs are the whole decoder's to report.
        let bomb = matches!(without_profile_bomb(bytes), Cow::Owned(_));
        if bomb || ensure_whole(bytes, MediaType::Png).is_err() {
            return None;
        }
        let reader = reader(bytes, policy)?;
        let info = reader.info();
        let channels = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
            (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
            _ => return None,
        };
        let plain = !info.interlaced
            && info.trns.is_none()
            && info.exif_metadata.is_none()
            && info.animation_control.is_none()
            && (info.width, info.height) == (header.width, header.height);
        let raster = pixels.saturating_mul(u64::from(channels));
        if !plain || raster > policy.max_alloc() {
            return None;
        }
        let icc = info.icc_profile.as_ref().map(|p| p.to_vec());
        let rows = Rows {
            width: info.width,
            height: info.height,
            channels,
        };
        Some((rows, icc))
    }

    /// The image resampled to `size` (RGB), with its room in the process's
    /// budget; `None` if a pixel is transparent or the decoder stops (the
    /// whole decoder is then to read it).
    pub(super) fn resized(
        &self,
        bytes: &[u8],
        policy: &Policy,
        (width, height): (u32, u32),
        work: &mut Workspace,
    ) -> Option<(DynamicImage, Permit<'static>)> {
        let (from_width, from_height) = (self.width, self.height);
        let stored = from_width as usize * usize::from(self.channels);
        let row_out = width as usize * 3;
        let bands = Bands::new(from_height, height, BAND);
        let same_height = height == from_height;
        let band_len = from_width as usize * 3 * BAND.min(from_height) as usize;
        let window_len = if same_height {
            0
        } else {
            row_out * bands.window() as usize
        };
        let out_len = row_out * height as usize;
        // The pixels out are taken with a byte a row for the encoder's
        // filter bytes: counted with them.
        let room = reserve(stored + band_len + window_len + out_len + height as usize);
        let mut reader = reader(bytes, policy)?;
        // Each written whole before it is read; `out` with room for a
        // filter byte a row, for the encoder.
        let mut row = work.overwritten(stored);
        let mut band = work.overwritten(band_len);
        let mut window = work.overwritten(window_len);
        let mut out = work.overwritten(out_len + height as usize);
        out.truncate(out_len);
        let mut pass = Pass {
            rows: self,
            reader: &mut reader,
            row: &mut row,
            band: &mut band,
            from_width,
            width,
        };
        let read = if same_height {
            pass.across_only(&mut out, work)
        } else {
            pass.across_and_down(&bands, &mut window, &mut out, work)
        };
        // The end of the image data, checked as the whole decoder checks it.
        let read = read && matches!(reader.read_row(&mut row), Ok(None));
        work.give(row);
        work.give(band);
        work.give(window);
        let image = if read {
            image_from(width, height, ColorType::Rgb8, out)
        } else {
            work.give(out);
            None
        };
        image.map(|image| (image, room))
    }

    /// The next `rows` rows into `band`, as RGB (an RGBA row is read
    /// into `row` first); false if the decoder stops or a pixel is
    /// transparent.
    fn read_band(
        &self,
        reader: &mut png::Reader<Cursor<&[u8]>>,
        row: &mut [u8],
        band: &mut [u8],
        rows: u32,
    ) -> bool {
        let opaque = self.width as usize * 3;
        for out in band.chunks_exact_mut(opaque).take(rows as usize) {
            let read = if self.channels == 3 {
                reader.read_row(out)
            } else {
                reader.read_row(row)
            };
            if !matches!(read, Ok(Some(_))) {
                return false;
            }
            if self.channels == 4 {
                if row.iter().skip(3).step_by(4).any(|&a| a != u8::MAX) {
                    return false;
                }
                for (to, from) in out.chunks_exact_mut(3).zip(row.chunks_exact(4)) {
                    to.copy_from_slice(&from[..3]);
                }
            }
        }
        true
    }
}

/// The rows of one image on their way out: where they are read from and
/// the buffers they are read into.
struct Pass<'p, 'b> {
    rows: &'p Rows,
    reader: &'p mut png::Reader<Cursor<&'b [u8]>>,
    row: &'p mut [u8],
    band: &'p mut [u8],
    from_width: u32,
    /// The width out.
    width: u32,
}

impl Pass<'_, '_> {
    /// The next `rows` rows, resampled across into `to`; false if the
    /// decoder stops, a pixel is transparent or the resampler refuses.
    fn band_across(&mut self, rows: u32, to: &mut [u8], work: &mut Workspace) -> bool {
        self.rows.read_band(self.reader, self.row, self.band, rows)
            && across(
                self.band,
                self.from_width,
                to,
                self.width,
                rows,
                PixelType::U8x3,
                work,
            )
            .is_ok()
    }

    /// Every row resampled across straight into `out` (the height is
    /// kept).
    fn across_only(&mut self, out: &mut [u8], work: &mut Workspace) -> bool {
        let row_out = self.width as usize * 3;
        let height = self.rows.height;
        (0..height).step_by(BAND as usize).all(|y| {
            let rows = BAND.min(height - y);
            self.band_across(rows, &mut out[y as usize * row_out..], work)
        })
    }

    /// The rows across into `window` as they are read, and down into
    /// `out` by the steps of `bands`: the window keeps the rows across
    /// from the first its next rows out read.
    fn across_and_down(
        &mut self,
        bands: &Bands,
        window: &mut [u8],
        out: &mut [u8],
        work: &mut Workspace,
    ) -> bool {
        let row_out = self.width as usize * 3;
        // The source rows the window holds.
        let (mut first, mut read) = (0, 0);
        bands.steps().all(|step| {
            let kept = (step.first - first) as usize * row_out..(read - first) as usize * row_out;
            window.copy_within(kept, 0);
            first = step.first;
            let at = (read - first) as usize * row_out;
            if !self.band_across(step.read - read, &mut window[at..], work) {
                return false;
            }
            read = step.read;
            down(window, self.width, &step, out, PixelType::U8x3, work).is_ok()
        })
    }
}

/// A PNG reader over `bytes` within `policy`'s allocation limit, its
/// header read; `None` if the decoder refuses it.
fn reader<'b>(bytes: &'b [u8], policy: &Policy) -> Option<png::Reader<Cursor<&'b [u8]>>> {
    let limits = png::Limits {
        bytes: usize::try_from(policy.max_alloc()).unwrap_or(usize::MAX),
    };
    png::Decoder::new_with_limits(Cursor::new(bytes), limits)
        .read_info()
        .ok()
}
