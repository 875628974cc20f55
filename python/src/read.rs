//! The history a call is given, read as the caller says it is: the
//! crate's own records (the default), any format told by its shape
//! (`"auto"`), a provider's request body or message list (a provider's
//! name), or an agent's transcript (an agent's name).

use std::str::FromStr;

use tool_carrier::history::{ReadError, Record};
use tool_carrier::import::{
    from_agent, from_provider, read_auto, Agent, ImportOptions, ImportedHistory,
};
use tool_carrier::media::store::InlineStore;
use tool_carrier::provider::Provider;

/// Why a history could not be read: the message, and the 1-based line
/// where one is known.
pub(crate) struct Unread {
    pub message: String,
    pub line: Option<usize>,
}

impl Unread {
    pub(crate) fn new(message: String) -> Unread {
        Unread {
            message,
            line: None,
        }
    }
}

/// What was read: the records, and a line for each thing a reader kept
/// in another form (empty for the crate's own records).
pub(crate) struct Read {
    pub records: Vec<Record>,
    pub notes: Vec<String>,
}

/// Read `bytes` in a format other than the crate's records: `"auto"`, a
/// provider's name or an agent's.
pub(crate) fn imported(
    bytes: &[u8],
    source: &str,
    keep_unknown: bool,
) -> Result<ImportedHistory, Unread> {
    let options = ImportOptions::new().with_keep_unknown(keep_unknown);
    match source {
        "auto" => read_auto(&mut &bytes[..], &mut InlineStore, &options)
            .map(|read| read.history)
            .map_err(|e| Unread::new(format!("source auto: {e}"))),
        name => {
            if let Ok(provider) = Provider::from_str(name) {
                let body: serde_json::Value = serde_json::from_slice(bytes)
                    .map_err(|e| Unread::new(format!("source {name}: not JSON: {e}")))?;
                return from_provider(provider, &body, &mut InlineStore, &options)
                    .map_err(|e| Unread::new(format!("source {name}: {e}")));
            }
            let agent = Agent::from_str(name).map_err(|_| {
                Unread::new(format!(
                    "source {name:?}: not \"records\", \"auto\", a provider's name or an agent's"
                ))
            })?;
            from_agent(agent, &mut &bytes[..], &mut InlineStore, &options)
                .map_err(|e| Unread::new(format!("source {name}: {e}")))
        }
    }
}

/// Read `bytes` as `source` says (`None`: the crate's records).
pub(crate) fn read(bytes: &[u8], source: Option<&str>, keep_unknown: bool) -> Result<Read, Unread> {
    match source {
        None | Some("records") => tool_carrier::history::read(bytes)
            .map(|records| Read {
                records,
                notes: Vec::new(),
            })
            .map_err(|e| Unread {
                line: match &e {
                    ReadError::Records(errors) => errors.first().map(|r| r.line),
                    _ => None,
                },
                message: e.to_string(),
            }),
        Some(name) => imported(bytes, name, keep_unknown).map(|history| Read {
            notes: history
                .notes
                .iter()
                .map(|n| format!("message {}: {}", n.message, n.text))
                .collect(),
            records: history.messages,
        }),
    }
}
