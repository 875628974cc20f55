//! The built-in [`Profile`]s: what each OpenAI-compatible server is
//! documented (or reported by its maintainers) to take, each fact with its
//! source and the date it was read. Where a server states nothing, the
//! profile keeps [`Profile::generic`]'s choice, which every documented
//! server accepts, and the comment says so.

use std::fmt;

use crate::media::{Measure, MediaType};

use super::profile::{IdRule, Profile};

/// A built-in profile name that is not one of [`Profile::BUILTIN`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown profile {:?} (built in: {}; or give a .toml or .json file)",
            self.0,
            Profile::BUILTIN.join(", ")
        )
    }
}

impl std::error::Error for UnknownProfile {}

const PNG_JPEG_WEBP: [MediaType; 3] = [MediaType::Png, MediaType::Jpeg, MediaType::Webp];

impl Profile {
    /// The built-in profile names, in the order of the table in docs/providers.md.
    pub const BUILTIN: [&'static str; 11] = [
        "generic",
        "vllm",
        "llama-cpp",
        "lm-studio",
        "ollama-openai",
        "mistral",
        "deepseek",
        "groq",
        "xai",
        "openrouter",
        "azure-openai",
    ];

    /// The built-in profile called `name`.
    ///
    /// ```
    /// use tool_carrier::provider::Profile;
    /// assert!(!Profile::builtin("mistral")?.user_after_tool);
    /// assert!(Profile::builtin("nope").is_err());
    /// # Ok::<(), tool_carrier::provider::UnknownProfile>(())
    /// ```
    ///
    /// # Errors
    /// `name` is not one of [`Profile::BUILTIN`].
    pub fn builtin(name: &str) -> Result<Profile, UnknownProfile> {
        let mut p = Profile::generic();
        p.name = name.to_owned();
        match name {
            "generic" => {}
            "vllm" => vllm(&mut p),
            "llama-cpp" => llama_cpp(&mut p),
            "lm-studio" => lm_studio(&mut p),
            "ollama-openai" => ollama_openai(&mut p),
            "mistral" => mistral(&mut p),
            "deepseek" => deepseek(&mut p),
            "groq" => groq(&mut p),
            "xai" => xai(&mut p),
            "openrouter" => openrouter(&mut p),
            "azure-openai" => azure_openai(&mut p),
            _ => return Err(UnknownProfile(name.to_owned())),
        }
        Ok(p)
    }
}

// Throughout: an image part inside a `tool` message fails the OpenAI SDK's
// own types (`ChatCompletionToolMessageParam.content` takes text parts
// only), so no built-in profile puts images there, even for servers that
// parse them (vLLM, llama.cpp); `--tool-images on` (or
// `images_in_tool_messages = true`) does, for a server known to use them.
// GIF is never listed: an animated GIF would pass through, and the
// servers that take GIF take it non-animated; a GIF is sent as PNG.

fn vllm(p: &mut Profile) {
    // https://docs.vllm.ai/en/latest/features/multimodal_inputs.html
    // (read 2026-12-01): `openai_api_base = "http://localhost:8000/v1"`;
    // images for multimodal models only (`--vision off` otherwise), as
    // http(s) URLs (fetched) or data URLs, decoded by PIL.
    p.base_url = "http://localhost:8000/v1".into();
    // The served model's name; vLLM has no default.
    p.default_model = "Qwen/Qwen2.5-VL-7B-Instruct".into();
    p.image_types = PNG_JPEG_WEBP.to_vec();
    p.image_urls = true;
    // vllm/entrypoints/chat_utils.py: no role-order check (the model's chat
    // template decides), no id format of its own, and a `file` part is
    // refused ("Unsupported chat content part type: 'file'").
    p.user_after_tool = true;
    p.tool_call_ids = IdRule::Any;
    p.pdf = false;
}

fn llama_cpp(p: &mut Profile) {
    // https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md
    // (read 2026-12-01): port 8080, OpenAI endpoints under /v1; images only
    // with a multimodal projector (--mmproj); tools only with --jinja.
    p.base_url = "http://localhost:8080/v1".into();
    // llama-server serves one model and ignores the name.
    p.default_model = "default".into();
    // tools/server/server-common.cpp: image parts of any role become media
    // (tool messages included); http(s) URLs are downloaded (at most 10 MB);
    // a `file` part is "unsupported content[].type"; incoming ids are not
    // checked; no role-order check. Image types are not documented: PNG
    // and JPEG, as every server takes.
    p.image_urls = true;
    p.user_after_tool = true;
    p.tool_call_ids = IdRule::Any;
    p.pdf = false;
}

fn lm_studio(p: &mut Profile) {
    // lmstudio-ai/docs, 1_developer/3_openai-compat (read 2026-12-01): port
    // 1234 under /v1; images for models with the vision capability; "The
    // LM Studio server supports JPEG, PNG, and WebP image formats" (users
    // report some WebP data URLs refused, lmstudio-bug-tracker #1752, and
    // remote URLs not fetched, #1120: PNG and JPEG, inline). Images in tool
    // messages, a user message after a tool message, ids and PDFs are not
    // documented: the generic choice.
    p.base_url = "http://localhost:1234/v1".into();
    p.default_model = "qwen2.5-vl-7b-instruct".into();
}

fn ollama_openai(p: &mut Profile) {
    // https://docs.ollama.com/api/openai-compatibility and
    // ollama/ollama openai/openai.go (read 2026-12-01): /v1 on 11434;
    // "image URLs are not currently supported, please use base64 encoded
    // data instead"; data URLs of jpeg, png or webp only (a GIF is "invalid
    // image input"); a `file` part is "invalid message format"; a tool
    // message with array content loses its tool name and id, so tool
    // messages carry text; no role-order check and no id format.
    p.base_url = "http://localhost:11434/v1".into();
    p.default_model = "qwen3-vl".into();
    p.image_types = PNG_JPEG_WEBP.to_vec();
    p.image_urls = false;
    p.user_after_tool = true;
    p.tool_call_ids = IdRule::Any;
}

fn mistral(p: &mut Profile) {
    // https://docs.mistral.ai/studio-api/conversations/vision (read
    // 2026-12-01): URLs or base64; PNG, JPEG, WEBP, single-frame GIF;
    // "The current file size limit is 10Mb", "The maximum number images per
    // request via API is 8" (the known-limitations page says 20 MB and
    // "depends on the model": the smaller figures are kept, and measured
    // on the base64 text, the stricter reading, since the page does not
    // say).
    p.base_url = "https://api.mistral.ai/v1".into();
    p.default_model = "mistral-medium-latest".into();
    p.image_types = PNG_JPEG_WEBP.to_vec();
    p.image_urls = true;
    p.max_image_bytes = Some(10_000_000);
    p.max_images = Some(8);
    p.measure = Measure::Base64;
    // mistral-common's validator: "Unexpected role 'user' after role
    // 'tool'" (until v1.11.1, 2026-04-27; whether the hosted API still
    // refuses it is not documented, and its role-flow table always has an
    // assistant turn after the results), and "Tool call id was … but must
    // be a-z, A-Z, 0-9, with a length of 9". Tool messages take text only
    // before tokenizer v15. Inline PDFs go as Mistral's own
    // `document_url`, not OpenAI's `file` parts.
    p.user_after_tool = false;
    p.tool_call_ids = IdRule::Alphanumeric9;
    p.pdf = false;
}

fn deepseek(p: &mut Profile) {
    // https://api-docs.deepseek.com (read 2026-12-01): base URL
    // https://api.deepseek.com (`/v1` kept for compatibility); "The model
    // names deepseek-chat and deepseek-reasoner will be deprecated on
    // 2026/07/24". deepseek-flash takes images (guides/vision: "The
    // `deepseek-flash` model accepts images alongside text"; JPEG, PNG,
    // GIF, WebP; URLs or data URLs; "The encoded data counts toward the 48
    // MiB request body limit"): the request's images are kept under 46 MB
    // of base64 to leave room for the text. A text-only model takes
    // `--vision off`.
    p.base_url = "https://api.deepseek.com/v1".into();
    p.default_model = "deepseek-flash".into();
    p.vision = true;
    p.image_types = PNG_JPEG_WEBP.to_vec();
    p.image_urls = true;
    p.max_request_image_bytes = Some(46_000_000);
    p.measure = Measure::Base64;
}

fn groq(p: &mut Profile) {
    // https://console.groq.com/docs/vision (read 2026-12-01): "Maximum
    // allowed size for a request containing a base64 encoded image is
    // 4MB" (413 above; the whole request, so on the base64 text: 3.5 MB of
    // images leaves room for the text); URL images up to 20 MB a request;
    // 33 megapixels each; at most 5 images (the page's copies differ on
    // whether that is a limit or advice: kept as a limit). Image types are
    // not documented: PNG and JPEG.
    p.base_url = "https://api.groq.com/openai/v1".into();
    // Llama 4 Scout was decommissioned on 2026-07-17 (Groq's deprecations
    // page, as quoted in users' reports of 2026); the vision page lists
    // qwen/qwen3.6-27b with "tool use, and JSON mode", "a maximum of 5
    // images", "Each image counts as 2048 input tokens".
    p.default_model = "qwen/qwen3.6-27b".into();
    p.image_urls = true;
    p.max_image_bytes = Some(3_500_000);
    p.max_request_image_bytes = Some(3_500_000);
    p.measure = Measure::Base64;
    p.max_images = Some(5);
}

fn xai(p: &mut Profile) {
    // https://docs.x.ai/developers/model-capabilities/images/understanding
    // (read 2026-12-01): "Supported image file types: jpg/jpeg or png";
    // "Maximum image size: 20MiB" (on what is not said: the base64 text,
    // the stricter reading); "Maximum number of images: No limit"; public
    // URLs are fetched.
    p.base_url = "https://api.x.ai/v1".into();
    // https://docs.x.ai/developers/migration/may-15-retirement (read
    // 2026-12-01): grok-4-0709 retired on 2026-05-15, replaced by grok-4.3
    // ("Modalities: text, image → text", "Function calling: Yes"; the
    // alias grok-4 now names it).
    p.default_model = "grok-4.3".into();
    p.image_types = vec![MediaType::Png, MediaType::Jpeg];
    p.image_urls = true;
    p.max_image_bytes = Some(20 * 1024 * 1024);
    p.measure = Measure::Base64;
}

fn openrouter(p: &mut Profile) {
    // https://openrouter.ai/docs/features/multimodal/images and /pdfs
    // (read 2026-12-01): "The `image_url` can either be a URL or a
    // base64-encoded image"; the number of images "varies per provider and
    // per model"; PDFs as `file` parts with a base64 data URL, which "works
    // on any model". The upstream provider's rules apply beyond that
    // (Mistral's ids, say): the generic choice for the rest.
    p.base_url = "https://openrouter.ai/api/v1".into();
    // OpenAI's gpt-5 shuts down on 2026-12-11: its successor as for
    // openai-chat.
    p.default_model = "openai/gpt-5.5".into();
    p.image_urls = true;
    p.pdf = true;
}

fn azure_openai(p: &mut Profile) {
    // https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/gpt-with-vision
    // (read 2026-12-01): the v1 API at
    // https://{resource}.openai.azure.com/openai/v1 (set it with
    // --base-url), images on vision deployments as URLs or base64; the
    // service's error text names png, jpeg, gif, webp under 20 MB. It is
    // OpenAI's service: a user message may follow a tool message, ids are
    // at most 40 characters. PDFs are not documented for Azure. The model
    // is the deployment's name.
    p.base_url = "https://YOUR-RESOURCE.openai.azure.com/openai/v1".into();
    p.default_model = "gpt-4o".into();
    p.image_types = PNG_JPEG_WEBP.to_vec();
    p.image_urls = true;
    p.user_after_tool = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_named_by_its_name_and_reads_back() {
        for name in Profile::BUILTIN {
            let p = Profile::builtin(name).unwrap();
            assert_eq!(p.name, name);
            assert_eq!(Profile::from_value(&p.to_value()).unwrap(), p);
            assert!(p.url().ends_with("/chat/completions"), "{name}");
        }
        let err = Profile::builtin("vLLM").unwrap_err().to_string();
        assert!(err.contains("unknown profile \"vLLM\"") && err.contains("vllm, llama-cpp"));
    }
}
