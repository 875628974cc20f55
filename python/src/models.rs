//! `models`: the models the built-in facts describe, as JSON.

use pyo3::prelude::*;
use tool_carrier::facts::Facts;

/// Every model of the built-in facts, as a JSON list of objects.
#[pyfunction]
pub(crate) fn models() -> String {
    serde_json::to_string(Facts::builtin().models()).unwrap_or_else(|_| "[]".into())
}
