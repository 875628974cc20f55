//! Opening `FILE|-`, with a progress bar on a terminal for long inputs.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use tool_carrier::history::{HistoryReader, DEFAULT_MAX_RECORD};

use super::{Context, Failure};

/// How much of a history the command holds at once.
#[derive(Debug, Clone, clap::Args)]
pub struct Limits {
    /// Refuse a record (a line; a JSON array as a whole) longer than N MiB,
    /// without reading it whole.
    #[arg(
        long = "max-record-mb",
        value_name = "N",
        default_value_t = (DEFAULT_MAX_RECORD >> 20) as u64,
        value_parser = clap::value_parser!(u64).range(1..=1 << 24),
    )]
    max_record_mb: u64,
}

impl Limits {
    /// The limit in bytes.
    pub fn max_record(&self) -> usize {
        usize::try_from(self.max_record_mb << 20).unwrap_or(usize::MAX)
    }
}

/// The history in `reader`, read within `limits`.
///
/// # Errors
/// As [`HistoryReader::new`]: I/O errors, and binary data.
pub fn history<R: BufRead>(reader: R, limits: &Limits) -> io::Result<HistoryReader<R>> {
    Ok(HistoryReader::new(reader)?.with_max_record(limits.max_record()))
}

/// Inputs at least this long get a progress bar (when stderr is a terminal).
const PROGRESS_FROM: u64 = 32 << 20;

/// An opened history and what to call it in messages.
pub struct Input {
    pub reader: Box<dyn BufRead>,
    pub name: String,
    pub path: Option<PathBuf>,
    pub progress: Progress,
}

/// `None` or `-` is standard input.
pub fn open(file: Option<&Path>) -> Result<Input, Failure> {
    match file {
        None => Ok(stdin()),
        Some(p) if p.as_os_str() == "-" => Ok(stdin()),
        Some(path) => {
            let name = path.display().to_string();
            let file = File::open(path).context(|| format!("cannot open {name}"))?;
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            Ok(Input {
                reader: Box::new(BufReader::with_capacity(1 << 16, file)),
                name,
                path: Some(path.to_owned()),
                progress: Progress::new(len),
            })
        }
    }
}

fn stdin() -> Input {
    Input {
        reader: Box::new(io::stdin().lock()),
        name: "standard input".into(),
        path: None,
        progress: Progress::new(0),
    }
}

/// A byte-count progress bar, drawn only on a terminal for long inputs.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    fn new(len: u64) -> Progress {
        if len < PROGRESS_FROM || !io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
                .expect("a valid template"),
        );
        Progress(Some(bar))
    }

    pub fn set(&self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(bytes);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl Progress {
    /// `reader`, moving this bar as its bytes are consumed (for readers
    /// that do not report their own position).
    pub fn track<R: BufRead>(&self, reader: R) -> Tracked<R> {
        Tracked {
            reader,
            bar: self.0.clone(),
            consumed: 0,
        }
    }

    /// After a long input is read: a spinner saying `what` until dropped
    /// or finished, so a long build shows it is working.
    pub fn then(&self, what: &'static str) -> Progress {
        let Some(bar) = &self.0 else {
            return Progress(None);
        };
        bar.finish_and_clear();
        let spinner = ProgressBar::new_spinner().with_message(what);
        spinner.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(Some(spinner))
    }
}

/// A reader that moves a progress bar: see [`Progress::track`].
pub struct Tracked<R> {
    reader: R,
    bar: Option<ProgressBar>,
    consumed: u64,
}

impl<R: BufRead> io::Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.reader.read(buf)?;
        self.advance(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tracked<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.reader.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.reader.consume(amt);
        self.advance(amt);
    }
}

impl<R> Tracked<R> {
    fn advance(&mut self, n: usize) {
        self.consumed += n as u64;
        if let Some(bar) = &self.bar {
            bar.set_position(self.consumed);
        }
    }
}
