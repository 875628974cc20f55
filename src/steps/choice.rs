//! The caller's `tool_choice`: whether the model may, must or must not
//! call a tool, or which one it must call. One meaning for every API; each
//! writer spells it its own way (`docs/providers.md`).

use std::fmt;

use serde_json::Value;

/// Whether and which tool the model calls ([`Params::tool_choice`](crate::provider::Params::tool_choice)).
///
/// ```
/// use tool_carrier::provider::ToolChoice;
/// use serde_json::json;
///
/// assert_eq!(ToolChoice::from_json(&json!("required")), Ok(ToolChoice::Required));
/// assert_eq!(
///     ToolChoice::from_json(&json!({"tool": "screenshot"})),
///     Ok(ToolChoice::Tool("screenshot".into()))
/// );
/// assert!(ToolChoice::from_json(&json!("any")).is_err());
/// assert_eq!(ToolChoice::Tool("screenshot".into()).to_string(), "tool screenshot");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (`"auto"`).
    Auto,
    /// No tool is called (`"none"`).
    None,
    /// Some tool is called (`"required"`: Anthropic's and Bedrock's `any`,
    /// Gemini's `ANY`).
    Required,
    /// The tool named is called (`{"tool": NAME}`), named as its
    /// definition names it (the crate sends the name the API knows it by).
    Tool(String),
}

impl ToolChoice {
    /// Read `"auto"`, `"none"`, `"required"` or `{"tool": NAME}`.
    ///
    /// # Errors
    /// What the value is instead, in words.
    pub fn from_json(value: &Value) -> Result<ToolChoice, String> {
        let expected = || {
            format!("expected \"auto\", \"none\", \"required\" or {{\"tool\": NAME}}, got {value}")
        };
        match value {
            Value::String(word) => match word.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" => Ok(ToolChoice::Required),
                _ => Err(expected()),
            },
            Value::Object(object) if object.len() == 1 => match object.get("tool") {
                Some(Value::String(name)) if !name.is_empty() => Ok(ToolChoice::Tool(name.clone())),
                _ => Err(expected()),
            },
            _ => Err(expected()),
        }
    }

    /// As [`ToolChoice::from_json`] reads it.
    pub fn to_json(&self) -> Value {
        match self {
            ToolChoice::Auto => "auto".into(),
            ToolChoice::None => "none".into(),
            ToolChoice::Required => "required".into(),
            ToolChoice::Tool(name) => serde_json::json!({ "tool": name }),
        }
    }
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolChoice::Auto => f.write_str("auto"),
            ToolChoice::None => f.write_str("none"),
            ToolChoice::Required => f.write_str("required"),
            ToolChoice::Tool(name) => write!(f, "tool {name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_choice_reads_back_as_written() {
        for choice in [
            ToolChoice::Auto,
            ToolChoice::None,
            ToolChoice::Required,
            ToolChoice::Tool("shot".into()),
        ] {
            assert_eq!(ToolChoice::from_json(&choice.to_json()), Ok(choice));
        }
    }

    #[test]
    fn anything_else_is_refused_saying_what_it_was() {
        for bad in [
            json!("any"),
            json!("AUTO"),
            json!({"tool": ""}),
            json!({"tool": 7}),
            json!({"tool": "a", "name": "b"}),
            json!({"name": "a"}),
            json!(true),
            json!(null),
        ] {
            let err = ToolChoice::from_json(&bad).unwrap_err();
            assert!(err.ends_with(&format!("got {bad}")), "{err}");
        }
    }
}
