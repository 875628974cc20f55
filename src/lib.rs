//! Tool-result carriers in agent conversation histories.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod carrier;
pub mod history;
pub mod inspect;
mod json;
pub mod migrate;
pub mod roots;

pub use carrier::{
    classify, image_refs, is_prompt_tool_carrier, is_tool_result_carrier, marker_line,
    native_attachments, parse_marker_line, parse_native_tool_carrier, parse_prompt_tool_carrier,
    rebuild_carrier, render_native_attachments, render_native_tool_carrier,
    render_prompt_tool_carrier, Attachment, AttachmentKind, CarrierKind, CarrierParts,
    RebuildError, RenderError, TOOL_RESULTS_PREFIX,
};
