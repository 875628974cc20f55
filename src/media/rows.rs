//! An opaque PNG resized as it is decoded, a band of rows at a time: the
//! rows are resampled across as they come, so the raster is never held
//! whole, only its rows resampled across (a 2880×1800 screenshot fitted
//! to 2000 px holds 10.8 MB of them instead of its 15.6 MB raster, and
//! the raster's band is 2.2 MB), and those are then resampled down.
//! [`resize`](super::resize::resize) takes the same two steps for every
//! opaque image, so the pixels are the same whichever way the image was
//! read.
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

use super::header::Header;
use super::memory::{reserve, Permit};
use super::policy::Policy;
use super::profile_bomb::without_profile_bomb;
use super::resize::{across, down};
use super::sniff::MediaType;
use super::whole::ensure_whole;
use super::workspace::{image_from, Workspace};

/// Rows decoded before they are resampled across: a small part of the
/// raster (256 rows of 2880 RGB pixels are 2.2 MB of 15.6), and enough
/// that the resampler's set-up for each call (weighing the taps of every
/// output column) is spread over them: 7 calls for a 2880×1800
/// screenshot, its set-up then 2 % of a cold conversion's cycles.
const BAND: u32 = 256;

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
        let band_len = from_width as usize * 3 * BAND.min(from_height) as usize;
        let wide_len = width as usize * 3 * from_height as usize;
        let out_len = width as usize * 3 * height as usize;
        let room = reserve(stored + band_len.max(out_len) + wide_len);
        let mut reader = reader(bytes, policy)?;
        // Each written whole before it is read.
        let mut row = work.overwritten(stored);
        // The band's buffer is where the pixels out are written after it,
        // so it is taken at the larger of the two: one buffer, not two,
        // kept for the next image.
        let mut band = work.overwritten(band_len.max(out_len));
        let mut wide = work.overwritten(wide_len);
        let mut y = 0;
        let read = loop {
            let rows = BAND.min(from_height - y);
            if rows == 0 {
                // The end of the image data, checked as the whole decoder
                // checks it.
                break matches!(reader.read_row(&mut row), Ok(None));
            }
            if !self.read_band(&mut reader, &mut row, &mut band, rows) {
                break false;
            }
            let out = &mut wide[y as usize * width as usize * 3..];
            let across = across(&band, from_width, out, width, rows, PixelType::U8x3, work);
            if across.is_err() {
                break false;
            }
            y += rows;
        };
        work.give(row);
        let image = if read {
            // The band becomes the pixels out.
            let mut out = band;
            out.truncate(out_len);
            let down = down(
                &wide,
                width,
                from_height,
                &mut out,
                height,
                PixelType::U8x3,
                work,
            );
            match down {
                Ok(()) => image_from(width, height, ColorType::Rgb8, out),
                Err(_) => {
                    work.give(out);
                    None
                }
            }
        } else {
            work.give(band);
            None
        };
        work.give(wide);
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
