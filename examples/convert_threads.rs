//! Convert a history with a set number of threads preparing its
//! attachments, for measuring what a conversion holds against the number
//! of cores it would have (`benches/decode-memory`).
//!
//! ```sh
//! cargo run --release --example convert_threads -- HISTORY ROOT PROVIDER THREADS
//! ```
//!
//! Reads `HISTORY` (JSONL), resolves attachments under `ROOT`, converts for
//! `PROVIDER` with `THREADS` attachments prepared at once, and prints the
//! body's length and the report.

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

    use tool_carrier::media::Policy;
    use tool_carrier::provider::{convert, Options, Provider};
    use tool_carrier::roots::Roots;

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let usage = "usage: convert_threads HISTORY ROOT PROVIDER THREADS";
        let mut args = std::env::args().skip(1);
        let history = args.next().ok_or(usage)?;
        let root = args.next().ok_or(usage)?;
        let provider: Provider = args.next().ok_or(usage)?.parse()?;
        let threads: usize = args.next().ok_or(usage)?.parse()?;
        let options = Options::new()
            .with_policy(Policy::default().with_roots(Roots::new([&root])?))
            .with_parallelism(threads);
        let request = convert(provider, BufReader::new(File::open(history)?), &options)?;
        println!("{} bytes: {}", request.json().len(), request.report);
        Ok(())
    }
}
