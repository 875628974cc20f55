//! `tool-carrier media FILE… [--json] [--max-dim N] [--budget PROVIDER] [--provider P [--model M] [--detail LEVEL]] [--facts FILE]`

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use tool_carrier::facts::{Detail, Facts, Profile};
use tool_carrier::media::Policy;
use tool_carrier::provider::{detail_effect, DetailEffect, Provider};

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
    /// The provider whose per-attachment byte cap the result must fit
    /// (by default that of --provider, else anthropic).
    #[arg(
        long,
        value_name = "NAME",
        value_parser = crate::provider_parser(),
    )]
    budget: Option<Provider>,
    /// Show what this provider's model would get: its byte cap (unless
    /// --budget says otherwise) and the size it processes images at.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = crate::provider_parser(),
    )]
    provider: Option<Provider>,
    /// With --provider: the model (each provider has a default).
    #[arg(long, value_name = "M", requires = "provider")]
    model: Option<String>,
    /// With --provider: the image detail level `convert --detail` would
    /// send. The image is fitted and counted at it; a level the model's
    /// facts do not list is refused, and a provider without the setting
    /// is shown at its default with a warning.
    #[arg(
        long,
        value_name = "LEVEL",
        requires = "provider",
        value_parser = crate::detail_parser(),
    )]
    detail: Option<Detail>,
    #[command(flatten)]
    facts: crate::facts::Arg,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let user_facts = args.facts.load()?;
    let facts = user_facts.as_deref().unwrap_or_else(|| Facts::builtin());
    let mut policy = Policy::default().with_max_dim(args.max_dim);
    let target = args.provider.map(|provider| {
        let model = args
            .model
            .as_deref()
            .unwrap_or_else(|| facts.default_model(provider));
        (provider, model)
    });
    // The level sent, where one is: the image is fitted and counted at it
    // (at auto's where none is).
    let mut sent = None;
    if let Some((provider, model)) = target {
        crate::facts::warn_model(facts, provider, model);
        if let Some(given) = args.detail {
            match detail_effect(facts, provider, model, given) {
                Ok(DetailEffect::Sent(d)) => sent = Some(d),
                Ok(DetailEffect::NoEffect(why)) => {
                    eprintln!("tool-carrier: warning: image detail {given}: no effect: {why}");
                }
                Err(e) => return Err(Failure::new(e.to_string())),
            }
        }
        if let Some(view) = facts.view_at(provider, model, sent.unwrap_or(Detail::Auto)) {
            policy = policy.with_view(view);
        }
    }
    let budget = match args.budget.or(args.provider) {
        // A server's budget is its profile's: the generic one here.
        Some(Provider::OpenAiCompatible) => Profile::generic().budget(),
        Some(p) => facts.api(p).limits.budget(),
        None => facts.api(Provider::Anthropic).limits.budget(),
    };
    let mut out = io::stdout().lock();
    let mut refused = false;
    for path in &args.files {
        let report = describe_file(path, &policy, budget).map(|report| match target {
            Some((provider, model)) => report.for_provider(facts, provider, model, sent),
            None => report,
        });
        let line = match report {
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
