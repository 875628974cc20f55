//! `--facts FILE` (or `TOOL_CARRIER_FACTS`): the user's facts laid over the
//! built-in data, and the warnings about the model a run is for.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tool_carrier::facts::{Date, Facts, Syntax};
use tool_carrier::provider::Provider;

use super::Failure;

/// The environment variable naming a facts file when `--facts` does not.
pub const ENV: &str = "TOOL_CARRIER_FACTS";

#[derive(Debug, Default, clap::Args)]
pub struct Arg {
    /// A facts file (.toml or .json) laid over the built-in provider and
    /// model facts: the same keys (docs/facts.md). By default the file
    /// TOOL_CARRIER_FACTS names, if it is set.
    #[arg(long, value_name = "FILE")]
    facts: Option<PathBuf>,
}

impl Arg {
    /// The built-in facts with the file laid over them; `None` when no
    /// file is named (the built-in facts alone).
    pub fn load(&self) -> Result<Option<Arc<Facts>>, Failure> {
        let env = std::env::var_os(ENV).filter(|v| !v.is_empty());
        let (path, named_by) = match (&self.facts, &env) {
            (Some(p), _) => (p.clone(), "--facts".to_owned()),
            (None, Some(v)) => (PathBuf::from(v), format!("{ENV}=")),
            (None, None) => return Ok(None),
        };
        load(&path).map(|f| Some(Arc::new(f))).map_err(|e| {
            let sep = if named_by.ends_with('=') { "" } else { " " };
            Failure::new(format!("{named_by}{sep}{}: {e}", path.display()))
        })
    }
}

fn load(path: &Path) -> Result<Facts, String> {
    let format =
        Syntax::of_path(path).ok_or("a facts file is .toml or .json (the extension says which)")?;
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    Facts::builtin()
        .layered(&text, format, &path.display().to_string())
        .map_err(|e| e.to_string())
}

/// Say on standard error when `model` at `provider` may not be what the
/// facts describe: past its retirement date, or unknown.
pub fn warn_model(facts: &Facts, provider: Provider, model: &str) {
    if let Some(w) = facts.check_model(provider, model, Date::today()) {
        eprintln!("tool-carrier: warning: {w}");
    }
}
