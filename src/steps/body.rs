//! A request body: each API's own typed struct behind one type.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

/// What an API's writer returns: a typed body that serializes itself.
trait Written: erased_serde::Serialize + fmt::Debug + Send + Sync {}

impl<T: Serialize + fmt::Debug + Send + Sync> Written for T {}

erased_serde::serialize_trait_object!(Written);

/// A request body, held as typed structs and written when serialized:
/// media payloads are encoded to base64 as they are written, so a body
/// holds each payload's bytes once and never its base64 text.
///
/// Serialize it with serde_json (`to_writer`, `to_writer_pretty`, …), or
/// see it as a [`Value`] with [`Body::to_value`].
#[derive(Clone)]
pub struct Body(Arc<dyn Written>);

impl Body {
    /// An API's typed body.
    pub(crate) fn new<T: Serialize + fmt::Debug + Send + Sync + 'static>(body: T) -> Body {
        Body(Arc::new(body))
    }

    /// The body as a [`Value`] (every payload's base64 text written out,
    /// so this holds a copy of it).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a body always serializes")
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Body").field(&self.0).finish()
    }
}

impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.as_ref().serialize(s)
    }
}
