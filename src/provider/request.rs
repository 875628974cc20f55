//! A built request: the provider, the model, the typed body, the headers
//! and the report.

use std::io::{self, Write};
use std::sync::Arc;

use super::{Endpoint, Profile, Provider, Report};
use crate::rules::Target;
pub use crate::steps::body::Body;

/// A request body for one provider, and what happened to the attachments.
#[derive(Clone, Debug)]
pub struct Request {
    /// The provider it is for.
    pub provider: Provider,
    /// The model it names (in the body, or in the URL for Gemini and
    /// Bedrock).
    pub model: String,
    /// The request body: serialize it (it implements [`Serialize`](serde::Serialize)), or
    /// see it as a [`Value`](serde_json::Value) with [`Body::to_value`].
    pub body: Body,
    /// HTTP headers the request needs besides authentication and the
    /// content type: `anthropic-beta` for the typed tools that need one.
    pub headers: Vec<(&'static str, String)>,
    /// What became of the declared attachments.
    pub report: Report,
    /// The server's profile, for [`Provider::OpenAiCompatible`].
    pub profile: Option<Profile>,
    /// Whether the answer is asked for as a stream (`stream`): where the
    /// API streams at another URL, [`Request::endpoint`] is that one.
    pub(super) stream: bool,
    /// The body as compact JSON: what the rules were checked on. The
    /// body's inline payloads are spans of it.
    pub(super) json: Arc<String>,
}

impl Request {
    /// Where to send it: the method and URL of the provider's API, the
    /// model filled in where the URL names it (Gemini, Bedrock; Bedrock's
    /// region left as `{region}`), its streaming URL when the answer is
    /// streamed and the API streams at another (Gemini's
    /// `:streamGenerateContent?alt=sse`, Bedrock's `converse-stream`); for
    /// an OpenAI-compatible server, its profile's [`Profile::url`].
    ///
    /// ```
    /// use tool_carrier::provider::{build_request, Options, Provider};
    /// let history = [("user", "Hello.")];
    /// let options = Options::new().with_model("gemini-3.8-flash");
    /// let request = build_request(Provider::Gemini, &history, &options)?;
    /// assert_eq!(
    ///     request.endpoint().to_string(),
    ///     "POST https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:generateContent"
    /// );
    /// # Ok::<(), tool_carrier::provider::BuildError>(())
    /// ```
    pub fn endpoint(&self) -> Endpoint {
        match &self.profile {
            Some(p) => Endpoint {
                method: "POST",
                url: p.url(),
            },
            None => self.provider.endpoint(&self.model, self.stream),
        }
    }

    /// Write the body as pretty-printed JSON and a final line feed.
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_pretty<W: Write>(&self, mut w: W) -> io::Result<()> {
        self.body.write_pretty(&mut w)?;
        w.write_all(b"\n")
    }

    /// The body as compact JSON text: the bytes every rule of the
    /// provider's API was checked on before the request was returned.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The body as compact JSON text (a copy of [`Request::json`]).
    pub fn to_json(&self) -> String {
        self.json.as_ref().clone()
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
