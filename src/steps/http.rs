//! What a gateway in front of an API needs of it ([`Http`]): the base URL
//! of its service, which requests carry a conversation and where each
//! names its model, and the API's own error shape. The rows are the
//! APIs' (`src/apis/NAME/mod.rs`); the gateway asks them, naming none.

use crate::facts::Provider;

/// What a gateway in front of the API needs of it.
#[derive(Debug)]
pub(crate) struct Http {
    /// The service's base URL: scheme and host, no path.
    pub base: &'static str,
    /// The `POST` requests whose bodies carry a conversation.
    pub conversations: &'static [Endpoint],
    /// The API (a variant of the row's, for some models) whose rules a
    /// request for `model` is held to.
    pub serving: fn(&str) -> Provider,
    /// The body of an error with this status and message, in the API's
    /// own shape.
    pub error: fn(u16, &str) -> serde_json::Value,
}

/// A request path whose `POST` body is a conversation.
#[derive(Debug)]
pub(crate) struct Endpoint {
    /// How the path (without its query) ends: a client's base URL sets
    /// what comes before (`/v1`, a proxy's prefix).
    pub ends: &'static str,
    /// Where the request names its model.
    pub model: ModelAt,
    /// The rules of the API's request that this endpoint's body does not
    /// answer to (a token count asks for no output, so gives no
    /// `max_tokens`).
    pub exempt: &'static [&'static str],
}

/// Where a conversation request names its model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ModelAt {
    /// The body's `model` member.
    Body,
    /// The path segment after `models/`, up to the `:` of the method
    /// (`…/models/{model}:generateContent`).
    Path,
}

impl Endpoint {
    /// Whether `path` (without its query) is this endpoint's, and the
    /// model it names when [`ModelAt::Path`] (`Some("")` when it names
    /// none there).
    pub(crate) fn matches<'p>(&self, path: &'p str) -> Option<Option<&'p str>> {
        let head = path.strip_suffix(self.ends)?;
        match self.model {
            ModelAt::Body => {
                // A whole segment: `/v1/messages`, not `/v1/my_messages`.
                (head.is_empty() || head.ends_with('/')).then_some(None)
            }
            ModelAt::Path => {
                let (_, model) = head.rsplit_once("/models/")?;
                (!model.contains('/')).then_some(Some(model))
            }
        }
    }
}

/// The HTTP reason phrase of the statuses a gateway answers with itself.
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_is_a_whole_path_end() {
        let body = Endpoint {
            ends: "messages",
            model: ModelAt::Body,
            exempt: &[],
        };
        assert_eq!(body.matches("/v1/messages"), Some(None));
        assert_eq!(body.matches("messages"), Some(None));
        assert_eq!(body.matches("/v1/my_messages"), None);
        assert_eq!(body.matches("/v1/messages/batches"), None);
        let path = Endpoint {
            ends: ":generateContent",
            model: ModelAt::Path,
            exempt: &[],
        };
        assert_eq!(
            path.matches("/v1beta/models/gemini-3-pro:generateContent"),
            Some(Some("gemini-3-pro"))
        );
        assert_eq!(
            path.matches("/v1beta/models/a/b:generateContent"),
            None,
            "a model id holds no slash"
        );
        assert_eq!(path.matches("/v1beta/gemini:generateContent"), None);
        assert_eq!(
            path.matches("/v1beta/models/:generateContent"),
            Some(Some(""))
        );
    }
}
