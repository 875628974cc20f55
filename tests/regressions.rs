//! One test per bug found (by fuzzing or otherwise), named after the bug.

use tool_carrier::{classify, rebuild_carrier, render_prompt_tool_carrier};

/// Found by the `classify` fuzz target: a declared prompt carrier whose
/// count line ends the content (no `\n`, empty body) re-rendered with a
/// trailing `\n`, so rebuilding it unchanged was not the identity.
#[test]
fn declared_prompt_carrier_without_final_newline_rebuilds_unchanged() {
    for content in [
        "[Tool results]\n[Tool attachments: 0]",
        "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/a.png]",
    ] {
        let parts = classify("user", content).unwrap();
        assert!(parts.declared);
        assert_eq!(parts.body, "");
        assert_eq!(
            rebuild_carrier("user", content, &parts, &parts.attachments).unwrap(),
            content
        );
        // Rendering is canonical: it writes the line feed.
        let rendered = render_prompt_tool_carrier(&parts.body, &parts.attachments).unwrap();
        assert_eq!(rendered, format!("{content}\n"));
    }
}
