//! An image's pixels while it is prepared: decoded, or to be decoded
//! again from its bytes, and the frames rendered from them (resized,
//! alpha dropped, turned upright) in a workspace's buffers.

use image::metadata::Orientation;
use image::DynamicImage;

use super::decode::{decode, drop_alpha, uses_alpha};
use super::decoded::Decoded;
use super::error::MediaError;
use super::header::Header;
use super::memory::Permit;
use super::policy::Policy;
use super::resize::resize;
use super::rows::Rows;
use super::sniff::MediaType;
use super::workspace::Workspace;

/// An image's pixels, decoded or to be decoded again from its bytes: once
/// a resized frame is made from them, the decoded raster (the largest
/// buffer of all) is let go, so encoding works in its room. Only an image
/// over the budget is decoded again, to be scaled down.
pub(super) struct Pixels<'b> {
    bytes: &'b [u8],
    media_type: MediaType,
    header: &'b Header,
    policy: &'b Policy,
    /// The decoded raster, while it is held.
    decoded: Option<Decoded>,
    /// An opaque PNG resized as it is read, a band of rows at a time,
    /// never held whole: until a pixel is found transparent or the
    /// decoder stops on it.
    rows: Option<Rows>,
    /// Its room in the process's budget, held until the output is
    /// encoded, whether or not the raster still is.
    room: Option<Permit<'static>>,
    /// Its stored size (before orientation; a raster read reduced is
    /// smaller than the header's).
    pub(super) size: (u32, u32),
    orientation: Orientation,
    pub(super) icc: Option<Vec<u8>>,
    /// Whether any pixel is transparent.
    pub(super) transparent: bool,
}

/// What [`Pixels::render`] gives.
pub(super) enum Frame {
    /// The decoded raster as it is.
    Decoded(Decoded),
    /// Pixels made from it, in a buffer of the workspace's.
    Made(DynamicImage),
}

impl Frame {
    /// The pixels, to look at.
    #[cfg(test)]
    pub(super) fn image(&self) -> &DynamicImage {
        match self {
            Frame::Decoded(decoded) => &decoded.image,
            Frame::Made(image) => image,
        }
    }

    /// The pixels, to encode in place (the encoder puts them back).
    pub(super) fn image_mut(&mut self) -> &mut DynamicImage {
        match self {
            Frame::Decoded(decoded) => &mut decoded.image,
            Frame::Made(image) => image,
        }
    }
}

impl<'b> Pixels<'b> {
    /// The image's pixels: decoded now, or, for an image to be resized
    /// that [`Rows`] reads, when a size is asked for.
    pub(super) fn decode(
        bytes: &'b [u8],
        media_type: MediaType,
        header: &'b Header,
        policy: &'b Policy,
        resizing: bool,
        work: &mut Workspace,
    ) -> Result<Pixels<'b>, MediaError> {
        let by_rows = (resizing && media_type == MediaType::Png)
            .then(|| Rows::open(bytes, header, policy))
            .flatten();
        if let Some((rows, icc)) = by_rows {
            return Ok(Pixels {
                bytes,
                media_type,
                header,
                policy,
                decoded: None,
                rows: Some(rows),
                room: None,
                size: (header.width, header.height),
                orientation: Orientation::NoTransforms,
                icc,
                transparent: false,
            });
        }
        let mut decoded = decode(bytes, media_type, header, policy, work)?;
        Ok(Pixels {
            bytes,
            media_type,
            header,
            policy,
            size: (decoded.image.width(), decoded.image.height()),
            orientation: decoded.orientation,
            icc: decoded.icc.take(),
            transparent: uses_alpha(&decoded.image),
            decoded: Some(decoded),
            rows: None,
            room: None,
        })
    }

    /// The image at `size` (in stored orientation), turned upright, its
    /// alpha channel dropped if no pixel uses it; made in `work`'s
    /// buffers, after which the decoded raster is let go.
    pub(super) fn render(
        &mut self,
        size: (u32, u32),
        work: &mut Workspace,
    ) -> Result<Frame, MediaError> {
        if self.decoded.is_none() {
            // The new pixels take their own room (asking with this one
            // held could wait for ever).
            self.room = None;
        }
        if let Some(rows) = self.rows.as_ref().filter(|_| size != self.size) {
            if let Some((image, room)) = rows.resized(self.bytes, self.policy, size, work) {
                self.room = Some(room);
                return Ok(Frame::Made(image));
            }
            // Transparent, or not to be read: the whole decoder's turn,
            // from now on.
            self.rows = None;
        }
        let decoded = match self.decoded.take() {
            Some(decoded) => decoded,
            None => {
                let decoded = decode(self.bytes, self.media_type, self.header, self.policy, work)?;
                self.transparent = uses_alpha(&decoded.image);
                decoded
            }
        };
        let image = &decoded.image;
        let unchanged = size == (image.width(), image.height());
        let idle_alpha = image.color().has_alpha() && !self.transparent;
        if unchanged && self.orientation == Orientation::NoTransforms && !idle_alpha {
            return Ok(Frame::Decoded(decoded));
        }
        let made = match (unchanged, idle_alpha) {
            (true, true) => Ok(drop_alpha(image, work)),
            (true, false) => Ok(image.clone()),
            (false, true) => resize(image, size.0, size.1, self.transparent, work).map(|resized| {
                let opaque = drop_alpha(&resized, work);
                work.give_image(resized);
                opaque
            }),
            (false, false) => resize(image, size.0, size.1, self.transparent, work),
        };
        let Decoded { image, room, .. } = decoded;
        work.give_image(image);
        self.room = Some(room);
        let mut made = made?;
        made.apply_orientation(self.orientation);
        Ok(Frame::Made(made))
    }

    /// Done with `frame`: the decoded raster is held again, pixels made
    /// go back to `work`.
    pub(super) fn done(&mut self, frame: Frame, work: &mut Workspace) {
        match frame {
            Frame::Decoded(decoded) => self.decoded = Some(decoded),
            Frame::Made(image) => work.give_image(image),
        }
    }

    /// Let the decoded raster go, to `work`.
    pub(super) fn let_go(self, work: &mut Workspace) {
        if let Some(decoded) = self.decoded {
            work.give_image(decoded.image);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ColorType, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};

    use crate::media::header::read_header;
    use crate::media::resize::tests::sample;

    fn png(image: DynamicImage) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        image.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    fn rgb(width: u32, height: u32) -> DynamicImage {
        RgbImage::from_fn(
            width,
            height,
            |x, y| Rgb([0, 1, 2].map(|c| sample(x, y, c))),
        )
        .into()
    }

    fn rgba(width: u32, height: u32, hole: Option<(u32, u32)>) -> DynamicImage {
        RgbaImage::from_fn(width, height, |x, y| {
            let a = if Some((x, y)) == hole { 7 } else { u8::MAX };
            Rgba([sample(x, y, 0), sample(x, y, 1), sample(x, y, 2), a])
        })
        .into()
    }

    /// The frame at `size` of `bytes` read one way or the other, its bytes
    /// and layout, and whether it was read by rows.
    fn frame(bytes: &[u8], size: (u32, u32), by_rows: bool) -> (Vec<u8>, ColorType, bool) {
        let header = read_header(bytes, MediaType::Png).unwrap();
        let policy = Policy::default();
        let mut work = Workspace::default();
        let mut pixels =
            Pixels::decode(bytes, MediaType::Png, &header, &policy, by_rows, &mut work).unwrap();
        let frame = pixels.render(size, &mut work).unwrap();
        let read_by_rows = pixels.rows.is_some();
        let image = frame.image();
        let out = (image.as_bytes().to_vec(), image.color(), read_by_rows);
        pixels.done(frame, &mut work);
        out
    }

    #[test]
    fn rows_resized_as_they_are_read_are_the_pixels_the_whole_raster_gives() {
        // Heights off the band, a band and less, both sides changing or
        // one; RGB and opaque RGBA read by rows, a transparent pixel (late,
        // in the last band) handing the image back.
        let cases = [
            (rgb(2880, 1800), (2000, 1250), true),
            (rgb(301, 1000), (120, 399), true),
            (rgb(700, 64), (300, 27), true),
            (rgb(500, 30), (200, 12), true),
            (rgb(900, 130), (900, 70), true),
            (rgb(130, 900), (70, 900), true),
            (rgba(1200, 777, None), (800, 518), true),
            (rgba(1200, 777, Some((1100, 770))), (800, 518), false),
        ];
        for (image, size, read_by_rows) in cases {
            let bytes = png(image);
            let whole = frame(&bytes, size, false);
            let rows = frame(&bytes, size, true);
            assert!(!whole.2);
            assert_eq!(rows.2, read_by_rows, "{size:?}");
            assert_eq!(rows.1, whole.1, "{size:?}");
            assert!(rows.0 == whole.0, "{size:?}: the pixels differ");
            assert_eq!(
                rows.0.len(),
                size.0 as usize * size.1 as usize * rows.1.bytes_per_pixel() as usize
            );
        }
    }

    /// `bytes` with the middle of its first `IDAT`'s data replaced by
    /// `noise`, its CRC made right again (so only the decoder can tell).
    fn with_noisy_idat(mut bytes: Vec<u8>, noise: &[u8]) -> Vec<u8> {
        let mut at = 8;
        while &bytes[at + 4..at + 8] != b"IDAT" {
            at += 12 + u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        }
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let mid = at + 8 + len / 2;
        bytes[mid..mid + noise.len()].copy_from_slice(noise);
        let crc = crc32fast::hash(&bytes[at + 4..at + 8 + len]);
        bytes[at + 8 + len..at + 12 + len].copy_from_slice(&crc.to_be_bytes());
        bytes
    }

    #[test]
    fn an_image_the_decoder_stops_on_is_refused_as_the_whole_decoder_refuses_it() {
        let bytes = with_noisy_idat(png(rgb(1200, 700)), &[0xff; 64]);
        let header = read_header(&bytes, MediaType::Png).unwrap();
        let policy = Policy::default();
        let refusal = |by_rows: bool| {
            let mut work = Workspace::default();
            let mut pixels =
                Pixels::decode(&bytes, MediaType::Png, &header, &policy, by_rows, &mut work)?;
            pixels
                .render((600, 350), &mut work)
                .map(|frame| frame.image().width())
        };
        let whole = refusal(false).unwrap_err().to_string();
        assert_eq!(refusal(true).unwrap_err().to_string(), whole);
        assert!(
            whole.contains("deflate") || whole.contains("Corrupt"),
            "{whole}"
        );
    }
}
