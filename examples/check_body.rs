//! Check a request body, whoever wrote it, against every rule the crate
//! knows for its API (`tool_carrier::rules::check_json`: the documented
//! limits and structure an API's SDK types cannot see, the request size
//! included).
//!
//! ```sh
//! cargo run --release --example check_body -- anthropic claude-haiku-4-5 body.json
//! ```
//!
//! Prints `passes` or each broken rule (its id and where), one a line;
//! exit status 0 when none is broken, 1 when some is, 2 when the body
//! cannot be read. `benches/first-conversion` runs it on each library's
//! body.

use std::process::ExitCode;

use tool_carrier::provider::Provider;
use tool_carrier::rules::{check_json, Target};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [provider, model, file] = args.as_slice() else {
        eprintln!("usage: check_body PROVIDER MODEL FILE");
        return ExitCode::from(2);
    };
    let provider: Provider = match provider.parse() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("check_body: {e}");
            return ExitCode::from(2);
        }
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("check_body: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    match check_json(&Target::new(provider, model), &text) {
        Ok(broken) if broken.is_empty() => {
            println!("passes");
            ExitCode::SUCCESS
        }
        Ok(broken) => {
            for v in &broken {
                println!("{} at {}", v.rule.id, v.at);
            }
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("check_body: {file}: not JSON: {e}");
            ExitCode::from(2)
        }
    }
}
