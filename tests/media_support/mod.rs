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
