//! The shared steps of converting a history, which no API owns: the walk
//! (history to neutral turns), attaching media, names and ids, tool
//! declarations and schema fitting, composing notes, the options and the
//! report, the API table, the rule machinery and what reading a request
//! body back shares. The APIs (`crate::apis`) build on these; nothing
//! here names an API's folder.

pub(crate) mod account;
pub(crate) mod assembled;
pub(crate) mod attach;
pub(crate) mod audit;
pub(crate) mod body;
pub(crate) mod cache_marks;
mod choice;
pub(crate) mod compose;
pub(crate) mod context;
pub(crate) mod declare;
pub(crate) mod detail;
pub(crate) mod envelope;
pub(crate) mod error;
mod evict;
pub(crate) mod extra;
mod fetch;
pub(crate) mod held;
pub(crate) mod http;
pub(crate) mod imported;
pub(crate) mod known;
pub(crate) mod lines;
pub(crate) mod members;
pub(crate) mod memo;
mod merged;
pub(crate) mod model;
pub(crate) mod names;
pub(crate) mod options;
mod options_media;
mod output;
pub(crate) mod output_rules;
pub(crate) mod params;
pub(crate) mod path;
mod payload;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod response;
pub(crate) mod rule;
pub(crate) mod slot;
pub(crate) mod spec;
pub(crate) mod spelled;
pub(crate) mod sse;
pub(crate) mod tally;
pub mod tools;
pub(crate) mod walk;
pub(crate) mod wire;
