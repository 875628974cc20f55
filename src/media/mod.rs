//! The media pipeline: declared image references to bytes a provider accepts.
//!
//! A declared attachment target is untrusted text taken from a history. This
//! module turns it into something a provider request can carry, without
//! reading what it must not, hanging, or using unbounded memory:
//!
//! 1. **Resolve** the target with a [`Resolver`]. The built-in
//!    [`DefaultResolver`] accepts strict `data:` URIs, local paths confined to
//!    the [`Policy`]'s roots (regular files only, size-capped before and while
//!    reading), and `http(s)` URLs, which are handed on as
//!    [`Source::Url`] and never fetched.
//! 2. **Sniff** the bytes ([`sniff`]): the type comes from magic bytes, never
//!    from a file name. PNG, JPEG, GIF, WEBP, BMP and PDF are supported; TIFF,
//!    HEIC, AVIF, JPEG XL and SVG are recognised and refused.
//! 3. **Prepare** them ([`prepare`]) for a destination's [`Budget`]:
//!    * a raster within [`Policy::max_dim`] on both sides that already fits
//!      the budget passes through byte for byte, its size read from the
//!      header without decoding, once [`check_whole`] has walked its
//!      structure to the end (a PNG cut off or with a bad chunk CRC, a JPEG
//!      without `EOI`, a GIF without its trailer, a WEBP whose RIFF form
//!      overruns the file is refused as [`MediaError::Corrupt`]);
//!    * anything else is decoded under pixel and allocation limits (and
//!      within the process's [`DECODED_BUDGET`] of decoded images held at
//!      once, whatever the number of threads), resized
//!      (aspect kept, Lanczos3), turned upright from its EXIF orientation
//!      and re-encoded: PNG → PNG, JPEG → JPEG, GIF → GIF (first frame),
//!      BMP → PNG, WEBP → JPEG when opaque or PNG when it has transparency;
//!    * an output over the budget is re-encoded smaller (JPEG quality first,
//!      then scale), each attempt reported in [`Prepared::fitting`];
//!    * a PDF passes through unchanged as a document, within the budget's
//!      document cap, when it is whole: `%PDF-` and a version, `%%EOF` in
//!      the last 1024 bytes, `startxref` and an offset before it.
//! 4. **Write** the result: [`Prepared::write_base64`] appends the base64
//!    text straight into the caller's buffer (inside a JSON string, say).
//!    [`Prepared::estimates`] gives the fixed per-attachment character
//!    estimate and per-provider token estimates.
//!
//! Every refusal is a [`MediaError`] variant with a short message a provider
//! layer can put in a note. The same input and settings always give the same
//! output bytes, so provider prompt caches keep hitting.
//!
//! The command's `media` report runs the same steps on a path given on the
//! command line ([`read_regular_file`], then [`prepare`]): read as given,
//! not confined to roots.
//!
//! # Example
//!
//! ```
//! use tool_carrier::media::{prepare, Budget, DefaultResolver, Policy, Resolver, Source};
//!
//! # fn main() -> Result<(), tool_carrier::media::MediaError> {
//! // A 1×1 transparent PNG as a data: URI.
//! let target = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ\
//!               AAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=";
//! let policy = Policy::default();
//! let resolver = DefaultResolver::new(policy.clone());
//! let Source::Bytes(loaded) = resolver.resolve(target)? else { unreachable!() };
//! let prepared = loaded.prepare(&policy, Budget::ANTHROPIC)?;
//! assert_eq!(prepared.media_type.as_str(), "image/png");
//! assert_eq!((prepared.width, prepared.height), (Some(1), Some(1)));
//! assert!(!prepared.resized && !prepared.reencoded); // passed through untouched
//!
//! let mut json = String::from("{\"data\":\"");
//! prepared.write_base64(&mut json);
//! json.push_str("\"}");
//! assert_eq!(json.len() - 11, prepared.base64_len());
//! # Ok(())
//! # }
//! ```
//!
//! # Limitations
//!
//! * A pass-through image is not decoded: its structure is checked (every
//!   chunk, segment or block present, PNG CRCs), not its compressed data, so
//!   a JPEG whose Huffman data is garbled between intact markers, or a PNG
//!   whose zlib stream is wrong under correct CRCs, is handed on as it is.
//!   Bytes after the closing structure (`IEND`, `EOI`, the GIF trailer,
//!   the RIFF form, the last `%%EOF`) are not looked at.
//! * A pass-through image keeps its metadata (EXIF, including any location)
//!   and its EXIF orientation flag, which the provider may or may not honour;
//!   re-encoded images are turned upright and keep only their ICC profile.
//! * An animated GIF, WEBP or PNG that has to be re-encoded keeps its first
//!   frame only ([`Prepared::first_frame_only`]); one that passes through
//!   stays animated.
//! * 16-bit and floating-point images are reduced to 8 bits per channel when
//!   re-encoded.

mod bands;
mod budget;
mod cache;
pub(crate) mod data_uri;
mod decode;
mod decoded;
mod encode;
pub(crate) mod encoded;
mod error;
mod estimate;
mod fetch_url;
mod file_uri;
pub(crate) mod header;
pub(crate) mod memory;
mod pdf;
mod pixels;
mod png_write;
mod policy;
mod prepare;
mod profile_bomb;
mod provider_file;
mod read;
mod reduce;
mod reduce_jpeg;
mod resize;
mod resolve;
mod rows;
pub(crate) mod scale;
mod sniff;
pub mod store;
mod uploads;
mod whole;
pub(crate) mod workspace;

pub use budget::{Budget, Measure};
pub use cache::{decode_entry, encode_entry, CacheKey, EntryError, MemoryCache, PreparedCache};
pub use error::{ErrorReason, MediaError};
pub use estimate::Estimates;
pub(crate) use estimate::{anthropic_tokens, crop_tiles, patches_within, tile_tokens};
pub use fetch_url::UrlFetcher;
pub use file_uri::FileUriError;
pub use memory::{Gate, Permit, DECODED_BUDGET};
pub use pdf::{pdf_info, PdfInfo};
pub use policy::{Policy, View};
pub use prepare::{prepare, prepare_for, FitStep, MediaFacts, Prepared};
pub use provider_file::{Holder, ProviderFile, ProviderFileError};
pub use read::read_regular_file;
pub use resize::fit_within;
pub use resolve::{DefaultResolver, Loaded, Origin, Resolver, Source, Stamp};
pub use sniff::{sniff, MediaType, Sniffed};
pub use uploads::{Uploads, UploadsError};
pub use whole::{check_whole, Damage};
