//! `tool-carrier inspect [FILE|-] [--json] [--max-record-mb N]`

use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;

use tool_carrier::inspect::write_json;

use crate::table::write_table;

use super::{input, Context, Failure, FOUND};

pub fn run(file: Option<PathBuf>, json: bool, limits: &input::Limits) -> Result<ExitCode, Failure> {
    let input = input::open(file.as_deref())?;
    let out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let progress = &input.progress;
    let summary = input::history(input.reader, limits)
        .and_then(|history| {
            if json {
                write_json(history, out, |n| progress.set(n))
            } else {
                write_table(history, out, |n| progress.set(n))
            }
        })
        .context(|| format!("inspecting {}", input.name))?;
    progress.finish();
    Ok(if summary.errors > 0 {
        ExitCode::from(FOUND)
    } else {
        ExitCode::SUCCESS
    })
}
