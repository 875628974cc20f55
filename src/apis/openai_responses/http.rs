//! What a gateway in front of the Responses API needs of it.

use crate::facts::Provider;
use crate::steps::http::{Endpoint, Http, ModelAt};

/// `POST /v1/responses` and `/v1/responses/input_tokens` carry a
/// conversation, naming the model in the body; errors are Chat's.
pub(crate) static HTTP: Http = Http {
    base: "https://api.openai.com",
    conversations: &[
        Endpoint {
            ends: "responses",
            model: ModelAt::Body,
            exempt: &[],
        },
        Endpoint {
            ends: "responses/input_tokens",
            model: ModelAt::Body,
            exempt: &[],
        },
    ],
    serving: |_| Provider::OpenAiResponses,
    error: crate::apis::openai_chat::http::error,
};
