//! The package's exceptions: one base, and one class per kind of failure
//! a caller acts on differently. Each carries what the crate knows as
//! attributes (a refused body's rule, its path and source; a history's
//! line), never only a message.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use tool_carrier::provider::BuildError;

create_exception!(
    tool_carrier,
    ToolCarrierError,
    PyException,
    "Any failure of the package."
);
create_exception!(
    tool_carrier,
    RefusedError,
    ToolCarrierError,
    "The body would be refused by the provider's API: `rule`, `path` (a JSON path in the body), `source` (where the rule is documented) and `detail` say which and why."
);
create_exception!(
    tool_carrier,
    ReadError,
    ToolCarrierError,
    "The history could not be read: `line` (1-based, or None) says where."
);
create_exception!(
    tool_carrier,
    MediaError,
    ToolCarrierError,
    "Attachments failed and `strict` refuses the request: `notes` lists them."
);
create_exception!(
    tool_carrier,
    ResponseError,
    ToolCarrierError,
    "A provider's answer that could not be read: an error response, a stream cut short, or text of another shape."
);
create_exception!(
    tool_carrier,
    OptionsError,
    ToolCarrierError,
    "A setting or option the provider, the model or the request cannot take."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ToolCarrierError", py.get_type::<ToolCarrierError>())?;
    m.add("RefusedError", py.get_type::<RefusedError>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    m.add("MediaError", py.get_type::<MediaError>())?;
    m.add("ResponseError", py.get_type::<ResponseError>())?;
    m.add("OptionsError", py.get_type::<OptionsError>())
}

/// `err` with `attributes` set on its value.
fn with(py: Python<'_>, err: PyErr, attributes: &[(&str, Py<PyAny>)]) -> PyErr {
    let value = err.value(py);
    for (name, attribute) in attributes {
        if let Err(e) = value.setattr(*name, attribute) {
            return e;
        }
    }
    err
}

/// The provider `name` names, or an `OptionsError` saying it names none.
pub(crate) fn provider(name: &str) -> PyResult<tool_carrier::provider::Provider> {
    name.parse()
        .map_err(|e: tool_carrier::provider::UnknownProvider| OptionsError::new_err(e.to_string()))
}

/// What stopped a call while the GIL was released: made an exception
/// once it is held again.
pub(crate) enum Failed {
    /// The input could not be read.
    Read(crate::read::Unread),
    /// The request could not be built.
    Build(BuildError),
    /// Any other failure, as the exception it raises.
    Raise(PyErr),
}

impl Failed {
    pub(crate) fn into_err(self, py: Python<'_>) -> PyErr {
        match self {
            Failed::Read(unread) => read_error(py, unread.message, unread.line),
            Failed::Build(error) => build_error(py, error),
            Failed::Raise(err) => err,
        }
    }
}

/// A history that could not be read, at `line` when known.
pub(crate) fn read_error(py: Python<'_>, message: String, line: Option<usize>) -> PyErr {
    let line = line
        .into_pyobject(py)
        .map_or_else(|_| py.None(), |l| l.unbind());
    with(py, ReadError::new_err(message), &[("line", line)])
}

/// A failed build, as the exception its kind calls for.
pub(crate) fn build_error(py: Python<'_>, error: BuildError) -> PyErr {
    let message = error.to_string();
    let text = |s: &str| s.into_pyobject(py).map(|s| s.into_any().unbind());
    let refused = |rule: &tool_carrier::rules::Rule, at: &str, detail: &str| {
        let attributes = [
            ("rule", text(rule.id)),
            ("path", text(at)),
            ("source", text(rule.source)),
            ("detail", text(detail)),
        ];
        let attributes: Vec<(&str, Py<PyAny>)> = attributes
            .into_iter()
            .map(|(k, v)| (k, v.unwrap_or_else(|_| py.None())))
            .collect();
        with(py, RefusedError::new_err(message.clone()), &attributes)
    };
    match &error {
        BuildError::Refused { violation, .. } => {
            refused(violation.rule, &violation.at, &violation.detail)
        }
        BuildError::TooLarge {
            rule, size, limit, ..
        } => refused(rule, "$", &format!("{size} bytes, over {limit}")),
        BuildError::Attachments(notes) => {
            let texts: Vec<String> = notes.iter().map(|n| n.text.clone()).collect();
            let notes = texts
                .into_pyobject(py)
                .map_or_else(|_| py.None(), |l| l.unbind());
            with(py, MediaError::new_err(message), &[("notes", notes)])
        }
        BuildError::Replayed(_) => ToolCarrierError::new_err(message),
        _ => OptionsError::new_err(message),
    }
}
