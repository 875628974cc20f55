//! `tool_carrier._native`: the crate's front door for Python. Each call
//! takes and gives plain values (bytes, strings of JSON, numbers); the
//! package's Python layer (`tool_carrier/__init__.py`) turns them into
//! dicts and its classes. Work runs with the GIL released.

use pyo3::prelude::*;

mod cache;
mod conversation;
mod convert;
mod errors;
mod history;
mod input;
mod media;
mod models;
mod read;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<convert::NativeRequest>()?;
    m.add_class::<conversation::NativeConversation>()?;
    m.add_class::<conversation::NativeResponseReader>()?;
    m.add_function(wrap_pyfunction!(convert::convert, m)?)?;
    m.add_function(wrap_pyfunction!(models::models, m)?)?;
    m.add_function(wrap_pyfunction!(cache::set_cache_limit, m)?)?;
    m.add_function(wrap_pyfunction!(history::import_history, m)?)?;
    m.add_function(wrap_pyfunction!(history::inspect, m)?)?;
    m.add_function(wrap_pyfunction!(history::migrate, m)?)?;
    m.add_function(wrap_pyfunction!(history::fit, m)?)?;
    m.add_function(wrap_pyfunction!(media::prepare, m)?)?;
    m.add_function(wrap_pyfunction!(media::fit_result, m)?)?;
    errors::register(m)
}
