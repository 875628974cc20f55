//! What an OpenAI-compatible server takes: a [`Profile`].
//!
//! vLLM, llama.cpp's server, LM Studio, Mistral, Groq and the rest speak
//! the Chat Completions shape but differ exactly where tool results with
//! images matter: whether they take images at all, whether an image may
//! sit inside a `tool` message, whether a `user` message may follow a
//! `tool` message, which image types, how many bytes. A profile states
//! those facts for one server; [`Provider::OpenAiCompatible`](super::Provider::OpenAiCompatible)
//! builds a Chat Completions body that keeps them
//! ([`Options::with_profile`](super::Options::with_profile)).
//!
//! The built-in profiles ([`Profile::builtin`]) say where each fact comes
//! from. A profile of one's own is read from JSON ([`Profile::from_json`])
//! or from any serde value ([`Profile::from_value`]; the command reads TOML
//! that way). Every key is optional: a key left out takes the value of
//! [`Profile::generic`], the choice every documented server accepts.
//!
//! ```
//! use tool_carrier::facts::Profile;
//!
//! let p = Profile::from_json(r#"{"name": "my-server", "vision": false, "max_images": 4}"#)?;
//! assert!(!p.vision);
//! assert_eq!(p.max_images, Some(4));
//! // Everything else is the generic choice.
//! assert!(!p.user_after_tool);
//!
//! let err = Profile::from_json(r#"{"visoin": false}"#).unwrap_err();
//! assert_eq!(err.key(), Some("visoin"));
//! assert!(err.to_string().starts_with("profile key `visoin`: unknown key"));
//! # Ok::<(), tool_carrier::facts::ProfileError>(())
//! ```

use std::fmt;

use serde_json::{Map, Value};

use crate::media::{Budget, Measure, MediaType};

/// What one OpenAI-compatible server takes. The fields are the keys of a
/// profile file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Profile {
    /// The profile's name, shown in the report.
    pub name: String,
    /// The API's base URL; requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The model named when none is given.
    pub default_model: String,
    /// Whether the server takes `tools` and `tool_calls` at all. When it
    /// does not, tool calls are written as the assistant's text and tool
    /// results as user messages.
    pub tools: bool,
    /// Whether the server takes images (`image_url` parts) at all; PDFs
    /// are [`Profile::pdf`]'s.
    pub vision: bool,
    /// Whether images (and PDFs) may sit inside `tool` messages; else they
    /// go in one `user` message after the batch.
    pub images_in_tool_messages: bool,
    /// Whether a `user` message may follow a `tool` message directly; else
    /// a short assistant message, `(tool results received)`, goes between
    /// them.
    pub user_after_tool: bool,
    /// The image types sent as they are; any other image is sent as PNG
    /// (or JPEG, when PNG is not listed). A profile file must list PNG or
    /// JPEG; a list with neither sends no images.
    pub image_types: Vec<MediaType>,
    /// Whether images may be sent as `http(s)` URLs; else only inline.
    pub image_urls: bool,
    /// Whether PDFs may be sent as `file` parts.
    pub pdf: bool,
    /// The largest image, in bytes as [`Profile::measure`] counts them.
    pub max_image_bytes: Option<u64>,
    /// The most image (and PDF) bytes in one request, counted the same way.
    pub max_request_image_bytes: Option<u64>,
    /// The most images in one request.
    pub max_images: Option<u64>,
    /// The largest width or height of an image (at least 16).
    pub max_dim: Option<u32>,
    /// The most tools one request may declare (Azure OpenAI: 128); a
    /// request declaring more is refused by the rules, as the server
    /// would.
    pub max_tools: Option<u64>,
    /// How the byte caps are measured: on the base64 text or the raw bytes.
    pub measure: Measure,
    /// What tool-call ids must look like.
    pub tool_call_ids: IdRule,
}

/// The assistant message put between a `tool` message and a `user`
/// message for servers that refuse a user message right after a tool
/// message (fixed, so the same history gives the same bytes).
pub const BRIDGE: &str = "(tool results received)";

/// What tool-call ids must look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IdRule {
    /// Any string (kept, made unique).
    Any,
    /// At most 40 characters (OpenAI's own limit).
    Max40,
    /// Exactly 9 characters of `a-z`, `A-Z`, `0-9` (Mistral).
    Alphanumeric9,
}

impl IdRule {
    /// The names a profile file takes, in order.
    pub const NAMES: [&'static str; 3] = ["any", "max-40", "alphanumeric-9"];

    /// Its name in a profile file.
    pub fn name(self) -> &'static str {
        match self {
            IdRule::Any => "any",
            IdRule::Max40 => "max-40",
            IdRule::Alphanumeric9 => "alphanumeric-9",
        }
    }

    /// Whether `id` keeps the rule.
    pub fn allows(self, id: &str) -> bool {
        match self {
            IdRule::Any => true,
            IdRule::Max40 => id.chars().count() <= 40,
            IdRule::Alphanumeric9 => id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
        }
    }
}

/// A profile that could not be read: the key, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileError {
    key: Option<String>,
    message: String,
}

impl ProfileError {
    fn at(key: &str, message: impl Into<String>) -> ProfileError {
        ProfileError {
            key: Some(key.to_owned()),
            message: message.into(),
        }
    }

    fn whole(message: impl Into<String>) -> ProfileError {
        ProfileError {
            key: None,
            message: message.into(),
        }
    }

    /// The key at fault, when one is.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "profile key `{key}`: {}", self.message),
            None => write!(f, "profile: {}", self.message),
        }
    }
}

impl std::error::Error for ProfileError {}

/// What a JSON value is, for error messages.
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "a table".into(),
    }
}

impl Profile {
    /// The keys of a profile, in the order of [`Profile`]'s fields.
    pub const KEYS: [&str; 18] = [
        "name",
        "base_url",
        "default_model",
        "tools",
        "vision",
        "images_in_tool_messages",
        "user_after_tool",
        "image_types",
        "image_urls",
        "pdf",
        "max_image_bytes",
        "max_request_image_bytes",
        "max_images",
        "max_dim",
        "max_tools",
        "measure",
        "tool_call_ids",
        // Accepted and ignored: where a fact in the file comes from.
        "sources",
    ];

    /// The byte budget each attachment is prepared for: the server's
    /// largest image, measured as it counts.
    ///
    /// ```
    /// use tool_carrier::facts::Profile;
    /// use tool_carrier::media::{Budget, Measure};
    /// assert_eq!(Profile::generic().budget(), Budget::new(20_000_000, Measure::Raw));
    /// ```
    pub fn budget(&self) -> Budget {
        let at_most = self
            .max_image_bytes
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        Budget::new(at_most, self.measure)
    }

    /// The choice every documented server accepts, for a server that
    /// documents nothing: tools; images (PNG and JPEG, inline) in a `user`
    /// message after the results, with the bridge message before it; no
    /// PDFs; OpenAI's 20 MB per image; ids of at most 40 characters.
    pub fn generic() -> Profile {
        Profile {
            name: "generic".into(),
            base_url: "http://localhost:8000/v1".into(),
            default_model: "default".into(),
            tools: true,
            vision: true,
            images_in_tool_messages: false,
            user_after_tool: false,
            image_types: vec![MediaType::Png, MediaType::Jpeg],
            image_urls: false,
            pdf: false,
            max_image_bytes: Some(20_000_000),
            max_request_image_bytes: None,
            max_images: None,
            max_dim: None,
            max_tools: None,
            measure: Measure::Raw,
            tool_call_ids: IdRule::Max40,
        }
    }

    /// Read a profile from JSON text (an object of [`Profile::KEYS`]).
    ///
    /// # Errors
    /// The text is not JSON, or [`Profile::from_value`] refuses it.
    pub fn from_json(text: &str) -> Result<Profile, ProfileError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ProfileError::whole(format!("not JSON: {e}")))?;
        Profile::from_value(&value)
    }

    /// Read a profile from an object of [`Profile::KEYS`]; a key left out keeps
    /// [`Profile::generic`]'s value, `null` clears an optional cap.
    ///
    /// # Errors
    /// Not an object, an unknown key, or a value of the wrong kind: the
    /// error names the key and what it takes.
    pub fn from_value(value: &Value) -> Result<Profile, ProfileError> {
        let Value::Object(map) = value else {
            return Err(ProfileError::whole(format!(
                "expected a table of keys, found {}",
                kind(value)
            )));
        };
        let mut p = Profile::generic();
        p.apply(map)?;
        Ok(p)
    }

    fn apply(&mut self, map: &Map<String, Value>) -> Result<(), ProfileError> {
        for (key, v) in map {
            let k = key.as_str();
            match k {
                "name" => self.name = text(k, v)?,
                "base_url" => self.set_base_url(&text(k, v)?)?,
                "default_model" => self.default_model = text(k, v)?,
                "tools" => self.tools = flag(k, v)?,
                "vision" => self.vision = flag(k, v)?,
                "images_in_tool_messages" => self.images_in_tool_messages = flag(k, v)?,
                "user_after_tool" => self.user_after_tool = flag(k, v)?,
                "image_types" => self.image_types = image_types(k, v)?,
                "image_urls" => self.image_urls = flag(k, v)?,
                "pdf" => self.pdf = flag(k, v)?,
                "max_image_bytes" => self.max_image_bytes = cap(k, v)?,
                "max_request_image_bytes" => self.max_request_image_bytes = cap(k, v)?,
                "max_images" => self.max_images = cap(k, v)?,
                "max_tools" => self.max_tools = cap(k, v)?,
                "max_dim" => {
                    self.max_dim = cap(k, v)?
                        .map(|n| {
                            u32::try_from(n)
                                .ok()
                                .filter(|n| (16..=65_535).contains(n))
                                .ok_or_else(|| {
                                    ProfileError::at(
                                        k,
                                        format!("expected 16 to 65535 pixels (or null or false for none), found {n}"),
                                    )
                                })
                        })
                        .transpose()?
                }
                "measure" => {
                    self.measure = match v.as_str() {
                        Some("base64") => Measure::Base64,
                        Some("raw") => Measure::Raw,
                        _ => {
                            return Err(ProfileError::at(
                                k,
                                format!("expected \"base64\" or \"raw\", found {}", kind(v)),
                            ))
                        }
                    }
                }
                "tool_call_ids" => {
                    let name = v.as_str();
                    self.tool_call_ids = [IdRule::Any, IdRule::Max40, IdRule::Alphanumeric9]
                        .into_iter()
                        .find(|r| Some(r.name()) == name)
                        .ok_or_else(|| {
                            ProfileError::at(
                                k,
                                format!(
                                    "expected one of {}, found {}",
                                    IdRule::NAMES.map(|n| format!("{n:?}")).join(", "),
                                    kind(v)
                                ),
                            )
                        })?;
                }
                "sources" => {}
                _ => {
                    return Err(ProfileError::at(
                        k,
                        format!("unknown key (the keys are: {})", Profile::KEYS.join(", ")),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The profile as JSON, every key written: what [`Profile::from_value`]
    /// reads back as the same profile.
    pub fn to_value(&self) -> Value {
        let cap = |c: Option<u64>| c.map_or(Value::Null, Value::from);
        serde_json::json!({
            "name": self.name,
            "base_url": self.base_url,
            "default_model": self.default_model,
            "tools": self.tools,
            "vision": self.vision,
            "images_in_tool_messages": self.images_in_tool_messages,
            "user_after_tool": self.user_after_tool,
            "image_types": self.image_types.iter().map(|t| type_name(*t)).collect::<Vec<_>>(),
            "image_urls": self.image_urls,
            "pdf": self.pdf,
            "max_image_bytes": cap(self.max_image_bytes),
            "max_request_image_bytes": cap(self.max_request_image_bytes),
            "max_images": cap(self.max_images),
            "max_dim": cap(self.max_dim.map(u64::from)),
            "max_tools": cap(self.max_tools),
            "measure": self.measure.to_string(),
            "tool_call_ids": self.tool_call_ids.name(),
        })
    }

    /// Set [`Profile::base_url`] (a final `/` dropped).
    ///
    /// # Errors
    /// `url` is not `http://` or `https://` and a host.
    pub fn set_base_url(&mut self, url: &str) -> Result<(), ProfileError> {
        let trimmed = url.trim_end_matches('/');
        let host = trimmed
            .strip_prefix("http://")
            .or_else(|| trimmed.strip_prefix("https://"));
        if host.is_none_or(|h| h.is_empty() || h.starts_with('/')) {
            return Err(ProfileError::at(
                "base_url",
                format!("expected an http:// or https:// URL with a host, found {url:?}"),
            ));
        }
        self.base_url = trimmed.to_owned();
        Ok(())
    }

    /// Whether an image can be written in a listed type: images the
    /// pipeline re-encodes come out as PNG or JPEG, so a list with neither
    /// sends no images.
    pub fn writes_images(&self) -> bool {
        self.image_types
            .iter()
            .any(|t| matches!(t, MediaType::Png | MediaType::Jpeg))
    }

    /// The endpoint requests go to.
    pub fn url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

impl Default for Profile {
    fn default() -> Profile {
        Profile::generic()
    }
}

/// The image types a profile may list, by their names there.
const TYPES: [(&str, MediaType); 4] = [
    ("png", MediaType::Png),
    ("jpeg", MediaType::Jpeg),
    ("webp", MediaType::Webp),
    ("gif", MediaType::Gif),
];

fn type_name(t: MediaType) -> &'static str {
    TYPES
        .iter()
        .find(|(_, m)| *m == t)
        .map_or("png", |(n, _)| n)
}

fn text(key: &str, v: &Value) -> Result<String, ProfileError> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| ProfileError::at(key, format!("expected a string, found {}", kind(v))))
}

fn flag(key: &str, v: &Value) -> Result<bool, ProfileError> {
    v.as_bool()
        .ok_or_else(|| ProfileError::at(key, format!("expected true or false, found {}", kind(v))))
}

fn cap(key: &str, v: &Value) -> Result<Option<u64>, ProfileError> {
    match v {
        // `false` for TOML, which has no null.
        Value::Null | Value::Bool(false) => Ok(None),
        _ => v.as_u64().map(Some).ok_or_else(|| {
            ProfileError::at(
                key,
                format!(
                    "expected a whole number of at least 0 (or null or false for none), found {}",
                    kind(v)
                ),
            )
        }),
    }
}

fn image_types(key: &str, v: &Value) -> Result<Vec<MediaType>, ProfileError> {
    let names = || TYPES.map(|(n, _)| format!("{n:?}")).join(", ");
    let Value::Array(items) = v else {
        return Err(ProfileError::at(
            key,
            format!("expected a list of {}, found {}", names(), kind(v)),
        ));
    };
    let mut out = Vec::new();
    for item in items {
        let t = TYPES
            .iter()
            .find(|(n, _)| Some(*n) == item.as_str())
            .map(|(_, t)| *t)
            .ok_or_else(|| {
                ProfileError::at(
                    key,
                    format!("expected one of {}, found {}", names(), kind(item)),
                )
            })?;
        if !out.contains(&t) {
            out.push(t);
        }
    }
    if !out
        .iter()
        .any(|t| matches!(t, MediaType::Png | MediaType::Jpeg))
    {
        return Err(ProfileError::at(
            key,
            "expected \"png\" or \"jpeg\" among the types: re-encoded images are written as one of them (for no images, vision = false)",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_back_what_to_value_writes() {
        let mut p = Profile::generic();
        p.name = "x".into();
        p.tools = false;
        p.image_types = vec![MediaType::Webp, MediaType::Jpeg];
        p.max_images = Some(3);
        p.max_dim = Some(4096);
        p.measure = Measure::Base64;
        p.tool_call_ids = IdRule::Alphanumeric9;
        assert_eq!(Profile::from_value(&p.to_value()).unwrap(), p);
        let keys: Vec<String> = p.to_value().as_object().unwrap().keys().cloned().collect();
        let mut want: Vec<&str> = Profile::KEYS[..Profile::KEYS.len() - 1].to_vec();
        want.sort_unstable();
        assert_eq!(keys, want);
    }

    #[test]
    fn errors_name_the_key_and_what_it_takes() {
        let err = |text: &str| Profile::from_json(text).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"vision": "yes"}"#),
            "profile key `vision`: expected true or false, found the string \"yes\""
        );
        assert_eq!(
            err(r#"{"max_images": -1}"#),
            "profile key `max_images`: expected a whole number of at least 0 (or null or false for none), found -1"
        );
        assert_eq!(
            err(r#"{"image_types": ["png", "tiff"]}"#),
            "profile key `image_types`: expected one of \"png\", \"jpeg\", \"webp\", \"gif\", found the string \"tiff\""
        );
        assert_eq!(
            err(r#"{"measure": "bytes"}"#),
            "profile key `measure`: expected \"base64\" or \"raw\", found the string \"bytes\""
        );
        assert!(err(r#"{"tool_call_ids": "short"}"#)
            .starts_with("profile key `tool_call_ids`: expected one of \"any\", \"max-40\""));
        assert!(err(r#"{"visoin": true}"#)
            .starts_with("profile key `visoin`: unknown key (the keys are: name, base_url"));
        assert_eq!(
            err("[]"),
            "profile: expected a table of keys, found an array"
        );
        assert!(err("{").starts_with("profile: not JSON: "));
        assert_eq!(
            err(r#"{"base_url": "localhost:8000"}"#),
            "profile key `base_url`: expected an http:// or https:// URL with a host, found \"localhost:8000\""
        );
        assert_eq!(
            err(r#"{"max_dim": 0}"#),
            "profile key `max_dim`: expected 16 to 65535 pixels (or null or false for none), found 0"
        );
        assert!(err(r#"{"image_types": []}"#)
            .starts_with("profile key `image_types`: expected \"png\" or \"jpeg\""));
        assert!(err(r#"{"image_types": ["webp"]}"#)
            .starts_with("profile key `image_types`: expected \"png\" or \"jpeg\""));
        assert!(err(r#"{"base_url": "http://"}"#).starts_with(
            "profile key `base_url`: expected an http:// or https:// URL with a host"
        ));
    }

    #[test]
    fn null_clears_a_cap_and_sources_are_ignored() {
        let p =
            Profile::from_json(r#"{"max_image_bytes": null, "sources": {"vision": "https://x"}}"#)
                .unwrap();
        assert_eq!(p.max_image_bytes, None);
        assert_eq!(p.limits().budget.image_cap(), usize::MAX);
    }

    #[test]
    fn a_raw_request_cap_is_counted_in_base64_characters() {
        let mut p = Profile::generic();
        p.max_request_image_bytes = Some(3_000_000);
        assert_eq!(p.limits().max_total, 4_000_000);
        p.measure = Measure::Base64;
        assert_eq!(p.limits().max_total, 3_000_000);
    }

    #[test]
    fn id_rules() {
        assert!(IdRule::Alphanumeric9.allows("aB3dE6gH9"));
        assert!(!IdRule::Alphanumeric9.allows("call_1234"));
        assert!(!IdRule::Alphanumeric9.allows("abc"));
        assert!(IdRule::Max40.allows(&"x".repeat(40)));
        assert!(!IdRule::Max40.allows(&"x".repeat(41)));
    }
}
