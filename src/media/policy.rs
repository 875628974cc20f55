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
    /// before decoding.
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

    /// The most pixels an image may have to be decoded.
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
