//! A built request: the provider, the model, the typed body, the headers
//! and the report.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use super::{Endpoint, Profile, Provider, Report};
use crate::apis::{anthropic, bedrock, gemini, ollama, openai_chat, openai_responses};
use crate::rules::Target;

/// A request body for one provider, and what happened to the attachments.
#[derive(Clone, Debug)]
pub struct Request {
    /// The provider it is for.
    pub provider: Provider,
    /// The model it names (in the body, or in the URL for Gemini and
    /// Bedrock).
    pub model: String,
    /// The request body: serialize it (it implements [`Serialize`]), or
    /// see it as a [`Value`] with [`Body::to_value`].
    pub body: Body,
    /// HTTP headers the request needs besides authentication and the
    /// content type: `anthropic-beta` for the typed tools that need one.
    pub headers: Vec<(&'static str, String)>,
    /// What became of the declared attachments.
    pub report: Report,
    /// The server's profile, for [`Provider::OpenAiCompatible`].
    pub profile: Option<Profile>,
    /// The body as compact JSON: what the rules were checked on.
    pub(super) json: String,
}

impl Request {
    /// Where to send it: see [`Provider::endpoint`]; for an
    /// OpenAI-compatible server, its profile's [`Profile::url`].
    pub fn endpoint(&self) -> Endpoint {
        match &self.profile {
            Some(p) => Endpoint {
                method: "POST",
                url: p.url(),
            },
            None => self.provider.endpoint(&self.model),
        }
    }

    /// Write the body as pretty-printed JSON and a final line feed.
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_pretty<W: Write>(&self, mut w: W) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut w, &self.body)?;
        w.write_all(b"\n")
    }

    /// The body as compact JSON text: the bytes every rule of the
    /// provider's API was checked on before the request was returned.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The body as compact JSON text (a copy of [`Request::json`]).
    pub fn to_json(&self) -> String {
        self.json.clone()
    }

    /// Write the body as compact JSON (one line, no final line feed):
    /// [`Request::json`].
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_compact<W: Write>(&self, mut w: W) -> io::Result<()> {
        w.write_all(self.json.as_bytes())
    }
}

/// A request body, held as typed structs and written when serialized:
/// media payloads are encoded to base64 as they are written, so a body
/// holds each payload's bytes once and never its base64 text.
///
/// Serialize it with serde_json (`to_writer`, `to_writer_pretty`, …), or
/// see it as a [`Value`] with [`Body::to_value`].
#[derive(Clone, Debug)]
pub struct Body(pub(super) Api);

#[derive(Clone, Debug)]
pub(super) enum Api {
    Anthropic(anthropic::write::Body),
    OpenAiChat(openai_chat::write::Body),
    OpenAiResponses(openai_responses::write::Body),
    Gemini(gemini::write::Body),
    Bedrock(bedrock::write::Body),
    Ollama(ollama::write::Body),
}

impl Body {
    /// The body as a [`Value`] (every payload's base64 text written out,
    /// so this holds a copy of it).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a body always serializes")
    }
}

impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Api::Anthropic(body) => body.serialize(s),
            Api::OpenAiChat(body) => body.serialize(s),
            Api::OpenAiResponses(body) => body.serialize(s),
            Api::Gemini(body) => body.serialize(s),
            Api::Bedrock(body) => body.serialize(s),
            Api::Ollama(body) => body.serialize(s),
        }
    }
}

impl<'a> Target<'a> {
    /// What `request` is checked for: its provider, model and profile
    /// (not a family given to the conversion; add it with
    /// [`Target::with_family`]).
    pub fn of(request: &'a Request) -> Target<'a> {
        Target {
            provider: request.provider,
            model: &request.model,
            family: None,
            profile: request.profile.as_ref(),
            facts: crate::facts::Facts::builtin(),
        }
    }
}
