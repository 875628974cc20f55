//! The limits table of docs/providers.md states the numbers the built-in
//! facts hold, so a fact changed in `facts.toml` and not in the docs fails
//! here (the rule texts are held to them in `apis::rule_text_tests`).

use tool_carrier::facts::Facts;
use tool_carrier::provider::Provider;

/// Whether `text` holds `number` as a number of its own (not inside a
/// longer one).
fn states(text: &str, number: &str) -> bool {
    text.match_indices(number).any(|(at, _)| {
        // A digit, or a thousands comma, on either side makes it part of
        // a longer number.
        let mut before = text[..at].chars().rev();
        let mut after = text[at + number.len()..].chars();
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let longer = |first: Option<char>, second: Option<char>| {
            digit(first) || (first == Some(',') && digit(second))
        };
        !longer(before.next(), before.next()) && !longer(after.next(), after.next())
    })
}

#[test]
fn the_limits_table_states_the_facts() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/providers.md")).unwrap();
    let (_, table) = docs
        .split_once("## Limits, and where they come from")
        .expect("docs/providers.md has its limits section");
    let rows = [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::Gemini,
        Provider::Bedrock,
    ];
    for provider in rows {
        let api = Facts::builtin().api(provider);
        let head = format!("| {} |", provider.display_name());
        let row = table
            .lines()
            .find(|l| l.starts_with(&head))
            .unwrap_or_else(|| panic!("docs/providers.md has no limits row {head}"));
        let mut want = Vec::new();
        if let Some(pages) = api.limits.max_pages {
            want.push(format!("{pages}"));
        }
        if let Some(bytes) = api.request_bytes {
            want.push(format!("{} MB", bytes / 1_000_000));
        }
        if let Some(d) = api.limits.max_dim {
            want.push(format!("{d}×{d}"));
        }
        if let Some(many) = api.limits.many_images {
            want.push(format!("{0}×{0}", many.max_dim));
        }
        for number in want {
            assert!(states(row, &number), "{head}: states no {number}: {row}");
        }
    }
}

#[test]
fn a_number_inside_a_longer_one_is_not_stated() {
    assert!(states("100 PDF pages", "100"));
    assert!(!states("1000 PDF pages", "100"));
    assert!(!states("3,600 images", "600"));
    assert!(states("or 600 of each", "600"));
    assert!(states("8000×8000, more", "8000×8000"));
}
