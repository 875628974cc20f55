//! Amazon Bedrock Converse: writing, reading (request bodies and
//! responses), rules and facts.

pub(crate) mod known;
pub(crate) mod read;
pub(crate) mod response;
pub(crate) mod rules;
pub(crate) mod stream;
pub(crate) mod wire;
pub(crate) mod write;

use crate::steps::replay::{any_model, as_kept, Replay};

use crate::facts::ids::bedrock_family;
use crate::facts::{Family, Provider};
use crate::media::{Holder, ProviderFile};
use crate::steps::declare::TypedTools;
use crate::steps::held::needs_media_type;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::params::{CacheTtl, Setting, ToolChoice};
use crate::steps::spec::{SettingAsk, Spec, ToolMedia};
use crate::steps::tools::schema::Dialect;

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "https://bedrock-runtime.{region}.amazonaws.com/model/{model}/converse",
    needs_declared_calls: true,
    // Converse's toolChoice is auto, any or tool.
    choice_none: false,
    names: Pattern::TOOL_NAME,
    ids: Pattern::BEDROCK_ID,
    // Where each goes, with its source: `write.rs`.
    settings: &[
        MaxTokens,
        Temperature,
        TopP,
        Stop,
        Stream,
        ServiceTier,
        ToolChoice,
        Metadata,
        ResponseFormat,
    ],
    // As the SDK spells them (generated: `known.rs`).
    service_tiers: known::SERVICE_TIERS,
    // The ConverseStream operation
    // (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html>,
    // read 2026-12-05).
    stream_url: Some(
        "https://bedrock-runtime.{region}.amazonaws.com/model/{model}/converse-stream",
    ),
    // Through `additionalModelRequestFields`, as Claude spells them.
    claude_settings: &[TopK, ThinkingBudget, CacheTtl],
    holder: Some(Holder::Bedrock),
    refuses_file,
    family: |model, given| given.or_else(|| bedrock_family(model)),
    // Images in a `toolResult` for Claude and Nova alone (their facts).
    tool_media: ToolMedia::AsTheFactsSay,
    // Claude's typed tools through `additionalModelRequestFields`.
    typed_tools: |family| match family {
        Some(Family::Claude) => TypedTools::InExtraFields,
        _ => TypedTools::AsFunctions,
    },
    dialect: Dialect::JsonSchema,
    refuses_setting,
    members: Some((&known::REQUEST, known::SDK)),
    owned: &["messages", "system", "toolConfig"],
    // A JSON Schema only: no JSON mode (`output_config.format` /
    // `outputConfig.textFormat` take `json_schema` alone).
    json_mode: false,
    ..Spec::of(Provider::Bedrock)
};

/// A setting Converse refuses for the model: a one-hour cache TTL before
/// Claude 4.5; a `tool_choice` of `none`, which its `ToolChoice` (auto,
/// any, tool) cannot say; a named tool for a model other than Claude and
/// Nova ("Only supported by Anthropic Claude 3 and Amazon Nova models",
/// botocore 1.44.8's `ToolChoice.tool`).
fn refuses_setting(ask: &SettingAsk<'_>) -> Option<(Setting, String)> {
    let model = ask.model;
    if ask.params.cache_ttl == Some(CacheTtl::OneHour)
        && ask.cache_breakpoints
        && rules::five_minute_cache_only(model)
    {
        return Some((
            Setting::CacheTtl,
            format!("{model} keeps Bedrock's cache five minutes only: a one-hour TTL is for Claude 4.5 and later"),
        ));
    }
    match &ask.params.tool_choice {
        Some(ToolChoice::None) => Some((
            Setting::ToolChoice,
            "Converse's toolChoice is auto, any or one tool: there is no none".to_owned(),
        )),
        Some(ToolChoice::Tool(_)) if !matches!(ask.family, Some(Family::Claude | Family::Nova)) => {
            Some((
                Setting::ToolChoice,
                format!("a named tool only for Claude and Nova models, and {model} is neither"),
            ))
        }
        _ => None,
    }
}

/// Why Converse cannot take an S3 file as it is named. Only the Nova
/// models read "Amazon S3 links for multimedia"
/// (<https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html>,
/// read 2026-12-02; Claude, Llama, Mistral and the others: no); an image
/// block needs its `format` (png, jpeg, gif, webp), a document block its
/// own (pdf here).
fn refuses_file(file: &ProviderFile, is_document: bool, family: Option<Family>) -> Option<String> {
    if family != Some(Family::Nova) {
        return Some("on Bedrock only the Amazon Nova models read media from S3".to_owned());
    }
    let Some(t) = file.media_type_for(is_document) else {
        return Some(needs_media_type(SPEC.display_name, file));
    };
    let fits = if is_document {
        t == "application/pdf"
    } else {
        matches!(t, "image/png" | "image/jpeg" | "image/gif" | "image/webp")
    };
    (!fits).then(|| format!("Bedrock takes no {t} file here"))
}

/// What Bedrock is given back of what a history kept: its reasoning
/// blocks, first in their message: Claude's extended thinking with tool
/// use needs the turn's thinking, unchanged, before its text and tool use
/// (<https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html>,
/// read 2026-12-02). Its other kept blocks are no model's input.
pub(crate) static REPLAYS: &[Replay] = &[Replay {
    member: crate::steps::envelope::BEDROCK_BLOCKS,
    list: Some(&known::CONTENT),
    sdk: known::SDK,
    kinds: Some(&["reasoningContent"]),
    refuse: None,
    reasoning: |tag, _| tag == "reasoningContent",
    media: &[],
    normalize: as_kept,
    for_model: any_model,
}];
