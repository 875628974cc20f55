//! Files a provider holds ([`ProviderFile`]): which holder a request's
//! provider reads, whether it takes a file as it is named, and the
//! uploads map's file for some bytes.

use crate::facts::ids::{bedrock_family, Family};
use crate::facts::Provider;
use crate::media::{Holder, MediaType, ProviderFile, Uploads};

use super::options::Options;

/// What a request's provider takes of the files it holds.
pub(crate) struct Held<'o> {
    provider: Provider,
    /// Whether the model reads media from S3 (Bedrock: Amazon Nova).
    s3_media: bool,
    /// The uploads map, when it names files of this provider's holder.
    pub uploads: Option<&'o Uploads>,
}

impl<'o> Held<'o> {
    pub fn new(provider: Provider, model: &str, options: &'o Options) -> Held<'o> {
        // Only the Nova models read "Amazon S3 links for multimedia" in
        // Converse: <https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html>
        // (read 2026-12-02; Claude, Llama, Mistral and the others: no).
        let s3_media = provider == Provider::Bedrock
            && options.family.or_else(|| bedrock_family(model)) == Some(Family::Nova);
        Held {
            provider,
            s3_media,
            uploads: options
                .uploads
                .as_deref()
                .filter(|u| holder_of(provider).is_some_and(|h| u.has(h))),
        }
    }

    /// Why this provider cannot take `file` (its own holder's) as it is
    /// named, if it cannot.
    pub fn refuses(&self, file: &ProviderFile, is_document: bool) -> Option<String> {
        let media_type = file.media_type_for(is_document);
        match self.provider {
            // Chat's image part is a URL only; its `file` part takes a
            // file id, for documents
            // (<https://platform.openai.com/docs/api-reference/chat/create>,
            // read 2026-12-02).
            Provider::OpenAiChat if !is_document => {
                Some("OpenAI Chat takes no image by file id (Responses does)".to_owned())
            }
            Provider::Bedrock if !self.s3_media => {
                Some("on Bedrock only the Amazon Nova models read media from S3".to_owned())
            }
            // `fileData` needs its `mimeType`; a Converse image block its
            // `format` (png, jpeg, gif, webp) and a document block its
            // own (pdf here).
            Provider::Gemini | Provider::Gemini2 | Provider::Bedrock if media_type.is_none() => {
                Some(format!(
                    "{} needs the media type of the file: {}image/png;…",
                    self.provider.display_name(),
                    file.holder.prefix()
                ))
            }
            Provider::Bedrock => {
                let t = media_type.unwrap_or_default();
                let fits = if is_document {
                    t == "application/pdf"
                } else {
                    matches!(t, "image/png" | "image/jpeg" | "image/gif" | "image/webp")
                };
                (!fits).then(|| format!("Bedrock takes no {t} file here"))
            }
            _ => None,
        }
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
        let holder = holder_of(self.provider)?;
        let mut file = self.uploads?.find_hash(hash, holder)?.clone();
        if file.media_type.is_none() {
            file.media_type = sniffed.map(|t| t.as_str().to_owned());
        }
        self.refuses(&file, is_document).is_none().then_some(file)
    }
}

/// The holder of the files a request for `provider` can refer to; `None`
/// for a provider that reads none (Ollama, OpenAI-compatible servers).
pub(crate) fn holder_of(provider: Provider) -> Option<Holder> {
    match provider {
        Provider::Anthropic => Some(Holder::Anthropic),
        Provider::OpenAiChat | Provider::OpenAiResponses => Some(Holder::OpenAi),
        Provider::Gemini | Provider::Gemini2 => Some(Holder::Gemini),
        Provider::Bedrock => Some(Holder::Bedrock),
        Provider::Ollama | Provider::OpenAiCompatible => None,
    }
}
