//! Tool definitions, read in the shapes agents keep and declared the way
//! each provider documents ([`Tools`]).

use std::fmt;

use serde_json::{Map, Value};
use thiserror::Error;

pub(crate) mod schema;
pub mod typed;

pub use typed::TypedTool;

/// The shape a tool definition was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Shape {
    /// An OpenAI Chat Completions `tools` item.
    OpenAiChat,
    /// An OpenAI Responses function tool.
    OpenAiResponses,
    /// An Anthropic custom tool (`input_schema`).
    Anthropic,
    /// An Anthropic typed tool (`"type": "computer_20250124"`, …).
    AnthropicTyped,
    /// An MCP `tools/list` item (`inputSchema`).
    Mcp,
}

impl Shape {
    /// How the shape is named in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::OpenAiChat => "OpenAI Chat",
            Shape::OpenAiResponses => "OpenAI Responses",
            Shape::Anthropic => "Anthropic",
            Shape::AnthropicTyped => "Anthropic typed",
            Shape::Mcp => "MCP",
        }
    }
}

/// One tool definition, provider-neutral.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    name: String,
    description: Option<String>,
    shape: Shape,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A function with a JSON Schema for its input.
    Function { schema: Map<String, Value> },
    /// An Anthropic typed tool: its definition as given, and what is known
    /// of its type.
    Typed {
        definition: Map<String, Value>,
        known: Option<&'static TypedTool>,
    },
}

impl Tool {
    /// A function tool with this input schema (a JSON Schema object).
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_carrier::provider::Tool;
    ///
    /// let tool = Tool::function("lookup", Some("Find a word."), json!({"type": "object"})).unwrap();
    /// assert_eq!(tool.name(), "lookup");
    /// assert!(Tool::function("", None, json!({})).is_err());
    /// ```
    ///
    /// # Errors
    /// An empty name, or a schema that is not a JSON object.
    pub fn function(
        name: impl Into<String>,
        description: Option<&str>,
        schema: Value,
    ) -> Result<Tool, ToolsError> {
        let name = name.into();
        if name.is_empty() {
            return Err(ToolsError::new(None, ToolsErrorKind::EmptyName));
        }
        let Value::Object(schema) = schema else {
            return Err(ToolsError::new(
                None,
                ToolsErrorKind::Schema("the input schema is not a JSON object"),
            )
            .named(&name));
        };
        Ok(Tool {
            name,
            description: description.map(str::to_owned),
            shape: Shape::Mcp,
            kind: Kind::Function { schema },
        })
    }

    /// The name, as defined.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description, when there is one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The shape it was read from.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The input schema of a function tool, or the documented one of a
    /// known Anthropic typed tool; `None` for a typed tool Anthropic
    /// documents no input for.
    pub fn input_schema(&self) -> Option<Value> {
        match &self.kind {
            Kind::Function { schema } => Some(Value::Object(schema.clone())),
            Kind::Typed { known, .. } => known.map(|k| Value::Object(k.input_schema())),
        }
    }

    /// For an Anthropic typed tool, its `type` (`computer_20250124`, …).
    pub fn typed_as(&self) -> Option<&str> {
        match &self.kind {
            Kind::Typed { definition, .. } => definition.get("type").and_then(Value::as_str),
            Kind::Function { .. } => None,
        }
    }

    pub(crate) fn kind(&self) -> &Kind {
        &self.kind
    }
}

/// A set of tool definitions, in the order given, names unique: read in
/// the shapes agents already keep, declared the way each provider documents.
///
/// [`Tools::from_json`] takes any of these, told apart by shape (one file
/// may even mix items of the array shapes):
///
/// | shape | an item |
/// |---|---|
/// | OpenAI Chat `tools` | `{"type": "function", "function": {"name", "description", "parameters"}}` |
/// | OpenAI Responses `tools` | `{"type": "function", "name", "description", "parameters"}` |
/// | Anthropic `tools` | `{"name", "description", "input_schema"}`, or a typed tool `{"type": "computer_20250124", "name": "computer", …}` |
/// | MCP `tools/list` result | `{"tools": [{"name", "description", "inputSchema"}]}` (bare, or as a JSON-RPC response's `result`) |
///
/// A bare array, or an object with a `tools` array (a request body, an
/// MCP result) are both read.
///
/// Anthropic's typed tools (`computer_…`, `bash_…`, `text_editor_…`) carry
/// no schema: Anthropic gets them unchanged, and other providers get a
/// plain function with the input schema Anthropic documents for them
/// (held in the crate); a typed tool with no documented input (web search, code
/// execution, …) cannot be declared elsewhere and is refused by name.
///
/// # Example
///
/// ```
/// use tool_carrier::provider::Tools;
///
/// let tools = Tools::from_json(r#"{"tools": [
///     {"name": "screenshot", "description": "Capture a page.",
///      "inputSchema": {"type": "object", "properties": {"page": {"type": "string"}}}}
/// ]}"#)?;
/// assert_eq!(tools.len(), 1);
/// assert_eq!(tools.get("screenshot").unwrap().description(), Some("Capture a page."));
///
/// let err = Tools::from_json(r#"[{"type": "function", "function": {"description": "no name"}}]"#).unwrap_err();
/// assert_eq!(err.to_string(), "tool definition 0: `function.name` is missing or not a string");
/// # Ok::<(), tool_carrier::provider::ToolsError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tools {
    tools: Vec<Tool>,
}

impl Tools {
    /// No tools.
    pub fn new() -> Tools {
        Tools::default()
    }

    /// Read definitions from JSON text in any of the shapes of the
    /// [`Tools`] docs.
    ///
    /// # Errors
    /// JSON that does not parse, a top level that is neither an array nor
    /// an object with a `tools` array, an item of no known shape (with its
    /// index and what is missing), and two tools of one name.
    pub fn from_json(text: &str) -> Result<Tools, ToolsError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ToolsError::new(None, ToolsErrorKind::Json(e.to_string())))?;
        Tools::from_value(&value)
    }

    /// Read definitions from a parsed JSON value; see [`Tools::from_json`].
    ///
    /// # Errors
    /// As [`Tools::from_json`], less the JSON syntax.
    pub fn from_value(value: &Value) -> Result<Tools, ToolsError> {
        let items = match value {
            Value::Array(items) => items,
            Value::Object(map) => match tools_array(map) {
                Some(items) => items,
                None => return Err(ToolsError::new(None, ToolsErrorKind::NoToolsArray)),
            },
            _ => return Err(ToolsError::new(None, ToolsErrorKind::NoToolsArray)),
        };
        let mut tools = Tools::new();
        for (index, item) in items.iter().enumerate() {
            let tool = read_item(item).map_err(|kind| {
                let err = ToolsError::new(Some(index), kind);
                match item.as_object().and_then(item_name) {
                    Some(name) => err.named(name),
                    None => err,
                }
            })?;
            tools.push(tool).map_err(|e| ToolsError {
                index: Some(index),
                ..e
            })?;
        }
        Ok(tools)
    }

    /// Add a tool.
    ///
    /// # Errors
    /// [`ToolsErrorKind::Duplicate`] when a tool of that name is there.
    pub fn push(&mut self, tool: Tool) -> Result<(), ToolsError> {
        if self.get(&tool.name).is_some() {
            return Err(ToolsError::new(None, ToolsErrorKind::Duplicate).named(&tool.name));
        }
        self.tools.push(tool);
        Ok(())
    }

    /// The tool of this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The tools, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Tool> {
        self.tools.iter()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl<'a> IntoIterator for &'a Tools {
    type Item = &'a Tool;
    type IntoIter = std::slice::Iter<'a, Tool>;
    fn into_iter(self) -> Self::IntoIter {
        self.tools.iter()
    }
}

/// The `tools` array of an object: a request body, an MCP `tools/list`
/// result, or a JSON-RPC response holding one.
fn tools_array(map: &Map<String, Value>) -> Option<&Vec<Value>> {
    match map.get("tools") {
        Some(Value::Array(items)) => Some(items),
        Some(_) => None,
        None => match map.get("result") {
            Some(Value::Object(result)) => tools_array(result),
            _ => None,
        },
    }
}

/// The name an item gives itself, wherever its shape puts it (for errors).
fn item_name(item: &Map<String, Value>) -> Option<&str> {
    item.get("name")
        .or_else(|| item.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty())
}

fn read_item(item: &Value) -> Result<Tool, ToolsErrorKind> {
    let Value::Object(item) = item else {
        return Err(ToolsErrorKind::NotAnObject);
    };
    let ty = item.get("type").and_then(Value::as_str);
    // OpenAI Chat: the function nested one level down.
    if let Some(function) = item.get("function") {
        if ty != Some("function") {
            return Err(ToolsErrorKind::Member(
                "type",
                "\"function\" beside `function`",
            ));
        }
        let Value::Object(function) = function else {
            return Err(ToolsErrorKind::Member("function", "an object"));
        };
        let name = string(function, "name", "function.name")?;
        let description = optional_string(function, "description", "function.description")?;
        let schema = schema(function, "parameters", "function.parameters", true)?;
        return Ok(Tool {
            name,
            description,
            shape: Shape::OpenAiChat,
            kind: Kind::Function { schema },
        });
    }
    match ty {
        // OpenAI Responses: flat, with `parameters`.
        Some("function") => {
            let name = string(item, "name", "name")?;
            let description = optional_string(item, "description", "description")?;
            let schema = schema(item, "parameters", "parameters", true)?;
            Ok(Tool {
                name,
                description,
                shape: Shape::OpenAiResponses,
                kind: Kind::Function { schema },
            })
        }
        // Anthropic's custom tools may say so.
        Some("custom") | None if item.contains_key("input_schema") => {
            let name = string(item, "name", "name")?;
            let description = optional_string(item, "description", "description")?;
            let schema = schema(item, "input_schema", "input_schema", false)?;
            Ok(Tool {
                name,
                description,
                shape: Shape::Anthropic,
                kind: Kind::Function { schema },
            })
        }
        None if item.contains_key("inputSchema") => {
            let name = string(item, "name", "name")?;
            let description = optional_string(item, "description", "description")?;
            let schema = schema(item, "inputSchema", "inputSchema", false)?;
            Ok(Tool {
                name,
                description,
                shape: Shape::Mcp,
                kind: Kind::Function { schema },
            })
        }
        None => Err(ToolsErrorKind::UnknownShape),
        Some(other) if typed::lookup(other).is_none() && !looks_typed(other) => {
            Err(ToolsErrorKind::UnknownShape)
        }
        Some(other) => {
            // A toolset (`computer_toolset_…`) has no name of its own:
            // its type stands for it.
            let name = match item.get("name") {
                None => other.to_owned(),
                Some(_) => string(item, "name", "name")?,
            };
            Ok(Tool {
                name,
                description: None,
                shape: Shape::AnthropicTyped,
                kind: Kind::Typed {
                    definition: item.clone(),
                    known: typed::lookup(other),
                },
            })
        }
    }
}

/// Whether a `type` has the shape of an Anthropic tool version
/// (`web_search_20250305`, `computer_toolset_20260801`): words, then an
/// eight-digit date. Other types (OpenAI's `web_search_preview`,
/// `file_search`, `custom`) are no Anthropic typed tools.
fn looks_typed(ty: &str) -> bool {
    match ty.rsplit_once('_') {
        Some((words, date)) => {
            !words.is_empty()
                && words.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && date.len() == 8
                && date.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

fn string(
    map: &Map<String, Value>,
    key: &str,
    path: &'static str,
) -> Result<String, ToolsErrorKind> {
    match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(ToolsErrorKind::EmptyName),
        _ => Err(ToolsErrorKind::Missing(path)),
    }
}

fn optional_string(
    map: &Map<String, Value>,
    key: &str,
    path: &'static str,
) -> Result<Option<String>, ToolsErrorKind> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ToolsErrorKind::Member(path, "a string")),
    }
}

/// A schema member. OpenAI lets `parameters` be left out (a function
/// with no input); Anthropic and MCP require theirs.
fn schema(
    map: &Map<String, Value>,
    key: &str,
    path: &'static str,
    optional: bool,
) -> Result<Map<String, Value>, ToolsErrorKind> {
    match map.get(key) {
        Some(Value::Object(schema)) => Ok(schema.clone()),
        None | Some(Value::Null) if optional => {
            let mut schema = Map::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), Value::Object(Map::new()));
            Ok(schema)
        }
        None => Err(ToolsErrorKind::Missing(path)),
        Some(_) => Err(ToolsErrorKind::Member(path, "a JSON Schema object")),
    }
}

/// A tool definition that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct ToolsError {
    index: Option<usize>,
    name: Option<String>,
    kind: ToolsErrorKind,
}

impl ToolsError {
    fn new(index: Option<usize>, kind: ToolsErrorKind) -> ToolsError {
        ToolsError {
            index,
            name: None,
            kind,
        }
    }

    fn named(mut self, name: &str) -> ToolsError {
        self.name = Some(name.to_owned());
        self
    }

    /// The index of the item in the array, when an item is at fault.
    pub fn index(&self) -> Option<usize> {
        self.index
    }

    /// The tool's name, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// What is wrong.
    pub fn kind(&self) -> &ToolsErrorKind {
        &self.kind
    }
}

impl fmt::Display for ToolsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.index, &self.name) {
            (Some(i), Some(name)) => write!(f, "tool definition {i} ({name}): ")?,
            (Some(i), None) => write!(f, "tool definition {i}: ")?,
            (None, Some(name)) => write!(f, "tool {name}: ")?,
            (None, None) => f.write_str("tool definitions: ")?,
        }
        write!(f, "{}", self.kind)
    }
}

/// What is wrong with a tool definition.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ToolsErrorKind {
    /// Not JSON.
    #[error("not JSON: {0}")]
    Json(String),
    /// The top level is neither an array nor an object with a `tools` array.
    #[error("expected an array of tools, or an object with a `tools` array (a request body or an MCP tools/list result)")]
    NoToolsArray,
    /// An item is not a JSON object.
    #[error("not a JSON object")]
    NotAnObject,
    /// An item matches no known shape.
    #[error("not a tool definition of a known shape (OpenAI Chat `function`, OpenAI Responses `type: function`, Anthropic `input_schema` or typed `type`, MCP `inputSchema`)")]
    UnknownShape,
    /// A required member is absent or not a string.
    #[error("`{0}` is missing or not a string")]
    Missing(&'static str),
    /// A member has the wrong type.
    #[error("`{0}` must be {1}")]
    Member(&'static str, &'static str),
    /// An empty name.
    #[error("the name is empty")]
    EmptyName,
    /// Two tools of one name.
    #[error("defined twice")]
    Duplicate,
    /// The schema cannot be used.
    #[error("{0}")]
    Schema(&'static str),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(v: Value) -> Tool {
        let tools = Tools::from_value(&json!([v])).unwrap();
        tools.iter().next().unwrap().clone()
    }

    #[test]
    fn each_shape_is_told_apart() {
        let chat = one(
            json!({"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}),
        );
        assert_eq!(chat.shape(), Shape::OpenAiChat);
        let responses =
            one(json!({"type": "function", "name": "a", "parameters": {"type": "object"}}));
        assert_eq!(responses.shape(), Shape::OpenAiResponses);
        let anthropic = one(json!({"name": "a", "input_schema": {"type": "object"}}));
        assert_eq!(anthropic.shape(), Shape::Anthropic);
        let custom =
            one(json!({"type": "custom", "name": "a", "input_schema": {"type": "object"}}));
        assert_eq!(custom.shape(), Shape::Anthropic);
        let mcp = one(json!({"name": "a", "inputSchema": {"type": "object"}}));
        assert_eq!(mcp.shape(), Shape::Mcp);
        let typed = one(json!({"type": "bash_20250124", "name": "bash"}));
        assert_eq!(typed.shape(), Shape::AnthropicTyped);
        assert_eq!(typed.typed_as(), Some("bash_20250124"));
        for t in [chat, responses, anthropic, custom, mcp] {
            assert_eq!(t.input_schema(), Some(json!({"type": "object"})));
        }
    }

    #[test]
    fn only_anthropic_versioned_types_are_typed_tools() {
        for ty in [
            "web_search_preview",
            "file_search",
            "mcp",
            "custom",
            "code_interpreter",
        ] {
            let e = Tools::from_value(&json!([{"type": ty, "name": "x"}])).unwrap_err();
            assert_eq!(e.kind(), &ToolsErrorKind::UnknownShape, "{ty}");
        }
        for ty in [
            "web_search_20250305",
            "computer_toolset_20260801",
            "memory_20250818",
        ] {
            let t = one(json!({"type": ty, "name": "x"}));
            assert_eq!(t.shape(), Shape::AnthropicTyped, "{ty}");
        }
    }

    #[test]
    fn wrappers_are_read() {
        let item = json!({"name": "a", "inputSchema": {"type": "object"}});
        for wrapped in [
            json!({"tools": [item]}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [item]}}),
            json!({"model": "m", "messages": [], "tools": [item]}),
        ] {
            assert_eq!(Tools::from_value(&wrapped).unwrap().len(), 1);
        }
        for bad in [
            json!({"tools": {}}),
            json!({"x": 1}),
            json!("tools"),
            json!(3),
        ] {
            let e = Tools::from_value(&bad).unwrap_err();
            assert_eq!(e.kind(), &ToolsErrorKind::NoToolsArray, "{bad}");
        }
    }

    #[test]
    fn openai_parameters_may_be_left_out() {
        let t = one(json!({"type": "function", "function": {"name": "now"}}));
        assert_eq!(
            t.input_schema(),
            Some(json!({"type": "object", "properties": {}}))
        );
        let e = Tools::from_value(&json!([{"name": "a"}])).unwrap_err();
        assert_eq!(e.kind(), &ToolsErrorKind::UnknownShape);
        assert_eq!(
            e.to_string().split(':').next(),
            Some("tool definition 0 (a)")
        );
    }

    #[test]
    fn errors_name_the_item_and_the_member() {
        let cases = [
            (json!([1]), "tool definition 0: not a JSON object"),
            (
                json!([{"type": "tool", "function": {"name": "f"}}]),
                "tool definition 0 (f): `type` must be \"function\" beside `function`",
            ),
            (
                json!([{"type": "function", "name": "f", "parameters": "{}"}]),
                "tool definition 0 (f): `parameters` must be a JSON Schema object",
            ),
            (
                json!([{"name": "f", "input_schema": {"type": "object"}, "description": 3}]),
                "tool definition 0 (f): `description` must be a string",
            ),
            (
                json!([{"name": "", "inputSchema": {}}]),
                "tool definition 0: the name is empty",
            ),
            (
                json!([{"name": "f", "inputSchema": {}}, {"name": "f", "inputSchema": {}}]),
                "tool definition 1 (f): defined twice",
            ),
        ];
        for (input, message) in cases {
            let e = Tools::from_value(&input).unwrap_err();
            assert_eq!(e.to_string(), message, "{input}");
        }
        let e = Tools::from_json("[").unwrap_err();
        assert!(
            e.to_string().starts_with("tool definitions: not JSON: "),
            "{e}"
        );
    }
}
