//! The agent versions a reader was written for: a file another major
//! version wrote may mean other things by the same fields, so it is
//! refused, naming the version, unless the caller asks to read it anyway.

use std::ops::RangeInclusive;

use crate::steps::imported::ImportError;

use super::lines::Line;

/// Refuse `version` (read at `path` of `line`, written by `agent`) when
/// its major version is not in `majors`, unless `keep` (`--keep-unknown`).
pub(crate) fn check(
    line: &Line<'_>,
    path: &str,
    agent: &str,
    version: &str,
    majors: &RangeInclusive<u64>,
    keep: bool,
) -> Result<(), ImportError> {
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok());
    if major.is_some_and(|m| majors.contains(&m)) || keep {
        return Ok(());
    }
    let reads = match (majors.start(), majors.end()) {
        (a, b) if a == b => format!("{a}.x"),
        (a, b) => format!("{a}.x to {b}.x"),
    };
    Err(ImportError::at(
        &line.at(path),
        format!(
            "written by {agent} {version}, a version this reader was not written for \
             (it reads {reads}); --keep-unknown reads it as those"
        ),
    ))
}
