//! `media.prepare` (one image or PDF fitted for a provider's model) and
//! `mcp.fit_result` (one MCP result's images fitted, every other byte as
//! the server wrote it). Both fit as the MCP proxy does: the model's
//! processing size, its API's limits and image types.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::json;
use tool_carrier::facts::Facts;
use tool_carrier::mcp::{fit_result as fit_mcp, FitOptions, Method};
use tool_carrier::media::{prepare_for, MediaFacts};

use crate::errors::{read_error, Failed, MediaError, OptionsError};
use crate::input::bytes;
use crate::read::Unread;

fn options(provider: &str, model: Option<&str>) -> PyResult<FitOptions> {
    Ok(FitOptions::new(
        Facts::builtin(),
        crate::errors::provider(provider)?,
        model,
    ))
}

fn facts(f: &MediaFacts) -> serde_json::Value {
    json!({"media_type": f.media_type.as_str(), "bytes": f.bytes, "width": f.width, "height": f.height})
}

/// An image's (or PDF's) bytes as `provider`'s model is sent them, and
/// what they were and are, as JSON.
#[pyfunction]
#[pyo3(signature = (provider, *, data=None, path=None, model=None))]
pub(crate) fn prepare<'py>(
    py: Python<'py>,
    provider: &str,
    data: Option<Vec<u8>>,
    path: Option<PathBuf>,
    model: Option<String>,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let options = options(provider, model.as_deref())?;
    let prepared = py.detach(|| {
        let input = bytes(data, path.as_ref()).map_err(Failed::Read)?;
        prepare_for(
            input,
            options.policy(),
            options.budget(),
            options.image_types(),
        )
        .map_err(|e| Failed::Raise(MediaError::new_err(e.to_string())))
    });
    let prepared = prepared.map_err(|failed: Failed| failed.into_err(py))?;
    let report = json!({
        "media_type": prepared.media_type.as_str(),
        "width": prepared.width, "height": prepared.height,
        "resized": prepared.resized,
        "original": facts(&prepared.original),
        "model": options.model(),
    });
    Ok((PyBytes::new(py, &prepared.bytes), report.to_string()))
}

/// One MCP result (the JSON text of a `CallToolResult`, or of a
/// `ReadResourceResult` for `resources/read`) with its images fitted:
/// the text, and what became of each image as JSON.
#[pyfunction]
#[pyo3(signature = (result, provider, *, model=None, method="tools/call"))]
pub(crate) fn fit_result(
    py: Python<'_>,
    result: &str,
    provider: &str,
    model: Option<String>,
    method: &str,
) -> PyResult<(String, String)> {
    let options = options(provider, model.as_deref())?;
    let method = Method::ALL
        .into_iter()
        .find(|m| m.name() == method)
        .ok_or_else(|| {
            OptionsError::new_err(format!(
                "method {method:?}: tools/call, resources/read or tasks/result"
            ))
        })?;
    let text = result.to_owned();
    let (text, images) = py
        .detach(|| {
            // The proxy passes text that is no result through as it is; a
            // caller handing over something else is told so.
            let raw: Box<serde_json::value::RawValue> = serde_json::from_str(&text)
                .map_err(|e| Unread::new(format!("the result is not JSON: {e}")))?;
            if !raw.get().starts_with('{') {
                return Err(Unread::new("the result is not a JSON object".into()));
            }
            let fitted = fit_mcp(&text, method, &options);
            let images: Vec<serde_json::Value> = fitted
                .images()
                .iter()
                .map(|i| json!({"at": i.at, "changed": i.changed(), "said": i.to_string()}))
                .collect();
            Ok((fitted.text().into_owned(), images))
        })
        .map_err(|u| read_error(py, u.message, u.line))?;
    Ok((text, json!({"images": images}).to_string()))
}
