//! What a gateway in front of the Gemini API needs of it.

use serde_json::json;

use crate::facts::ids::gemini_3_or_later;
use crate::facts::Provider;
use crate::steps::http::{Endpoint, Http, ModelAt};

/// `POST …/models/{model}:generateContent` and `:streamGenerateContent`
/// carry a conversation, naming the model in the path; a 1.x or 2.x model
/// is held to Gemini 2's placement. Errors are Google's
/// `{"error": {"code", "message", "status"}}`
/// (<https://ai.google.dev/gemini-api/docs/troubleshooting>, the status
/// names of its error table; read 2026-12-05).
pub(crate) static HTTP: Http = Http {
    base: "https://generativelanguage.googleapis.com",
    conversations: &[
        Endpoint {
            ends: ":generateContent",
            model: ModelAt::Path,
            exempt: &[],
        },
        Endpoint {
            ends: ":streamGenerateContent",
            model: ModelAt::Path,
            exempt: &[],
        },
    ],
    serving: |model| {
        if gemini_3_or_later(model) {
            Provider::Gemini
        } else {
            Provider::Gemini2
        }
    },
    error: |status, message| {
        let name = match status {
            500 => "INTERNAL",
            502 | 503 => "UNAVAILABLE",
            _ => "INVALID_ARGUMENT",
        };
        json!({"error": {"code": status, "message": message, "status": name}})
    },
};
