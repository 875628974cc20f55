//! One folder per provider API, holding everything the crate knows of it:
//! writing a request body (`write.rs`), reading one back into a history
//! (`read.rs`), the API's rules (`rules.rs`) and its facts
//! (`facts.toml`, compiled in by [`crate::facts`]). Each builds on the
//! shared steps ([`crate::steps`]) and names no other API but the one it
//! extends (Responses declares functions as Chat does; Ollama its tools;
//! OpenAI-compatible servers are written by the Chat writer).

pub(crate) mod anthropic;
pub(crate) mod bedrock;
pub(crate) mod gemini;
pub(crate) mod ollama;
pub(crate) mod openai_chat;
pub(crate) mod openai_compatible;
pub(crate) mod openai_responses;
