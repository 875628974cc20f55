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
    pub(super) fn image(&self) -> &DynamicImage {
        match self {
            Frame::Decoded(decoded) => &decoded.image,
            Frame::Made(image) => image,
        }
    }
}

impl<'b> Pixels<'b> {
    pub(super) fn decode(
        bytes: &'b [u8],
        media_type: MediaType,
        header: &'b Header,
        policy: &'b Policy,
        work: &mut Workspace,
    ) -> Result<Pixels<'b>, MediaError> {
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
        let decoded = match self.decoded.take() {
            Some(decoded) => decoded,
            None => {
                // The new raster takes its own room (asking with this one
                // held could wait for ever).
                self.room = None;
                decode(self.bytes, self.media_type, self.header, self.policy, work)?
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
