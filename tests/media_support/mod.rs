//! Images made in code for the media tests, the benchmarks and the
//! measuring examples: no binary fixtures. Included with `#[path]`.
#![allow(dead_code)]

use std::io::Cursor;

use image::codecs::gif::{GifEncoder, Repeat};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{
    DynamicImage, ExtendedColorType, Frame, GrayImage, ImageEncoder, ImageFormat, Rgb, RgbImage,
    Rgba, RgbaImage,
};

/// A deterministic pseudo-random sequence (xorshift64).
pub struct Noise(u64);

impl Noise {
    pub fn new(seed: u64) -> Noise {
        Noise(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Something like a photo: smooth colour gradients, a few hard edges and
/// a little grain, so encoders and resamplers do realistic work.
pub fn photo(width: u32, height: u32, seed: u64) -> RgbImage {
    let mut noise = Noise::new(seed);
    let (w, h) = (width.max(1) as i64, height.max(1) as i64);
    let mut img = RgbImage::new(width, height);
    for (x, y, px) in img.enumerate_pixels_mut() {
        let (x, y) = (x as i64, y as i64);
        let r = 40 + 160 * x / w + ((x * 7 + y * 3) % 29);
        let g = 30 + 180 * y / h + ((x * 5) % 23);
        let b = 200 - 150 * (x + y) / (w + h) + ((y * 11) % 31);
        let edge = if ((x / 97) + (y / 131)) % 5 == 0 {
            40
        } else {
            0
        };
        let grain = (noise.next_u64() & 15) as i64 - 8;
        let c = |v: i64| (v + edge + grain).clamp(0, 255) as u8;
        *px = Rgb([c(r), c(g), c(b)]);
    }
    img
}

/// Something like a screenshot of a desktop: a title bar, a sidebar and
/// rows of "text" (short runs of dark pixels, 14 px high, 28 px apart)
/// that differ with `n`, so it compresses as screenshots do rather than as
/// noise or as one flat colour.
pub fn screenshot(width: u32, height: u32, n: u64) -> RgbImage {
    let mut noise = Noise::new(n ^ 0x5eed);
    let title = 56.min(height);
    let sidebar = width / 5;
    let mut img = RgbImage::from_fn(width, height, |x, y| {
        if y < title {
            Rgb([40, 44, 52])
        } else if x < sidebar {
            Rgb([33, 37, 43])
        } else {
            Rgb([250, 250, 250])
        }
    });
    let ink = Rgb([(n * 7 % 80) as u8, 40, 60]);
    let mut row = title + 20;
    while row + 34 < height {
        let mut x = sidebar + 24;
        while x + 120 < width {
            let word = 12 + (noise.next_u64() % 90) as u32;
            for y in row..row + 14 {
                for dx in 0..word {
                    if !noise.next_u64().is_multiple_of(3) {
                        img.put_pixel(x + dx, y, ink);
                    }
                }
            }
            x += word + 10;
        }
        row += 28;
    }
    img
}

/// Pure noise: incompressible, for budget tests.
pub fn noise_rgb(width: u32, height: u32, seed: u64) -> RgbImage {
    let mut noise = Noise::new(seed);
    let mut img = RgbImage::new(width, height);
    for chunk in img.chunks_mut(8) {
        let n = noise.next_u64().to_le_bytes();
        chunk.copy_from_slice(&n[..chunk.len()]);
    }
    img
}

/// A flat image of one colour with a marker colour in its top-left corner
/// (a `corner` × `corner` square), to follow orientation changes.
pub fn marked(width: u32, height: u32, corner: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        if x < corner && y < corner {
            Rgb([255, 0, 0])
        } else {
            Rgb([0, 0, 255])
        }
    })
}

/// Half transparent, half opaque.
pub fn with_alpha(width: u32, height: u32) -> RgbaImage {
    RgbaImage::from_fn(width, height, |x, _| {
        if x < width / 2 {
            Rgba([10, 200, 30, 0])
        } else {
            Rgba([200, 10, 30, 255])
        }
    })
}

pub fn png(image: &DynamicImage) -> Vec<u8> {
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Adaptive)
        .write_image(
            image.as_bytes(),
            image.width(),
            image.height(),
            image.color().into(),
        )
        .unwrap();
    out
}

pub fn png_rgb(image: &RgbImage) -> Vec<u8> {
    png(&DynamicImage::ImageRgb8(image.clone()))
}

pub fn jpeg(image: &RgbImage, quality: u8) -> Vec<u8> {
    jpeg_with_exif(image, quality, None)
}

pub fn jpeg_gray(image: &GrayImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    let enc = jpeg_encoder::Encoder::new(&mut out, quality);
    let (w, h) = (image.width() as u16, image.height() as u16);
    enc.encode(image.as_raw(), w, h, jpeg_encoder::ColorType::Luma)
        .unwrap();
    out
}

/// A JPEG whose EXIF says `orientation` (1–8).
pub fn jpeg_oriented(image: &RgbImage, orientation: u16) -> Vec<u8> {
    // A little-endian TIFF header, one IFD with one SHORT entry (0x0112).
    let mut exif = b"II*\0\x08\0\0\0\x01\0".to_vec();
    exif.extend_from_slice(&0x0112u16.to_le_bytes());
    exif.extend_from_slice(&3u16.to_le_bytes());
    exif.extend_from_slice(&1u32.to_le_bytes());
    exif.extend_from_slice(&orientation.to_le_bytes());
    exif.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    jpeg_with_exif(image, 90, Some(&exif))
}

fn jpeg_with_exif(image: &RgbImage, quality: u8, exif: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = jpeg_encoder::Encoder::new(&mut out, quality);
    // 4:2:0, as cameras and phones write.
    enc.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    if let Some(exif) = exif {
        enc.add_exif_metadata(exif).unwrap();
    }
    let (w, h) = (image.width() as u16, image.height() as u16);
    enc.encode(image.as_raw(), w, h, jpeg_encoder::ColorType::Rgb)
        .unwrap();
    out
}

pub fn bmp(image: &RgbImage) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, ImageFormat::Bmp).unwrap();
    out.into_inner()
}

/// A lossless WEBP (`image` writes only lossless).
pub fn webp(image: &DynamicImage) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, ImageFormat::WebP).unwrap();
    out.into_inner()
}

/// A GIF of `frames` frames (each a different flat colour).
pub fn gif(width: u32, height: u32, frames: usize) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = GifEncoder::new_with_speed(&mut out, 30);
        enc.set_repeat(Repeat::Infinite).unwrap();
        for i in 0..frames {
            let shade = (i * 60 % 256) as u8;
            let img = RgbaImage::from_pixel(width, height, Rgba([shade, 100, 200, 255]));
            enc.encode_frame(Frame::new(img)).unwrap();
        }
    }
    out
}

/// A 16-bit RGB PNG.
pub fn png16(width: u32, height: u32) -> Vec<u8> {
    let raw: Vec<u8> = (0..width * height * 3)
        .flat_map(|i| ((i * 37 % 65536) as u16).to_be_bytes())
        .collect();
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(&raw, width, height, ExtendedColorType::Rgb16)
        .unwrap();
    out
}

/// Decode with `image`, for checking outputs.
pub fn load(bytes: &[u8]) -> DynamicImage {
    image::load_from_memory(bytes).unwrap()
}

// ---- files that are not whole (`tests/data/adversarial/`) ----

/// What each file of `tests/data/adversarial/` holds, by name: written
/// there with `UPDATE_ADVERSARIAL=1 cargo test --test media_whole`.
pub fn adversarial() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("truncated.png", truncated_png()),
        ("fake.pdf", FAKE_PDF.to_vec()),
        ("crc-mismatch.png", crc_mismatch_png()),
        ("no-eoi.jpg", jpeg_without_eoi()),
        ("no-trailer.gif", gif_without_trailer()),
        ("short-riff.webp", webp_with_short_riff()),
        ("no-eof.pdf", pdf_without_eof()),
    ]
}

/// Fourteen bytes that sniff as a PDF and are none.
pub const FAKE_PDF: &[u8] = b"%PDF-1.4 fake\n";

/// An 800×600 screenshot PNG cut off at 20 000 bytes: its header is whole
/// (so its size reads, and it fits every cap), its pixel data is not.
pub fn truncated_png() -> Vec<u8> {
    let mut png = png_rgb(&screenshot(800, 600, 1));
    assert!(png.len() > 20_000, "{} bytes", png.len());
    png.truncate(20_000);
    png
}

/// Where the first chunk of type `kind` starts in a PNG (its length
/// field).
pub fn png_chunk_at(png: &[u8], kind: &[u8; 4]) -> Option<usize> {
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if &png[at + 4..at + 8] == kind {
            return Some(at);
        }
        at += 12 + len;
    }
    None
}

/// A small PNG with one bit flipped in its first `IDAT` chunk's data: every
/// length is right, the chunk's CRC-32 no longer is.
pub fn crc_mismatch_png() -> Vec<u8> {
    let mut png = png_rgb(&photo(32, 24, 5));
    let idat = png_chunk_at(&png, b"IDAT").unwrap();
    png[idat + 8 + 4] ^= 0x10;
    png
}

/// A small JPEG without its final `EOI` marker (`FF D9`).
pub fn jpeg_without_eoi() -> Vec<u8> {
    let mut j = jpeg(&photo(32, 24, 6), 85);
    assert!(j.ends_with(&[0xFF, 0xD9]));
    j.truncate(j.len() - 2);
    j
}

/// A small GIF without its trailer (`0x3B`).
pub fn gif_without_trailer() -> Vec<u8> {
    let mut g = gif(16, 12, 1);
    assert_eq!(g.last(), Some(&0x3B));
    g.pop();
    g
}

/// A small WEBP whose RIFF length says 8 bytes less than its chunks hold.
pub fn webp_with_short_riff() -> Vec<u8> {
    let mut w = webp(&DynamicImage::ImageRgb8(photo(32, 24, 7)));
    let size = u32::from_le_bytes(w[4..8].try_into().unwrap());
    w[4..8].copy_from_slice(&(size - 8).to_le_bytes());
    w
}

/// A one-page PDF with a cross-reference table whose offsets are right,
/// saying `text`.
pub fn one_page_pdf(text: &str) -> Vec<u8> {
    let stream = format!("BT /F1 18 Tf 24 60 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_owned(),
        format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

/// [`one_page_pdf`] without its final `%%EOF` line.
pub fn pdf_without_eof() -> Vec<u8> {
    let mut pdf = one_page_pdf("no end");
    assert!(pdf.ends_with(b"%%EOF\n"));
    pdf.truncate(pdf.len() - 6);
    pdf
}
