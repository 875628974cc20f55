//! Gemini `generateContent`: media nested in function responses for the
//! models that take them (Gemini 3 and later, provider `gemini`), else in
//! a `user` content after the responses (`gemini-2`, and older models).
//!
//! ```json
//! {"systemInstruction": {"parts": [{"text": "…"}]},
//!  "contents": [
//!    {"role": "model", "parts": [
//!      {"functionCall": {"id": "call_1", "name": "…", "args": {…}},
//!       "thoughtSignature": "skip_thought_signature_validator"}]},
//!    {"role": "user", "parts": [
//!      {"functionResponse": {"id": "call_1", "name": "…", "response": {"output": "…"},
//!        "parts": [{"inlineData": {"mimeType": "image/png", "data": "…"}}]}}]}]}
//! ```
//!
//! * Gemini 3 nests a result's media in `functionResponse.parts`. Its
//!   function-call parts carry a thought signature; a history from
//!   elsewhere has none to replay, so the first call of each model turn
//!   gets the placeholder value the API documents for that case.
//! * Gemini 2.x takes no media in a function response: the responses
//!   carry text (with a note naming each attachment) and one `user`
//!   content after them holds the media, each labelled with its call.
//! * Consecutive model contents join, and a history that opens with the
//!   model gets a short user content first.
//! * The response object is `{"output": text}`, or `{"error": text}` for a
//!   failed call (the keys the API documents, `wire::Response`). Gemini refuses GIF, so a
//!   GIF arrives here already converted to PNG. The model is named in the
//!   URL, not in the body.

use super::wire::{
    Blob, Body, Content, Failure, FileData, FunctionCall, FunctionCallingConfig,
    FunctionDeclaration, FunctionResponse, GenerationConfig, Item, MediaResolution, Output, Part,
    Response, Role, SystemInstruction, ThinkingConfig, ToolConfig, Tools,
};
use crate::facts::ids::gemini_3_or_later;
use crate::facts::Detail;
use crate::steps::compose::{
    attachment_label, has_media, text_with_notes, Placement, OPENING_TEXT,
};
use crate::steps::context::Context;
use crate::steps::declare::Declarations;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsObject, Keyed, Payload, Sorted, B64};

/// Where a function response's media go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Nesting {
    /// In `functionResponse.parts` (Gemini 3).
    InResponse,
    /// In a `user` content after the responses (Gemini 2.x).
    FollowingContent,
}

/// The thought signature Gemini 3 accepts for function calls that it did
/// not produce itself (histories written elsewhere).
const FOREIGN_THOUGHT_SIGNATURE: &str = "skip_thought_signature_validator";

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body<'static> {
    let nesting = if cx.caps.media_in_tool_result {
        Nesting::InResponse
    } else {
        Nesting::FollowingContent
    };
    let signed = gemini_3_or_later(cx.model);
    let mut system: Vec<&str> = Vec::new();
    let mut contents = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text, _) => system.push(text),
            Turn::User(text, _) => push(
                &mut contents,
                Role::User,
                text_part(&text).into_iter().collect(),
            ),
            Turn::Assistant(a) => push(&mut contents, Role::Model, model_parts(a, signed)),
            Turn::Results(results) => responses(results, nesting, &mut contents),
            Turn::Carrier(c) => push(&mut contents, Role::User, carrier(c)),
        }
    }
    if contents.first().is_some_and(|c| c.role != Role::User) {
        let opening = text_part(OPENING_TEXT).into_iter().collect();
        contents.insert(
            0,
            Content {
                role: Role::User,
                parts: opening,
            },
        );
    }
    let system: Vec<&str> = system.into_iter().filter(|s| !s.is_empty()).collect();
    let system_instruction = (!system.is_empty()).then(|| SystemInstruction {
        parts: vec![Part::text(system.join("\n\n"))],
    });
    if let Some(level) = cx.detail.and_then(media_resolution) {
        for content in &mut contents {
            with_resolution(&mut content.parts, level);
        }
    }
    let (tools, tool_config) = declare(cx.declarations, cx.tool_choice.as_ref());
    Body {
        system_instruction,
        tools,
        tool_config,
        generation_config: generation_config(cx.params),
        // `store` and `serviceTier`: members the SDK's Developer API
        // converter sets on the body (`google-genai` 3.6.1,
        // `_GenerateContentConfig_to_mldev`).
        store: cx.params.store,
        service_tier: cx.params.service_tier.clone(),
        contents,
    }
}

/// `generationConfig`, when any setting is given:
/// <https://ai.google.dev/api/generate-content#generationconfig> (read
/// 2026-12-01): `maxOutputTokens`, `temperature`, `topP`, `topK`,
/// `stopSequences`, `seed`, and `thinkingConfig`. A token budget is
/// `thinkingBudget` (Gemini 2.5, and Gemini 3 for compatibility); an
/// effort level is `thinkingLevel`, which only Gemini 3 takes
/// (<https://ai.google.dev/gemini-api/docs/thinking>, read 2026-12-01); an
/// effort for an earlier model is refused before. Structured outputs
/// (<https://ai.google.dev/gemini-api/docs/structured-output>, read
/// 2026-12-06): `responseMimeType` `application/json`, with the caller's
/// JSON Schema as `responseJsonSchema` (not `responseSchema`, which takes
/// OpenAPI's subset).
fn generation_config(p: &crate::steps::params::Params) -> Option<GenerationConfig> {
    let thinking_config =
        (p.thinking_budget.is_some() || p.reasoning_effort.is_some()).then(|| ThinkingConfig {
            thinking_budget: p.thinking_budget,
            thinking_level: p.reasoning_effort.map(|e| e.name()),
        });
    let config = GenerationConfig {
        max_output_tokens: p.max_tokens,
        temperature: p.temperature,
        top_p: p.top_p,
        top_k: p.top_k,
        stop_sequences: p.stop.clone(),
        seed: p.seed,
        thinking_config,
        response_mime_type: p.response_format.as_ref().map(|_| "application/json"),
        response_json_schema: p
            .response_format
            .as_ref()
            .and_then(|f| f.schema())
            .map(|s| crate::steps::wire::Sorted(s.schema.clone())),
    };
    p.given().next().map(|_| config)
}

/// Gemini 3's media resolution for a detail level
/// (<https://ai.google.dev/gemini-api/docs/media-resolution>, read
/// 2026-12-02: per part on Gemini 3, in the v1beta API version; images
/// 280 tokens at low, 1120 at high, 2240 at ultra high): `low` and `high`
/// by their names, `original` as ultra high, the most detail the API
/// offers; `auto` sends none, leaving the default (high, for images).
fn media_resolution(detail: Detail) -> Option<MediaResolution> {
    let level = match detail {
        Detail::Low => "MEDIA_RESOLUTION_LOW",
        Detail::High => "MEDIA_RESOLUTION_HIGH",
        Detail::Original => "MEDIA_RESOLUTION_ULTRA_HIGH",
        Detail::Auto => return None,
    };
    Some(MediaResolution { level })
}

/// `level` on every media part (`inlineData` or `fileData`: the media
/// resolution page sets it on uploaded files too), those nested in
/// function responses included.
fn with_resolution(parts: &mut [Item<'static>], level: MediaResolution) {
    for item in parts {
        let Keyed::Known(part) = item else { continue };
        if part.inline_data.is_some() || part.file_data.is_some() {
            part.media_resolution = Some(level);
        }
        if let Some(response) = &mut part.function_response {
            with_resolution(&mut response.parts, level);
        }
    }
}

/// `tools[].functionDeclarations` with `parametersJsonSchema`, and the
/// function calling mode: `NONE` when every tool is a stand-in, else the
/// caller's choice (`AUTO`, `NONE`, `ANY`, and `ANY` with the one name in
/// `allowedFunctionNames` for a named tool: the SDK's
/// `FunctionCallingConfig`, `google-genai` 3.6.1).
fn declare(
    declarations: &Declarations,
    choice: Option<&crate::steps::params::ToolChoice>,
) -> (Vec<Tools<'static>>, Option<ToolConfig>) {
    use crate::steps::params::ToolChoice;
    if declarations.is_empty() {
        return (Vec::new(), None);
    }
    let function_declarations = declarations
        .functions()
        .map(|(d, schema)| FunctionDeclaration {
            name: d.name.clone().into(),
            description: d.description.clone().map(Into::into),
            parameters_json_schema: Sorted(schema.clone()),
        })
        .collect();
    let (mode, allowed_function_names) = match choice {
        _ if declarations.choice_none => ("NONE", Vec::new()),
        None => ("", Vec::new()),
        Some(ToolChoice::Auto) => ("AUTO", Vec::new()),
        Some(ToolChoice::None) => ("NONE", Vec::new()),
        Some(ToolChoice::Required) => ("ANY", Vec::new()),
        Some(ToolChoice::Tool(name)) => ("ANY", vec![name.clone()]),
    };
    let config = (!mode.is_empty()).then_some(ToolConfig {
        function_calling_config: FunctionCallingConfig {
            mode,
            allowed_function_names,
        },
    });
    (
        vec![Tools {
            function_declarations,
        }],
        config,
    )
}

/// Add a content. Consecutive model contents join (a model turn with
/// function calls must follow a user turn or the function responses).
fn push(contents: &mut Vec<Content<'static>>, role: Role, parts: Vec<Item<'static>>) {
    if parts.is_empty() {
        return;
    }
    if role == Role::Model {
        if let Some(last) = contents.last_mut().filter(|c| c.role == Role::Model) {
            last.parts.extend(parts);
            return;
        }
    }
    contents.push(Content { role, parts });
}

fn text_part(text: &str) -> Option<Item<'static>> {
    (!text.is_empty()).then(|| Part::text(text.to_owned()))
}

fn model_parts(turn: AssistantTurn<'_>, signed: bool) -> Vec<Item<'static>> {
    let mut parts: Vec<Item<'static>> = turn
        .text
        .as_deref()
        .and_then(text_part)
        .into_iter()
        .collect();
    // The model's own signatures, where an import kept them; the
    // placeholder on the turn's first call when it has none of its own
    // (the API wants one there, whatever the later calls carry).
    for (n, call) in turn.calls.into_iter().enumerate() {
        let thought_signature = match call.signature {
            Some(s) if signed => Some(s.into()),
            _ => (n == 0 && signed).then_some(FOREIGN_THOUGHT_SIGNATURE.into()),
        };
        parts.push(Part::function_call(
            FunctionCall {
                id: Some(call.id.into()),
                name: call.name.into(),
                args: AsObject(call.arguments),
            },
            thought_signature,
        ));
    }
    parts
}

fn responses(results: Vec<ToolResult<'_>>, nesting: Nesting, contents: &mut Vec<Content<'static>>) {
    let moved = nesting == Nesting::FollowingContent;
    let placement = if moved {
        Placement::NextMessage
    } else {
        Placement::Inside
    };
    let mut parts = Vec::new();
    let mut held = Vec::new();
    for result in results {
        let text = text_with_notes(&result.body, &result.slots, placement);
        let mut response = FunctionResponse {
            id: Some(result.call_id.clone().into()),
            name: result.name.clone().into(),
            response: Some(if result.is_error {
                Response::Error(Failure { error: text.into() })
            } else {
                Response::Output(Output {
                    output: text.into(),
                })
            }),
            parts: Vec::new(),
        };
        if has_media(&result.slots) {
            if moved {
                held.push(result);
            } else {
                response.parts = result.slots.into_iter().filter_map(inline_data).collect();
            }
        }
        parts.push(Part::function_response(response));
    }
    push(contents, Role::User, parts);
    let mut following = Vec::new();
    for result in held {
        for slot in result.slots {
            if matches!(slot.media, Media::Inline(_) | Media::File(_)) {
                following.push(Part::text(attachment_label(
                    &result.name,
                    &result.call_id,
                    &slot,
                )));
                following.extend(inline_data(slot));
            }
        }
    }
    push(contents, Role::User, following);
}

fn carrier(c: UserCarrier<'_>) -> Vec<Item<'static>> {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut parts: Vec<Item<'static>> = text_part(&text).into_iter().collect();
    parts.extend(c.slots.into_iter().filter_map(inline_data));
    parts
}

/// An `inlineData` part, or a `fileData` one for a file the Files API
/// holds (the same shapes nested in a function response and in a
/// content). Gemini takes no URL targets.
fn inline_data(slot: Slot<'_>) -> Option<Item<'static>> {
    let document = slot.kind == crate::AttachmentKind::Document;
    match slot.media {
        Media::Inline(p) => Some(Part::inline_data(Blob {
            mime_type: p.media_type.as_str().into(),
            data: B64::Payload(Payload::base64(p)),
        })),
        // The step sends none without a media type.
        Media::File(f) => Some(Part::file_data(FileData {
            mime_type: f.media_type_for(document)?.to_owned().into(),
            file_uri: f.id.clone().into(),
        })),
        Media::Url(_) | Media::Note(..) => None,
    }
}
