//! Servers that speak Chat Completions, each as its profile says: the
//! rules a body is checked with against the profile. Bodies are written
//! by the Chat writer ([`super::openai_chat::write`]); the profiles are
//! facts (`facts.toml`).

pub(crate) mod rules;
