//! Attachments prepared at once on several threads
//! (`Options::with_parallelism`) give the request one thread gives, byte
//! for byte, with the same notes in the same order, and the same first
//! failure under `strict`: with broken and missing files among them, with
//! the limits that leave the oldest out, and through a conversation.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use proptest::prelude::*;
use support::{history_lines, png, shot_rounds, Fixture, Shot};
use tool_carrier::history::{AssistantTurn, ToolResult};
use tool_carrier::provider::{build_request, BuildError, Options, Provider};
use tool_carrier::Attachment;
use tool_carrier::Conversation;

/// A history of one round per shot, and the fixture holding the files.
fn rounds(shots: &[Shot]) -> (Fixture, String) {
    let fixture = Fixture::new();
    let history = shot_rounds(&fixture, shots);
    (fixture, history)
}

/// The body (or the error) and the notes, as text.
fn outcome(provider: Provider, history: &str, options: &Options) -> (String, String) {
    let messages = history_lines(history);
    match build_request(provider, &messages, options) {
        Ok(request) => (
            request.json().to_owned(),
            format!("{:?}", request.report.notes),
        ),
        Err(e) => (format!("error: {e}"), format!("{e:?}")),
    }
}

const MIXED: &[Shot] = &[
    Shot::Wide(1),
    Shot::Text,
    Shot::Wide(2),
    Shot::Missing,
    Shot::Small(3),
    Shot::Cut,
    Shot::Wide(4),
    Shot::Pdf,
    Shot::Noise,
    Shot::Wide(5),
    Shot::Small(6),
    Shot::Wide(7),
];

#[test]
fn every_provider_gets_the_same_body_from_one_thread_and_from_many() {
    let (fixture, history) = rounds(MIXED);
    for provider in Provider::ALL {
        let one = outcome(provider, &history, &fixture.options().with_parallelism(1));
        for n in [2, 3, 8] {
            let many = outcome(provider, &history, &fixture.options().with_parallelism(n));
            // Compared without printing: a body is megabytes.
            assert!(
                one.0 == many.0,
                "{provider}, {n} threads: the bodies differ"
            );
            assert_eq!(one.1, many.1, "{provider}, {n} threads: notes");
        }
        // The notes name the broken files, newest first or not.
        assert!(one.1.contains("shot-1.png") && one.1.contains("shot-5.png"));
    }
}

#[test]
fn strict_reports_the_same_failures_in_the_same_order() {
    let (fixture, history) = rounds(MIXED);
    for provider in [Provider::Anthropic, Provider::OpenAiChat, Provider::Gemini] {
        let strict = |n| {
            let messages = history_lines(&history);
            match build_request(
                provider,
                &messages,
                &fixture.options().with_strict(true).with_parallelism(n),
            ) {
                Err(BuildError::Attachments(notes)) => notes,
                other => panic!("{provider}: {other:?}"),
            }
        };
        let one = strict(1);
        assert!(one.len() >= 4, "{one:?}");
        for n in [2, 4] {
            assert_eq!(strict(n), one, "{provider}, {n} threads");
        }
    }
}

#[test]
fn the_limits_leave_out_the_same_attachments_whatever_the_threads() {
    let shots: Vec<Shot> = (0..10).map(|i| Shot::Wide(i as u8)).collect();
    let (fixture, history) = rounds(&shots);
    let limited: [&dyn Fn() -> Options; 3] = [
        &|| fixture.options().with_keep_images(3),
        &|| fixture.options().with_keep_images(4).with_evict_step(2),
        &|| fixture.options().with_image_tokens(600),
    ];
    for options in limited {
        let one = outcome(
            Provider::Anthropic,
            &history,
            &options().with_parallelism(1),
        );
        assert!(one.1.contains("omitted"), "{}", one.1);
        for n in [2, 5] {
            let many = outcome(
                Provider::Anthropic,
                &history,
                &options().with_parallelism(n),
            );
            assert!(one.0 == many.0, "{n} threads: the bodies differ");
            assert_eq!(one.1, many.1, "{n} threads: notes");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn any_history_and_limits_give_the_same_body_on_any_threads(
        kinds in prop::collection::vec(0u8..7, 1..9),
        keep in prop::option::of(1usize..6),
        threads in 2usize..6,
    ) {
        let shots: Vec<Shot> = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| match k {
                0 | 1 => Shot::Wide(i as u8),
                2 => Shot::Small(i as u8),
                3 => Shot::Text,
                4 => Shot::Cut,
                5 => Shot::Missing,
                _ => Shot::Pdf,
            })
            .collect();
        let (fixture, history) = rounds(&shots);
        let options = |n| {
            let o = fixture.options().with_parallelism(n);
            match keep {
                Some(k) => o.with_keep_images(k),
                None => o,
            }
        };
        let one = outcome(Provider::Anthropic, &history, &options(1));
        let many = outcome(Provider::Anthropic, &history, &options(threads));
        prop_assert!(one.0 == many.0, "the bodies differ");
        prop_assert_eq!(one.1, many.1);
    }
}

#[test]
fn a_conversation_on_many_threads_gives_each_turn_the_body_one_thread_gives() {
    let (fixture, _) = rounds(&[]);
    let mut one = Conversation::new(Provider::Anthropic, fixture.options().with_parallelism(1));
    let mut many = Conversation::new(Provider::Anthropic, fixture.options().with_parallelism(4));
    for c in [&mut one, &mut many] {
        c.push_user("Watch the screen.");
    }
    for n in 0..6u8 {
        let name = format!("turn-{n}.png");
        fixture.add(&name, &png(2100, 24, n));
        for c in [&mut one, &mut many] {
            let id = format!("toolu_{n}");
            c.push_assistant(
                &AssistantTurn::new("")
                    .call(&id, "screenshot", "{}")
                    .unwrap(),
            );
            // Each turn also declares the first turn's file again.
            let result = ToolResult::new(&id, "Captured.")
                .attach(Attachment::image(&name))
                .attach(Attachment::image("turn-0.png"));
            c.push_result(&result).unwrap();
        }
        let (a, b) = (one.request().unwrap(), many.request().unwrap());
        assert!(a.json() == b.json(), "turn {n}: the bodies differ");
        assert_eq!(a.report.notes, b.report.notes);
    }
}
