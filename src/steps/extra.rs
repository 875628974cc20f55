//! Members a caller adds to a request body as given, as the OpenAI SDK's
//! `extra_body` does: for a setting the crate does not model. Each is a
//! path of member names and a JSON value; they are merged into the body
//! the crate writes (an object into an object, member by member), never
//! over a value it wrote, and never into what it writes from the history.
//! The merged body then goes through the API's rules like any other: its
//! member tables refuse a member the API's SDK does not list.

use serde_json::{Map, Value};

/// Extra members for a request body, by path (`"metadata.user_id"`).
///
/// ```
/// use serde_json::json;
/// use tool_carrier::provider::Extra;
/// let extra = Extra::new()
///     .with("service_tier", json!("priority"))?
///     .with("metadata.run", json!("nightly"))?;
/// assert_eq!(extra.tree(), &json!({"service_tier": "priority", "metadata": {"run": "nightly"}}));
/// let err = Extra::new().with("metadata", json!(1))?.with("metadata.run", json!("x")).unwrap_err();
/// assert_eq!(err.path, "metadata.run");
/// # Ok::<(), tool_carrier::provider::ExtraError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra {
    tree: Value,
}

/// An extra member that cannot be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("extra member {path}: {problem}")]
#[non_exhaustive]
pub struct ExtraError {
    /// Its path, as given.
    pub path: String,
    /// What is wrong.
    pub problem: String,
}

fn wrong(path: &str, problem: impl Into<String>) -> ExtraError {
    ExtraError {
        path: path.to_owned(),
        problem: problem.into(),
    }
}

impl Extra {
    /// No extra member.
    pub fn new() -> Extra {
        Extra {
            tree: Value::Object(Map::new()),
        }
    }

    /// With `value` at `path`: member names joined by dots (a name cannot
    /// hold a dot). An object given where another extra already put one is
    /// merged with it member by member.
    ///
    /// # Errors
    /// An empty name in the path, or a value where an earlier extra put
    /// another (or put a non-object on the way).
    pub fn with(mut self, path: &str, value: Value) -> Result<Extra, ExtraError> {
        let names: Vec<&str> = path.split('.').collect();
        if names.iter().any(|n| n.is_empty()) {
            return Err(wrong(
                path,
                "a path is member names joined by dots, none empty",
            ));
        }
        let mut nested = value;
        for name in names.iter().rev() {
            let mut object = Map::new();
            object.insert((*name).to_owned(), nested);
            nested = Value::Object(object);
        }
        let tree = std::mem::take(&mut self.tree);
        self.tree = merge(tree, &nested).map_err(|at| {
            wrong(
                path,
                format!("{} is already given another value", shown(&at)),
            )
        })?;
        Ok(self)
    }

    /// Whether no member is given.
    pub fn is_empty(&self) -> bool {
        self.tree.as_object().is_none_or(Map::is_empty)
    }

    /// The members as one object, paths made nested objects.
    pub fn tree(&self) -> &Value {
        &self.tree
    }

    /// The top-level members and their values.
    pub(crate) fn members(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.tree
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The first top-level member that is one of `owned`, those the crate
    /// writes from the history, the tools and the model.
    pub(crate) fn owned(&self, owned: &[&str]) -> Option<ExtraError> {
        let (name, _) = self.members().find(|(name, _)| owned.contains(name))?;
        Some(wrong(
            name,
            format!(
                "the crate writes it from the history, the tools or the model (members it owns: {})",
                owned.join(", ")
            ),
        ))
    }
}

/// `extra` merged into `base`: an object into an object member by member,
/// a value over an equal one; anything else is a conflict, `Err` with the
/// path of names where it stands.
pub(crate) fn merge(base: Value, extra: &Value) -> Result<Value, Vec<String>> {
    match (base, extra) {
        (Value::Object(mut base), Value::Object(extra)) => {
            for (name, value) in extra {
                let merged = match base.remove(name) {
                    Some(old) => merge(old, value).map_err(|mut at| {
                        at.insert(0, name.clone());
                        at
                    })?,
                    None => value.clone(),
                };
                base.insert(name.clone(), merged);
            }
            Ok(Value::Object(base))
        }
        (base, extra) if base == *extra => Ok(base),
        _ => Err(Vec::new()),
    }
}

/// A path of names as given (`a.b`), or `the body` for none.
pub(crate) fn shown(at: &[String]) -> String {
    if at.is_empty() {
        return "the body".to_owned();
    }
    at.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_nest_and_objects_merge() {
        let extra = Extra::new()
            .with("a.b", json!(1))
            .unwrap()
            .with("a", json!({"c": 2}))
            .unwrap()
            .with("d", json!([1]))
            .unwrap()
            .with("d", json!([1]))
            .unwrap();
        assert_eq!(extra.tree(), &json!({"a": {"b": 1, "c": 2}, "d": [1]}));
        assert!(!extra.is_empty());
        assert!(Extra::new().is_empty());
        assert!(Extra::default().is_empty());
    }

    #[test]
    fn conflicts_and_bad_paths_are_named() {
        let base = Extra::new().with("a.b", json!(1)).unwrap();
        let err = base.clone().with("a.b", json!(2)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "extra member a.b: a.b is already given another value"
        );
        let err = base.clone().with("a.b.c", json!(2)).unwrap_err();
        assert!(err.to_string().contains("a.b is already given"), "{err}");
        let err = base.with("a", json!(3)).unwrap_err();
        assert!(err.to_string().contains("a is already given"), "{err}");
        for bad in ["", ".", "a.", ".a", "a..b"] {
            let err = Extra::new().with(bad, json!(1)).unwrap_err();
            assert_eq!(err.path, bad);
        }
    }

    #[test]
    fn owned_members_are_refused_by_name() {
        let extra = Extra::new().with("messages", json!([])).unwrap();
        let err = extra.owned(&["model", "messages"]).unwrap();
        assert_eq!(err.path, "messages");
        assert!(err.problem.contains("model, messages"));
        assert!(Extra::new()
            .with("metadata.messages", json!(1))
            .unwrap()
            .owned(&["messages"])
            .is_none());
    }

    #[test]
    fn merge_keeps_the_base_where_the_extra_says_nothing() {
        let merged = merge(json!({"x": 1, "o": {"p": 1}}), &json!({"o": {"q": 2}})).unwrap();
        assert_eq!(merged, json!({"x": 1, "o": {"p": 1, "q": 2}}));
        assert_eq!(
            merge(json!({"o": {"p": 1}}), &json!({"o": {"p": 2}})).unwrap_err(),
            ["o", "p"]
        );
        assert_eq!(merge(json!(1), &json!(1)).unwrap(), json!(1));
    }
}
