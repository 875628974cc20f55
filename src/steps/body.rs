//! A request body: each API's own typed struct behind one type.

use std::fmt;
use std::io;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use std::cell::RefCell;

use super::assembled::Skeleton;
use super::extra::{Extra, ExtraError};
use super::merged::Merged;

/// What an API's writer returns: a typed body that serializes itself.
/// Writing JSON goes through the body's own `Serialize` (monomorphized,
/// as fast as writing the struct directly); any other serializer goes
/// through `erased_serde`.
trait Written: erased_serde::Serialize + fmt::Debug + Send + Sync {
    fn json(&self, room: usize, extra: Option<&Extra>) -> Result<Vec<u8>, ExtraError>;
    fn write_pretty(&self, w: &mut dyn io::Write, extra: Option<&Extra>) -> io::Result<()>;
}

impl<T: Serialize + fmt::Debug + Send + Sync> Written for T {
    fn json(&self, room: usize, extra: Option<&Extra>) -> Result<Vec<u8>, ExtraError> {
        let mut out = Vec::with_capacity(room);
        match extra {
            None => serde_json::to_writer(&mut out, self).expect("a body always serializes"),
            Some(extra) => {
                let conflict = RefCell::new(None);
                let merged = Merged {
                    body: self,
                    extra,
                    conflict: &conflict,
                };
                if let Err(e) = serde_json::to_writer(&mut out, &merged) {
                    // A body is an object and writes to memory: a conflict
                    // is the one way this fails.
                    return Err(conflict
                        .take()
                        .unwrap_or_else(|| panic!("a body with extras failed to write: {e}")));
                }
            }
        }
        Ok(out)
    }

    fn write_pretty(&self, w: &mut dyn io::Write, extra: Option<&Extra>) -> io::Result<()> {
        match extra {
            None => serde_json::to_writer_pretty(w, self),
            Some(extra) => serde_json::to_writer_pretty(
                w,
                &Merged {
                    body: self,
                    extra,
                    conflict: &RefCell::new(None),
                },
            ),
        }
        .map_err(io::Error::from)
    }
}

erased_serde::serialize_trait_object!(Written);

/// A request body, held as typed structs and written when serialized:
/// media payloads are encoded to base64 as they are written, so a body
/// holds each payload's bytes once and never its base64 text.
///
/// Serialize it with serde_json (`to_writer`, `to_writer_pretty`, …), or
/// see it as a [`Value`] with [`Body::to_value`].
///
/// A body built with extra members
/// ([`Options::with_extra`](crate::provider::Options::with_extra)) is
/// written with them merged in, whichever way it is written.
#[derive(Clone)]
pub struct Body {
    written: Arc<dyn Written>,
    extra: Option<Arc<Extra>>,
}

impl Body {
    /// An API's typed body.
    pub(crate) fn new<T: Serialize + fmt::Debug + Send + Sync + 'static>(body: T) -> Body {
        Body {
            written: Arc::new(body),
            extra: None,
        }
    }

    /// The body with `extra` merged in when written (none when empty).
    pub(crate) fn with_extra(self, extra: &Extra) -> Body {
        Body {
            extra: (!extra.is_empty()).then(|| Arc::new(extra.clone())),
            ..self
        }
    }

    /// [`Body::to_json_in`], or why the extras cannot be merged in (a
    /// value the body writes where an extra gives another).
    pub(crate) fn try_json_in(&self, room: usize) -> Result<String, ExtraError> {
        let json = self.written.json(room, self.extra.as_deref())?;
        Ok(String::from_utf8(json).expect("serde_json writes UTF-8"))
    }

    /// The body's [`Skeleton`], its payloads in their places to be
    /// written; `Ok(None)` when it must be written whole
    /// ([`Body::try_json_in`]). Errors as that.
    pub(crate) fn skeleton(&self) -> Result<Option<Skeleton>, ExtraError> {
        Skeleton::of(|| self.written.json(64 << 10, self.extra.as_deref()))
    }

    /// The body serialized anew as compact JSON (the API's own struct
    /// written straight to the text: the fast way; serializing a `Body`
    /// through `Serialize` goes through a type-erased serializer, which
    /// copies each payload once more).
    pub fn to_json(&self) -> String {
        self.to_json_in(128)
    }

    /// [`Body::to_json`] into a buffer made `room` bytes long at once: a
    /// body of payloads whose length is known ahead is written without
    /// growing (growing a 28 MB body copied it three times over and
    /// touched fresh memory each time: most of a warm turn).
    pub(crate) fn to_json_in(&self, room: usize) -> String {
        self.try_json_in(room)
            .expect("a body serializes, its extras merged as when it was built")
    }

    /// The body written as indented JSON, the same fast way.
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_pretty(&self, w: &mut dyn io::Write) -> io::Result<()> {
        self.written.write_pretty(w, self.extra.as_deref())
    }

    /// The body as a [`Value`] (every payload's base64 text written out,
    /// so this holds a copy of it).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a body always serializes")
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = f.debug_tuple("Body");
        t.field(&self.written);
        if let Some(extra) = &self.extra {
            t.field(extra.tree());
        }
        t.finish()
    }
}

impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.extra {
            None => self.written.as_ref().serialize(s),
            Some(extra) => Merged {
                body: self.written.as_ref(),
                extra,
                conflict: &RefCell::new(None),
            }
            .serialize(s),
        }
    }
}
