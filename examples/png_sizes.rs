//! What `prepare` writes for a screenshot-like source and three photo-like
//! ones (smooth gradients; sensor noise over gradients; fine texture),
//! each resized to 2000 px PNG: bytes and time, one line each on standard
//! output. Writes the sources to DIR first, so another tool can be run on
//! the same files (`benches/png-vs-vips` runs vipsthumbnail on them).
//! On standard error, the same work taken apart (decode, resize, encode,
//! each the best of three) for each source.
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
#[path = "../tests/media_support/mod.rs"]
mod support;

#[cfg(feature = "media")]
mod run {
    use super::support;
    use std::path::PathBuf;
    use std::time::Instant;

    use fast_image_resize::{FilterType as Filter, ResizeAlg, ResizeOptions, Resizer};
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::{DynamicImage, ImageEncoder, ImageFormat, Rgb, RgbImage};
    use tool_carrier::media::{fit_within, prepare, Budget, Policy};

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: png_sizes DIR")?);
        std::fs::create_dir_all(&dir)?;
        for (name, image) in [
            ("screenshot", support::screenshot(2880, 1800, 0)),
            ("photo", support::photo(4000, 3000, 42)),
            ("sensor-noise", sensor_noise(4000, 3000, 7)),
            ("texture", texture(4000, 3000, 11)),
        ] {
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
            stages(name, &source, &p.bytes)?;
        }
        Ok(())
    }

    /// The best of three runs of `f`, in milliseconds, and its last result.
    fn best_of_three<T>(mut f: impl FnMut() -> T) -> (f64, T) {
        let mut best = f64::MAX;
        let mut last = None;
        for _ in 0..3 {
            let start = Instant::now();
            last = Some(f());
            best = best.min(start.elapsed().as_secs_f64());
        }
        (best * 1000.0, last.expect("three runs"))
    }

    /// Decode, resize (Lanczos3, as `prepare` does) and decode the output
    /// again (its pixels, to encode), each timed apart, on standard error.
    fn stages(name: &str, source: &[u8], output: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
        let (decode, decoded) =
            best_of_three(|| image::load_from_memory_with_format(source, ImageFormat::Png));
        let decoded = decoded?;
        let (w, h) = fit_within(decoded.width(), decoded.height(), 2000);
        let (resize, resized) = best_of_three(|| {
            let mut out = DynamicImage::new(w, h, decoded.color());
            let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(Filter::Lanczos3));
            Resizer::new()
                .resize(&decoded, &mut out, &options)
                .map(|()| out)
        });
        let resized = resized?;
        // The output's own pixels, encoded with the settings `prepare` may
        // choose: the fast ones, and unfiltered rows at deflate level 2.
        let sent = image::load_from_memory_with_format(output, ImageFormat::Png)?;
        let encode = |compression, filter| {
            best_of_three(|| {
                let mut out = Vec::new();
                PngEncoder::new_with_quality(&mut out, compression, filter)
                    .write_image(
                        sent.as_bytes(),
                        sent.width(),
                        sent.height(),
                        sent.color().into(),
                    )
                    .map(|()| out.len())
            })
        };
        let (fast, fast_len) = encode(CompressionType::Fast, FilterType::Adaptive);
        let (miniz2, miniz2_len) = encode(CompressionType::Level(2), FilterType::NoFilter);
        // The frontier for unfiltered rows: libdeflate's levels (level 2 is
        // what `prepare` writes screenshots with), time against bytes.
        let stride = sent.width() as usize * usize::from(sent.color().bytes_per_pixel());
        let mut rows = Vec::with_capacity(sent.as_bytes().len() + sent.height() as usize);
        for row in sent.as_bytes().chunks_exact(stride) {
            rows.push(0);
            rows.extend_from_slice(row);
        }
        let mut frontier = String::new();
        for level in [1, 2, 4, 6, 9] {
            let (ms, len) = best_of_three(|| {
                let mut c =
                    libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).unwrap());
                let mut out = vec![0; c.zlib_compress_bound(rows.len())];
                c.zlib_compress(&rows, &mut out)
            });
            frontier.push_str(&format!(", libdeflate {level} {ms:.1} ms ({} bytes)", len?));
        }
        eprintln!(
            "{name}: decode {decode:.1} ms, resize to {}x{} {resize:.1} ms, encode fast {fast:.1} ms ({} bytes); unfiltered: miniz_oxide 2 {miniz2:.1} ms ({} bytes){frontier}",
            resized.width(),
            resized.height(),
            fast_len?,
            miniz2_len?,
        );
        Ok(())
    }

    /// A pseudo-random value in 0..1 for lattice point (x, y).
    fn lattice(x: i64, y: i64, seed: u64) -> f32 {
        let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ seed;
        h ^= h >> 31;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 29;
        (h & 0xffff) as f32 / 65535.0
    }

    /// Smoothly interpolated lattice noise at (x, y), in 0..1.
    fn value_noise(x: f32, y: f32, seed: u64) -> f32 {
        let (xi, yi) = (x.floor() as i64, y.floor() as i64);
        let (fx, fy) = (x - x.floor(), y - y.floor());
        let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
        let top = lattice(xi, yi, seed) + (lattice(xi + 1, yi, seed) - lattice(xi, yi, seed)) * sx;
        let bottom = lattice(xi, yi + 1, seed)
            + (lattice(xi + 1, yi + 1, seed) - lattice(xi, yi + 1, seed)) * sx;
        top + (bottom - top) * sy
    }

    /// A camera's noise over smooth gradients: per pixel, a luminance part
    /// shared by the channels and a chroma part of each, roughly Gaussian,
    /// stronger in brighter areas (shot noise) over a floor (read noise).
    fn sensor_noise(width: u32, height: u32, seed: u64) -> RgbImage {
        let mut noise = support::Noise::new(seed);
        let mut gauss = move || {
            let v = noise.next_u64();
            let sum = (v & 0xffff) + ((v >> 16) & 0xffff) + ((v >> 32) & 0xffff) + (v >> 48);
            sum as f32 / 65535.0 - 2.0
        };
        RgbImage::from_fn(width, height, |x, y| {
            let (u, v) = (x as f32 / width as f32, y as f32 / height as f32);
            let base = [
                60.0 + 150.0 * u + 20.0 * value_noise(u * 3.0, v * 3.0, 1),
                40.0 + 170.0 * v * (1.0 - 0.4 * u),
                180.0 - 60.0 * (u + v) + 30.0 * value_noise(u * 2.0, v * 5.0, 2),
            ];
            let luma = gauss() * 1.2;
            let px = base.map(|b: f32| {
                let sigma = 2.0 + (b / 255.0).sqrt() * 6.0;
                (b + sigma * (luma + 0.6 * gauss())).clamp(0.0, 255.0) as u8
            });
            Rgb(px)
        })
    }

    /// Fine detail everywhere, like foliage or gravel: six octaves of
    /// lattice noise, a small-scale pattern and a little grain.
    fn texture(width: u32, height: u32, seed: u64) -> RgbImage {
        let mut noise = support::Noise::new(seed);
        RgbImage::from_fn(width, height, |x, y| {
            let (fx, fy) = (x as f32, y as f32);
            let (mut t, mut amp, mut scale) = (0.0, 1.0, 1.0 / 97.0);
            for octave in 0..6 {
                t += amp * value_noise(fx * scale, fy * scale, seed + octave);
                amp *= 0.55;
                scale *= 2.3;
            }
            let leaf = value_noise(fx / 5.0, fy / 7.0, seed + 9);
            let grain = (noise.next_u64() & 7) as f32 - 3.5;
            let c = |v: f32| (v + grain).clamp(0.0, 255.0) as u8;
            Rgb([
                c(30.0 + 90.0 * t + 40.0 * leaf),
                c(60.0 + 110.0 * t * leaf + 30.0 * fx / width as f32),
                c(20.0 + 60.0 * (1.0 - t) + 50.0 * leaf * leaf),
            ])
        })
    }
}
