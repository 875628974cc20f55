//! The keys of a facts file, as read: the shape a file must have, checked
//! by serde, before the names in it are resolved ([`super::Facts`]).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::Sizing;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct Doc {
    #[serde(default)]
    pub sizings: BTreeMap<String, Sizing>,
    #[serde(default)]
    pub families: BTreeMap<String, TraitsDoc>,
    #[serde(default)]
    pub models: BTreeMap<String, ModelDoc>,
    #[serde(default)]
    pub apis: BTreeMap<String, ApiDoc>,
    /// Read by [`crate::provider::Profile::from_value`], which names its
    /// own keys.
    #[serde(default)]
    pub profiles: BTreeMap<String, Value>,
}

/// A sizing by name, or written out.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub(super) enum SizingRef {
    Name(String),
    Inline(Sizing),
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct TraitsDoc {
    pub sizing: Option<SizingRef>,
    #[serde(default)]
    pub detail_sizing: BTreeMap<String, SizingRef>,
    pub max_images: Option<u64>,
    pub max_pages: Option<u64>,
    pub media_in_tool_result: Option<bool>,
    pub image_detail: Option<bool>,
    pub cache_min_tokens: Option<u64>,
    pub cache_breakpoints: Option<bool>,
    pub structured_outputs: Option<bool>,
}

/// One date for every API, or one per API.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub(super) enum RetiresDoc {
    All(String),
    ByApi(BTreeMap<String, String>),
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelDoc {
    pub family: Option<String>,
    #[serde(default)]
    pub apis: Vec<String>,
    pub name: Option<String>,
    pub context: Option<u64>,
    pub max_output: Option<u64>,
    pub reasoning: Option<bool>,
    pub sampling: Option<bool>,
    pub thinking: Option<super::Thinking>,
    #[serde(default)]
    pub detail: Vec<String>,
    pub sizing: Option<SizingRef>,
    #[serde(default)]
    pub detail_sizing: BTreeMap<String, SizingRef>,
    pub max_images: Option<u64>,
    pub max_pages: Option<u64>,
    pub media_in_tool_result: Option<bool>,
    pub cache_min_tokens: Option<u64>,
    pub cache_breakpoints: Option<bool>,
    pub structured_outputs: Option<bool>,
    pub retires: Option<RetiresDoc>,
    pub successor: Option<String>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct ApiDoc {
    pub default_model: Option<String>,
    pub family: Option<String>,
    #[serde(default = "yes")]
    pub documented_models: bool,
    pub request_bytes: Option<u64>,
    #[serde(default)]
    pub reasoning_developer_role: bool,
    #[serde(default)]
    pub model_ids: super::ids::ModelIds,
    #[serde(default)]
    pub image_detail: bool,
    #[serde(default)]
    pub limits: LimitsDoc,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct LimitsDoc {
    pub image_bytes: Option<u64>,
    pub document_bytes: Option<u64>,
    pub measure: Option<String>,
    pub image_types: Option<Vec<String>>,
    pub documents: Option<bool>,
    pub image_urls: Option<bool>,
    pub document_urls: Option<bool>,
    pub max_images: Option<u64>,
    pub max_documents: Option<u64>,
    pub max_pages: Option<u64>,
    pub encrypted_documents: Option<bool>,
    pub max_total: Option<u64>,
    pub max_dim: Option<u32>,
    pub many_images: Option<ManyImagesDoc>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub(super) struct ManyImagesDoc {
    pub over: u64,
    pub max_dim: u32,
    #[serde(default)]
    pub documents: bool,
}

/// Reads the merged tree into [`Doc`]; an error names the key.
pub(super) fn read(tree: serde_json::Map<String, Value>) -> Result<Doc, super::FactsError> {
    serde_path_to_error::deserialize(Value::Object(tree)).map_err(|e| {
        let mut key = String::new();
        for segment in e.path().iter() {
            use serde_path_to_error::Segment;
            let part = match segment {
                Segment::Map { key } => key.clone(),
                Segment::Seq { index } => format!("[{index}]"),
                Segment::Enum { variant } => variant.clone(),
                Segment::Unknown => continue,
            };
            if part.starts_with('[') {
                key.push_str(&part);
            } else {
                if !key.is_empty() {
                    key.push('.');
                }
                super::layer::push_key(&mut key, &part);
            }
        }
        super::FactsError::at_key(key, e.into_inner().to_string())
    })
}
