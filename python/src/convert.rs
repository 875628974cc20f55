//! `convert`: a history to one provider's request body, as
//! `tool-carrier convert` writes it, and the request it gives.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tool_carrier::media::Policy;
use tool_carrier::provider::{build_request, Extra, Options, Params, Request, Tools};
use tool_carrier::roots::Roots;

use crate::errors::{Failed, OptionsError};

/// A built request: its body, where it goes, and what became of the
/// history's attachments.
#[pyclass(frozen, module = "tool_carrier._native", name = "Request")]
pub(crate) struct NativeRequest {
    request: Request,
    import_notes: Vec<String>,
}

impl NativeRequest {
    pub(crate) fn new(request: Request, import_notes: Vec<String>) -> NativeRequest {
        NativeRequest {
            request,
            import_notes,
        }
    }
}

#[pymethods]
impl NativeRequest {
    /// The body as compact JSON, the bytes the rules were checked on.
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.request.json().as_bytes())
    }

    /// The provider's name (`--provider`).
    #[getter]
    fn provider(&self) -> &'static str {
        self.request.provider.name()
    }

    /// The model the request names.
    #[getter]
    fn model(&self) -> &str {
        &self.request.model
    }

    /// `POST`.
    #[getter]
    fn method(&self) -> &'static str {
        self.request.endpoint().method
    }

    /// The URL, the model filled in where the URL names it.
    #[getter]
    fn url(&self) -> String {
        self.request.endpoint().url
    }

    /// The headers the request needs besides authentication and the
    /// content type.
    #[getter]
    fn headers(&self) -> Vec<(&'static str, String)> {
        self.request.headers.clone()
    }

    /// What became of the attachments, as JSON.
    #[getter]
    fn report_json(&self) -> String {
        report(&self.request, &self.import_notes).to_string()
    }
}

/// The report as a JSON object.
fn report(request: &Request, import_notes: &[String]) -> serde_json::Value {
    let r = &request.report;
    let notes: Vec<serde_json::Value> = r
        .notes
        .iter()
        .map(|n| {
            serde_json::json!({
                "message": n.index, "target": n.target, "text": n.text,
                "failure": n.reason.is_failure(),
            })
        })
        .collect();
    let replayed: Vec<serde_json::Value> = r
        .replay_notes
        .iter()
        .map(|n| serde_json::json!({"message": n.index, "what": n.what, "text": n.text, "failure": n.failure}))
        .collect();
    serde_json::json!({
        "images": r.images,
        "documents": r.documents,
        "urls": r.urls,
        "files": r.files,
        "notes": notes,
        "replay_notes": replayed,
        "image_tokens": r.image_tokens,
        "declared": r.declared,
        "stubbed": r.stubbed,
        "tool_notes": r.tool_notes,
        "setting_notes": r.setting_notes,
        "caveats": r.caveats,
        "import_notes": import_notes,
        "tally": r.tally.summary("sent").to_string(),
    })
}

/// The options `convert`'s (and `Conversation`'s) keywords give, or an
/// `OptionsError` saying why they cannot be.
#[allow(clippy::too_many_arguments)]
pub(crate) fn options(
    model: Option<String>,
    tools: Option<&str>,
    roots: Vec<PathBuf>,
    params: Option<&str>,
    extra: Option<&str>,
    strict: bool,
    vision: bool,
) -> PyResult<Options> {
    let built = || -> Result<Options, String> {
        let roots = Roots::new(&roots).map_err(|e| format!("roots: {e}"))?;
        let mut options = Options::new()
            .with_policy(Policy::default().with_roots(roots))
            .with_strict(strict)
            .with_vision(vision);
        if let Some(model) = model {
            options = options.with_model(model);
        }
        if let Some(cache) = crate::cache::shared() {
            options = options.with_cache(cache);
        }
        if let Some(tools) = tools {
            options =
                options.with_tools(Tools::from_json(tools).map_err(|e| format!("tools: {e}"))?);
        }
        if let Some(params) = params {
            let value: serde_json::Value =
                serde_json::from_str(params).map_err(|e| format!("params: {e}"))?;
            options = options.with_params(Params::from_json(&value).map_err(|e| e.to_string())?);
        }
        if let Some(extra) = extra {
            let value: serde_json::Value =
                serde_json::from_str(extra).map_err(|e| format!("extra: {e}"))?;
            let mut members = Extra::new();
            for (path, value) in value.as_object().ok_or("extra: not an object")? {
                members = members
                    .with(path, value.clone())
                    .map_err(|e| e.to_string())?;
            }
            options = options.with_extra(members);
        }
        Ok(options)
    };
    built().map_err(OptionsError::new_err)
}

/// Convert a history (its bytes, or the file at `path`) into a request
/// body for `provider`. Tools, settings and extra members come as JSON
/// text; the GIL is released while the history is read, its media
/// prepared and the body written and checked.
#[pyfunction]
#[pyo3(signature = (provider, *, data=None, path=None, source=None, model=None, tools=None,
                    roots=Vec::new(), params=None, extra=None, strict=false, vision=true,
                    keep_unknown=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert(
    py: Python<'_>,
    provider: &str,
    data: Option<Vec<u8>>,
    path: Option<PathBuf>,
    source: Option<String>,
    model: Option<String>,
    tools: Option<String>,
    roots: Vec<PathBuf>,
    params: Option<String>,
    extra: Option<String>,
    strict: bool,
    vision: bool,
    keep_unknown: bool,
) -> PyResult<NativeRequest> {
    let provider = crate::errors::provider(provider)?;
    let options = options(
        model,
        tools.as_deref(),
        roots,
        params.as_deref(),
        extra.as_deref(),
        strict,
        vision,
    )?;
    let built = py.detach(|| {
        let bytes = crate::input::bytes(data, path.as_ref()).map_err(Failed::Read)?;
        let read =
            crate::read::read(&bytes, source.as_deref(), keep_unknown).map_err(Failed::Read)?;
        let request = build_request(provider, &read.records, &options).map_err(Failed::Build)?;
        Ok(NativeRequest {
            request,
            import_notes: read.notes,
        })
    });
    built.map_err(|failed: Failed| failed.into_err(py))
}
