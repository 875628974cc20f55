//! The data compiled into the crate: one file per vendor's models
//! (`data/`, shared where one vendor's models are served by several APIs,
//! as Claude's by Anthropic and Bedrock), one per API in the API's folder
//! (`apis/NAME/facts.toml`, listed by the build script), each read as a layer of the same tree (two
//! files may not set the same value: a test checks).

use super::layer::{Layer, Provenance, Syntax};
use super::FactsError;

/// The vendor files, by name: `(name, text)`.
const VENDORS: &[(&str, &str)] = &[
    ("claude.toml", include_str!("data/claude.toml")),
    ("openai.toml", include_str!("data/openai.toml")),
    ("gemini.toml", include_str!("data/gemini.toml")),
];

/// Every API folder's `facts.toml`, found by the build script.
const APIS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/api_facts.rs"));

/// Every file, by name: `(name, text)`.
pub(crate) fn files() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    VENDORS.iter().chain(APIS)
}

/// Every file, read and laid over the ones before it.
pub(crate) fn layer() -> Result<Layer, FactsError> {
    let mut all = Layer::default();
    for (name, text) in files() {
        let layer = Layer::parse(text, Syntax::Toml, Provenance::default()).map_err(|e| {
            FactsError::at_key(
                e.key()
                    .map_or_else(|| (*name).to_owned(), |k| format!("{name}: {k}")),
                e.message().to_owned(),
            )
        })?;
        all = all.overlay(layer);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_files_set_the_same_value() {
        // A key two files both set would make the files' order a fact.
        let mut seen = std::collections::BTreeMap::new();
        for (name, text) in files() {
            let layer = Layer::parse(text, Syntax::Toml, Provenance::default()).unwrap();
            for key in layer.provenance.keys() {
                if let Some(other) = seen.insert(key.clone(), *name) {
                    panic!("{key} is set by {other} and {name}");
                }
            }
        }
    }
}
