//! A token budget (`Options::with_image_tokens`) decided from each image's
//! header: an image it leaves out is never loaded where the resolver can
//! give a file's first bytes (`Resolver::head`), and the request is byte
//! for byte the one a resolver that cannot gives, with broken, missing and
//! mistyped files among the images, on one thread or several.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use support::{build_lines, calls, noise_png, result, shot_rounds, shot_target, Fixture, Shot};
use tool_carrier::facts::{Facts, Profile};
use tool_carrier::media::{DefaultResolver, MediaError, Resolver, Source, Stamp};
use tool_carrier::provider::{NoteReason, Provider};

/// The fixture's own resolver, recording what it resolves; it gives
/// files' first bytes only `with_heads`.
#[derive(Clone)]
struct Counting {
    inner: DefaultResolver,
    heads: bool,
    resolved: Arc<Mutex<Vec<String>>>,
}

impl Counting {
    fn new(fixture: &Fixture, heads: bool) -> Counting {
        Counting {
            inner: DefaultResolver::new(fixture.options().policy().clone()),
            heads,
            resolved: Arc::default(),
        }
    }

    fn resolved(&self) -> Vec<String> {
        let mut all = self.resolved.lock().unwrap().clone();
        all.sort();
        all
    }
}

impl Resolver for Counting {
    fn resolve(&self, target: &str) -> Result<Source, MediaError> {
        self.resolved.lock().unwrap().push(target.to_owned());
        self.inner.resolve(target)
    }

    fn stamp(&self, target: &str) -> Option<Stamp> {
        self.inner.stamp(target)
    }

    fn head(&self, target: &str, len: usize) -> Option<Vec<u8>> {
        self.heads.then(|| self.inner.head(target, len)).flatten()
    }
}

/// The targets of the notes saying `reason`.
fn noted(request: &tool_carrier::provider::Request, reason: NoteReason) -> Vec<String> {
    let mut targets: Vec<String> = request
        .report
        .notes
        .iter()
        .filter(|n| n.reason == reason)
        .map(|n| n.target.clone())
        .collect();
    targets.sort();
    targets
}

/// The request for `provider` of `history` within `budget` tokens on
/// `parallelism` threads, and what was resolved, reading heads or not.
fn run(
    fixture: &Fixture,
    history: &str,
    provider: Provider,
    (budget, parallelism): (u64, usize),
    heads: bool,
) -> (tool_carrier::provider::Request, Vec<String>) {
    let counting = Counting::new(fixture, heads);
    let options = fixture
        .options()
        .with_resolver(counting.clone())
        .with_image_tokens(budget)
        .with_parallelism(parallelism);
    (
        build_lines(provider, history, &options),
        counting.resolved(),
    )
}

#[test]
fn an_image_past_the_budget_is_never_loaded() {
    let fixture = Fixture::new();
    let shots: Vec<Shot> = (0..8).map(|i| Shot::Wide(i % 3)).collect();
    let history = shot_rounds(&fixture, &shots);
    let provider = Provider::Anthropic;
    let model = provider.default_model();
    // Each is sent fitted to the model's view: the three newest fit.
    let fitted = |i: usize| {
        let (w, h) = (2100, 24 + u32::try_from(i % 3).unwrap());
        let edge = fixture.options().policy().clone();
        let view = provider.view(model).unwrap();
        let edge = edge.with_view(view).long_edge_for(w, h);
        let (w, h) = tool_carrier::media::fit_within(w, h, edge);
        provider.image_tokens(model, w, h).unwrap()
    };
    let budget = fitted(7) + fitted(6) + fitted(5) + fitted(4) / 2;
    for parallelism in [1, 2, 4, 8] {
        let (request, resolved) = run(&fixture, &history, provider, (budget, parallelism), true);
        assert_eq!(request.report.images, 3, "{parallelism}");
        assert_eq!(
            request.report.image_tokens,
            Some(fitted(7) + fitted(6) + fitted(5))
        );
        assert_eq!(noted(&request, NoteReason::OverTokens).len(), 5);
        assert_eq!(
            resolved,
            [shot_target(5), shot_target(6), shot_target(7)],
            "{parallelism}: only what is sent is loaded"
        );
        // A resolver that cannot read a file's start loads the crossing
        // image (and those prepared beside it) to the same request.
        let (again, resolved) = run(&fixture, &history, provider, (budget, parallelism), false);
        assert_eq!(again.to_json(), request.to_json());
        assert!(resolved.contains(&shot_target(4)), "{parallelism}");
    }
}

#[test]
fn an_image_made_smaller_for_a_byte_cap_counts_at_its_fitted_size() {
    let fixture = Fixture::new();
    fixture.add("big.png", &noise_png(400, 300));
    let history = [calls(&[("c1", "shot")]), result("c1", "ok", &["big.png"])].concat();
    let mut tight = Profile::builtin("generic").unwrap();
    tight.max_image_bytes = Some(60_000);
    let options = |tokens, resolver: Counting| {
        fixture
            .options()
            .with_profile(tight.clone())
            .with_resolver(resolver)
            .with_image_tokens(tokens)
    };
    // No formula documented for the model: Anthropic's stands in, 165 at
    // 400 × 300 (15 × 11 patches of 28 px).
    let patches = |w: u32, h: u32| u64::from(w.div_ceil(28) * h.div_ceil(28));
    let fitted = patches(400, 300);
    let roomy = build_lines(
        Provider::OpenAiCompatible,
        &history,
        &options(fitted, Counting::new(&fixture, true)),
    );
    let sent = support::png_sizes(&roomy);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].0 < 400, "made smaller for the cap: {sent:?}");
    let smaller = patches(sent[0].0, sent[0].1);
    assert!(smaller < fitted, "{smaller}");
    for heads in [true, false] {
        let counting = Counting::new(&fixture, heads);
        let request = build_lines(
            Provider::OpenAiCompatible,
            &history,
            &options(fitted - 1, counting.clone()),
        );
        assert_eq!(request.report.images, 0);
        assert_eq!(noted(&request, NoteReason::OverTokens), ["big.png"]);
        assert_eq!(counting.resolved().is_empty(), heads);
    }
}

#[test]
fn an_image_that_fails_counts_only_when_past_the_budget() {
    let fixture = Fixture::new();
    // Newest first: a small one, a cut one (a 300 × 200 header), a small one.
    let history = shot_rounds(&fixture, &[Shot::Small(1), Shot::Cut, Shot::Small(2)]);
    let provider = Provider::Anthropic;
    let small = |i: u32| {
        provider
            .image_tokens(provider.default_model(), 40, 30 + i)
            .unwrap()
    };
    let cut = provider
        .image_tokens(provider.default_model(), 300, 200)
        .unwrap();
    for heads in [true, false] {
        // Within the budget, it is the failure it is, and counts nothing.
        let roomy = small(1) + small(2) + cut;
        let (request, _) = run(&fixture, &history, provider, (roomy, 1), heads);
        assert_eq!(request.report.images, 2);
        assert_eq!(noted(&request, NoteReason::Media), [shot_target(1)]);
        // Past it, the budget says so first, and the older one is left out.
        let tight = small(2) + cut - 1;
        let (request, resolved) = run(&fixture, &history, provider, (tight, 1), heads);
        assert_eq!(request.report.images, 1);
        assert_eq!(
            noted(&request, NoteReason::OverTokens),
            [shot_target(0), shot_target(1)]
        );
        assert_eq!(resolved.len(), if heads { 1 } else { 2 });
    }
}

#[test]
fn every_documented_token_count_is_the_same_turned_a_quarter() {
    // An image counts at its header's size before its EXIF orientation
    // turns it: the same count for every sizing the crate knows.
    let facts = Facts::builtin();
    for (name, sizing) in facts.sizings() {
        for (w, h) in [(1, 4000), (37, 1900), (800, 600), (2880, 1800), (7999, 3)] {
            assert_eq!(sizing.tokens(w, h), sizing.tokens(h, w), "{name} {w}x{h}");
        }
    }
}

fn shot() -> impl Strategy<Value = Shot> {
    prop_oneof![
        4 => (0u8..3).prop_map(Shot::Wide),
        3 => (0u8..3).prop_map(Shot::Small),
        1 => Just(Shot::Noise),
        1 => Just(Shot::Text),
        1 => Just(Shot::Cut),
        1 => Just(Shot::Pdf),
        1 => Just(Shot::Missing),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The request does not depend on whether the resolver gives a file's
    /// start; with it, no image the budget leaves out is loaded.
    #[test]
    fn the_request_is_the_same_whether_headers_are_read_first(
        shots in prop::collection::vec(shot(), 1..9),
        budget in 0u64..400,
        parallelism in 1usize..4,
        provider in prop::sample::select(vec![Provider::Anthropic, Provider::OpenAiChat, Provider::Gemini]),
    ) {
        let fixture = Fixture::new();
        let history = shot_rounds(&fixture, &shots);
        let (read_first, loaded) = run(&fixture, &history, provider, (budget, parallelism), true);
        let (blind, _) = run(&fixture, &history, provider, (budget, parallelism), false);
        prop_assert_eq!(read_first.to_json(), blind.to_json());
        prop_assert_eq!(&read_first.report.notes, &blind.report.notes);
        for left_out in noted(&read_first, NoteReason::OverTokens) {
            prop_assert!(!loaded.contains(&left_out), "{} was loaded", left_out);
        }
    }
}
