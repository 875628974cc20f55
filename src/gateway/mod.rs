//! The half of an HTTP gateway in front of a provider's API that needs no
//! transport: which requests carry a conversation, fitting their bodies
//! in place for the model each names, the check before a byte is
//! forwarded, and refusals in the API's own error shape.
//!
//! A gateway forwards every request to the API as it came, except a
//! conversation's body ([`Gateway::route`]): its image payloads are
//! fitted as [`fit`] fits a request body (only the
//! payloads' spans change; `cache_control`, members the crate does not
//! know and tools stay byte for byte), the oldest over the model's limits
//! left out with a text saying so ([`Options::with_keep_images`],
//! [`Options::with_evict_step`]), and the result checked against every
//! rule the crate knows of the API ([`crate::rules`]) before it may go.
//! A body that cannot be fitted or breaks a rule is answered here, in the
//! API's error shape ([`Refusal`]), and never forwarded.
//!
//! ```
//! use tool_carrier::gateway::Gateway;
//! use tool_carrier::provider::{Options, Provider};
//!
//! let gateway = Gateway::new(Provider::Anthropic, Options::new())?;
//! assert_eq!(gateway.upstream(), "https://api.anthropic.com");
//! assert!(gateway.route("GET", "/v1/models").is_none());
//! let route = gateway.route("POST", "/v1/messages?beta=true").expect("a conversation");
//!
//! let body = br#"{"model": "claude-sonnet-4-5", "max_tokens": 64,
//!     "messages": [{"role": "user", "content": "Hi"}]}"#;
//! let passed = gateway.fit(&route, body).expect("nothing to refuse");
//! assert_eq!(passed.model(), "claude-sonnet-4-5");
//! assert_eq!(passed.bytes(), &body[..], "nothing to fit: the same bytes");
//!
//! let refused = gateway.fit(&route, b"{\"max_tokens\": 64").unwrap_err();
//! assert_eq!(refused.status(), 400);
//! let shape: serde_json::Value = serde_json::from_slice(refused.body())?;
//! assert_eq!(shape["error"]["type"], "invalid_request_error");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Options::with_keep_images`]: crate::provider::Options::with_keep_images
//! [`Options::with_evict_step`]: crate::provider::Options::with_evict_step

use std::borrow::Cow;

use crate::apis::api;
use crate::facts::Provider;
use crate::fit::{fit, FitError, FitReport};
use crate::import::Detected;
use crate::provider::{Options, OptionsError};
use crate::rules::{check_json, Target};
use crate::steps::http::{Endpoint, Http, ModelAt};

/// Why a gateway cannot be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GatewayError {
    /// An API whose bodies the crate does not fit in place.
    #[error("no gateway for {0}: its request bodies are not fitted in place (anthropic, openai-chat, openai-responses and gemini are)")]
    NoGateway(Provider),
    /// The options contradict each other.
    #[error("{0}")]
    Options(#[from] OptionsError),
}

/// A gateway's decisions for one API: see the [module docs](self).
/// Shared by every request (it is `Sync`); each fit is independent.
#[derive(Debug)]
pub struct Gateway {
    api: Provider,
    http: &'static Http,
    options: Options,
}

/// A request whose body carries a conversation ([`Gateway::route`]).
#[derive(Debug)]
pub struct Route {
    endpoint: &'static Endpoint,
    /// The model the path names, when the API names it there.
    model: Option<String>,
}

/// A body fitted and checked: what may be forwarded.
#[derive(Debug)]
pub struct Passed<'a> {
    model: String,
    report: FitReport,
    /// Written once, for the check and for the forwarding alike.
    bytes: Cow<'a, [u8]>,
}

impl<'a> Passed<'a> {
    /// The model the request names.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// What became of each payload.
    pub fn report(&self) -> &FitReport {
        &self.report
    }

    /// The body to forward: the one received, not copied, when nothing
    /// changed.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// [`Passed::bytes`], owned when they were written anew.
    pub fn into_bytes(self) -> Cow<'a, [u8]> {
        self.bytes
    }
}

/// A request answered by the gateway, not forwarded: a status and the
/// API's own error body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    status: u16,
    message: String,
    body: Vec<u8>,
}

impl Refusal {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Its standard reason phrase.
    pub fn reason(&self) -> &'static str {
        crate::steps::http::reason(self.status)
    }

    /// What went wrong, as the error body says it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error body, in the API's shape (JSON).
    pub fn body(&self) -> &[u8] {
        &self.body
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.reason(), self.message)
    }
}

impl std::error::Error for Refusal {}

/// The `model` member of a body, read without keeping anything else.
#[derive(serde::Deserialize)]
struct NamedModel {
    model: Option<String>,
}

impl Gateway {
    /// A gateway in front of `api`, fitting by `options` (the model is
    /// each request's own; the options' model is not used).
    ///
    /// # Errors
    /// [`GatewayError`]: `api` has no gateway, or the options contradict
    /// each other.
    pub fn new(api: Provider, options: Options) -> Result<Gateway, GatewayError> {
        options.check()?;
        let http = crate::apis::api(api)
            .http
            .ok_or(GatewayError::NoGateway(api))?;
        Ok(Gateway { api, http, options })
    }

    /// The API it stands in front of.
    pub fn api(&self) -> Provider {
        self.api
    }

    /// The API's own service: scheme and host (`https://api.anthropic.com`).
    pub fn upstream(&self) -> &'static str {
        self.http.base
    }

    /// Whether a request of `method` to `path` (its query too, ignored)
    /// carries a conversation whose body is fitted; `None` for one
    /// forwarded as it came.
    pub fn route(&self, method: &str, path: &str) -> Option<Route> {
        if !method.eq_ignore_ascii_case("POST") {
            return None;
        }
        let path = path.split(['?', '#']).next().unwrap_or(path);
        self.http.conversations.iter().find_map(|endpoint| {
            let model = endpoint.matches(path)?;
            Some(Route {
                endpoint,
                model: model.map(str::to_owned),
            })
        })
    }

    /// Fit `body`, a conversation of `route`, for the model it names, and
    /// check the result.
    ///
    /// # Errors
    /// A [`Refusal`] to answer with: the body is not JSON or names no
    /// model (400), is not read as the API's request or a payload in it
    /// cannot be fitted (400), or the fitted body breaks a rule of the
    /// API (400, naming each rule and where it is stated).
    pub fn fit<'a>(&self, route: &Route, body: &'a [u8]) -> Result<Passed<'a>, Refusal> {
        let model = match (route.endpoint.model, &route.model) {
            (ModelAt::Path, Some(model)) => model.clone(),
            _ => serde_json::from_slice::<NamedModel>(body)
                .map_err(|e| self.refusal(400, format!("the body is not JSON: {e}")))?
                .model
                .ok_or_else(|| self.refusal(400, "the body names no model".into()))?,
        };
        if model.is_empty() {
            return Err(self.refusal(400, "the request names no model".into()));
        }
        let provider = (self.http.serving)(&model);
        let options = self.options.inline_for(model.clone());
        let fitted = fit(body, Some(Detected::Request(self.api)), provider, &options).map_err(
            |e| match e {
                FitError::Check(_) => self.refusal(500, format!("tool-carrier: {e}")),
                e => self.refusal(400, format!("tool-carrier cannot fit this request: {e}")),
            },
        )?;
        let bytes = fitted.bytes();
        let text = std::str::from_utf8(&bytes).expect("fit writes UTF-8");
        let target = Target::new(provider, &model).with_facts(options.facts());
        // The members the client sent pass as they came: its SDK chose
        // them, and a fit adds none.
        let members = api(provider).members;
        let broken: Vec<String> = check_json(&target, text)
            .map_err(|e| {
                self.refusal(
                    500,
                    format!("tool-carrier: the fitted body is not JSON: {e}"),
                )
            })?
            .into_iter()
            .filter(|v| !route.endpoint.exempt.contains(&v.rule.id))
            .filter(|v| members.is_none_or(|m| !std::ptr::eq(m, v.rule)))
            .map(|v| v.to_string())
            .collect();
        if !broken.is_empty() {
            return Err(self.refusal(
                400,
                format!(
                    "tool-carrier: {} would refuse this request: {}",
                    api(provider).spec.display_name,
                    broken.join("; ")
                ),
            ));
        }
        Ok(Passed {
            model,
            report: fitted.into_report(),
            bytes,
        })
    }

    /// A refusal with `status` and `message`, in the API's error shape
    /// (for what the transport refuses too: a body over its size, one
    /// encoded, an upstream that cannot be reached).
    pub fn refusal(&self, status: u16, message: String) -> Refusal {
        let body = serde_json::to_vec(&(self.http.error)(status, &message))
            .expect("a JSON value serializes");
        Refusal {
            status,
            message,
            body,
        }
    }
}

/// The APIs a gateway stands in front of, in the order of
/// [`Provider::ALL`].
pub fn apis() -> impl Iterator<Item = Provider> {
    Provider::ALL
        .into_iter()
        .filter(|&p| crate::apis::api(p).http.is_some())
}
