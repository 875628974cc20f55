//! `tool-carrier media FILE… [--json] [--max-dim N] [--budget PROVIDER]`

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use tool_carrier::media::Policy;
use tool_carrier::provider::Provider;

use crate::report::{describe_file, MediaRefusal};

use super::{Context, Failure, FOUND};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Image or PDF files, read as given (roots confine only targets that
    /// come from a history).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object a file instead of a sentence.
    #[arg(long)]
    json: bool,
    /// Rasters larger than this on either side are resized to fit.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u32).range(16..=16384))]
    max_dim: u32,
    /// The provider whose per-attachment byte cap the result must fit.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "anthropic",
        value_parser = PossibleValuesParser::new(Provider::NAMES)
            .map(|name| name.parse::<Provider>().expect("a listed provider name")),
    )]
    budget: Provider,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let policy = Policy::default().with_max_dim(args.max_dim);
    let budget = args.budget.budget();
    let mut out = io::stdout().lock();
    let mut refused = false;
    for path in &args.files {
        let line = match describe_file(path, &policy, budget) {
            Ok(report) if args.json => serde_json::to_string(&report).expect("serialisable"),
            Ok(report) => report.to_string(),
            Err(e) => {
                refused = true;
                let refusal = MediaRefusal::new(path, &e);
                if args.json {
                    serde_json::to_string(&refusal).expect("serialisable")
                } else {
                    refusal.to_string()
                }
            }
        };
        writeln!(out, "{line}").context(|| "writing the report".into())?;
    }
    Ok(if refused {
        ExitCode::from(FOUND)
    } else {
        ExitCode::SUCCESS
    })
}
