//! classify on arbitrary (role, content): the predicate agrees, legacy
//! carriers declare nothing, and a declared prompt carrier is exactly its
//! own rendering.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_carrier::{
    classify, is_tool_result_carrier, rebuild_carrier, render_prompt_tool_carrier, CarrierKind,
};

const ROLES: [&str; 5] = ["tool", "user", "assistant", "system", "developer"];

fuzz_target!(|input: (u8, &str)| {
    let (role, content) = input;
    let role = ROLES[usize::from(role) % ROLES.len()];
    let parts = classify(role, content);
    assert_eq!(is_tool_result_carrier(role, content), parts.is_some());
    let Some(parts) = parts else { return };
    if !parts.declared {
        assert!(parts.attachments.is_empty());
        if parts.kind == CarrierKind::Prompt {
            assert_eq!(parts.body, content);
        }
        return;
    }
    match parts.kind {
        CarrierKind::Prompt => {
            // Declared prompt carriers are canonical, but for the line feed
            // after the last header line when the body is empty.
            let again = render_prompt_tool_carrier(&parts.body, &parts.attachments).unwrap();
            if again != content {
                assert!(parts.body.is_empty());
                assert_eq!(again, format!("{content}\n"));
            }
            let rebuilt = rebuild_carrier(role, content, &parts, &parts.attachments).unwrap();
            assert_eq!(rebuilt, content, "rebuilding unchanged is the identity");
        }
        CarrierKind::Native => {
            for a in &parts.attachments {
                assert!(!a.target.is_empty());
            }
        }
    }
});
