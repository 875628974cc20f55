//! What the agent tests compare of a history: its roles, calls, results
//! and the user's own media.
#![allow(dead_code)]

use serde_json::Value;
use tool_carrier::import::ImportedHistory;

/// What a history holds: roles; calls `(id, name)`; results `(call id,
/// is_error, attachments)`; the user's own attachments.
#[derive(Debug, PartialEq)]
pub struct Shape {
    pub roles: Vec<String>,
    pub calls: Vec<(String, String)>,
    pub results: Vec<(String, bool, usize)>,
    pub user_media: usize,
}

pub fn shape(h: &ImportedHistory) -> Shape {
    let mut s = Shape {
        roles: Vec::new(),
        calls: Vec::new(),
        results: Vec::new(),
        user_media: 0,
    };
    for r in &h.messages {
        s.roles.push(r.role().to_owned());
        match r.role() {
            "assistant" => {
                if let Ok(env) = serde_json::from_str::<Value>(r.content()) {
                    for c in env["tool_calls"].as_array().into_iter().flatten() {
                        s.calls.push((
                            c["id"].as_str().unwrap().to_owned(),
                            c["name"].as_str().unwrap().to_owned(),
                        ));
                    }
                }
            }
            "tool" => {
                let env: Value = serde_json::from_str(r.content()).unwrap();
                s.results.push((
                    env["tool_call_id"].as_str().unwrap().to_owned(),
                    env["is_error"] == true,
                    env["attachments"].as_array().unwrap().len(),
                ));
            }
            "user" => {
                s.user_media += r.attachments().len();
            }
            _ => {}
        }
    }
    s
}

pub fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

pub fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

pub fn results(v: &[(&str, bool, usize)]) -> Vec<(String, bool, usize)> {
    v.iter()
        .map(|(a, e, n)| ((*a).to_owned(), *e, *n))
        .collect()
}
