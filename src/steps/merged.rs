//! A body written with extra members merged in ([`super::extra`]), by
//! whatever serializer writes it: the body's own struct is written as it
//! is, member by member, except that a member the extras touch is merged
//! with them first (it is small: the members the crate writes from the
//! history are refused earlier), and the extras' new members follow the
//! body's. A member the body writes where an extra gives another value
//! fails the writing, naming the path.

use serde::ser::{
    self, Error as _, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer,
};
use std::cell::RefCell;

use super::extra::{merge, shown, Extra, ExtraError};

/// `body` with `extra` merged in; a conflict that fails the writing is
/// also kept in `conflict`, to be told apart from the writer's errors.
pub(crate) struct Merged<'a, T: ?Sized> {
    pub body: &'a T,
    pub extra: &'a Extra,
    pub conflict: &'a RefCell<Option<ExtraError>>,
}

impl<T: ?Sized + Serialize> Serialize for Merged<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.body.serialize(Top {
            inner: s,
            extra: self.extra,
            conflict: self.conflict,
        })
    }
}

/// The serializer of the body's top level.
struct Top<'a, S> {
    inner: S,
    extra: &'a Extra,
    conflict: &'a RefCell<Option<ExtraError>>,
}

/// The body's members being written.
struct Members<'a, M> {
    map: M,
    extra: &'a Extra,
    conflict: &'a RefCell<Option<ExtraError>>,
    written: Vec<&'static str>,
}

fn not_an_object<E: ser::Error>() -> E {
    E::custom("extra members go into a body that is a JSON object")
}

impl<M: SerializeMap> SerializeStruct for Members<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        self.written.push(key);
        let Some((_, extra)) = self.extra.members().find(|(name, _)| *name == key) else {
            return self.map.serialize_entry(key, value);
        };
        let written = serde_json::to_value(value).map_err(M::Error::custom)?;
        let merged = merge(written.clone(), extra).map_err(|at| {
            let there = at.iter().fold(&written, |v, name| &v[name.as_str()]);
            let path: Vec<String> = std::iter::once(key.to_owned()).chain(at).collect();
            let conflict = ExtraError {
                path: shown(&path),
                problem: format!(
                    "the crate writes {there} there; set it with its parameter or leave it out"
                ),
            };
            let error = M::Error::custom(&conflict);
            *self.conflict.borrow_mut() = Some(conflict);
            error
        })?;
        self.map.serialize_entry(key, &merged)
    }

    fn end(mut self) -> Result<M::Ok, M::Error> {
        for (name, value) in self.extra.members() {
            if !self.written.contains(&name) {
                self.map.serialize_entry(name, value)?;
            }
        }
        self.map.end()
    }
}

/// The serializer methods of a body that is not an object: each fails.
macro_rules! refuse {
    ($($name:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $name(self, $(_: $arg),*) -> Result<S::Ok, S::Error> {
            Err(not_an_object())
        })*
    };
}

impl<'a, S: Serializer> Serializer for Top<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Impossible<S::Ok, S::Error>;
    type SerializeStruct = Members<'a, S::SerializeMap>;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        Ok(Members {
            map: self.inner.serialize_map(None)?,
            extra: self.extra,
            conflict: self.conflict,
            written: Vec::new(),
        })
    }

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<S::Ok, S::Error> {
        Err(not_an_object())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(not_an_object())
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(not_an_object())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Err(not_an_object())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, S::Error> {
        Err(not_an_object())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        Err(not_an_object())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        Err(not_an_object())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        Err(not_an_object())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        Err(not_an_object())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[derive(serde::Serialize)]
    struct Body {
        model: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        stream: Option<bool>,
        settings: Value,
        payload: Vec<u8>,
    }

    fn body() -> Body {
        Body {
            model: "m",
            stream: None,
            settings: json!({"a": 1}),
            payload: vec![1, 2],
        }
    }

    fn written(extra: &Extra) -> Result<String, ExtraError> {
        let conflict = RefCell::new(None);
        serde_json::to_string(&Merged {
            body: &body(),
            extra,
            conflict: &conflict,
        })
        .map_err(|e| conflict.take().unwrap_or_else(|| panic!("{e}")))
    }

    #[test]
    fn members_merge_in_place_and_new_ones_follow() {
        let extra = Extra::new()
            .with("settings.b", json!(2))
            .unwrap()
            .with("stream", json!(true))
            .unwrap()
            .with("model", json!("m"))
            .unwrap();
        assert_eq!(
            written(&extra).unwrap(),
            r#"{"model":"m","settings":{"a":1,"b":2},"payload":[1,2],"stream":true}"#
        );
        assert_eq!(
            written(&Extra::new()).unwrap(),
            serde_json::to_string(&body()).unwrap()
        );
        // Indented, the same members.
        let pretty = serde_json::to_string_pretty(&Merged {
            body: &body(),
            extra: &extra,
            conflict: &RefCell::new(None),
        })
        .unwrap();
        let back: Value = serde_json::from_str(&pretty).unwrap();
        assert_eq!(back["settings"], json!({"a": 1, "b": 2}));
    }

    #[test]
    fn a_value_the_body_writes_is_never_replaced() {
        let extra = Extra::new().with("settings.a", json!(5)).unwrap();
        let err = written(&extra).unwrap_err();
        assert_eq!(err.path, "settings.a");
        assert!(
            err.to_string()
                .starts_with("extra member settings.a: the crate writes 1 there"),
            "{err}"
        );
        let extra = Extra::new().with("model", json!("other")).unwrap();
        let err = written(&extra).unwrap_err().to_string();
        assert!(err.contains("the crate writes \"m\" there"), "{err}");
    }

    #[test]
    fn a_body_that_is_not_an_object_takes_no_members() {
        let extra = Extra::new().with("a", json!(1)).unwrap();
        let conflict = RefCell::new(None);
        let err = serde_json::to_string(&Merged {
            body: &[1, 2],
            extra: &extra,
            conflict: &conflict,
        })
        .unwrap_err();
        assert!(conflict.take().is_none());
        assert!(err.to_string().contains("JSON object"), "{err}");
    }
}
