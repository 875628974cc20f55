//! The implementation a reader of the spec would write first: parse the
//! envelope into a `serde_json::Value`, copy the body out, split a prompt
//! carrier into lines and join the body back, re-serialise the `Value` on
//! rebuild. Every bench runs it beside the crate, so every figure is a
//! ratio measured in one run.

#![allow(dead_code)]

use serde_json::{json, Value};

/// (body, declared, [(kind, target)])
pub type Parts = (String, bool, Vec<(String, String)>);

pub fn parse_native(content: &str) -> Parts {
    let legacy = || (content.to_owned(), false, Vec::new());
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(content) else {
        return legacy();
    };
    let Some(Value::String(body)) = map.get("content") else {
        return legacy();
    };
    match map.get("attachments") {
        Some(Value::Array(items)) => {
            let atts = items
                .iter()
                .filter_map(|i| {
                    let kind = i.get("kind")?.as_str()?;
                    let target = i.get("target")?.as_str()?;
                    let ok = matches!(kind, "image" | "audio" | "video" | "document")
                        && !target.is_empty();
                    ok.then(|| (kind.to_owned(), target.to_owned()))
                })
                .collect();
            (body.clone(), true, atts)
        }
        _ => (body.clone(), false, Vec::new()),
    }
}

pub fn parse_prompt(content: &str) -> Option<Parts> {
    if !content.trim_start().starts_with("[Tool results]") {
        return None;
    }
    let legacy = || Some((content.to_owned(), false, Vec::new()));
    let lines: Vec<&str> = content.split('\n').collect();
    if lines[0] != "[Tool results]" || lines.len() < 2 {
        return legacy();
    }
    let Some(n) = lines[1]
        .strip_prefix("[Tool attachments: ")
        .and_then(|r| r.strip_suffix(']'))
        .filter(|d| {
            !d.is_empty()
                && d.bytes().all(|b| b.is_ascii_digit())
                && (d.len() == 1 || !d.starts_with('0'))
        })
        .and_then(|d| d.parse::<usize>().ok())
    else {
        return legacy();
    };
    if lines.len() < 2 + n {
        return legacy();
    }
    let mut atts = Vec::new();
    for line in &lines[2..2 + n] {
        let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
            return legacy();
        };
        let Some((kind, target)) = inner.split_once(':') else {
            return legacy();
        };
        if !matches!(kind, "IMAGE" | "AUDIO" | "VIDEO" | "DOCUMENT") || target.is_empty() {
            return legacy();
        }
        atts.push((kind.to_lowercase(), target.to_owned()));
    }
    Some((lines[2 + n..].join("\n"), true, atts))
}

pub fn rebuild_native(content: &str, body: &str, atts: &[(String, String)]) -> String {
    let mut v: Value = serde_json::from_str(content).expect("an envelope");
    v["content"] = Value::String(body.to_owned());
    v["attachments"] = atts
        .iter()
        .map(|(k, t)| json!({"kind": k, "target": t}))
        .collect();
    serde_json::to_string(&v).expect("serialisable")
}
