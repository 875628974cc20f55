//! The envelope reading of [`native`](super::native) done by serde_json
//! alone: the reference the one-pass scan is checked against, in unit tests
//! and by differential fuzzing. Not compiled into the library otherwise.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::native::Envelope;
use super::{Attachment, AttachmentKind};

/// `None` when `content` is not an envelope.
pub(crate) fn parse(content: &str) -> Option<Envelope<'_>> {
    let Members(members) = serde_json::from_str(content).ok()?;
    let (mut body, mut attachments) = (None, None);
    for (key, value) in members {
        let slot = match key.as_ref() {
            "content" => &mut body,
            "attachments" => &mut attachments,
            _ => continue,
        };
        if slot.replace(value).is_some() {
            return None;
        }
    }
    let CowStr(body) = serde_json::from_str(body?.get()).ok()?;
    let attachments = match attachments {
        Some(raw) if raw.get().starts_with('[') => {
            let items: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
            let records = items.into_iter().filter_map(|item| {
                serde_json::from_str::<AttachmentItem>(item.get())
                    .ok()
                    .and_then(|AttachmentItem(r)| r)
            });
            Some(records.collect())
        }
        _ => None,
    };
    Some(Envelope { body, attachments })
}

/// Every member as its decoded key and raw value.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(CowStr(key)) = map.next_key::<CowStr<'de>>()? {
                    out.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// One item of the `attachments` array: `Some` only for a valid record.
struct AttachmentItem<'a>(Option<Attachment<'a>>);

impl<'de> Deserialize<'de> for AttachmentItem<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AttachmentItem<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut kind, mut target, mut name) = (None, None, None);
                let (mut duplicated, mut names) = (false, 0);
                // `cache`: how many, and whether each was a boolean.
                let (mut caches, mut cache, mut cache_ok) = (0, false, true);
                while let Some(CowStr(key)) = map.next_key::<CowStr<'de>>()? {
                    let slot = match key.as_ref() {
                        "kind" => &mut kind,
                        "target" => &mut target,
                        "name" => {
                            let MaybeStr(value) = map.next_value::<MaybeStr<'de>>()?;
                            names += 1;
                            name = value;
                            continue;
                        }
                        "cache" => {
                            let value = map.next_value::<serde_json::Value>()?.as_bool();
                            caches += 1;
                            cache = value.unwrap_or(false);
                            cache_ok &= value.is_some();
                            continue;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    let MaybeStr(value) = map.next_value::<MaybeStr<'de>>()?;
                    duplicated |= slot.is_some();
                    *slot = Some(value);
                }
                let record = match (duplicated, kind.flatten(), target.flatten()) {
                    (false, Some(kind), Some(target))
                        if !target.is_empty() && caches <= 1 && cache_ok =>
                    {
                        let name = name.filter(|n: &Cow<'_, str>| names == 1 && !n.is_empty());
                        AttachmentKind::from_name(&kind).map(|kind| Attachment {
                            kind,
                            target,
                            name,
                            cache,
                        })
                    }
                    _ => None,
                };
                Ok(AttachmentItem(record))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AttachmentItem(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(AttachmentItem(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(AttachmentItem(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(AttachmentItem(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(AttachmentItem(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(AttachmentItem(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(AttachmentItem(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A JSON string, borrowed from the input unless an escape forced a copy.
///
/// (`Cow<str>` itself always deserializes owned.)
pub(crate) struct CowStr<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Any JSON value, kept only when it is a string.
pub(crate) struct MaybeStr<'a>(pub Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for MaybeStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MaybeStr(None))
            }
        }
        d.deserialize_any(V)
    }
}
