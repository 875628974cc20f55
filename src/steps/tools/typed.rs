//! Anthropic's typed tools: what is documented of each `type`.
//!
//! Anthropic defines tools whose schema is built into the model: a
//! definition names only the `type` (and a fixed `name`). For a provider
//! that takes no such tools, the crate declares a plain function with the
//! input Anthropic documents for that tool, so the calls in a history
//! (which are where most screenshots come from) stay declared. The input
//! schemas below are written from Anthropic's tool pages, read 2026-12-01:
//!
//! * bash: <https://platform.claude.com/docs/en/agents-and-tools/tool-use/bash-tool> ("Parameters")
//! * text editor: <https://platform.claude.com/docs/en/agents-and-tools/tool-use/text-editor-tool> ("Text editor tool commands", "Change log")
//! * computer use: <https://platform.claude.com/docs/en/agents-and-tools/tool-use/computer-use-tool> ("Available actions", "Earlier tool versions")
//!
//! Typed tools Anthropic documents no input for (web search, web fetch,
//! code execution, memory, tool search, …) are recognised by their type's
//! absence here and cannot be declared for another provider.

use serde_json::{json, Map, Value};

/// What is known of one Anthropic typed tool version.
#[derive(Debug)]
pub struct TypedTool {
    /// The `type`, e.g. `bash_20250124`.
    pub tool_type: &'static str,
    /// The fixed `name` its calls carry.
    pub name: &'static str,
    /// The `anthropic-beta` header a request declaring it needs, if any.
    pub beta: Option<&'static str>,
    /// A description for the plain function declared elsewhere.
    pub description: &'static str,
    input: fn() -> Value,
}

impl PartialEq for TypedTool {
    fn eq(&self, other: &TypedTool) -> bool {
        self.tool_type == other.tool_type
    }
}

impl Eq for TypedTool {}

impl TypedTool {
    /// The documented input schema (an object schema), for declaring it
    /// as a plain function.
    pub fn input_schema(&self) -> Map<String, Value> {
        match (self.input)() {
            Value::Object(schema) => schema,
            _ => unreachable!("every schema in the table is written as an object"),
        }
    }
}

const BASH: &str = "Run a command in a persistent bash shell; `restart` starts a new session.";
const EDITOR: &str =
    "View, create and edit text files: `command` is view, create, str_replace or insert.";
const EDITOR_UNDO: &str =
    "View, create and edit text files: `command` is view, create, str_replace, insert or undo_edit.";
const COMPUTER: &str = "Control the computer's display, mouse and keyboard: `action` says what to do; coordinates are screenshot pixels.";

/// Every typed tool version with a documented input, oldest first within
/// each tool.
pub static TYPED_TOOLS: &[TypedTool] = &[
    TypedTool {
        tool_type: "bash_20241022",
        name: "bash",
        beta: Some("computer-use-2024-10-22"),
        description: BASH,
        input: bash,
    },
    TypedTool {
        tool_type: "bash_20250124",
        name: "bash",
        beta: None,
        description: BASH,
        input: bash,
    },
    TypedTool {
        tool_type: "text_editor_20241022",
        name: "str_replace_editor",
        beta: Some("computer-use-2024-10-22"),
        description: EDITOR_UNDO,
        input: editor_with_undo,
    },
    TypedTool {
        tool_type: "text_editor_20250124",
        name: "str_replace_editor",
        beta: None,
        description: EDITOR_UNDO,
        input: editor_with_undo,
    },
    TypedTool {
        tool_type: "text_editor_20250429",
        name: "str_replace_based_edit_tool",
        beta: None,
        description: EDITOR,
        input: editor,
    },
    TypedTool {
        tool_type: "text_editor_20250728",
        name: "str_replace_based_edit_tool",
        beta: None,
        description: EDITOR,
        input: editor,
    },
    TypedTool {
        tool_type: "computer_20241022",
        name: "computer",
        beta: Some("computer-use-2024-10-22"),
        description: COMPUTER,
        input: computer_20241022,
    },
    TypedTool {
        tool_type: "computer_20250124",
        name: "computer",
        beta: Some("computer-use-2025-01-24"),
        description: COMPUTER,
        input: computer_20250124,
    },
    TypedTool {
        tool_type: "computer_20251124",
        name: "computer",
        beta: Some("computer-use-2025-11-24"),
        description: COMPUTER,
        input: computer_20251124,
    },
];

/// What is known of `tool_type`.
pub fn lookup(tool_type: &str) -> Option<&'static TypedTool> {
    TYPED_TOOLS.iter().find(|t| t.tool_type == tool_type)
}

fn bash() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The bash command to run (required unless restart is true)."},
            "restart": {"type": "boolean", "description": "Set to true to restart the bash session."}
        }
    })
}

fn editor_schema(commands: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": commands},
            "path": {"type": "string", "description": "The file or directory to act on."},
            "view_range": {
                "type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                "description": "view: first and last line (1-based; -1 reads to the end)."
            },
            "old_str": {"type": "string", "description": "str_replace: the exact text to replace."},
            "new_str": {"type": "string", "description": "str_replace: the text to put in its place."},
            "file_text": {"type": "string", "description": "create: the new file's content."},
            "insert_line": {"type": "integer", "description": "insert: the line after which to insert (0 for the start)."},
            "insert_text": {"type": "string", "description": "insert: the text to insert."}
        },
        "required": ["command", "path"]
    })
}

fn editor() -> Value {
    editor_schema(&["view", "create", "str_replace", "insert"])
}

fn editor_with_undo() -> Value {
    editor_schema(&["view", "create", "str_replace", "insert", "undo_edit"])
}

const ACTIONS_20241022: &[&str] = &[
    "key",
    "type",
    "mouse_move",
    "left_click",
    "left_click_drag",
    "right_click",
    "middle_click",
    "double_click",
    "screenshot",
    "cursor_position",
];
const ACTIONS_20250124: &[&str] = &[
    "scroll",
    "triple_click",
    "left_mouse_down",
    "left_mouse_up",
    "hold_key",
    "wait",
];

fn computer_schema(actions: &[&str], zoom: bool) -> Value {
    let xy = json!({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2});
    let mut schema = json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": actions},
            "coordinate": xy,
            "start_coordinate": xy,
            "text": {"type": "string", "description": "Text to type, a key or key combination, or modifier keys held during a click or scroll."}
        },
        "required": ["action"]
    });
    if actions.contains(&"scroll") {
        let p = &mut schema["properties"];
        p["scroll_direction"] = json!({"type": "string", "enum": ["up", "down", "left", "right"]});
        p["scroll_amount"] = json!({"type": "integer", "minimum": 0});
        p["duration"] = json!({"type": "number", "minimum": 0, "maximum": 100});
    }
    if zoom {
        schema["properties"]["region"] =
            json!({"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4});
    }
    schema
}

fn computer_20241022() -> Value {
    computer_schema(ACTIONS_20241022, false)
}

fn computer_20250124() -> Value {
    let actions: Vec<&str> = ACTIONS_20241022
        .iter()
        .chain(ACTIONS_20250124)
        .copied()
        .collect();
    computer_schema(&actions, false)
}

fn computer_20251124() -> Value {
    let mut actions: Vec<&str> = ACTIONS_20241022
        .iter()
        .chain(ACTIONS_20250124)
        .copied()
        .collect();
    actions.push("zoom");
    computer_schema(&actions, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_schema_is_an_object_schema_with_its_fixed_name() {
        for t in TYPED_TOOLS {
            let s = t.input_schema();
            assert_eq!(s["type"], "object", "{}", t.tool_type);
            assert!(s["properties"].is_object(), "{}", t.tool_type);
            assert!(
                t.tool_type.starts_with(t.name.split('_').next().unwrap())
                    || t.name.starts_with("str_replace")
            );
        }
        assert_eq!(lookup("bash_20250124").unwrap().name, "bash");
        assert!(lookup("web_search_20250305").is_none());
    }

    #[test]
    fn later_versions_add_actions_and_drop_undo() {
        let actions = |t: &str| {
            lookup(t).unwrap().input_schema()["properties"]["action"]["enum"]
                .as_array()
                .unwrap()
                .len()
        };
        assert_eq!(actions("computer_20241022"), 10);
        assert_eq!(actions("computer_20250124"), 16);
        assert_eq!(actions("computer_20251124"), 17);
        let commands =
            |t: &str| lookup(t).unwrap().input_schema()["properties"]["command"]["enum"].clone();
        assert!(commands("text_editor_20250124")
            .as_array()
            .unwrap()
            .contains(&json!("undo_edit")));
        assert!(!commands("text_editor_20250728")
            .as_array()
            .unwrap()
            .contains(&json!("undo_edit")));
    }
}
