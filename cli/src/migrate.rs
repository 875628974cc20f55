//! `tool-carrier migrate [FILE|-] [-o OUT | --in-place] [--check] [--lift-markers --root DIR…] [--externalize DIR] [--max-record-mb N]`

use std::io::{self, BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use tool_carrier::history::HistoryReader;
use tool_carrier::media::store::DirStore;
use tool_carrier::migrate::{
    externalize_history, migrate_history, ExternalizeReport, LiftMarkers, Liftable, MigrateOptions,
    MigrationReport,
};
use tool_carrier::roots::Roots;

use super::live::Live;
use super::output::replace_atomically;
use super::{input, interrupt, Context, Failure, FOUND};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A JSON Lines file or a JSON array of messages; `-` or nothing for
    /// standard input.
    file: Option<PathBuf>,
    #[command(flatten)]
    to: super::output::Destination,
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
    #[command(flatten)]
    limits: input::Limits,
}

/// Records read and records that are not messages, from a run's report.
trait Counts {
    fn counts(&self) -> (usize, usize);
}

impl Counts for MigrationReport {
    fn counts(&self) -> (usize, usize) {
        (self.records, self.bad_records.len())
    }
}

impl Counts for ExternalizeReport {
    fn counts(&self) -> (usize, usize) {
        (self.records, self.bad_records.len())
    }
}

/// Why a result is not written to a file: records were read and none is a
/// message, so the input is no history.
fn not_a_history(report: &impl Counts) -> Option<String> {
    match report.counts() {
        (0, _) => None,
        (records, bad) if bad == records => Some(format!(
            "not a history: none of its {records} records is a message"
        )),
        _ => None,
    }
}

/// FOUND when records were not messages, or `more` is left to do (for
/// `--check`, something would change; for `--in-place`, bytes appended
/// during the rename were carried over as written), else success.
fn status(bad_records: usize, more: bool) -> ExitCode {
    if bad_records > 0 || more {
        ExitCode::from(FOUND)
    } else {
        ExitCode::SUCCESS
    }
}

/// Run `rewrite` on the input, writing where the arguments say: nowhere
/// (`--check`), over FILE (`--in-place`), to OUT (`-o`), or to standard
/// output. `verb` names the work in error messages.
///
/// A file is written only from a history: binary input is refused before
/// any temporary file is made, and a result whose records are all not
/// messages is not put in place ([`not_a_history`]); FILE (or OUT) is then
/// left as it was.
fn write_out<T: Counts>(
    args: &Args,
    verb: &str,
    rewrite: impl FnOnce(History, &mut dyn Write, &dyn Fn(u64)) -> io::Result<T>,
) -> Result<(T, Carried), Failure> {
    let input = input::open(args.file.as_deref())?;
    let mut carried = Carried(false);
    let name = input.name.clone();
    let progress = &input.progress;
    let tick = |n| progress.set(n);
    let history = |reader| input::history(reader, &args.limits);
    let result = if args.to.check {
        history(input.reader)
            .and_then(|h| rewrite(h, &mut io::sink(), &tick))
            .context(|| format!("reading {name}"))?
    } else if args.to.in_place {
        let path = input
            .path
            .clone()
            .ok_or_else(|| Failure::new("--in-place needs a FILE, not standard input"))?;
        // Through a symbolic link, replace the file it names, not the link;
        // locked, and only if nothing changed it meanwhile (`live`).
        drop(input.reader);
        let live = Live::open(&path).context(|| format!("opening {name} to rewrite it"))?;
        let (value, replaced) = live
            .reader()
            .and_then(history)
            .and_then(|h| live.replace(|w| whole(rewrite(h, w, &tick))))
            .context(|| format!("{verb} {name} in place"))
            .map_err(|e| e.and(&format!("{name} is left as it was")))?;
        if replaced.carried > 0 {
            carried = Carried(true);
            eprintln!(
                "tool-carrier: {} bytes appended to {name} while it was renamed are carried over as written (not {verb}); run again to rewrite them",
                replaced.carried
            );
        }
        value
    } else if let Some(out) = &args.to.output {
        history(input.reader)
            .and_then(|h| replace_atomically(out, |w| whole(rewrite(h, w, &tick))))
            .context(|| format!("{verb} {name} to {}", out.display()))
            .map_err(|e| e.and(&format!("nothing is written to {}", out.display())))?
    } else {
        let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
        history(input.reader)
            .and_then(|h| rewrite(h, &mut out, &tick))
            .context(|| format!("{verb} {name}"))?
    };
    progress.finish();
    Ok((result, carried))
}

/// Whether `--in-place` carried bytes an agent appended during the rename
/// over as written: the run finished, but not all of the file is rewritten.
#[derive(Debug, Clone, Copy)]
struct Carried(bool);

/// A result to put in a file: refused when the input is no history.
fn whole<T: Counts>(result: io::Result<T>) -> io::Result<T> {
    let value = result?;
    match not_a_history(&value) {
        Some(why) => Err(io::Error::new(io::ErrorKind::InvalidData, why)),
        None => Ok(value),
    }
}

/// The history as `write_out` hands it to the work.
type History = HistoryReader<Box<dyn BufRead>>;

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if let Some(dir) = &args.externalize {
        let mut store = DirStore::new(dir)
            .map_err(|e| Failure::new(format!("--externalize {}: {e}", dir.display())))?;
        let _cleanup = interrupt::store_dir(dir);
        let (report, carried) = write_out(&args, "externalizing", |r, w, tick| {
            externalize_history(r, w, &mut store, tick)
        })?;
        let _ = write!(io::stderr().lock(), "migrate --externalize: {report}");
        return Ok(status(report.bad_records.len(), carried.0));
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
    let (report, carried) = write_out(&args, "migrating", |r, w, tick| {
        migrate_history(r, w, &options, tick)
    })?;
    summarize(&report, args.to.check);
    Ok(status(
        report.bad_records.len(),
        (args.to.check && report.changed()) || carried.0,
    ))
}

fn summarize(report: &MigrationReport, check: bool) {
    let mut err = io::stderr().lock();
    let _ = if check {
        write!(err, "migrate: {}", report.as_check())
    } else {
        write!(err, "migrate: {report}")
    };
}
