//! OpenAI-compatible servers (Chat Completions shape), checked against
//! what the target's profile states.
//!
//! The profile says what the server takes; these checks read the body and
//! that statement, never the code that built the body, so a builder that
//! ignores a profile's fact is caught here. Pairing and declarations are
//! Chat Completions' own rules, under this provider's ids.

use crate::json::tree::Json as Value;

use crate::facts::{IdRule, Profile};

use crate::apis::openai_chat::rules::{declarations, pairing, Declarations, Pairing};
use crate::steps::path::Path;
use crate::steps::rule::{array, at, data_url, fits, rule, string, word, Out, Rule, Target};

const READ: &str = "2026-12-01";
const CHAT: &str = "https://platform.openai.com/docs/api-reference/chat/create";

rule!(
    TOOL_COUNT,
    "openai-compatible/tool-count",
    "no more tools than the profile's max_tools (Azure OpenAI: 128 a Chat Completions request)",
    "https://learn.microsoft.com/azure/ai-services/openai/quotas-limits",
    Documented
);
rule!(
    MESSAGE_COUNT,
    "openai-compatible/message-count",
    "`messages` holds at least one message",
    CHAT,
    Documented
);
rule!(
    RESULTS_FOLLOW,
    "openai-compatible/results-follow-calls",
    "an assistant message with tool_calls is followed by tool messages answering each id",
    "https://platform.openai.com/docs/guides/function-calling",
    Documented
);
rule!(
    TOOL_ANSWERS,
    "openai-compatible/tool-answers-call",
    "a tool message answers a call of the assistant message before its batch",
    "https://platform.openai.com/docs/guides/function-calling",
    Documented
);
rule!(
    CHOICE_NEEDS_TOOLS,
    "openai-compatible/tool-choice-needs-tools",
    "tool_choice only with tools",
    CHAT,
    Prudent
);
rule!(
    CHOICE_DECLARED,
    "openai-compatible/tool-choice-declared",
    "a tool_choice naming a function names one the request declares",
    CHAT,
    Prudent
);
rule!(
    FUNCTION_NAME,
    "openai-compatible/function-name",
    "function names are a-z, A-Z, 0-9, underscores and dashes, at most 64",
    CHAT,
    Prudent
);
rule!(
    ARRAY_ITEMS,
    "openai-compatible/array-items",
    "an array schema in function parameters has items",
    CHAT,
    Prudent
);
rule!(
    PARAMETERS_OBJECT,
    "openai-compatible/parameters-object",
    "function parameters are a JSON Schema of type object",
    CHAT,
    Prudent
);
rule!(
    NO_TOOLS,
    "openai-compatible/no-tools",
    "a server whose profile takes no tools gets no tools, tool_choice, tool_calls or tool messages",
    "https://platform.openai.com/docs/guides/function-calling",
    Prudent
);
rule!(NO_VISION, "openai-compatible/no-vision",
    "a server whose profile takes no images gets no image parts (DeepSeek: \"unknown variant `image_url`, expected `text`\")",
    "https://api-docs.deepseek.com/", Observed);
rule!(MEDIA_PLACEMENT, "openai-compatible/media-placement",
    "image and file parts go in user messages, and in tool messages only where the profile says the server takes them there",
    "https://platform.openai.com/docs/guides/images-vision", Documented);
rule!(USER_AFTER_TOOL, "openai-compatible/user-after-tool",
    "a server whose profile says so refuses a user message right after a tool message (Mistral: \"Unexpected role 'user' after role 'tool'\")",
    "https://docs.mistral.ai/capabilities/function_calling/", Observed);
rule!(
    IMAGE_TYPES,
    "openai-compatible/image-types",
    "inline images are of the profile's types, and URLs only where it takes URLs",
    "https://platform.openai.com/docs/guides/images-vision",
    Documented
);
rule!(IMAGE_CAPS, "openai-compatible/image-caps",
    "images keep the profile's caps: count, bytes each, bytes together, largest side (Groq: 4 MB of base64 a request, 5 images)",
    "https://console.groq.com/docs/vision", Documented);
rule!(
    FILES,
    "openai-compatible/files",
    "file parts (PDFs) only where the profile takes them",
    "https://openrouter.ai/docs/features/multimodal/pdfs",
    Documented
);
rule!(CALL_ID, "openai-compatible/tool-call-id",
    "tool-call ids keep the profile's rule (Mistral: \"must be a-z, A-Z, 0-9, with a length of 9\")",
    "https://docs.mistral.ai/capabilities/function_calling/", Observed);

pub(crate) static RULES: &[&Rule] = &[
    &MESSAGE_COUNT,
    &RESULTS_FOLLOW,
    &TOOL_ANSWERS,
    &CHOICE_NEEDS_TOOLS,
    &CHOICE_DECLARED,
    &FUNCTION_NAME,
    &ARRAY_ITEMS,
    &PARAMETERS_OBJECT,
    &NO_TOOLS,
    &NO_VISION,
    &MEDIA_PLACEMENT,
    &USER_AFTER_TOOL,
    &IMAGE_TYPES,
    &IMAGE_CAPS,
    &FILES,
    &CALL_ID,
    &TOOL_COUNT,
];

/// Whether `id` keeps `rule`, spelled out here rather than asked of the
/// profile code.
fn id_ok(rule: IdRule, id: &str) -> bool {
    match rule {
        IdRule::Alphanumeric9 => id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
        IdRule::Max40 => id.chars().count() <= 40,
        _ => true,
    }
}

/// The length a payload counts as under the profile's measure.
fn measured(profile: &Profile, b64: &str, raw: usize) -> u64 {
    match profile.measure {
        crate::media::Measure::Base64 => b64.len() as u64,
        _ => raw as u64,
    }
}

pub(crate) fn check(target: &Target<'_>, body: &Value, out: &mut Out) {
    let generic;
    let profile = match target.profile {
        Some(p) => p,
        None => {
            generic = Profile::generic();
            &generic
        }
    };
    crate::steps::rule::message_count(&MESSAGE_COUNT, body, "messages", usize::MAX, out);
    let tools = array(body, "tools").len();
    if profile.max_tools.is_some_and(|max| tools as u64 > max) {
        out.push(&TOOL_COUNT, "$.tools", format!("{tools} tools"));
    }
    declarations(
        body,
        "function",
        &Declarations {
            choice: &CHOICE_NEEDS_TOOLS,
            named: &CHOICE_DECLARED,
            name: &FUNCTION_NAME,
            items: &ARRAY_ITEMS,
            object: &PARAMETERS_OBJECT,
        },
        out,
    );
    if !profile.tools {
        for key in ["tools", "tool_choice"] {
            if body.get(key).is_some() {
                out.push(&NO_TOOLS, at("$", key), "present");
            }
        }
    }
    let rules = Pairing {
        results_follow: &RESULTS_FOLLOW,
        tool_answers: &TOOL_ANSWERS,
    };
    let messages = array(body, "messages");
    let (mut images, mut together) = (0u64, 0u64);
    let at_messages = Path::Root("$.messages");
    for (m, message) in messages.iter().enumerate() {
        let path = at_messages.index(m);
        let calls_at = path.key("tool_calls");
        let content_at = path.key("content");
        let role = string(message, "role").unwrap_or("");
        pairing(messages, m, &rules, out);
        let calls = array(message, "tool_calls");
        if !profile.tools && (!calls.is_empty() || role == "tool") {
            out.push(
                &NO_TOOLS,
                path,
                format!("a {role} message with tool traffic"),
            );
        }
        for (c, call) in calls.iter().enumerate() {
            let id = string(call, "id").unwrap_or("");
            if !id_ok(profile.tool_call_ids, id) {
                out.push(&CALL_ID, calls_at.index(c).key("id"), format!("{id:?}"));
            }
            let name = string(&call["function"], "name").unwrap_or("");
            if !fits(name, 64, word) {
                out.push(
                    &FUNCTION_NAME,
                    calls_at.index(c).key("function.name"),
                    format!("{name:?}"),
                );
            }
        }
        if role == "tool" {
            let id = string(message, "tool_call_id").unwrap_or("");
            if !id_ok(profile.tool_call_ids, id) {
                out.push(&CALL_ID, path.key("tool_call_id"), format!("{id:?}"));
            }
        }
        if role == "user"
            && !profile.user_after_tool
            && m > 0
            && string(&messages[m - 1], "role") == Some("tool")
        {
            out.push(
                &USER_AFTER_TOOL,
                path,
                "a user message right after a tool message",
            );
        }
        for (p, part) in array(message, "content").iter().enumerate() {
            let ppath = content_at.index(p);
            let kind = string(part, "type");
            if matches!(kind, Some("image_url" | "file")) {
                let placed = role == "user" || (role == "tool" && profile.images_in_tool_messages);
                if !placed {
                    out.push(
                        &MEDIA_PLACEMENT,
                        ppath,
                        format!("media in a {role} message"),
                    );
                }
            }
            match kind {
                Some("image_url") => {
                    images += 1;
                    if !profile.vision {
                        out.push(&NO_VISION, ppath, "an image part");
                    }
                    let url = part["image_url"]["url"].as_str().unwrap_or("");
                    match data_url(url) {
                        Some((media_type, b64)) => {
                            let listed = crate::steps::rule::image_b64(b64).filter(|i| {
                                profile.image_types.contains(&i.media_type)
                                    && media_type == i.media_type.as_str()
                            });
                            match listed {
                                None => out.push(&IMAGE_TYPES, ppath, media_type.to_owned()),
                                Some(i) => {
                                    if profile.max_dim.is_some_and(|d| i.width.max(i.height) > d) {
                                        out.push(
                                            &IMAGE_CAPS,
                                            ppath,
                                            format!("{}×{}", i.width, i.height),
                                        );
                                    }
                                }
                            }
                            let size = measured(
                                profile,
                                b64,
                                crate::steps::rule::decoded_len(b64).unwrap_or(0),
                            );
                            together += size;
                            if profile.max_image_bytes.is_some_and(|cap| size > cap) {
                                out.push(
                                    &IMAGE_CAPS,
                                    ppath,
                                    format!("{size} bytes ({})", profile.measure),
                                );
                            }
                        }
                        None if !profile.image_urls => {
                            out.push(&IMAGE_TYPES, ppath, "an image URL, not inline data");
                        }
                        None => {}
                    }
                }
                Some("file") if !profile.pdf => out.push(&FILES, ppath, "a file part"),
                _ => {}
            }
        }
    }
    if profile.max_images.is_some_and(|cap| images > cap) {
        out.push(&IMAGE_CAPS, "$.messages", format!("{images} images"));
    }
    if profile
        .max_request_image_bytes
        .is_some_and(|cap| together > cap)
    {
        out.push(
            &IMAGE_CAPS,
            "$.messages",
            format!("{together} bytes of images ({})", profile.measure),
        );
    }
}
