//! Each number a rule's text states is the one its API's facts hold, so
//! a number is changed in one place (`facts.toml`) and a rule that still
//! says the old one fails here.

use crate::facts::{Facts, Provider};

use super::api;

/// `n` as the rule texts write it: `32 MB`, `8000`, `1000`.
fn megabytes(n: u64) -> String {
    format!("{} MB", n / 1_000_000)
}

#[test]
fn each_rule_states_the_limit_its_facts_hold() {
    let mut checked = 0;
    for provider in Provider::ALL {
        let facts = Facts::builtin().api(provider);
        for rule in api(provider).rules {
            let kind = rule.id.rsplit('/').next().unwrap();
            let want: Vec<String> = match kind {
                "request-size" => facts.request_bytes.map(megabytes).into_iter().collect(),
                "pdf-pages" => facts
                    .limits
                    .max_pages
                    .map(|n| n.to_string())
                    .into_iter()
                    .collect(),
                "image-size" => {
                    let mut want: Vec<String> = facts
                        .limits
                        .max_dim
                        .map(|d| format!("{d}×{d}"))
                        .into_iter()
                        .collect();
                    if let Some(many) = facts.limits.many_images {
                        want.push(format!("more than {} images", many.over));
                        want.push(format!("{0}×{0}", many.max_dim));
                    }
                    want
                }
                _ => continue,
            };
            for number in want {
                assert!(
                    rule.says.contains(&number),
                    "{}: says {:?}, the facts hold {number}",
                    rule.id,
                    rule.says
                );
                checked += 1;
            }
        }
    }
    // Request sizes of four APIs, pages of five, Anthropic's image sizes.
    assert!(checked >= 10, "{checked}");
}
