//! Write a history of screenshot tool rounds, with the screenshots, for
//! measuring `convert` on large images.
//!
//! ```sh
//! cargo run --release --example make_screenshots -- OUT_DIR [COUNT] [WIDTHxHEIGHT]
//! ```
//!
//! Writes `OUT_DIR/shot-NN.png` (COUNT of them, 30 by default, each
//! 2880×1800 by default: a Retina laptop screen) and `OUT_DIR/history.jsonl`,
//! one `screenshot` call and its declared result per image. The images are
//! drawn like a desktop (a title bar, panels, lines of "text" that differ
//! from shot to shot), so they compress as screenshots do rather than as
//! noise or as one flat colour.

#[cfg(feature = "media")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    draw::main()
}

#[cfg(not(feature = "media"))]
fn main() {
    eprintln!("this example needs the `media` feature");
}

#[cfg(feature = "media")]
mod draw {
    use std::fs::{self, File};
    use std::io::{BufWriter, Write};
    use std::path::PathBuf;

    use image::{Rgb, RgbImage};
    use serde_json::json;
    use tool_carrier::{render_native_tool_carrier, Attachment};

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let mut args = std::env::args().skip(1);
        let out = PathBuf::from(
            args.next()
                .ok_or("usage: make_screenshots OUT_DIR [COUNT] [WxH]")?,
        );
        let count: usize = args.next().map_or(Ok(30), |n| n.parse())?;
        let (width, height) = match args.next() {
            Some(size) => {
                let (w, h) = size.split_once('x').ok_or("size is WIDTHxHEIGHT")?;
                (w.parse()?, h.parse()?)
            }
            None => (2880, 1800),
        };
        fs::create_dir_all(&out)?;
        let mut history = BufWriter::new(File::create(out.join("history.jsonl"))?);
        let system = json!({"role": "system", "content": "You operate a desktop."});
        writeln!(history, "{system}")?;
        for n in 0..count {
            let name = format!("shot-{n:02}.png");
            screen(width, height, n).save(out.join(&name))?;
            let call = json!({
                "role": "assistant",
                "content": json!({
                    "content": null,
                    "tool_calls": [{"id": format!("call_{n}"), "name": "screenshot", "arguments": "{}"}],
                }).to_string(),
            });
            let envelope =
                render_native_tool_carrier("Took a screenshot.", &[Attachment::image(name)])?;
            let mut result: serde_json::Value =
                serde_json::from_str(&envelope).expect("an envelope is JSON");
            result["tool_call_id"] = format!("call_{n}").into();
            let result = json!({"role": "tool", "content": result.to_string()});
            writeln!(history, "{call}\n{result}")?;
        }
        history.flush()?;
        eprintln!(
            "wrote {count} screenshots of {width}x{height} and history.jsonl to {}",
            out.display()
        );
        Ok(())
    }

    /// A desktop-like picture, different for each `n`.
    fn screen(width: u32, height: u32, n: usize) -> RgbImage {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64 ^ (n as u64).wrapping_mul(0x2545_f491_4f6c_dd1d);
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
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
        // Lines of "text": short runs of dark pixels, 14 px high, 28 px apart.
        let mut y = title + 20;
        while y + 14 < height {
            let mut x = sidebar + 24;
            let end = width.saturating_sub(40);
            while x < end {
                let word = 12 + (next() % 90) as u32;
                let ink = Rgb([(next() % 80) as u8, 40, 60]);
                for dy in 0..14 {
                    for dx in 0..word.min(end - x) {
                        if next() % 3 != 0 {
                            img.put_pixel(x + dx, y + dy, ink);
                        }
                    }
                }
                x += word + 10;
            }
            y += 28;
        }
        img
    }
}
