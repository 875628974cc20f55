//! Input schemas fitted to what each provider documents it takes.
//!
//! Every provider wants an object schema at the top (`"type": "object"`,
//! added when left out; another type is refused). Below that, each
//! keyword of every subschema is kept, left out (and reported), or
//! refused with an error naming it, as that provider's documentation
//! says; see [`Dialect`].

use std::fmt;

use serde_json::{Map, Value};
use thiserror::Error;

/// The schema language a provider's tool declarations are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// JSON Schema as the provider's own validator reads it: Anthropic
    /// `input_schema`, Bedrock `inputSchema.json`. Every keyword is kept
    /// but `anyOf`, `oneOf` and `allOf` at the top, which Anthropic (and
    /// so Claude on Bedrock) refuses there.
    JsonSchema,
    /// OpenAI `parameters`, non-strict: every keyword is kept but the
    /// combinators OpenAI refuses at the top, and a schema the API calls
    /// malformed is mended ([`OPENAI_MALFORMED`]).
    OpenAi,
    /// Gemini `parametersJsonSchema` (chosen over the OpenAPI-subset
    /// `parameters`, which refuses `$ref`, `$defs`, `oneOf`, `allOf`,
    /// `additionalProperties`, `const` and type arrays): JSON Schema, with
    /// the one documented restriction that a node holding `$ref` may have
    /// only `description` and `default` beside it.
    Gemini,
    /// Ollama `tools[].function.parameters`: only the members its server
    /// keeps ([`OLLAMA_KEYWORDS`]).
    Ollama,
}

/// Gemini: "If a schema node has $ref set, then only description and
/// default can be set alongside it"
/// (<https://ai.google.dev/api/caching#FunctionDeclaration>, field
/// `parametersJsonSchema`, read 2026-12-01).
const GEMINI_REF_SIBLINGS: &[&str] = &["$ref", "description", "default"];

/// OpenAI refuses, even without strict mode, an array schema without
/// `items` (`invalid_function_parameters`: "array schema missing items");
/// such an array gets `"items": {}` (any item), reported. Source: the
/// function-calling guide and the error users report
/// (<https://platform.openai.com/docs/guides/function-calling>, read
/// 2026-12-01).
pub(crate) const OPENAI_MALFORMED: &str = "an array schema without `items`";

/// The members Ollama's server keeps for tool parameters and their
/// properties (ollama `api.ToolFunctionParameters` / `ToolProperty`,
/// <https://github.com/ollama/ollama/blob/main/api/types.go>, read
/// 2026-12-01): anything else is dropped as the request is decoded.
pub(crate) const OLLAMA_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "enum",
    "items",
    "properties",
    "required",
    "anyOf",
];

/// Keywords Anthropic refuses at the top of an `input_schema` ("input_schema
/// does not support oneOf, allOf, or anyOf at the top level"), as users
/// quote the error; left out there, reported (read 2026-12-01).
const ANTHROPIC_TOP_REFUSED: &[&str] = &["anyOf", "oneOf", "allOf"];

/// Keywords OpenAI refuses at the top of function parameters ("schema must
/// have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'const'/
/// 'not' at the top level"), as users quote the error; left out there,
/// reported (read 2026-12-01).
const OPENAI_TOP_REFUSED: &[&str] = &["anyOf", "oneOf", "allOf", "enum", "const", "not"];

impl Dialect {
    /// Keywords this dialect refuses at the top of a schema.
    fn top_refused(self) -> &'static [&'static str] {
        match self {
            Dialect::JsonSchema => ANTHROPIC_TOP_REFUSED,
            Dialect::OpenAi => OPENAI_TOP_REFUSED,
            Dialect::Gemini | Dialect::Ollama => &[],
        }
    }

    /// Why a keyword is left out, for reports.
    pub fn why_left_out(self) -> &'static str {
        match self {
            Dialect::JsonSchema => "Anthropic refuses it at the top level",
            Dialect::OpenAi => "OpenAI refuses it at the top level",
            Dialect::Gemini => "Gemini takes only `description` and `default` beside a `$ref`",
            Dialect::Ollama => {
                "Ollama's server keeps only type, description, enum, items, properties, required and anyOf"
            }
        }
    }

    /// Whether `keyword` is kept in a node whose members are `node`.
    fn keeps(self, keyword: &str, node: &Map<String, Value>) -> bool {
        match self {
            Dialect::JsonSchema | Dialect::OpenAi => true,
            Dialect::Gemini => !node.contains_key("$ref") || GEMINI_REF_SIBLINGS.contains(&keyword),
            Dialect::Ollama => OLLAMA_KEYWORDS.contains(&keyword),
        }
    }
}

/// A schema fitted to a dialect, and the keywords left out of it.
#[derive(Debug)]
pub(crate) struct Fitted {
    /// The schema to send.
    pub schema: Map<String, Value>,
    /// Each keyword left out, as a JSON Pointer into the original schema.
    pub dropped: Vec<Pointer>,
    /// Each place mended, and how.
    pub mended: Vec<(Pointer, &'static str)>,
}

/// A JSON Pointer (RFC 6901) into a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pointer(String);

impl Pointer {
    fn root() -> Pointer {
        Pointer(String::new())
    }

    fn child(&self, token: &str) -> Pointer {
        let token = token.replace('~', "~0").replace('/', "~1");
        Pointer(format!("{}/{token}", self.0))
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("the schema's root")
        } else {
            write!(f, "`{}`", self.0)
        }
    }
}

/// A schema that cannot be declared.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The top-level schema describes something other than an object.
    #[error("the input schema must describe an object (`\"type\": \"object\"`), not {0}")]
    NotAnObject(String),
}

/// Fit `schema` to `dialect`.
pub(crate) fn fit(schema: &Map<String, Value>, dialect: Dialect) -> Result<Fitted, SchemaError> {
    match schema.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => return Err(SchemaError::NotAnObject(other.to_string())),
    }
    let mut walk = Walk {
        dialect,
        dropped: Vec::new(),
        mended: Vec::new(),
    };
    let mut out = walk.subschema(schema, &Pointer::root());
    for keyword in dialect.top_refused() {
        if out.remove(*keyword).is_some() {
            walk.dropped.push(Pointer::root().child(keyword));
        }
    }
    let Walk {
        mut dropped,
        mut mended,
        ..
    } = walk;
    if !out.contains_key("type") {
        out.insert("type".into(), "object".into());
    }
    // The same report whatever order the map iterates in.
    dropped.sort_by(|a, b| a.0.cmp(&b.0));
    mended.sort_by(|a, b| a.0 .0.cmp(&b.0 .0));
    Ok(Fitted {
        schema: out,
        dropped,
        mended,
    })
}

/// Members whose value is a schema.
const SCHEMA_VALUED: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
/// Members whose value is an array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Members whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// The walk over a schema's nodes, and what it did.
struct Walk {
    dialect: Dialect,
    dropped: Vec<Pointer>,
    mended: Vec<(Pointer, &'static str)>,
}

impl Walk {
    fn subschema(&mut self, schema: &Map<String, Value>, at: &Pointer) -> Map<String, Value> {
        let mut out = Map::new();
        for (key, value) in schema {
            let here = at.child(key);
            if !self.dialect.keeps(key, schema) {
                self.dropped.push(here);
                continue;
            }
            let key_str = key.as_str();
            let value = match value {
                Value::Object(s) if SCHEMA_VALUED.contains(&key_str) => {
                    Value::Object(self.subschema(s, &here))
                }
                Value::Array(items) if SCHEMA_ARRAYS.contains(&key_str) || key_str == "items" => {
                    Value::Array(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| match item {
                                Value::Object(s) => {
                                    Value::Object(self.subschema(s, &here.child(&i.to_string())))
                                }
                                other => other.clone(),
                            })
                            .collect(),
                    )
                }
                Value::Object(map) if SCHEMA_MAPS.contains(&key_str) => Value::Object(
                    map.iter()
                        .map(|(name, s)| {
                            let s = match s {
                                Value::Object(s) => {
                                    Value::Object(self.subschema(s, &here.child(name)))
                                }
                                other => other.clone(),
                            };
                            (name.clone(), s)
                        })
                        .collect(),
                ),
                other => other.clone(),
            };
            out.insert(key.clone(), value);
        }
        if self.dialect == Dialect::OpenAi && is_array_schema(&out) && !out.contains_key("items") {
            out.insert("items".into(), Value::Object(Map::new()));
            self.mended.push((at.clone(), OPENAI_MALFORMED));
        }
        out
    }
}

/// Whether a node says it describes an array (`"type": "array"`, or a
/// type list holding it).
fn is_array_schema(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn the_top_level_is_an_object_schema() {
        let fitted = fit(&map(json!({"properties": {}})), Dialect::JsonSchema).unwrap();
        assert_eq!(
            Value::Object(fitted.schema),
            json!({"type": "object", "properties": {}})
        );
        let e = fit(&map(json!({"type": "string"})), Dialect::JsonSchema).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the input schema must describe an object (`\"type\": \"object\"`), not \"string\""
        );
        assert!(fit(&map(json!({"type": ["object", "null"]})), Dialect::Gemini).is_err());
    }

    #[test]
    fn json_schema_keeps_every_keyword() {
        let s = json!({"type": "object", "$schema": "x", "properties": {"a": {"type": "string", "pattern": "^a", "default": "a"}}, "additionalProperties": false});
        let fitted = fit(&map(s.clone()), Dialect::JsonSchema).unwrap();
        assert_eq!(Value::Object(fitted.schema), s);
        assert!(fitted.dropped.is_empty());
    }

    #[test]
    fn unsupported_keywords_are_left_out_where_they_stand_and_reported() {
        let s = json!({
            "type": "object",
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {
                "a/b": {"type": "string", "pattern": "^a", "description": "x"},
                "list": {"type": "array", "items": {"type": "integer", "multipleOf": 2}},
                "pattern": {"type": "string"}
            },
            "anyOf": [{"required": ["list"], "not": {}}]
        });
        let fitted = fit(&map(s), Dialect::Ollama).unwrap();
        assert_eq!(
            Value::Object(fitted.schema),
            json!({
                "type": "object",
                "properties": {
                    "a/b": {"type": "string", "description": "x"},
                    "list": {"type": "array", "items": {"type": "integer"}},
                    "pattern": {"type": "string"}
                },
                "anyOf": [{"required": ["list"]}]
            })
        );
        let dropped: Vec<String> = fitted.dropped.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            dropped,
            [
                "`/$schema`",
                "`/anyOf/0/not`",
                "`/properties/a~1b/pattern`",
                "`/properties/list/items/multipleOf`",
            ]
        );
    }

    #[test]
    fn gemini_keeps_only_description_and_default_beside_a_ref() {
        let s = json!({
            "type": "object",
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "properties": {
                "at": {"$ref": "#/$defs/point", "description": "where", "title": "At", "default": null},
                "oneOf": {"oneOf": [{"type": "string"}, {"const": 1}]}
            }
        });
        let fitted = fit(&map(s), Dialect::Gemini).unwrap();
        assert_eq!(
            fitted.schema["properties"]["at"],
            json!({"$ref": "#/$defs/point", "description": "where", "default": null})
        );
        assert_eq!(
            fitted.schema["properties"]["oneOf"],
            json!({"oneOf": [{"type": "string"}, {"const": 1}]})
        );
        let dropped: Vec<String> = fitted.dropped.iter().map(|p| p.to_string()).collect();
        assert_eq!(dropped, ["`/properties/at/title`"]);
    }

    #[test]
    fn combinators_at_the_top_are_left_out_where_the_api_refuses_them() {
        let s = json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}, "anyOf": [{"required": ["a"]}], "not": {"required": ["b"]}});
        let anthropic = fit(&map(s.clone()), Dialect::JsonSchema).unwrap();
        assert!(anthropic.schema.get("anyOf").is_none());
        assert!(anthropic.schema.get("not").is_some());
        assert!(
            anthropic.schema["properties"]["a"].get("anyOf").is_some(),
            "only the top"
        );
        let openai = fit(&map(s.clone()), Dialect::OpenAi).unwrap();
        assert!(openai.schema.get("anyOf").is_none() && openai.schema.get("not").is_none());
        let dropped: Vec<String> = openai.dropped.iter().map(|p| p.to_string()).collect();
        assert_eq!(dropped, ["`/anyOf`", "`/not`"]);
        let gemini = fit(&map(s), Dialect::Gemini).unwrap();
        assert!(gemini.schema.get("anyOf").is_some());
    }

    #[test]
    fn openai_arrays_without_items_get_any_item() {
        let s = json!({"type": "object", "properties": {"tags": {"type": "array"}, "ok": {"type": "array", "items": {"type": "string"}}}});
        let fitted = fit(&map(s.clone()), Dialect::OpenAi).unwrap();
        assert_eq!(
            fitted.schema["properties"]["tags"],
            json!({"type": "array", "items": {}})
        );
        assert_eq!(fitted.schema["properties"]["ok"], s["properties"]["ok"]);
        assert_eq!(fitted.mended.len(), 1);
        assert_eq!(fitted.mended[0].0.to_string(), "`/properties/tags`");
        let anthropic = fit(&map(s.clone()), Dialect::JsonSchema).unwrap();
        assert_eq!(Value::Object(anthropic.schema), s);
    }
}
