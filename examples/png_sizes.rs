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
#[path = "../tests/media_support/mod.rs"]
mod support;

#[cfg(feature = "media")]
mod run {
    use super::support;
    use std::path::PathBuf;
    use std::time::Instant;

    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    use tool_carrier::media::{prepare, Budget, Policy};

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: png_sizes DIR")?);
        std::fs::create_dir_all(&dir)?;
        for (name, image) in [
            ("screenshot", support::screenshot(2880, 1800, 0)),
            ("photo", support::photo(4000, 3000, 42)),
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
        }
        Ok(())
    }
}
