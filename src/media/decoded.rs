//! What a decoder hands the rest of the pipeline, whichever decoder it was
//! (full size, or reduced while decoding).

use image::metadata::Orientation;
use image::DynamicImage;

use super::memory::Permit;

/// A decoded raster, 8 bits per channel, in its stored orientation.
pub(crate) struct Decoded {
    /// The pixels (`L8`, `La8`, `Rgb8` or `Rgba8`).
    pub image: DynamicImage,
    /// The EXIF orientation still to apply.
    pub orientation: Orientation,
    /// The embedded ICC profile, if any.
    pub icc: Option<Vec<u8>>,
    /// Its room in the process's budget of decoded images, held until the
    /// image's output is encoded (after the raster itself is let go).
    pub room: Permit<'static>,
}
