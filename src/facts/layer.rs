//! One file of facts as a tree of values, each leaf with where it comes
//! from: `source` and `read` keys are taken out of the tree and kept per
//! leaf, so the typed reading sees only facts.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Date, FactsError};

/// Where a value comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Provenance {
    /// The page the value was read on (for a user's file: the file).
    pub source: Option<String>,
    /// When it was read.
    pub read: Option<Date>,
}

/// How a facts file is written: its syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// TOML.
    Toml,
    /// JSON.
    Json,
}

impl Syntax {
    /// The format a file name's extension says (`.toml`, `.json`).
    pub fn of_path(path: &std::path::Path) -> Option<Syntax> {
        match path.extension()?.to_str()? {
            e if e.eq_ignore_ascii_case("toml") => Some(Syntax::Toml),
            e if e.eq_ignore_ascii_case("json") => Some(Syntax::Json),
            _ => None,
        }
    }
}

/// A tree of facts and the provenance of each leaf, by path.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layer {
    pub tree: Map<String, Value>,
    pub provenance: BTreeMap<String, Provenance>,
}

impl Layer {
    /// Reads `text`; values that name no source get `origin`'s.
    pub fn parse(text: &str, format: Syntax, origin: Provenance) -> Result<Layer, FactsError> {
        let value = match format {
            Syntax::Toml => {
                let table: toml::Table =
                    toml::from_str(text).map_err(|e| FactsError::syntax(e.to_string()))?;
                from_toml(toml::Value::Table(table))
            }
            Syntax::Json => {
                serde_json::from_str(text).map_err(|e| FactsError::syntax(e.to_string()))?
            }
        };
        let Value::Object(mut tree) = value else {
            return Err(FactsError::syntax(
                "a facts file is a table of tables".into(),
            ));
        };
        let mut provenance = BTreeMap::new();
        let mut path = Vec::new();
        strip_table(&mut tree, &mut path, &origin, &mut provenance)?;
        Ok(Layer { tree, provenance })
    }

    /// `over` laid on `self`: tables merge key by key, any other value
    /// replaces what was there (and its provenance with it).
    pub fn overlay(mut self, over: Layer) -> Layer {
        merge(&mut self.tree, over.tree);
        let mut provenance = BTreeMap::new();
        let mut path = Vec::new();
        collect(&self.tree, &mut path, &mut |p| {
            let prov = over
                .provenance
                .get(p)
                .or_else(|| self.provenance.get(p))
                .cloned()
                .unwrap_or_default();
            provenance.insert(p.to_owned(), prov);
        });
        self.provenance = provenance;
        self
    }
}

/// A path as TOML writes a dotted key: `models."gpt-5.5".context`.
pub(crate) fn dotted(path: &[String]) -> String {
    let mut out = String::new();
    for (i, key) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        push_key(&mut out, key);
    }
    out
}

/// Appends one key to a dotted path, quoted unless it is a bare key.
pub(crate) fn push_key(out: &mut String, key: &str) {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if bare {
        out.push_str(key);
    } else {
        out.push_str(&serde_json::to_string(key).unwrap_or_default());
    }
}

fn from_toml(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        toml::Value::Boolean(b) => Value::Bool(b),
        // Dates are facts' `read` and `retires`: kept as written.
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(from_toml).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.into_iter().map(|(k, v)| (k, from_toml(v))).collect())
        }
    }
}

const SOURCE: &str = "source";
const READ: &str = "read";
const VALUE: &str = "value";

/// Whether a table is one value with its own source: `{ value = …,
/// source = …, read = … }`.
fn is_wrapped(t: &Map<String, Value>) -> bool {
    t.contains_key(VALUE) && t.keys().all(|k| k == VALUE || k == SOURCE || k == READ)
}

/// The provenance a table states, over what it inherits.
fn own(
    t: &mut Map<String, Value>,
    path: &mut Vec<String>,
    inherited: &Provenance,
) -> Result<Provenance, FactsError> {
    let mut prov = inherited.clone();
    if let Some(v) = t.remove(SOURCE) {
        path.push(SOURCE.into());
        match v {
            Value::String(s) if !s.trim().is_empty() => prov.source = Some(s),
            _ => return Err(FactsError::at(path, "a source is a URL (a string)")),
        }
        path.pop();
    }
    if let Some(v) = t.remove(READ) {
        path.push(READ.into());
        let date = v
            .as_str()
            .and_then(|s| s.parse::<Date>().ok())
            .ok_or_else(|| FactsError::at(path, "the date read is written YYYY-MM-DD"))?;
        prov.read = Some(date);
        path.pop();
    }
    Ok(prov)
}

fn strip_table(
    t: &mut Map<String, Value>,
    path: &mut Vec<String>,
    inherited: &Provenance,
    out: &mut BTreeMap<String, Provenance>,
) -> Result<(), FactsError> {
    let prov = own(t, path, inherited)?;
    for (key, child) in t.iter_mut() {
        path.push(key.clone());
        strip_value(child, path, &prov, out)?;
        path.pop();
    }
    Ok(())
}

fn strip_value(
    v: &mut Value,
    path: &mut Vec<String>,
    inherited: &Provenance,
    out: &mut BTreeMap<String, Provenance>,
) -> Result<(), FactsError> {
    match v {
        Value::Object(t) if is_wrapped(t) => {
            let prov = own(t, path, inherited)?;
            let inner = t.remove(VALUE).unwrap_or(Value::Null);
            *v = inner;
            // A wrapped table's own keys are facts with the wrapper's
            // source; a value is not wrapped twice.
            record(v, path, &prov, out);
            Ok(())
        }
        Value::Object(t) => strip_table(t, path, inherited, out),
        leaf => {
            record(leaf, path, inherited, out);
            Ok(())
        }
    }
}

/// Records the provenance of every leaf of `v`.
fn record(
    v: &Value,
    path: &mut Vec<String>,
    prov: &Provenance,
    out: &mut BTreeMap<String, Provenance>,
) {
    match v {
        Value::Object(t) => {
            for (key, child) in t {
                path.push(key.clone());
                record(child, path, prov, out);
                path.pop();
            }
        }
        _ => {
            out.insert(dotted(path), prov.clone());
        }
    }
}

/// Calls `f` with the dotted path of every leaf (a value that is not a
/// table; an array is one leaf).
fn collect(t: &Map<String, Value>, path: &mut Vec<String>, f: &mut dyn FnMut(&str)) {
    for (key, child) in t {
        path.push(key.clone());
        match child {
            Value::Object(inner) => collect(inner, path, f),
            _ => f(&dotted(path)),
        }
        path.pop();
    }
}

fn merge(base: &mut Map<String, Value>, over: Map<String, Value>) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(Value::Object(b)), Value::Object(o)) => merge(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prov(source: &str) -> Provenance {
        Provenance {
            source: Some(source.into()),
            read: None,
        }
    }

    #[test]
    fn sources_are_inherited_and_wrapped_values_name_their_own() {
        let text = r#"
            [models."gpt-5.5"]
            source = "https://a"
            read = 2026-12-01
            context = 400000
            max_output = { value = 128000, source = "https://b", read = "2026-11-30" }
            many = { value = { over = 20, max_dim = 2000 }, source = "https://c" }
        "#;
        let layer = Layer::parse(text, Syntax::Toml, Provenance::default()).unwrap();
        let model = &layer.tree["models"]["gpt-5.5"];
        assert_eq!(model["max_output"], 128000);
        assert_eq!(model["many"]["over"], 20);
        assert!(model.get("source").is_none());
        let p = |k: &str| layer.provenance[k].clone();
        let context = p(r#"models."gpt-5.5".context"#);
        assert_eq!(context.source.as_deref(), Some("https://a"));
        assert_eq!(context.read.unwrap().to_string(), "2026-12-01");
        let out = p(r#"models."gpt-5.5".max_output"#);
        assert_eq!(out.source.as_deref(), Some("https://b"));
        assert_eq!(out.read.unwrap().to_string(), "2026-11-30");
        let many = p(r#"models."gpt-5.5".many.over"#);
        assert_eq!(many.source.as_deref(), Some("https://c"));
        assert_eq!(many.read.unwrap().to_string(), "2026-12-01");
    }

    #[test]
    fn a_bad_source_or_date_names_its_key() {
        let err = Layer::parse(
            "[models.x]\nread = \"1 Dec\"\n",
            Syntax::Toml,
            Provenance::default(),
        )
        .unwrap_err();
        assert_eq!(err.key(), Some("models.x.read"));
        let err = Layer::parse(
            r#"{"apis": {"a": {"source": 3}}}"#,
            Syntax::Json,
            Provenance::default(),
        )
        .unwrap_err();
        assert_eq!(err.key(), Some("apis.a.source"));
        assert!(Layer::parse("[1, 2]", Syntax::Json, Provenance::default()).is_err());
        assert!(Layer::parse("x = ", Syntax::Toml, Provenance::default()).is_err());
    }

    #[test]
    fn an_overlay_replaces_leaves_and_their_sources_only() {
        let base = Layer::parse(
            "[apis.a]\nsource = \"https://a\"\nx = 1\ny = 2\n[apis.a.limits]\nz = 3\n",
            Syntax::Toml,
            Provenance::default(),
        )
        .unwrap();
        let over = Layer::parse(
            "[apis.a]\ny = 20\nlimits = 4\n",
            Syntax::Toml,
            prov("user.toml"),
        )
        .unwrap();
        let merged = base.overlay(over);
        assert_eq!(merged.tree["apis"]["a"]["x"], 1);
        assert_eq!(merged.tree["apis"]["a"]["y"], 20);
        assert_eq!(merged.tree["apis"]["a"]["limits"], 4);
        let src = |k: &str| merged.provenance[k].source.clone().unwrap();
        assert_eq!(src("apis.a.x"), "https://a");
        assert_eq!(src("apis.a.y"), "user.toml");
        assert_eq!(src("apis.a.limits"), "user.toml");
        assert!(!merged.provenance.contains_key("apis.a.limits.z"));
    }

    #[test]
    fn dotted_paths_quote_keys_that_are_not_bare() {
        let p = |v: &[&str]| dotted(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            p(&["models", "gpt-5.5", "context"]),
            r#"models."gpt-5.5".context"#
        );
        assert_eq!(p(&["a", "b_c-d"]), "a.b_c-d");
        assert_eq!(p(&["a", ""]), r#"a."""#);
    }
}
