//! An 8-bit PNG with its rows unfiltered, compressed by libdeflate: the
//! way screenshots and diagrams are written (flat colours and repeated
//! runs compress best unfiltered, and libdeflate finds the long matches
//! they hold in about half the time miniz_oxide takes at the same ratio;
//! docs/performance.md, "PNG bytes").
//!
//! Only what the crate writes: signature, `IHDR`, an optional `iCCP`, one
//! `IDAT`, `IEND`. The same pixels, profile and level give the same bytes
//! on every machine (libdeflate's output depends on its input and level
//! alone).

use libdeflater::{CompressionLvl, Compressor};

use super::workspace::Workspace;

/// The largest side, and chunk length, PNG allows: 2³¹ − 1.
const SIDE: u32 = i32::MAX as u32;

/// How a row of 8-bit samples is laid out: PNG's colour type and the
/// samples per pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    color_type: u8,
    channels: u8,
}

impl Layout {
    /// Gray.
    pub(crate) const L8: Layout = Layout::new(0, 1);
    /// Gray and alpha.
    pub(crate) const LA8: Layout = Layout::new(4, 2);
    /// Red, green, blue.
    pub(crate) const RGB8: Layout = Layout::new(2, 3);
    /// Red, green, blue, alpha.
    pub(crate) const RGBA8: Layout = Layout::new(6, 4);

    const fn new(color_type: u8, channels: u8) -> Layout {
        Layout {
            color_type,
            channels,
        }
    }
}

/// The PNG of `pixels` (`width` × `height`, rows top to bottom, each
/// `width × channels` bytes), at libdeflate's `level`, with `icc` in an
/// `iCCP` chunk. Each row is given its filter byte in place (the buffer
/// grows by a byte a row, within its room where it has it) and the pixels
/// are put back as they were once compressed: no second copy of the
/// pixels is made. `expect` is what the compressed pixels are thought to
/// take, 0 when not known: room for that is made first (the bound for
/// incompressible pixels is three times a screenshot's bytes, all of it
/// written to zero), and the whole bound only if they take more, or when
/// nothing is expected (a guess too small would compress twice).
///
/// # Errors
/// A message if `pixels` is not `width × height` pixels of `layout`, if a
/// side is 0 or over PNG's 2³¹ − 1, or if the compressed stream would not
/// fit one chunk.
pub(crate) fn unfiltered(
    pixels: &mut Vec<u8>,
    (width, height): (u32, u32),
    layout: Layout,
    icc: Option<&[u8]>,
    level: i32,
    expect: usize,
    work: &mut Workspace,
) -> Result<Vec<u8>, String> {
    if width == 0 || height == 0 || width > SIDE || height > SIDE {
        return Err(format!("{width}×{height} is not a PNG's size"));
    }
    let stride = width as usize * usize::from(layout.channels);
    if Some(pixels.len()) != stride.checked_mul(height as usize) {
        return Err(format!(
            "{} bytes are not {width}×{height} pixels of {} samples",
            pixels.len(),
            layout.channels
        ));
    }
    let level = CompressionLvl::new(level).map_err(|_| format!("no deflate level {level}"))?;

    with_filter_bytes(pixels, stride, |rows| {
        let mut compressor = work.take_deflater(level);
        let written = write(
            rows,
            (width, height),
            layout,
            icc,
            &mut compressor,
            expect,
            work,
        );
        work.give_deflater(level, compressor);
        written
    })
}

/// `use_rows` of `pixels` (rows of `stride` bytes) with each row behind
/// its filter byte, 0 (none), made in place: the rows move down, the last
/// first, each by one byte more than the one above it; then back up, the
/// first first, and the buffer is its length again.
fn with_filter_bytes<R>(
    pixels: &mut Vec<u8>,
    stride: usize,
    use_rows: impl FnOnce(&[u8]) -> R,
) -> R {
    let (len, height) = (pixels.len(), pixels.len() / stride.max(1));
    pixels.resize(len + height, 0);
    for r in (0..height).rev() {
        let to = r * (stride + 1);
        pixels.copy_within(r * stride..(r + 1) * stride, to + 1);
        pixels[to] = 0;
    }
    let out = use_rows(pixels);
    for r in 0..height {
        let from = r * (stride + 1) + 1;
        pixels.copy_within(from..from + stride, r * stride);
    }
    pixels.truncate(len);
    out
}

/// [`unfiltered`] of `rows`, each behind its filter byte.
fn write(
    rows: &[u8],
    (width, height): (u32, u32),
    layout: Layout,
    icc: Option<&[u8]>,
    compressor: &mut Compressor,
    expect: usize,
    work: &mut Workspace,
) -> Result<Vec<u8>, String> {
    let profile = match icc {
        Some(icc) => {
            let mut z = vec![0; compressor.zlib_compress_bound(icc.len())];
            let n = compressor
                .zlib_compress(icc, &mut z)
                .map_err(|e| format!("the colour profile: {e}"))?;
            z.truncate(n);
            Some(z)
        }
        None => None,
    };

    let bound = compressor.zlib_compress_bound(rows.len());
    let room = match expect {
        0 => bound,
        _ => expect
            .saturating_add(expect / 4)
            .saturating_add(1 << 16)
            .min(bound),
    };
    // A kept buffer, which leaves the workspace: the caller gives it back,
    // or keeps it as the payload.
    let mut out = work.take(8 + 25 + profile.as_ref().map_or(0, |p| p.len() + 17) + room + 24);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut ihdr = [0; 13];
    ihdr[..4].copy_from_slice(&width.to_be_bytes());
    ihdr[4..8].copy_from_slice(&height.to_be_bytes());
    // Bit depth 8; compression, filter method and interlace all 0.
    ihdr[8] = 8;
    ihdr[9] = layout.color_type;
    chunk(&mut out, *b"IHDR", |out| out.extend_from_slice(&ihdr));
    if let Some(z) = &profile {
        // A keyword of 1–79 Latin-1 bytes, NUL, compression method 0.
        chunk(&mut out, *b"iCCP", |out| {
            out.extend_from_slice(b"icc\0\0");
            out.extend_from_slice(z);
        });
    }
    let start = out.len();
    let mut failed = None;
    chunk(&mut out, *b"IDAT", |out| {
        let at = out.len();
        for room in [room, bound] {
            out.resize(at + room, 0);
            match compressor.zlib_compress(rows, &mut out[at..]) {
                Ok(n) => {
                    out.truncate(at + n);
                    failed = None;
                    break;
                }
                // Only the bound is sure to be enough.
                Err(e) => {
                    out.truncate(at);
                    failed = Some(e.to_string());
                }
            }
        }
    });
    if let Some(e) = failed {
        return Err(format!("deflate: {e}"));
    }
    if out.len() - start - 12 > SIDE as usize {
        return Err("the compressed pixels do not fit one chunk".into());
    }
    chunk(&mut out, *b"IEND", |_| {});
    Ok(out)
}

/// Append a chunk of `kind` whose data `write` appends: its length, type,
/// data and CRC.
fn chunk(out: &mut Vec<u8>, kind: [u8; 4], write: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&kind);
    write(out);
    let len = out.len() - at - 8;
    // Past 2³¹ − 1 the caller refuses the whole; the length is then moot.
    out[at..at + 4].copy_from_slice(&(len as u32).to_be_bytes());
    let crc = crc32fast::hash(&out[at + 4..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`unfiltered`] in a workspace of its own, of a copy of `pixels`,
    /// which it must give back as they were.
    fn fresh(
        pixels: &[u8],
        size: (u32, u32),
        layout: Layout,
        icc: Option<&[u8]>,
        level: i32,
        expect: usize,
    ) -> Result<Vec<u8>, String> {
        let mut copy = pixels.to_vec();
        let written = unfiltered(
            &mut copy,
            size,
            layout,
            icc,
            level,
            expect,
            &mut Workspace::default(),
        );
        assert_eq!(copy, pixels);
        written
    }

    fn decoded(png: &[u8]) -> (png::OutputInfo, Vec<u8>, Option<Vec<u8>>) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let icc = reader.info().icc_profile.as_ref().map(|p| p.to_vec());
        buf.truncate(info.buffer_size());
        (info, buf, icc)
    }

    #[test]
    fn each_layout_reads_back_as_written() {
        for (layout, color) in [
            (Layout::L8, png::ColorType::Grayscale),
            (Layout::LA8, png::ColorType::GrayscaleAlpha),
            (Layout::RGB8, png::ColorType::Rgb),
            (Layout::RGBA8, png::ColorType::Rgba),
        ] {
            let (w, h) = (37_u32, 11_u32);
            let n = (w * h) as usize * usize::from(layout.channels);
            let pixels: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
            let png = fresh(&pixels, (w, h), layout, None, 2, 0).unwrap();
            let (info, back, icc) = decoded(&png);
            assert_eq!((info.width, info.height), (w, h));
            assert_eq!(info.color_type, color);
            assert_eq!(info.bit_depth, png::BitDepth::Eight);
            assert_eq!(back, pixels);
            assert_eq!(icc, None);
        }
    }

    #[test]
    fn the_profile_is_carried_and_the_bytes_are_the_same_each_time() {
        let profile: Vec<u8> = (0..3144).map(|i| (i % 7) as u8).collect();
        let pixels = vec![200; 64 * 64 * 3];
        let png = fresh(&pixels, (64, 64), Layout::RGB8, Some(&profile), 2, 0).unwrap();
        assert_eq!(decoded(&png).2, Some(profile.clone()));
        assert_eq!(
            png,
            fresh(&pixels, (64, 64), Layout::RGB8, Some(&profile), 2, 0).unwrap()
        );
        // A flat image is a few hundred bytes, not its 12 KiB of pixels.
        let plain = fresh(&pixels, (64, 64), Layout::RGB8, None, 2, 0).unwrap();
        assert!(plain.len() < 200, "{}", plain.len());
    }

    #[test]
    fn pixels_that_take_more_than_expected_get_the_room_they_need() {
        // Noise: deflate cannot shrink it, so the room made for the 1 byte
        // expected is not enough and the bound is used.
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let pixels: Vec<u8> = (0..300 * 300 * 3)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let png = fresh(&pixels, (300, 300), Layout::RGB8, None, 2, 1).unwrap();
        assert!(png.len() > pixels.len());
        assert_eq!(decoded(&png).1, pixels);
        assert_eq!(
            png,
            fresh(&pixels, (300, 300), Layout::RGB8, None, 2, pixels.len()).unwrap()
        );
    }

    #[test]
    fn pixels_that_do_not_match_the_size_are_refused() {
        let err = fresh(&[0; 10], (2, 2), Layout::RGB8, None, 2, 0).unwrap_err();
        assert_eq!(err, "10 bytes are not 2×2 pixels of 3 samples");
        assert!(fresh(&[], (0, 5), Layout::L8, None, 2, 0).is_err());
        assert_eq!(
            fresh(&[0; 4], (2, 2), Layout::L8, None, 13, 0).unwrap_err(),
            "no deflate level 13"
        );
    }

    proptest::proptest! {
        /// The rows are handed over each behind a 0, and the pixels are
        /// given back as they were, whatever their room.
        #[test]
        fn filter_bytes_are_made_in_place_and_taken_out_again(
            stride in 1usize..40,
            height in 0usize..30,
            seed in proptest::prelude::any::<u8>(),
            room in 0usize..64,
        ) {
            let pixels: Vec<u8> = (0..stride * height).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
            let mut buffer = Vec::with_capacity(pixels.len() + room);
            buffer.extend_from_slice(&pixels);
            let expected: Vec<u8> = pixels.chunks(stride).flat_map(|row| std::iter::once(0).chain(row.iter().copied())).collect();
            let seen = with_filter_bytes(&mut buffer, stride, <[u8]>::to_vec);
            proptest::prop_assert_eq!(seen, expected);
            proptest::prop_assert_eq!(buffer, pixels);
        }
    }
}
