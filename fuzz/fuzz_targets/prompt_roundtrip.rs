//! render → parse is the identity for every body and attachment list, and
//! rendering refuses exactly the targets that could not read back.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tool_carrier::{
    parse_native_tool_carrier, parse_prompt_tool_carrier, render_native_tool_carrier,
    render_prompt_tool_carrier, Attachment, AttachmentKind, RenderError,
};

#[derive(Debug, Arbitrary)]
struct Input<'a> {
    body: &'a str,
    attachments: Vec<(u8, &'a str)>,
}

fuzz_target!(|input: Input<'_>| {
    let atts: Vec<Attachment<'_>> = input
        .attachments
        .iter()
        .map(|&(k, t)| Attachment::new(AttachmentKind::ALL[usize::from(k) % 4], t))
        .collect();

    let bad_prompt = atts
        .iter()
        .position(|a| a.target.is_empty() || a.target.contains('\n'));
    match render_prompt_tool_carrier(input.body, &atts) {
        Ok(carrier) => {
            assert_eq!(bad_prompt, None);
            let parts = parse_prompt_tool_carrier(&carrier).unwrap();
            assert!(parts.declared);
            assert_eq!(parts.body, input.body);
            assert_eq!(parts.attachments, atts);
        }
        Err(RenderError::EmptyTarget { index } | RenderError::LineFeedInTarget { index }) => {
            assert_eq!(Some(index), bad_prompt)
        }
        Err(e) => panic!("{e}"),
    }

    let bad_native = atts.iter().position(|a| a.target.is_empty());
    match render_native_tool_carrier(input.body, &atts) {
        Ok(envelope) => {
            assert_eq!(bad_native, None);
            let parts = parse_native_tool_carrier(&envelope);
            assert!(parts.declared);
            assert_eq!(parts.body, input.body);
            assert_eq!(parts.attachments, atts);
        }
        Err(RenderError::EmptyTarget { index }) => assert_eq!(Some(index), bad_native),
        Err(e) => panic!("{e}"),
    }
});
