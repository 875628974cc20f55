//! What `prepare` writes for a screenshot-like and a photo-like source
//! resized to 2000 px PNG: bytes and time, one line each. Writes the two
//! sources to DIR first, so another tool can be run on the same files
//! (`benches/png-vs-vips` runs vipsthumbnail on them).
//!
//! ```sh
//! cargo run --release --example png_sizes -- DIR
//! ```

#[cfg(feature = "media")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    run::main()
}

#[cfg(not(feature = "media"))]
fn main() {
    eprintln!("this example needs the `media` feature");
}

#[cfg(feature = "media")]
mod run {
    use std::path::PathBuf;
    use std::time::Instant;

    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::{ImageEncoder, Rgb, RgbImage};
    use tool_carrier::media::{prepare, Budget, Policy};

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: png_sizes DIR")?);
        std::fs::create_dir_all(&dir)?;
        for (name, image) in [("screenshot", screenshot()), ("photo", photo())] {
            let mut source = Vec::new();
            PngEncoder::new_with_quality(&mut source, CompressionType::Fast, FilterType::Adaptive)
                .write_image(
                    image.as_raw(),
                    image.width(),
                    image.height(),
                    image::ExtendedColorType::Rgb8,
                )?;
            std::fs::write(dir.join(format!("{name}.png")), &source)?;
            // The best of three, as a whole-process timing would not see a cache.
            let mut best = f64::MAX;
            let mut out = None;
            for _ in 0..3 {
                let start = Instant::now();
                let p = prepare(source.clone(), &Policy::default(), Budget::UNLIMITED)?;
                best = best.min(start.elapsed().as_secs_f64());
                out = Some(p);
            }
            let p = out.expect("three runs");
            println!(
                "{name} {}x{} -> {}x{} {} bytes {:.0} ms",
                image.width(),
                image.height(),
                p.width.unwrap_or(0),
                p.height.unwrap_or(0),
                p.bytes.len(),
                best * 1000.0
            );
        }
        Ok(())
    }

    /// 2880×1800, drawn like a desktop: flat panels and rows of "text".
    fn screenshot() -> RgbImage {
        let (w, h) = (2880, 1800);
        let mut img = RgbImage::from_fn(w, h, |x, y| match (x, y) {
            (_, 0..56) => Rgb([40, 44, 52]),
            (0..576, _) => Rgb([33, 37, 43]),
            _ => Rgb([250, 250, 250]),
        });
        let mut seed = 0x9e37_79b9_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for row in (76..h - 20).step_by(28) {
            let mut x = 600;
            while x + 120 < w {
                let word = 12 + next() % 90;
                for y in row..row + 14 {
                    for dx in 0..word {
                        if next() % 3 != 0 {
                            img.put_pixel(x + dx, y, Rgb([20, 40, 60]));
                        }
                    }
                }
                x += word + 10;
            }
        }
        img
    }

    /// 4000×3000 (12 MP): gradients, edges and grain, like a photo.
    fn photo() -> RgbImage {
        let (w, h) = (4000i64, 3000i64);
        let mut seed = 42u64;
        RgbImage::from_fn(w as u32, h as u32, |x, y| {
            let (x, y) = (i64::from(x), i64::from(y));
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let grain = ((seed >> 33) & 15) as i64 - 8;
            let edge = if ((x / 97) + (y / 131)) % 5 == 0 {
                40
            } else {
                0
            };
            let c = |v: i64| (v + edge + grain).clamp(0, 255) as u8;
            Rgb([
                c(40 + 160 * x / w + ((x * 7 + y * 3) % 29)),
                c(30 + 180 * y / h + ((x * 5) % 23)),
                c(200 - 150 * (x + y) / (w + h) + ((y * 11) % 31)),
            ])
        })
    }
}
