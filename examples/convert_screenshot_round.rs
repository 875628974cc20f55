//! A screenshot tool round, converted for OpenAI Chat Completions — an API
//! that takes no images inside tool results.
//!
//! ```sh
//! cargo run --example convert_screenshot_round [PROVIDER]
//! ```
//!
//! Reads `examples/screenshot-round.jsonl` (two parallel `screenshot` calls
//! whose results declare `shots/editor.png` and `shots/dashboard.png`),
//! resolves the screenshots inside `examples/`, and prints the request body
//! with each base64 payload cut short so it fits on a screen. The `tool`
//! messages carry text; one `user` message after them carries both images,
//! each labelled with the call it came from. The marker-looking text in the
//! dashboard's page footer stays text.

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
    use std::fs::File;
    use std::io::BufReader;
    use std::path::Path;

    use serde_json::Value;
    use tool_carrier::media::Policy;
    use tool_carrier::provider::{convert, Options, Provider};
    use tool_carrier::roots::Roots;

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let provider: Provider = match std::env::args().nth(1) {
            Some(name) => name.parse()?,
            None => Provider::OpenAiChat,
        };
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let history = BufReader::new(File::open(examples.join("screenshot-round.jsonl"))?);
        let options =
            Options::new().with_policy(Policy::default().with_roots(Roots::new([&examples])?));
        let request = convert(provider, history, &options)?;
        let mut body = request.body.to_value();
        shorten_payloads(&mut body);
        println!("{}", serde_json::to_string_pretty(&body)?);
        eprintln!("{}: {}", request.endpoint(), request.report);
        Ok(())
    }

    /// Cut every long base64 payload (or data URL) to its first 24 characters
    /// and its length.
    fn shorten_payloads(value: &mut Value) {
        match value {
            Value::String(s) if s.len() > 200 && !s.contains(' ') => {
                let head: String = s.chars().take(24).collect();
                *s = format!("{head}… ({} characters)", s.len());
            }
            Value::Array(items) => items.iter_mut().for_each(shorten_payloads),
            Value::Object(map) => map.values_mut().for_each(shorten_payloads),
            _ => {}
        }
    }
}
