//! Ollama's own chat API: writing, reading, rules and facts.

pub(crate) mod read;
pub(crate) mod rules;
pub(crate) mod wire;
pub(crate) mod write;
