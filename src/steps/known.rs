//! What each API's official SDK lists: for every list of a request body
//! (a message's content blocks, Responses input items, Gemini parts,
//! Bedrock content blocks, …), the kinds an entry may be and the members
//! each may hold. The tables are each API's `known.rs`, generated from the
//! pinned SDKs (`.ci/known-types`, checked current by `.ci/conformance`),
//! each with the SDK it comes from (its `SDK`).
//!
//! A reader asks them what to do with an entry the crate does not model
//! (a kind the SDK lists is kept as written; one it does not list is
//! refused), and the self-check asks them whether an entry kept as written
//! may be replayed to an API.

use std::fmt;

use serde_json::{Map, Value};

/// How the entries of a list tell their kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// By a `type` member (a missing one is the list's
    /// [`untyped`](List::untyped) kind, where it has one).
    Type,
    /// By a `role` member (messages).
    Role,
    /// One kind, `""`: only the members are checked.
    Single,
    /// By which one of the kinds' members the entry holds; the others a
    /// kind lists may stand beside it (Gemini's parts).
    KeyedSiblings,
    /// By the one member the entry holds, whose value's members are the
    /// kind's (Bedrock's blocks).
    KeyedInner,
}

/// One kind of entry and the members it may hold.
#[derive(Debug)]
pub(crate) struct Kind {
    /// Its tag: the `type` or `role` value, or the member it is keyed by.
    pub tag: &'static str,
    /// The members it may hold, sorted.
    pub members: &'static [&'static str],
}

/// One list of a body and the kinds its entries may be, sorted by tag.
#[derive(Clone, Copy, Debug)]
pub(crate) struct List {
    /// What the list is (`user content`, `input`, `part`).
    pub name: &'static str,
    /// How an entry tells its kind.
    pub form: Form,
    /// The kinds an entry that does not say one (by `type` or `role`) may
    /// be, sorted: a Responses message or item reference may leave its
    /// `type` out. Such an entry is the one that has the most of the
    /// members the entry holds (of those, the one of fewest members).
    pub untyped: &'static [&'static str],
    /// The kinds, sorted by tag.
    pub kinds: &'static [Kind],
}

/// Why an entry is not one the SDK lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unlisted {
    /// Not a JSON object.
    NotAnObject,
    /// No member tells its kind (no `type`, no `role`, none of the keys).
    NoKind,
    /// A kind the list does not have.
    Kind(String),
    /// Two members that each tell a kind.
    TwoKinds(&'static str, &'static str),
    /// Members the kind does not have, in the entry's order.
    Members(Vec<String>),
}

impl List {
    /// The kind tagged `tag`.
    pub(crate) fn kind(&self, tag: &str) -> Option<&'static Kind> {
        self.kinds
            .binary_search_by(|k| k.tag.cmp(tag))
            .ok()
            .map(|i| &self.kinds[i])
    }

    /// The kind an entry without a tag is ([`List::untyped`]).
    fn untyped_kind(&self, map: &Map<String, Value>) -> Option<&'static Kind> {
        // The most of the entry's members it has, then the fewest members.
        let has = |k: &Kind| {
            map.keys()
                .filter(|m| k.members.binary_search(&m.as_str()).is_ok())
                .count()
        };
        self.untyped
            .iter()
            .filter_map(|tag| self.kind(tag))
            .max_by_key(|k| (has(k), std::cmp::Reverse(k.members.len())))
    }

    /// The kind of `entry` as the list tells it (its members unchecked).
    ///
    /// # Errors
    /// [`Unlisted`] saying why it is none of the list's kinds.
    pub(crate) fn kind_of(&self, entry: &Value) -> Result<&'static Kind, Unlisted> {
        let Value::Object(map) = entry else {
            return Err(Unlisted::NotAnObject);
        };
        let by = |member: &str| match map.get(member) {
            None | Some(Value::Null) => self.untyped_kind(map).ok_or(Unlisted::NoKind),
            Some(Value::String(tag)) => self.kind(tag).ok_or_else(|| Unlisted::Kind(tag.clone())),
            Some(other) => Err(Unlisted::Kind(other.to_string())),
        };
        match self.form {
            Form::Type => by("type"),
            Form::Role => by("role"),
            Form::Single => Ok(&self.kinds[0]),
            Form::KeyedSiblings | Form::KeyedInner => {
                let mut held = self
                    .kinds
                    .iter()
                    .filter(|k| map.get(k.tag).is_some_and(|v| !v.is_null()));
                let first = held.next();
                if let (Some(a), Some(b)) = (first, held.next()) {
                    return Err(Unlisted::TwoKinds(a.tag, b.tag));
                }
                match first {
                    Some(kind) => Ok(kind),
                    // Keyed by a member the list does not know: name it
                    // (for parts, one no kind has beside it either).
                    None => {
                        let stranger = map.iter().map(|(k, _)| k).find(|key| {
                            !map[key.as_str()].is_null()
                                && self.kind(key).is_none()
                                && (self.form == Form::KeyedInner
                                    || !self
                                        .kinds
                                        .iter()
                                        .any(|k| k.members.binary_search(&key.as_str()).is_ok()))
                        });
                        match stranger {
                            Some(key) => Err(Unlisted::Kind(key.clone())),
                            None => Err(Unlisted::NoKind),
                        }
                    }
                }
            }
        }
    }

    /// The kind of `entry`, all of whose members the kind has.
    ///
    /// # Errors
    /// As [`List::kind_of`], or [`Unlisted::Members`] naming the members
    /// the kind does not have.
    pub(crate) fn check(&self, entry: &Value) -> Result<&'static Kind, Unlisted> {
        let kind = self.kind_of(entry)?;
        let extra = self.unlisted_members(kind, entry);
        if extra.is_empty() {
            Ok(kind)
        } else {
            Err(Unlisted::Members(extra))
        }
    }

    /// The members of `entry`, of kind `kind`, that the kind does not
    /// have (for a kind keyed by an inner value: that value's members).
    pub(crate) fn unlisted_members(&self, kind: &Kind, entry: &Value) -> Vec<String> {
        let members = match (self.form, entry) {
            (Form::KeyedInner, Value::Object(map)) => {
                let mut extra: Vec<String> =
                    map.keys().filter(|k| *k != kind.tag).cloned().collect();
                if let Some(Value::Object(inner)) = map.get(kind.tag) {
                    extra.extend(unlisted(kind, inner).map(|k| format!("{}.{k}", kind.tag)));
                }
                return extra;
            }
            (_, Value::Object(map)) => map,
            _ => return Vec::new(),
        };
        unlisted(kind, members).map(str::to_owned).collect()
    }
}

impl List {
    /// `entry` without the members its kind does not have (for a kind
    /// keyed by an inner value: that value's too), as an entry kept as
    /// written is kept: what the reader noted as not kept is not.
    pub(crate) fn listed_only(&self, entry: &mut Value) {
        let Ok(kind) = self.kind_of(entry) else {
            return;
        };
        let Value::Object(map) = entry else {
            return;
        };
        let keep = |map: &mut Map<String, Value>| {
            map.retain(|k, _| kind.members.binary_search(&k.as_str()).is_ok());
        };
        if self.form == Form::KeyedInner {
            map.retain(|k, _| k == kind.tag);
            if let Some(Value::Object(inner)) = map.get_mut(kind.tag) {
                keep(inner);
            }
        } else {
            keep(map);
        }
    }
}

fn unlisted<'m>(kind: &Kind, map: &'m Map<String, Value>) -> impl Iterator<Item = &'m str> {
    map.keys()
        .map(String::as_str)
        .filter(|k| kind.members.binary_search(k).is_err())
}

/// [`Unlisted`] as a sentence about the entry, naming the list and the
/// SDK: `a "tool-call" part is not a kind the openai 3.57.0 types list
/// for user content (they list file, image_url, input_audio, text)`.
pub(crate) struct Refusal<'a> {
    pub why: &'a Unlisted,
    pub list: &'a List,
    pub sdk: &'a str,
    /// What an entry of the list is called (`part`, `block`, `item`).
    pub noun: &'a str,
}

impl fmt::Display for Refusal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Refusal {
            why,
            list,
            sdk,
            noun,
        } = self;
        let tags = || {
            list.kinds
                .iter()
                .map(|k| k.tag)
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let a = article(noun);
        match why {
            Unlisted::NotAnObject => write!(f, "{a} {noun} of {} is not an object", list.name),
            Unlisted::NoKind => match list.form {
                Form::Type | Form::Role | Form::Single => write!(
                    f,
                    "{a} {noun} without a `type` is no kind the {sdk} types list for {} (they list {})",
                    list.name,
                    tags()
                ),
                Form::KeyedSiblings | Form::KeyedInner => write!(
                    f,
                    "{a} {noun} holding none of {} is no kind the {sdk} types list for {}",
                    tags(),
                    list.name
                ),
            },
            Unlisted::Kind(tag) => write!(
                f,
                "a {tag:?} {noun} is not a kind the {sdk} types list for {} (they list {})",
                list.name,
                tags()
            ),
            Unlisted::TwoKinds(x, y) => {
                write!(f, "{a} {noun} holds both `{x}` and `{y}` (one kind to {a} {noun})")
            }
            Unlisted::Members(members) => write!(
                f,
                "{} the {sdk} types do not list for it: {}",
                if members.len() == 1 {
                    "a member"
                } else {
                    "members"
                },
                members
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// `a` or `an`, before `word`.
pub(crate) fn article(word: &str) -> &'static str {
    // A member's name in backticks takes the article of its name.
    if word
        .trim_start_matches('`')
        .starts_with(['a', 'e', 'i', 'o', 'u'])
    {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static TYPED: List = List {
        name: "user content",
        form: Form::Type,
        untyped: &[],
        kinds: &[
            Kind {
                tag: "image",
                members: &["source", "type"],
            },
            Kind {
                tag: "text",
                members: &["text", "type"],
            },
        ],
    };

    static KEYED: List = List {
        name: "content",
        form: Form::KeyedInner,
        untyped: &[],
        kinds: &[
            Kind {
                tag: "text",
                members: &[],
            },
            Kind {
                tag: "toolUse",
                members: &["input", "name", "toolUseId"],
            },
        ],
    };

    static SIBLINGS: List = List {
        name: "part",
        form: Form::KeyedSiblings,
        untyped: &[],
        kinds: &[
            Kind {
                tag: "inlineData",
                members: &["inlineData", "thought"],
            },
            Kind {
                tag: "text",
                members: &["text", "thought"],
            },
        ],
    };

    #[test]
    fn every_generated_table_is_sorted_and_its_kinds_unique() {
        use crate::apis::{anthropic, bedrock, gemini, ollama, openai_chat, openai_responses};
        let tables = [
            anthropic::known::LISTS,
            openai_chat::known::LISTS,
            openai_responses::known::LISTS,
            gemini::known::LISTS,
            bedrock::known::LISTS,
            ollama::known::LISTS,
            crate::import::mcp_known::LISTS,
        ];
        for list in tables.iter().flat_map(|t| t.iter()) {
            {
                assert!(
                    list.kinds.windows(2).all(|w| w[0].tag < w[1].tag),
                    "{}",
                    list.name
                );
                for kind in list.kinds {
                    assert!(
                        kind.members.windows(2).all(|w| w[0] < w[1]),
                        "{} {}",
                        list.name,
                        kind.tag
                    );
                }
            }
        }
    }

    #[test]
    fn a_typed_entry_is_told_by_its_type() {
        assert_eq!(
            TYPED
                .check(&json!({"type": "text", "text": "x"}))
                .unwrap()
                .tag,
            "text"
        );
        assert_eq!(
            TYPED.check(&json!({"type": "tool-call"})).unwrap_err(),
            Unlisted::Kind("tool-call".into())
        );
        assert_eq!(
            TYPED.check(&json!({"text": "x"})).unwrap_err(),
            Unlisted::NoKind
        );
        assert_eq!(
            TYPED.check(&json!({"type": 5})).unwrap_err(),
            Unlisted::Kind("5".into())
        );
        assert_eq!(
            TYPED.check(&json!("text")).unwrap_err(),
            Unlisted::NotAnObject
        );
        assert_eq!(
            TYPED
                .check(&json!({"type": "text", "text": "x", "call_id": "c", "ts": 1}))
                .unwrap_err(),
            Unlisted::Members(vec!["call_id".into(), "ts".into()])
        );
    }

    #[test]
    fn a_keyed_entry_is_told_by_its_one_member() {
        assert_eq!(KEYED.check(&json!({"text": "x"})).unwrap().tag, "text");
        assert_eq!(
            KEYED
                .check(&json!({"toolUse": {"toolUseId": "a", "name": "f", "input": {}, "x": 1}}))
                .unwrap_err(),
            Unlisted::Members(vec!["toolUse.x".into()])
        );
        assert_eq!(
            KEYED
                .check(&json!({"text": "x", "toolUse": {}}))
                .unwrap_err(),
            Unlisted::TwoKinds("text", "toolUse")
        );
        assert_eq!(
            KEYED.check(&json!({"video": {}})).unwrap_err(),
            Unlisted::Kind("video".into())
        );
        assert_eq!(
            KEYED
                .check(&json!({"text": "x", "cachePoint": {}}))
                .unwrap_err(),
            Unlisted::Members(vec!["cachePoint".into()])
        );
        assert_eq!(
            SIBLINGS
                .check(&json!({"text": "x", "thought": true}))
                .unwrap()
                .tag,
            "text"
        );
        assert_eq!(
            SIBLINGS.check(&json!({"thought": true})).unwrap_err(),
            Unlisted::NoKind
        );
        assert_eq!(
            SIBLINGS.check(&json!({"inline_data": {}})).unwrap_err(),
            Unlisted::Kind("inline_data".into())
        );
    }

    #[test]
    fn a_refusal_names_the_kind_the_list_and_the_sdk() {
        let text = |why: Unlisted| {
            Refusal {
                why: &why,
                list: &TYPED,
                sdk: "openai 3.57.0",
                noun: "part",
            }
            .to_string()
        };
        assert_eq!(
            text(Unlisted::Kind("tool-call".into())),
            "a \"tool-call\" part is not a kind the openai 3.57.0 types list for user content (they list image, text)"
        );
        assert_eq!(
            text(Unlisted::Members(vec!["call_id".into()])),
            "a member the openai 3.57.0 types do not list for it: `call_id`"
        );
    }
}
