//! What the model would get for a file: the `media` command's report.

use std::fmt;
use std::path::Path;

use serde::Serialize;

use tool_carrier::facts::{Detail, Facts};
use tool_carrier::media::{
    prepare, read_regular_file, Budget, Estimates, MediaError, MediaFacts, Policy, Prepared,
};
use tool_carrier::provider::Provider;

/// The report for one file, shaped for `media --json`:
///
/// ```json
/// {"path":"a.jpg",
///  "original":{"media_type":"image/jpeg","bytes":N,"width":W,"height":H},
///  "final":{"media_type":"image/jpeg","bytes":N,"width":W,"height":H},
///  "resized":true,"reencoded":true,"base64_len":N,
///  "estimates":{"chars":4800,"anthropic_tokens":N,"openai_tokens":N}}
/// ```
///
/// `width`, `height` and the token estimates are `null` for a PDF. Its
/// [`Display`](fmt::Display) is a one-paragraph summary for people.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct MediaReport {
    /// The path as given.
    pub path: String,
    /// What the file is.
    pub original: MediaFacts,
    /// What the model would get.
    #[serde(rename = "final")]
    pub final_: MediaFacts,
    /// Whether the pixel size changed.
    pub resized: bool,
    /// Whether the bytes were re-encoded.
    pub reencoded: bool,
    /// Length of the base64 text sent.
    pub base64_len: usize,
    /// Cost estimates.
    pub estimates: Estimates,
    /// With `--provider`: that provider's own count of the image's input
    /// tokens at the size sent, for its model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderCost>,
    /// Whether an animation was cut to its first frame (not in the JSON).
    #[serde(skip)]
    pub first_frame_only: bool,
    /// The JPEG quality written, if any (not in the JSON).
    #[serde(skip)]
    pub quality: Option<u8>,
    /// How many encodes came out over the budget first (not in the JSON).
    #[serde(skip)]
    pub over_budget_attempts: usize,
}

impl MediaReport {
    /// The report for `prepared`, read from `path`.
    pub fn new(path: &Path, prepared: &Prepared) -> MediaReport {
        MediaReport {
            path: path.display().to_string(),
            original: prepared.original,
            final_: prepared.facts(),
            resized: prepared.resized,
            reencoded: prepared.reencoded,
            base64_len: prepared.base64_len(),
            estimates: prepared.estimates(),
            first_frame_only: prepared.first_frame_only,
            quality: prepared.quality,
            over_budget_attempts: prepared.fitting.len(),
            provider: None,
        }
    }

    /// The same report with `provider`'s count for `model`, by `facts`, at
    /// `detail` where one is sent (else at `auto`'s size).
    pub fn for_provider(
        self,
        facts: &Facts,
        provider: Provider,
        model: &str,
        detail: Option<Detail>,
    ) -> MediaReport {
        let tokens = self
            .final_
            .width
            .zip(self.final_.height)
            .and_then(|(w, h)| {
                facts.image_tokens_at(provider, model, detail.unwrap_or(Detail::Auto), w, h)
            });
        MediaReport {
            provider: Some(ProviderCost {
                name: provider.name(),
                model: model.to_owned(),
                // An image's setting: a PDF is sent the same at any level.
                detail: detail.filter(|_| self.final_.width.is_some()),
                tokens,
            }),
            ..self
        }
    }
}

/// What an image costs one provider's model:
/// `{"name","model","detail","tokens"}` (`detail` only where one was
/// sent; `tokens` null where the provider documents no count, or for a
/// PDF).
#[derive(Clone, Debug, Serialize)]
pub struct ProviderCost {
    /// The provider's name.
    pub name: &'static str,
    /// The model.
    pub model: String,
    /// The detail level the image is sent at, where one is sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
    /// Its input tokens for the image as sent.
    pub tokens: Option<u64>,
}

/// Read the file at `path` as given (not confined to roots, but regular
/// files only and at most [`Policy::max_file_bytes`]), prepare it for
/// `budget`, and report what the model would get.
///
/// # Errors
/// Those of [`read_regular_file`] and [`prepare`].
///
/// ```
/// use tool_carrier::media::{Budget, Policy};
/// use tool_carrier_cli::report::describe_file;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("doc.pdf");
/// std::fs::write(&path, b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n")?;
/// let report = describe_file(&path, &Policy::default(), Budget::ANTHROPIC)?;
/// let json = serde_json::to_value(&report)?;
/// assert_eq!(json["final"]["media_type"], "application/pdf");
/// assert!(json["final"]["width"].is_null());
/// assert_eq!(json["estimates"]["chars"], 4800);
/// # Ok(()) }
/// ```
pub fn describe_file(
    path: &Path,
    policy: &Policy,
    budget: Budget,
) -> Result<MediaReport, MediaError> {
    let bytes = read_regular_file(path, policy.max_file_bytes())?;
    let prepared = prepare(bytes, policy, budget)?;
    Ok(MediaReport::new(path, &prepared))
}

/// A file the `media` command refuses: `{"path":"…","error":"…"}`.
#[derive(Clone, Debug, Serialize)]
pub struct MediaRefusal {
    /// The path as given.
    pub path: String,
    /// Why, as [`MediaError`]'s message.
    pub error: String,
}

impl MediaRefusal {
    /// The refusal of `path` for `error`.
    pub fn new(path: &Path, error: &MediaError) -> MediaRefusal {
        MediaRefusal {
            path: path.display().to_string(),
            error: error.to_string(),
        }
    }
}

impl fmt::Display for MediaRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: refused: {}", self.path, self.error)
    }
}

impl fmt::Display for MediaReport {
    /// ```text
    /// shot.png: image/png, 4000×3000, 6.1 MB. Sent as image/png, 2000×1500,
    /// 1.9 MB (resized, re-encoded); base64 2,533,336 characters. Estimates:
    /// 4800 characters, ~4000 Anthropic tokens, ~765 OpenAI tokens.
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path)?;
        write_facts(f, &self.original)?;
        f.write_str(". ")?;
        if !self.reencoded {
            f.write_str("Sent unchanged")?;
        } else {
            f.write_str("Sent as ")?;
            write_facts(f, &self.final_)?;
            let mut what = Vec::new();
            if self.resized {
                what.push("resized".to_owned());
            }
            what.push(match self.quality {
                Some(q) => format!("re-encoded at quality {q}"),
                None => "re-encoded".to_owned(),
            });
            if self.first_frame_only {
                what.push("first frame only".to_owned());
            }
            if self.over_budget_attempts > 0 {
                what.push(format!(
                    "{} larger attempt{} over the size cap",
                    self.over_budget_attempts,
                    if self.over_budget_attempts == 1 {
                        ""
                    } else {
                        "s"
                    }
                ));
            }
            write!(f, " ({})", what.join(", "))?;
        }
        write!(
            f,
            "; base64 {} characters. Estimates: {} characters",
            thousands(self.base64_len),
            self.estimates.chars
        )?;
        if let (Some(a), Some(o)) = (
            self.estimates.anthropic_tokens,
            self.estimates.openai_tokens,
        ) {
            write!(f, ", ~{a} Anthropic tokens, ~{o} OpenAI tokens")?;
        }
        f.write_str(".")?;
        if let Some(p) = &self.provider {
            write!(f, " {} on {}", p.model, p.name)?;
            if let Some(d) = p.detail {
                write!(f, " at detail {d}")?;
            }
            match p.tokens {
                Some(t) => write!(f, ": {t} input tokens."),
                None => f.write_str(": no documented token count."),
            }?;
        }
        Ok(())
    }
}

fn write_facts(f: &mut fmt::Formatter<'_>, facts: &MediaFacts) -> fmt::Result {
    write!(f, "{}", facts.media_type)?;
    if let (Some(w), Some(h)) = (facts.width, facts.height) {
        write!(f, ", {w}×{h}")?;
    }
    write!(f, ", {}", human_bytes(facts.bytes))
}

fn human_bytes(n: usize) -> String {
    match n {
        0..=9_999 => format!("{n} bytes"),
        10_000..=999_999 => format!("{:.0} kB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(2_533_336), "2,533,336");
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(318_123), "318 kB");
        assert_eq!(human_bytes(6_100_000), "6.1 MB");
    }
}
