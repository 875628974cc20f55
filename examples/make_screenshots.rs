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
#[path = "../tests/media_support/mod.rs"]
mod support;

#[cfg(feature = "media")]
mod draw {
    use super::support;
    use std::fs::{self, File};
    use std::io::{BufWriter, Write};
    use std::path::PathBuf;

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
            support::screenshot(width, height, n as u64).save(out.join(&name))?;
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
}
