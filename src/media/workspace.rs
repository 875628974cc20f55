//! The buffers an image's preparation works in (decoded pixels or a band
//! of them, pixels resampled across and down, the encoder's output, the
//! deflater itself), kept from one image to the next.
//!
//! A 2880×1800 screenshot needs about 15 MB of such buffers read by rows
//! ([`rows`](super::rows)), 40 MB decoded whole, all dead once its payload
//! is written. Allocated afresh for each image, every page of
//! them is faulted in and zeroed again, and what the allocator keeps of
//! them once freed stays resident beside the body written later (glibc
//! raises its mapping threshold to the largest block freed, so the next
//! images' payloads land in arenas the freed buffers left). Kept for the
//! conversion instead, they are faulted in once per thread, nothing large
//! is freed while images are prepared, and a payload leaves at its length
//! (a PNG written where the image before it was read, then shrunk; a JPEG
//! copied out).
//!
//! What a workspace keeps is outside the process's budget of decoded
//! images ([`memory`](super::memory)), which counts a raster until its
//! output is encoded: at most [`KEPT`] buffers of at most [`LARGEST_KEPT`]
//! bytes each, for as long as one conversion prepares its images, one
//! workspace for each image prepared at once.

use std::sync::Mutex;

use fast_image_resize::Resizer;
use image::{ColorType, DynamicImage, ImageBuffer};
use libdeflater::{CompressionLvl, Compressor};

/// How many buffers a workspace keeps between two uses of them.
const KEPT: usize = 6;
/// The largest buffer a workspace keeps (a 5120×2880 raster, at four
/// bytes a pixel, is 59 MB): a larger one is let go when given back, so
/// what waits between two images stays bounded.
const LARGEST_KEPT: usize = 64 << 20;

/// Buffers for one preparation at a time.
#[derive(Default)]
pub(crate) struct Workspace {
    /// Byte buffers not in use, any size.
    spare: Vec<Vec<u8>>,
    /// libdeflate's compressor, and its level.
    deflater: Option<(i32, Compressor)>,
    /// The resampler, which keeps its own buffers (a pass's output).
    resizer: Option<Resizer>,
}

impl Workspace {
    /// An empty buffer with room for at least `len` bytes: the smallest
    /// kept one that has it, else the largest kept (grown), else a new one.
    pub(crate) fn take(&mut self, len: usize) -> Vec<u8> {
        let mut buf = self.pick(len);
        buf.clear();
        buf.reserve(len);
        buf
    }

    /// The kept buffer [`Workspace::take`] describes, as it was kept.
    fn pick(&mut self, len: usize) -> Vec<u8> {
        let fits = (0..self.spare.len())
            .filter(|&i| self.spare[i].capacity() >= len)
            .min_by_key(|&i| self.spare[i].capacity());
        let largest = || (0..self.spare.len()).max_by_key(|&i| self.spare[i].capacity());
        match fits.or_else(largest) {
            Some(i) => self.spare.swap_remove(i),
            None => Vec::new(),
        }
    }

    /// A buffer of exactly `len` bytes for a writer that writes every one
    /// of them (a decoder's rows, a resampler's pixels): what it holds is
    /// what it last held, zero past that, so a buffer taken back is not
    /// written twice.
    pub(crate) fn overwritten(&mut self, len: usize) -> Vec<u8> {
        let mut buf = self.pick(len);
        if buf.capacity() < len {
            // Grown: what it held would be copied for nothing.
            buf.clear();
        }
        buf.resize(len, 0);
        buf
    }

    /// A buffer of exactly `len` zero bytes ([`Workspace::take`]).
    pub(crate) fn zeroed(&mut self, len: usize) -> Vec<u8> {
        let mut buf = self.take(len);
        buf.resize(len, 0);
        buf
    }

    /// Keep `buf` for a later [`Workspace::take`]; past [`KEPT`] buffers,
    /// the smallest is let go.
    pub(crate) fn give(&mut self, buf: Vec<u8>) {
        if buf.capacity() == 0 || buf.capacity() > LARGEST_KEPT {
            return;
        }
        self.spare.push(buf);
        if self.spare.len() > KEPT {
            let smallest = (0..self.spare.len())
                .min_by_key(|&i| self.spare[i].capacity())
                .unwrap_or(0);
            self.spare.swap_remove(smallest);
        }
    }

    /// Keep the pixels of `image` ([`Workspace::give`]).
    pub(crate) fn give_image(&mut self, image: DynamicImage) {
        self.give(image.into_bytes());
    }

    /// The resampler, made on first use.
    pub(crate) fn resizer(&mut self) -> &mut Resizer {
        self.resizer.get_or_insert_with(Resizer::new)
    }

    /// libdeflate's compressor at `level`: the one kept if it is at that
    /// level, else a new one.
    pub(crate) fn take_deflater(&mut self, level: CompressionLvl) -> Compressor {
        match self.deflater.take() {
            Some((kept, compressor)) if kept == i32::from(level) => compressor,
            _ => Compressor::new(level),
        }
    }

    /// Keep `compressor`, at `level`, for the next
    /// [`Workspace::take_deflater`].
    pub(crate) fn give_deflater(&mut self, level: CompressionLvl, compressor: Compressor) {
        self.deflater = Some((i32::from(level), compressor));
    }
}

/// An image of `color` (an 8-bit layout) over `buf`, which must hold
/// exactly its pixels; `None` otherwise.
pub(crate) fn image_from(
    width: u32,
    height: u32,
    color: ColorType,
    buf: Vec<u8>,
) -> Option<DynamicImage> {
    Some(match color {
        ColorType::L8 => DynamicImage::ImageLuma8(ImageBuffer::from_raw(width, height, buf)?),
        ColorType::La8 => DynamicImage::ImageLumaA8(ImageBuffer::from_raw(width, height, buf)?),
        ColorType::Rgb8 => DynamicImage::ImageRgb8(ImageBuffer::from_raw(width, height, buf)?),
        ColorType::Rgba8 => DynamicImage::ImageRgba8(ImageBuffer::from_raw(width, height, buf)?),
        _ => return None,
    })
}

/// Workspaces for the images of one conversion prepared at once: each
/// preparation takes one and gives it back, so there are never more than
/// preparations running together.
#[derive(Default)]
pub(crate) struct Workspaces(Mutex<Vec<Workspace>>);

impl Workspaces {
    /// Run `work` in a workspace of these.
    pub(crate) fn with<R>(&self, work: impl FnOnce(&mut Workspace) -> R) -> R {
        let taken = self.0.lock().ok().and_then(|mut kept| kept.pop());
        let mut workspace = taken.unwrap_or_default();
        let out = work(&mut workspace);
        if let Ok(mut kept) = self.0.lock() {
            kept.push(workspace);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_is_taken_back_at_the_smallest_size_that_holds_what_is_asked() {
        let mut work = Workspace::default();
        work.give(Vec::with_capacity(100));
        work.give(Vec::with_capacity(1000));
        work.give(Vec::with_capacity(10_000));
        let mid = work.take(500);
        assert!(mid.is_empty() && (1000..10_000).contains(&mid.capacity()));
        // None holds 20 000: the largest is grown.
        let big = work.take(20_000);
        assert!(big.capacity() >= 20_000);
        assert_eq!(work.spare.len(), 1);
        let zeroed = work.zeroed(50);
        assert_eq!(zeroed, vec![0; 50]);
        assert!(work.spare.is_empty());
    }

    #[test]
    fn what_is_kept_is_bounded_in_count_and_size() {
        let mut work = Workspace::default();
        for n in 1..=KEPT + 3 {
            work.give(Vec::with_capacity(n * 10));
        }
        assert_eq!(work.spare.len(), KEPT);
        // The smallest were let go.
        assert!(work.spare.iter().all(|b| b.capacity() >= 40));
        work.give(Vec::with_capacity(LARGEST_KEPT + 1));
        work.give(Vec::new());
        assert!(work.spare.iter().all(|b| b.capacity() < 1000));
    }

    #[test]
    fn a_buffer_to_be_overwritten_is_its_length_and_zero_past_what_it_held() {
        let mut work = Workspace::default();
        work.give(vec![7; 100]);
        // Taken back shorter or longer within its room: what it held, then
        // zeros; nothing is copied or zeroed twice.
        let shorter = work.overwritten(40);
        assert_eq!(shorter, vec![7; 40]);
        work.give(shorter);
        let mut longer = work.overwritten(100);
        assert_eq!(&longer[..40], &[7; 40][..]);
        assert_eq!(&longer[40..], &[0; 60][..]);
        longer.fill(9);
        work.give(longer);
        // Grown past its room: all zero.
        assert_eq!(work.overwritten(1000), vec![0; 1000]);
        assert!(image_from(3, 3, ColorType::Rgb8, vec![0; 26]).is_none());
        assert!(image_from(3, 3, ColorType::Rgb8, vec![0; 27]).is_some());
    }

    #[test]
    fn workspaces_are_handed_out_one_per_user_and_kept() {
        let all = Workspaces::default();
        all.with(|a| {
            a.give(vec![1; 10]);
            // A second user at the same time gets another one.
            all.with(|b| assert!(b.spare.is_empty()));
        });
        let kept = all.0.lock().unwrap().len();
        assert_eq!(kept, 2);
        all.with(|w| assert!(w.spare.len() <= 1));
    }
}
