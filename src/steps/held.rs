//! Files a provider holds ([`ProviderFile`]): which holder a request's
//! provider reads, whether it takes a file as it is named, and the
//! uploads map's file for some bytes.

use crate::facts::Family;
use crate::media::{MediaType, ProviderFile, Uploads};

use super::options::Options;
use super::spec::Spec;

/// What a request's provider takes of the files it holds.
pub(crate) struct Held<'o> {
    spec: &'static Spec,
    /// The family whose shape the model takes ([`Spec::family`]).
    family: Option<Family>,
    /// The uploads map, when it names files of this provider's holder.
    pub uploads: Option<&'o Uploads>,
}

impl<'o> Held<'o> {
    pub fn new(spec: &'static Spec, model: &str, options: &'o Options) -> Held<'o> {
        Held {
            spec,
            family: (spec.family)(model, options.family),
            uploads: options
                .uploads
                .as_deref()
                .filter(|u| spec.holder.is_some_and(|h| u.has(h))),
        }
    }

    /// Why this provider cannot take `file` (its own holder's) as it is
    /// named, if it cannot ([`Spec::refuses_file`]).
    pub fn refuses(&self, file: &ProviderFile, is_document: bool) -> Option<String> {
        (self.spec.refuses_file)(file, is_document, self.family)
    }

    /// The file of this provider's holder the uploads map names for the
    /// bytes of SHA-256 `hash`, its media type filled in from `sniffed`
    /// when the map gave none; `None` when there is none, or this
    /// provider cannot take it.
    pub fn uploaded(
        &self,
        hash: &[u8; 32],
        sniffed: Option<MediaType>,
        is_document: bool,
    ) -> Option<ProviderFile> {
        let holder = self.spec.holder?;
        let mut file = self.uploads?.find_hash(hash, holder)?.clone();
        if file.media_type.is_none() {
            file.media_type = sniffed.map(|t| t.as_str().to_owned());
        }
        self.refuses(&file, is_document).is_none().then_some(file)
    }
}

/// The refusal of an API that needs a provider file's media type and was
/// given none.
pub(crate) fn needs_media_type(api: &str, file: &ProviderFile) -> String {
    format!(
        "{api} needs the media type of the file: {}image/png;…",
        file.holder.prefix()
    )
}
