//! The caller's `response_format`: the answer as JSON, or as JSON a
//! schema describes (structured outputs). One meaning for every API; each
//! writer spells it its own way (`docs/providers.md`), and an API or model
//! that does not take it refuses the request.

use std::fmt;

use serde_json::{Map, Value};

/// The shape the answer must take ([`Params::response_format`](crate::provider::Params::response_format)).
///
/// ```
/// use tool_carrier::provider::ResponseFormat;
/// use serde_json::json;
///
/// let format = ResponseFormat::from_json(&json!({
///     "name": "verdict",
///     "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}},
///                "required": ["ok"], "additionalProperties": false}
/// }))?;
/// let ResponseFormat::Schema(schema) = &format else { unreachable!() };
/// assert_eq!(schema.name, "verdict");
/// assert_eq!(schema.strict, None);
/// assert_eq!(ResponseFormat::from_json(&json!("json"))?, ResponseFormat::Json);
/// // A schema must be an object; the name defaults to "response".
/// assert!(ResponseFormat::from_json(&json!({"schema": true})).is_err());
/// let unnamed = ResponseFormat::from_json(&json!({"schema": {"type": "object"}}))?;
/// assert_eq!(unnamed.to_string(), "the schema \"response\"");
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ResponseFormat {
    /// Any JSON object (`"json"`: OpenAI's JSON mode, Gemini's
    /// `application/json`, Ollama's `"json"`). Anthropic and Bedrock have
    /// no such mode: they take a schema only.
    Json,
    /// JSON that a schema describes.
    Schema(OutputSchema),
}

/// A JSON Schema the answer follows, with what OpenAI and Bedrock name it
/// by.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct OutputSchema {
    /// The schema's name (OpenAI and Bedrock send it; the other APIs have
    /// no place for it). `"response"` when none is given, as the AI SDK
    /// names an unnamed one.
    pub name: String,
    /// What the answer is for, where the API takes a description (OpenAI,
    /// Bedrock).
    pub description: Option<String>,
    /// The JSON Schema itself: an object.
    pub schema: Map<String, Value>,
    /// OpenAI's `strict`: whether the answer is held to the schema exactly
    /// (OpenAI then holds the schema to its strict subset). Sent only
    /// where given, and only to OpenAI, whose default is `false`.
    pub strict: Option<bool>,
}

/// The name an unnamed schema goes by.
const UNNAMED: &str = "response";

impl OutputSchema {
    /// A schema named `"response"`, without a description, `strict` left
    /// to the API.
    pub fn new(schema: Map<String, Value>) -> OutputSchema {
        OutputSchema {
            name: UNNAMED.to_owned(),
            description: None,
            schema,
            strict: None,
        }
    }

    /// With this name.
    pub fn with_name(self, name: impl Into<String>) -> OutputSchema {
        OutputSchema {
            name: name.into(),
            ..self
        }
    }

    /// With this description.
    pub fn with_description(self, description: impl Into<String>) -> OutputSchema {
        OutputSchema {
            description: Some(description.into()),
            ..self
        }
    }

    /// With OpenAI's `strict`.
    pub fn with_strict(self, strict: bool) -> OutputSchema {
        OutputSchema {
            strict: Some(strict),
            ..self
        }
    }
}

impl ResponseFormat {
    /// Read `"json"` or `{"schema": {…}, "name"?: NAME, "description"?:
    /// TEXT, "strict"?: BOOL}`.
    ///
    /// # Errors
    /// What is wrong, in words: another word, a member not listed, a
    /// schema that is not an object, a name or description that is not a
    /// string, a `strict` that is not `true` or `false`.
    pub fn from_json(value: &Value) -> Result<ResponseFormat, String> {
        let expected = || {
            format!("expected \"json\" or {{\"schema\": {{…}}, \"name\": …, \"description\": …, \"strict\": …}}, got {value}")
        };
        let object = match value {
            Value::String(word) if word == "json" => return Ok(ResponseFormat::Json),
            Value::Object(object) => object,
            _ => return Err(expected()),
        };
        let mut format = match object.get("schema") {
            Some(Value::Object(schema)) => OutputSchema::new(schema.clone()),
            Some(other) => return Err(format!("the schema must be a JSON object, got {other}")),
            None => return Err(expected()),
        };
        for (key, member) in object {
            let text = || match member {
                Value::String(text) => Ok(text.clone()),
                _ => Err(format!("{key} must be a string, got {member}")),
            };
            match key.as_str() {
                "schema" => {}
                "name" => format.name = text()?,
                "description" => format.description = Some(text()?),
                "strict" => {
                    format.strict = Some(
                        member
                            .as_bool()
                            .ok_or_else(|| format!("strict must be true or false, got {member}"))?,
                    )
                }
                _ => {
                    return Err(format!(
                        "no member {key:?} (members: schema, name, description, strict)"
                    ))
                }
            }
        }
        Ok(ResponseFormat::Schema(format))
    }

    /// As [`ResponseFormat::from_json`] reads it.
    pub fn to_json(&self) -> Value {
        let ResponseFormat::Schema(s) = self else {
            return "json".into();
        };
        let mut object = Map::new();
        object.insert("name".into(), s.name.clone().into());
        if let Some(description) = &s.description {
            object.insert("description".into(), description.clone().into());
        }
        object.insert("schema".into(), Value::Object(s.schema.clone()));
        if let Some(strict) = s.strict {
            object.insert("strict".into(), strict.into());
        }
        Value::Object(object)
    }

    /// The schema, when one is given.
    pub fn schema(&self) -> Option<&OutputSchema> {
        match self {
            ResponseFormat::Json => None,
            ResponseFormat::Schema(schema) => Some(schema),
        }
    }
}

impl fmt::Display for ResponseFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseFormat::Json => f.write_str("JSON mode"),
            ResponseFormat::Schema(s) => write!(f, "the schema {:?}", s.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_format_reads_back_as_written() {
        let schema = json!({"type": "object"}).as_object().unwrap().clone();
        for format in [
            ResponseFormat::Json,
            ResponseFormat::Schema(OutputSchema::new(schema.clone())),
            ResponseFormat::Schema(
                OutputSchema::new(schema)
                    .with_name("verdict")
                    .with_description("Whether the page loaded")
                    .with_strict(true),
            ),
        ] {
            assert_eq!(ResponseFormat::from_json(&format.to_json()), Ok(format));
        }
    }

    #[test]
    fn anything_else_is_refused_saying_what_it_was() {
        for (bad, says) in [
            (json!("text"), "got \"text\""),
            (json!("JSON"), "got \"JSON\""),
            (json!(true), "got true"),
            (json!({}), "got {}"),
            (json!({"name": "x"}), "got {\"name\":\"x\"}"),
            (json!({"schema": "{}"}), "must be a JSON object, got \"{}\""),
            (
                json!({"schema": {}, "name": 7}),
                "name must be a string, got 7",
            ),
            (
                json!({"schema": {}, "description": null}),
                "description must be a string, got null",
            ),
            (
                json!({"schema": {}, "strict": "yes"}),
                "strict must be true or false, got \"yes\"",
            ),
            (
                json!({"schema": {}, "type": "json_schema"}),
                "no member \"type\"",
            ),
        ] {
            let err = ResponseFormat::from_json(&bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
