//! The calls on a whole history file: `import_history` (any format read
//! into the crate's records), `inspect`, `migrate` and `fit`. Each takes
//! the history's bytes or its path and gives bytes and a report as JSON;
//! the GIL is released while it works.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::json;
use tool_carrier::fit::{fit as fit_file, FitAction};
use tool_carrier::migrate::{migrate_history, MigrateOptions};
use tool_carrier::provider::Options;

use crate::errors::{read_error, Failed, ToolCarrierError};
use crate::input::bytes;
use crate::read::Unread;

/// A history read as `source` says (`"auto"` by default): the records as
/// JSON Lines, and a JSON report (`notes`, `tally`).
#[pyfunction]
#[pyo3(signature = (*, data=None, path=None, source=None, keep_unknown=false))]
pub(crate) fn import_history<'py>(
    py: Python<'py>,
    data: Option<Vec<u8>>,
    path: Option<PathBuf>,
    source: Option<String>,
    keep_unknown: bool,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let read = py.detach(|| {
        let input = bytes(data, path.as_ref())?;
        crate::read::imported(&input, source.as_deref().unwrap_or("auto"), keep_unknown)
    });
    let history = read.map_err(|u| read_error(py, u.message, u.line))?;
    let report = json!({
        "notes": history.notes.iter().map(|n| json!({"message": n.message, "text": n.text})).collect::<Vec<_>>(),
        "tally": history.tally.summary("kept").to_string(),
    });
    Ok((
        PyBytes::new(py, history.to_json_lines().as_bytes()),
        report.to_string(),
    ))
}

/// Every record of a history classified, as JSON Lines (what `tool-carrier
/// inspect --json` prints), and the counts as JSON.
#[pyfunction]
#[pyo3(signature = (*, data=None, path=None))]
pub(crate) fn inspect(
    py: Python<'_>,
    data: Option<Vec<u8>>,
    path: Option<PathBuf>,
) -> PyResult<(String, String)> {
    let out =
        py.detach(|| {
            let input = bytes(data, path.as_ref())?;
            let mut lines = Vec::new();
            let summary = tool_carrier::inspect::write_json(&input[..], &mut lines, |_| {})
                .map_err(|e| Unread {
                    message: e.to_string(),
                    line: None,
                })?;
            let counts = json!({
                "records": summary.records, "errors": summary.errors,
                "carriers": summary.carriers, "legacy": summary.legacy,
            });
            Ok::<_, Unread>((
                String::from_utf8_lossy(&lines).into_owned(),
                counts.to_string(),
            ))
        });
    out.map_err(|u| read_error(py, u.message, u.line))
}

/// A history with its legacy carriers upgraded to declared ones: the
/// bytes, every other byte as it was, and the report as JSON.
#[pyfunction]
#[pyo3(signature = (*, data=None, path=None))]
pub(crate) fn migrate<'py>(
    py: Python<'py>,
    data: Option<Vec<u8>>,
    path: Option<PathBuf>,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let out = py.detach(|| {
        let input = bytes(data, path.as_ref())?;
        let mut output = Vec::with_capacity(input.len());
        let report = migrate_history(&input[..], &mut output, &MigrateOptions::default(), |_| {})
            .map_err(|e| Unread {
            message: e.to_string(),
            line: None,
        })?;
        let notes = |notes: &tool_carrier::migrate::Notes| {
            notes
                .iter()
                .map(|n| json!({"record": n.index, "line": n.line, "what": n.what}))
                .collect::<Vec<_>>()
        };
        let report = json!({
            "records": report.records,
            "upgraded_native": report.upgraded_native,
            "upgraded_prompt": report.upgraded_prompt,
            "already_declared": report.already_declared,
            "not_carriers": report.not_carriers,
            "left": notes(&report.left),
            "bad_records": notes(&report.bad_records),
            "lifted": notes(&report.lifted),
        });
        Ok::<_, Unread>((output, report.to_string()))
    });
    let (output, report) = out.map_err(|u| read_error(py, u.message, u.line))?;
    Ok((PyBytes::new(py, &output), report))
}

/// An agent's file (or a request body) with each stored image fitted for
/// `provider`, every other byte as it was: the bytes and the report as
/// JSON. Writing it back in place, with the locking an agent's live file
/// needs, is the command's `fit`.
#[pyfunction]
#[pyo3(signature = (provider, *, data=None, path=None, model=None, keep_images=None))]
pub(crate) fn fit<'py>(
    py: Python<'py>,
    provider: &str,
    data: Option<Vec<u8>>,
    path: Option<PathBuf>,
    model: Option<String>,
    keep_images: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let provider = crate::errors::provider(provider)?;
    let mut options = Options::new();
    if let Some(model) = model {
        options = options.with_model(model);
    }
    if let Some(n) = keep_images {
        options = options.with_keep_images(n);
    }
    let out = py.detach(|| {
        let input = bytes(data, path.as_ref()).map_err(Failed::Read)?;
        let fitted = fit_file(&input, None, provider, &options)
            .map_err(|e| Failed::Raise(ToolCarrierError::new_err(e.to_string())))?;
        let r = fitted.report();
        let items: Vec<serde_json::Value> = r
            .items
            .iter()
            .map(|item| {
                let (action, why) = match &item.action {
                    FitAction::Kept => ("kept", None),
                    FitAction::NotMedia => ("not media", None),
                    FitAction::Fitted(_) => ("fitted", None),
                    FitAction::LeftOut(why) => ("left out", Some(why.clone())),
                    _ => ("other", None),
                };
                json!({"line": item.line, "path": item.path, "action": action, "why": why})
            })
            .collect();
        let report = json!({
            "format": r.format.from_name(), "model": r.model,
            "kept": r.kept(), "fitted": r.fitted(), "left_out": r.left_out(),
            "changed": r.changes(), "items": items,
        });
        Ok((fitted.to_vec(), report.to_string()))
    });
    let (output, report) = out.map_err(|failed: Failed| failed.into_err(py))?;
    Ok((PyBytes::new(py, &output), report))
}
