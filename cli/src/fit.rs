//! `tool-carrier fit FILE [-o OUT | --in-place] [--check] --provider P [--model M] [--keep-images N [--evict-step K]] [--from F]`

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use tool_carrier::fit::{fit, Fitted};
use tool_carrier::import::Detected;
use tool_carrier::provider::{Options, Provider};

use super::live::Live;
use super::output::replace_atomically;
use super::{input, Context, Failure, Source, FOUND};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An agent's transcript or a provider's request body; `-` for
    /// standard input.
    file: PathBuf,
    #[command(flatten)]
    to: super::output::Destination,
    /// The provider the agent sends the history to.
    #[arg(long, value_parser = crate::provider_parser())]
    provider: Provider,
    /// The model it asks (by default the provider's default model).
    #[arg(long, value_name = "M")]
    model: Option<String>,
    #[command(flatten)]
    keep: crate::keep::Keep,
    /// What FILE is: an agent's or a provider's name; by default told by
    /// its shape.
    #[arg(long, value_name = "FORMAT", value_parser = crate::source_parser(), default_value = "auto")]
    from: Source,
    #[command(flatten)]
    facts: crate::facts::Arg,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let mut options = Options::new();
    if let Some(facts) = args.facts.load()? {
        options = options.with_facts(facts);
    }
    if let Some(model) = &args.model {
        options = options.with_model(model.clone());
    }
    options = args.keep.apply(options)?;
    crate::facts::warn_model(
        options.facts(),
        args.provider,
        options.model_for(args.provider),
    );
    let from = match args.from {
        Source::Auto => None,
        Source::Agent(a) => Some(Detected::Agent(a)),
        Source::Provider(p) => Some(Detected::Request(p)),
    };
    let is_stdin = args.file.as_os_str() == "-";
    let name = if is_stdin {
        "standard input".to_owned()
    } else {
        args.file.display().to_string()
    };
    let status = |changes: bool| {
        if args.to.check && changes {
            ExitCode::from(FOUND)
        } else {
            ExitCode::SUCCESS
        }
    };
    // The file as it is when locked (`--in-place`), or as it is read.
    let (live, bytes) = if args.to.in_place {
        if is_stdin {
            return Err(Failure::new("--in-place needs a FILE, not standard input"));
        }
        let live = Live::open(&args.file).context(|| format!("opening {name} to fit it"))?;
        let bytes = live
            .reader()
            .and_then(read_all)
            .context(|| format!("reading {name}"))?;
        (Some(live), bytes)
    } else {
        let file = (!is_stdin).then_some(args.file.as_path());
        let input = input::open(file)?;
        let bytes = read_all(input.reader).context(|| format!("reading {name}"))?;
        (None, bytes)
    };
    let fitted = fit(&bytes, from, args.provider, &options)
        .map_err(|e| Failure::new(format!("fitting {name}: {e}; nothing is written")))?;
    let _ = write!(io::stderr().lock(), "fit: {}", fitted.report());
    let changes = fitted.report().changes();
    match live {
        _ if args.to.check => {}
        // Nothing changes: the file is left as it is, not even renamed.
        Some(_) if !changes => {}
        Some(live) => {
            let (_, replaced) = live
                .replace(|w| fitted.write_to(w))
                .context(|| format!("fitting {name} in place"))
                .map_err(|e| e.and(&format!("{name} is left as it was")))?;
            if replaced.carried > 0 {
                eprintln!(
                    "tool-carrier: {} bytes appended to {name} while it was renamed are carried over as written (not fitted); run again to fit them",
                    replaced.carried
                );
                return Ok(ExitCode::from(FOUND));
            }
        }
        None => write(&fitted, args.to.output.as_ref(), &name)?,
    }
    Ok(status(changes))
}

fn read_all(mut reader: impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Write `fitted` to OUT, atomically, or to standard output.
fn write(fitted: &Fitted<'_>, output: Option<&PathBuf>, name: &str) -> Result<(), Failure> {
    match output {
        Some(out) => replace_atomically(out, |w| fitted.write_to(w))
            .context(|| format!("fitting {name} to {}", out.display()))
            .map_err(|e| e.and(&format!("nothing is written to {}", out.display()))),
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            fitted
                .write_to(&mut out)
                .and_then(|()| out.flush())
                .context(|| "writing the fitted file".to_owned())
        }
    }
}
