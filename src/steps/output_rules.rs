//! The checks a structured-output schema (`response_format`) is held to
//! where APIs state the same limit: each API's rules name their own rule,
//! with its source, and ask these walks of the schema in their body.

use crate::json::tree::Json as Value;

use super::rule::{at, idx, Out, Rule};

/// Each subschema of `schema` (itself included) with its path and how
/// deeply it nests in the answer's values (the root 1; a property's,
/// an item's or an additional property's schema one more; a branch of
/// `anyOf`, `oneOf` or `allOf` as deep as its parent; a definition in
/// `$defs` or `definitions` 1).
pub(crate) fn each_schema<'v, 'a>(
    schema: &'v Value<'a>,
    path: String,
    visit: &mut impl FnMut(&'v Value<'a>, &str, usize),
) {
    let mut stack = vec![(schema, path, 1)];
    while let Some((node, path, depth)) = stack.pop() {
        let Value::Object(object) = node else {
            continue;
        };
        visit(node, &path, depth);
        for (key, value) in object {
            let here = at(&path, key);
            match (key, value) {
                ("properties", Value::Object(properties)) => {
                    for (name, sub) in properties {
                        stack.push((sub, at(&here, name), depth + 1));
                    }
                }
                ("$defs" | "definitions", Value::Object(definitions)) => {
                    for (name, sub) in definitions {
                        stack.push((sub, at(&here, name), 1));
                    }
                }
                ("items" | "additionalProperties", sub @ Value::Object(_)) => {
                    stack.push((sub, here, depth + 1));
                }
                ("prefixItems", Value::Array(list)) => {
                    for (i, sub) in list.iter().enumerate() {
                        stack.push((sub, idx(&here, i), depth + 1));
                    }
                }
                ("anyOf" | "oneOf" | "allOf", Value::Array(list)) => {
                    for (i, sub) in list.iter().enumerate() {
                        stack.push((sub, idx(&here, i), depth));
                    }
                }
                _ => {}
            }
        }
    }
}

/// Whether a schema describes objects: its `type` is (or lists)
/// `"object"`, or it has `properties`.
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| *k == "object"),
        _ => schema.get("properties").is_some(),
    }
}

/// Every object schema sets `additionalProperties: false`.
pub(crate) fn closed_objects(rule: &'static Rule, schema: &Value, path: &str, out: &mut Out) {
    each_schema(schema, path.to_owned(), &mut |node, path, _| {
        if !is_object_schema(node) {
            return;
        }
        match node.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None => out.push(
                rule,
                path,
                "an object schema without additionalProperties: false",
            ),
            Some(other) => out.push(
                rule,
                at(path, "additionalProperties"),
                format!("{} where only false is taken", kind(other)),
            ),
        }
    });
}

/// Every object schema lists each of its properties in `required`.
pub(crate) fn all_required(rule: &'static Rule, schema: &Value, path: &str, out: &mut Out) {
    each_schema(schema, path.to_owned(), &mut |node, path, _| {
        let Some(Value::Object(properties)) = node.get("properties") else {
            return;
        };
        let required = node
            .get("required")
            .and_then(Value::as_array)
            .unwrap_or(&[]);
        for name in properties.keys() {
            if !required.iter().any(|r| *r == *name) {
                out.push(
                    rule,
                    at(&at(path, "properties"), name),
                    "a property not listed in required",
                );
            }
        }
    });
}

/// The numeric, length and array constraints a schema may not use where
/// an API compiles it to a grammar and lists them as not supported
/// (`minItems` of 0 or 1 is supported: [`no_keywords`] checks it apart).
pub(crate) const CONSTRAINTS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
];

/// No subschema uses one of `keywords`, nor a `minItems` over 1.
pub(crate) fn no_keywords(
    rule: &'static Rule,
    schema: &Value,
    path: &str,
    keywords: &[&str],
    out: &mut Out,
) {
    each_schema(schema, path.to_owned(), &mut |node, path, _| {
        let Value::Object(object) = node else {
            return;
        };
        for key in object.keys() {
            if keywords.contains(&key) {
                out.push(rule, at(path, key), format!("{key} is not supported"));
            }
        }
        if let Some(Value::Number(n)) = node.get("minItems") {
            if *n > 1.0 {
                out.push(
                    rule,
                    at(path, "minItems"),
                    "a minItems other than 0 or 1 is not supported",
                );
            }
        }
    });
}

/// The schema's root is an object schema, not `anyOf`; at most `max_depth`
/// levels of nesting and `max_properties` properties in all.
pub(crate) fn bounded_root(
    rule: &'static Rule,
    schema: &Value,
    path: &str,
    (max_depth, max_properties): (usize, usize),
    out: &mut Out,
) {
    if schema.get("type") != Some(&Value::String("object".into())) {
        out.push(rule, path, "the root schema is not of type object");
    }
    if schema.get("anyOf").is_some() {
        out.push(rule, at(path, "anyOf"), "anyOf at the root");
    }
    let (mut deepest, mut properties) = (0, 0);
    each_schema(schema, path.to_owned(), &mut |node, _, depth| {
        deepest = deepest.max(depth);
        if let Some(Value::Object(p)) = node.get("properties") {
            properties += p.keys().count();
        }
    });
    if deepest > max_depth {
        out.push(
            rule,
            path,
            format!("{deepest} levels of nesting, over {max_depth}"),
        );
    }
    if properties > max_properties {
        out.push(
            rule,
            path,
            format!("{properties} properties, over {max_properties}"),
        );
    }
}

/// A value's kind, in words, for a detail.
fn kind(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Object(_) => "a schema".into(),
        _ => "a value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::rule::{rule, Basis};

    const READ: &str = "2026-12-06";
    rule!(R, "test/rule", "a rule for the tests", "here", Documented);

    fn found(check: impl Fn(&Value, &mut Out), text: &str) -> Vec<String> {
        let schema = Value::from_str(text).unwrap();
        let mut out = Out::default();
        check(&schema, &mut out);
        assert!(out.0.iter().all(|v| v.rule.basis == Basis::Documented));
        out.0
            .iter()
            .map(|v| format!("{}: {}", v.at, v.detail))
            .collect()
    }

    #[test]
    fn open_objects_are_found_at_any_depth() {
        let check = |s: &Value, out: &mut Out| closed_objects(&R, s, "$.s", out);
        assert_eq!(
            found(
                check,
                r#"{"type":"object","additionalProperties":false,"properties":{"a":{"type":"array","items":{"type":"object","properties":{}}},"b":{"anyOf":[{"type":["object","null"],"additionalProperties":true}]}},"$defs":{"d":{"properties":{},"additionalProperties":{"type":"string"}}}}"#
            ),
            [
                "$.s.$defs.d.additionalProperties: a schema where only false is taken",
                "$.s.properties.b.anyOf[0].additionalProperties: true where only false is taken",
                "$.s.properties.a.items: an object schema without additionalProperties: false",
            ]
        );
        assert!(found(check, r#"{"type":"string","properties":"x"}"#).is_empty());
    }

    #[test]
    fn a_property_left_out_of_required_is_named() {
        let check = |s: &Value, out: &mut Out| all_required(&R, s, "$", out);
        assert_eq!(
            found(
                check,
                r#"{"type":"object","properties":{"a":{},"b":{"type":"object","properties":{"c":{}},"required":["c"]}},"required":["b"]}"#
            ),
            ["$.properties.a: a property not listed in required"]
        );
    }

    #[test]
    fn unsupported_keywords_are_named_but_not_a_property_so_called() {
        let check = |s: &Value, out: &mut Out| no_keywords(&R, s, "$", &["minimum"], out);
        assert_eq!(
            found(
                check,
                r#"{"properties":{"minimum":{"type":"integer","minimum":0},"l":{"type":"array","minItems":2},"m":{"type":"array","minItems":1}}}"#
            ),
            [
                "$.properties.l.minItems: a minItems other than 0 or 1 is not supported",
                "$.properties.minimum.minimum: minimum is not supported",
            ]
        );
    }

    #[test]
    fn the_root_and_its_bounds() {
        let check = |s: &Value, out: &mut Out| bounded_root(&R, s, "$", (2, 2), out);
        assert!(found(check, r#"{"type":"object","properties":{"a":{},"b":{}}}"#).is_empty());
        assert_eq!(
            found(check, r#"{"anyOf":[{"type":"object"}]}"#),
            [
                "$: the root schema is not of type object",
                "$.anyOf: anyOf at the root"
            ]
        );
        assert_eq!(
            found(
                check,
                r#"{"type":"object","properties":{"a":{"properties":{"b":{}}},"c":{}}}"#
            ),
            ["$: 3 levels of nesting, over 2", "$: 3 properties, over 2"]
        );
    }
}
