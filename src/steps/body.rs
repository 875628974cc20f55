//! A request body: each API's own typed struct behind one type.

use std::fmt;
use std::io;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

/// What an API's writer returns: a typed body that serializes itself.
/// Writing JSON goes through the body's own `Serialize` (monomorphized,
/// as fast as writing the struct directly); any other serializer goes
/// through `erased_serde`.
trait Written: erased_serde::Serialize + fmt::Debug + Send + Sync {
    fn json(&self, room: usize) -> String;
    fn write_pretty(&self, w: &mut dyn io::Write) -> io::Result<()>;
}

impl<T: Serialize + fmt::Debug + Send + Sync> Written for T {
    fn json(&self, room: usize) -> String {
        let mut out = Vec::with_capacity(room);
        serde_json::to_writer(&mut out, self).expect("a body always serializes");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    fn write_pretty(&self, w: &mut dyn io::Write) -> io::Result<()> {
        serde_json::to_writer_pretty(w, self).map_err(io::Error::from)
    }
}

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

    /// The body serialized anew as compact JSON (the API's own struct
    /// written straight to the text: the fast way; serializing a `Body`
    /// through `Serialize` goes through a type-erased serializer, which
    /// copies each payload once more).
    pub fn to_json(&self) -> String {
        self.0.json(128)
    }

    /// [`Body::to_json`] into a buffer made `room` bytes long at once: a
    /// body of payloads whose length is known ahead is written without
    /// growing (growing a 28 MB body copied it three times over and
    /// touched fresh memory each time: most of a warm turn).
    pub(crate) fn to_json_in(&self, room: usize) -> String {
        self.0.json(room)
    }

    /// The body written as indented JSON, the same fast way.
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_pretty(&self, w: &mut dyn io::Write) -> io::Result<()> {
        self.0.write_pretty(w)
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
