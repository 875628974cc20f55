//! The data compiled into the crate: one file per vendor's models
//! (`data/`, shared where one vendor's models are served by several APIs,
//! as Claude's by Anthropic and Bedrock), one per API in the API's folder
//! (`apis/NAME/facts.toml`), each read as a layer of the same tree (two
//! files may not set the same value: a test checks).

use super::layer::{Format, Layer, Provenance};
use super::FactsError;

/// The files, by name: `(name, text)`.
pub(crate) const FILES: &[(&str, &str)] = &[
    ("claude.toml", include_str!("data/claude.toml")),
    ("openai.toml", include_str!("data/openai.toml")),
    ("gemini.toml", include_str!("data/gemini.toml")),
    (
        "anthropic/facts.toml",
        include_str!("../apis/anthropic/facts.toml"),
    ),
    (
        "openai_chat/facts.toml",
        include_str!("../apis/openai_chat/facts.toml"),
    ),
    (
        "openai_responses/facts.toml",
        include_str!("../apis/openai_responses/facts.toml"),
    ),
    (
        "gemini/facts.toml",
        include_str!("../apis/gemini/facts.toml"),
    ),
    (
        "bedrock/facts.toml",
        include_str!("../apis/bedrock/facts.toml"),
    ),
    (
        "ollama/facts.toml",
        include_str!("../apis/ollama/facts.toml"),
    ),
    (
        "openai_compatible/facts.toml",
        include_str!("../apis/openai_compatible/facts.toml"),
    ),
];

/// Every file, read and laid over the ones before it.
pub(crate) fn layer() -> Result<Layer, FactsError> {
    let mut all = Layer::default();
    for (name, text) in FILES {
        let layer = Layer::parse(text, Format::Toml, Provenance::default()).map_err(|e| {
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
        for (name, text) in FILES {
            let layer = Layer::parse(text, Format::Toml, Provenance::default()).unwrap();
            for key in layer.provenance.keys() {
                if let Some(other) = seen.insert(key.clone(), *name) {
                    panic!("{key} is set by {other} and {name}");
                }
            }
        }
    }
}
