//! Saying when a fact may be stale: a model past its documented retirement
//! date, or one the data does not know.

use std::fmt;

use serde::Serialize;

use super::Provider;
use super::{Date, Facts, Traits};

/// Days before a documented retirement date from which it is warned of.
pub(crate) const RETIRING_WITHIN_DAYS: u32 = 90;

/// Why the facts used for a model may not hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ModelWarning {
    /// The provider documents that the model was shut down on `on`.
    Retired {
        /// The model id as given.
        model: String,
        /// The API.
        provider: Provider,
        /// The documented shutdown date.
        on: Date,
        /// The replacement the provider names.
        successor: Option<String>,
    },
    /// The provider documents that the model shuts down on `on`, within
    /// 90 days.
    Retiring {
        /// The model id as given.
        model: String,
        /// The API.
        provider: Provider,
        /// The documented shutdown date.
        on: Date,
        /// The replacement the provider names.
        successor: Option<String>,
    },
    /// The data knows the model, but not at this API (another serves it,
    /// or serves it with tool calls where this one does not).
    NotServed {
        /// The model id as given.
        model: String,
        /// The API.
        provider: Provider,
        /// The APIs the data says serve it.
        served_by: Vec<Provider>,
        /// What the conversion assumed instead.
        assumed: String,
    },
    /// The data does not know the model; `assumed` says what was used.
    Unknown {
        /// The model id as given.
        model: String,
        /// The API.
        provider: Provider,
        /// What the conversion assumed instead.
        assumed: String,
    },
}

impl fmt::Display for ModelWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let successor = |f: &mut fmt::Formatter<'_>, s: &Option<String>| match s {
            Some(s) => write!(f, "; the provider names {s} as its replacement"),
            None => Ok(()),
        };
        match self {
            ModelWarning::Retired {
                model,
                provider,
                on,
                successor: s,
            } => {
                write!(
                    f,
                    "model {model:?} was retired on {on} ({provider}'s documented date); its last known facts were used"
                )?;
                successor(f, s)
            }
            ModelWarning::Retiring {
                model,
                provider,
                on,
                successor: s,
            } => {
                write!(f, "model {model:?} is retired on {on} ({provider}'s documented date)")?;
                successor(f, s)
            }
            ModelWarning::NotServed {
                model,
                provider,
                served_by,
                assumed,
            } => {
                let by: Vec<&str> = served_by.iter().map(|p| p.name()).collect();
                write!(
                    f,
                    "model {model:?} is not served by {provider} with tool calls as far as the facts know (they list it for {}): assumed {assumed} (add it with --facts FILE)",
                    by.join(", ")
                )
            }
            ModelWarning::Unknown {
                model,
                provider,
                assumed,
            } => write!(
                f,
                "unknown model {model:?} for {provider}: assumed {assumed} (add it with --facts FILE)"
            ),
        }
    }
}

pub(super) fn check(
    facts: &Facts,
    provider: Provider,
    model: &str,
    today: Date,
) -> Option<ModelWarning> {
    let api = facts.api(provider);
    let Some(known) = facts.model(provider, model) else {
        if !api.documented_models {
            return None;
        }
        // The id as the other APIs would name it (past Bedrock's
        // prefixes, Gemini's `models/`).
        let own = api.model_ids.base(model);
        let served_by: Vec<Provider> = Provider::ALL
            .into_iter()
            .filter(|&p| p != provider && facts.model(p, own).is_some())
            .collect();
        let assumed = describe(
            &facts.traits(provider, model, None),
            facts.max_images(provider, model),
            facts.family_of_unknown(provider, model).as_deref(),
        );
        let model = model.to_owned();
        return Some(if served_by.is_empty() {
            ModelWarning::Unknown {
                model,
                provider,
                assumed,
            }
        } else {
            ModelWarning::NotServed {
                model,
                provider,
                served_by,
                assumed,
            }
        });
    };
    let on = known.retires_at(provider)?;
    let warning = |retired: bool| {
        let (model, successor) = (model.to_owned(), known.successor.clone());
        if retired {
            ModelWarning::Retired {
                model,
                provider,
                on,
                successor,
            }
        } else {
            ModelWarning::Retiring {
                model,
                provider,
                on,
                successor,
            }
        }
    };
    if on <= today {
        Some(warning(true))
    } else if on <= today.plus_days(RETIRING_WITHIN_DAYS) {
        Some(warning(false))
    } else {
        None
    }
}

/// What was assumed, in a few words.
fn describe(t: &Traits, max_images: usize, family: Option<&str>) -> String {
    let mut parts = Vec::new();
    match family {
        Some(f) => parts.push(format!("the {f} family's facts")),
        None => parts.push("the API's facts alone".to_owned()),
    }
    match t.sizing.as_ref().and_then(|s| s.view()) {
        Some(v) => {
            let mut s = format!("images processed at most at {} px", v.long_edge);
            if let Some(p) = v.max_patches {
                s.push_str(&format!(" and {p} patches"));
            }
            parts.push(s);
        }
        None => parts.push("no documented image processing size".to_owned()),
    }
    if max_images != usize::MAX {
        parts.push(format!("at most {max_images} images a request"));
    }
    match t.media_in_tool_result {
        Some(true) => parts.push("media inside tool results".into()),
        Some(false) => parts.push("media after tool results".into()),
        None => {}
    }
    parts.join(", ")
}
