//! A facts file that could not be read.

use std::fmt;

use super::layer::dotted;

/// A facts file that could not be read: the key, and what is wrong.
///
/// ```
/// use tool_carrier::facts::{Facts, Syntax};
/// let err = Facts::builtin()
///     .layered("[models.my-model]\ncontxt = 8000\n", Syntax::Toml, "mine.toml")
///     .unwrap_err();
/// assert_eq!(err.key(), Some("models.my-model.contxt"));
/// assert!(err.to_string().starts_with("facts key `models.my-model.contxt`: unknown field `contxt`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactsError {
    key: Option<String>,
    message: String,
}

impl FactsError {
    pub(crate) fn at(path: &[String], message: impl Into<String>) -> FactsError {
        FactsError {
            key: Some(dotted(path)),
            message: message.into(),
        }
    }

    pub(crate) fn at_key(key: impl Into<String>, message: impl Into<String>) -> FactsError {
        let key = key.into();
        FactsError {
            key: (!key.is_empty()).then_some(key),
            message: message.into(),
        }
    }

    pub(crate) fn syntax(message: String) -> FactsError {
        FactsError { key: None, message }
    }

    /// The dotted key at fault (`models."gpt-5.5".context`); `None` when
    /// the file as a whole is (not TOML or JSON, not a table).
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for FactsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "facts key `{key}`: {}", self.message),
            None => write!(f, "facts file: {}", self.message),
        }
    }
}

impl std::error::Error for FactsError {}
