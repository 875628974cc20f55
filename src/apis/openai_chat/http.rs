//! What a gateway in front of Chat Completions needs of it.

use serde_json::json;

use crate::facts::Provider;
use crate::steps::http::{Endpoint, Http, ModelAt};

/// `POST /v1/chat/completions` carries a conversation, naming the model
/// in the body.
pub(crate) static HTTP: Http = Http {
    base: "https://api.openai.com",
    conversations: &[Endpoint {
        ends: "chat/completions",
        model: ModelAt::Body,
        exempt: &[],
    }],
    serving: |_| Provider::OpenAiChat,
    error,
};

/// OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`
/// (<https://platform.openai.com/docs/guides/error-codes>, and the
/// `openai` Python SDK's `APIError`, which reads `message`, `type`,
/// `param` and `code` from it; read 2026-12-05).
pub(crate) fn error(status: u16, message: &str) -> serde_json::Value {
    let kind = if status >= 500 {
        "server_error"
    } else {
        "invalid_request_error"
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}
