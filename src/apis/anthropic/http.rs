//! What a gateway in front of the Messages API needs of it.

use serde_json::json;

use crate::facts::Provider;
use crate::steps::http::{Endpoint, Http, ModelAt};

/// `POST /v1/messages` and `/v1/messages/count_tokens` carry a
/// conversation, naming the model in the body; errors are
/// `{"type": "error", "error": {"type", "message"}}` with the type of the
/// status (<https://platform.claude.com/docs/en/api/errors>, "HTTP errors"
/// and "Error shapes", read 2026-12-05).
pub(crate) static HTTP: Http = Http {
    base: "https://api.anthropic.com",
    conversations: &[
        Endpoint {
            ends: "messages",
            model: ModelAt::Body,
            exempt: &[],
        },
        Endpoint {
            ends: "messages/count_tokens",
            model: ModelAt::Body,
            // Counting asks for no output (the endpoint's parameters:
            // <https://platform.claude.com/docs/en/api/messages-count-tokens>,
            // read 2026-12-05).
            exempt: &["anthropic/max-tokens"],
        },
    ],
    serving: |_| Provider::Anthropic,
    error: |status, message| {
        let kind = match status {
            413 => "request_too_large",
            500.. => "api_error",
            _ => "invalid_request_error",
        };
        json!({"type": "error", "error": {"type": kind, "message": message}})
    },
};
