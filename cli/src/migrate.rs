//! `tool-carrier migrate [FILE|-] [-o OUT | --in-place] [--check] [--lift-markers --root DIR…] [--externalize DIR]`

use std::io::{self, BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use tool_carrier::media::store::DirStore;
use tool_carrier::migrate::{
    externalize_history, migrate_history, LiftMarkers, Liftable, MigrateOptions, MigrationReport,
};
use tool_carrier::roots::Roots;

use super::output::replace_atomically;
use super::{input, Context, Failure, FOUND};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A JSON Lines file or a JSON array of messages; `-` or nothing for
    /// standard input.
    file: Option<PathBuf>,
    /// Write the result here (atomically) instead of standard output.
    #[arg(short, long, value_name = "OUT", conflicts_with_all = ["in_place", "check"])]
    output: Option<PathBuf>,
    /// Replace FILE with the result, atomically.
    #[arg(long, conflicts_with = "check")]
    in_place: bool,
    /// Write nothing; exit 1 when migration would change something.
    #[arg(long)]
    check: bool,
    /// Lift whole-line [IMAGE:…] markers of legacy bodies into declared
    /// attachments when the target is a regular file inside a --root.
    #[arg(long, requires = "root")]
    lift_markers: bool,
    /// A folder lifted targets must lie in (repeatable; relative targets
    /// resolve against the first).
    #[arg(long, value_name = "DIR", requires = "lift_markers")]
    root: Vec<PathBuf>,
    /// Instead of upgrading: move every declared data: target into DIR as
    /// a file named by the SHA-256 of its bytes, declared by that name
    /// (convert --root DIR resolves it). Identical images are stored once.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["check", "lift_markers"])]
    externalize: Option<PathBuf>,
}

/// Run `rewrite` on the input, writing where the arguments say: nowhere
/// (`--check`), over FILE (`--in-place`), to OUT (`-o`), or to standard
/// output. `verb` names the work in error messages.
fn write_out<T>(
    args: &Args,
    verb: &str,
    rewrite: impl FnOnce(Box<dyn BufRead>, &mut dyn Write, &dyn Fn(u64)) -> io::Result<T>,
) -> Result<T, Failure> {
    let input = input::open(args.file.as_deref())?;
    let name = input.name.clone();
    let progress = &input.progress;
    let tick = |n| progress.set(n);
    let result = if args.check {
        rewrite(input.reader, &mut io::sink(), &tick).context(|| format!("reading {name}"))?
    } else if args.in_place {
        let path = input
            .path
            .clone()
            .ok_or_else(|| Failure::new("--in-place needs a FILE, not standard input"))?;
        // Through a symbolic link, replace the file it names, not the link.
        let path = path
            .canonicalize()
            .context(|| format!("resolving {name}"))?;
        replace_atomically(&path, |w| rewrite(input.reader, w, &tick))
            .context(|| format!("{verb} {name} in place"))?
    } else if let Some(out) = &args.output {
        replace_atomically(out, |w| rewrite(input.reader, w, &tick))
            .context(|| format!("{verb} {name} to {}", out.display()))?
    } else {
        let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
        rewrite(input.reader, &mut out, &tick).context(|| format!("{verb} {name}"))?
    };
    progress.finish();
    Ok(result)
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if let Some(dir) = &args.externalize {
        let mut store = DirStore::new(dir)
            .map_err(|e| Failure::new(format!("--externalize {}: {e}", dir.display())))?;
        let report = write_out(&args, "externalizing", |r, w, tick| {
            externalize_history(r, w, &mut store, tick)
        })?;
        let _ = write!(io::stderr().lock(), "migrate --externalize: {report}");
        return Ok(ExitCode::SUCCESS);
    }
    let lift_markers = if args.lift_markers {
        Some(LiftMarkers {
            roots: Roots::new(&args.root).context(|| "--root".into())?,
            accept: Liftable::Image,
        })
    } else {
        None
    };
    let options = MigrateOptions { lift_markers };
    let report = write_out(&args, "migrating", |r, w, tick| {
        migrate_history(r, w, &options, tick)
    })?;
    summarize(&report, args.check);
    Ok(if args.check && report.changed() {
        ExitCode::from(FOUND)
    } else {
        ExitCode::SUCCESS
    })
}

fn summarize(report: &MigrationReport, check: bool) {
    let mut err = io::stderr().lock();
    let _ = if check {
        write!(err, "migrate: {}", report.as_check())
    } else {
        write!(err, "migrate: {report}")
    };
}
