//! `fit` on every agent's own file: dead sessions made from each agent's
//! fixture (a 5.8 MB screenshot in place of each image, a user's pasted
//! one included; 22 screenshots of 2880×1800 in one tool result), fitted
//! with every other byte as it was, fitted once for good, read again by
//! the agent's reader, and the request built from them passing the rules.
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod media;
#[path = "provider_support/mod.rs"]
mod support;

use std::ops::Range;
use std::sync::OnceLock;

use base64::Engine;
use support::{build, manifest_dir};
use tool_carrier::fit::{fit, FitAction, FitError};
use tool_carrier::import::{from_agent, Agent, Detected, ImportOptions};
use tool_carrier::media::store::InlineStore;
use tool_carrier::media::{MediaType, Policy};
use tool_carrier::provider::{Options, Provider};

/// Each agent's fixture holding images, and the provider it talks to.
const FIXTURES: [(Agent, &str, Provider); 8] = [
    (
        Agent::ClaudeCode,
        "claude-code/session.jsonl",
        Provider::Anthropic,
    ),
    (
        Agent::Codex,
        "codex/rollout-2026-04-20T10-03-11-019db3c2-6a1e-7d20-9a4f-2b8c1f0e5d77.jsonl",
        Provider::OpenAiResponses,
    ),
    (
        Agent::GeminiCli,
        "gemini-cli/session-2026-08-21T09-14-5b1d2c3e.jsonl",
        Provider::Gemini,
    ),
    (
        Agent::VercelAi,
        "vercel-ai/model-messages.json",
        Provider::Anthropic,
    ),
    (
        Agent::OpenAiAgents,
        "openai-agents/items.jsonl",
        Provider::OpenAiResponses,
    ),
    (
        Agent::PydanticAi,
        "pydantic-ai/messages-2.68.0.json",
        Provider::Anthropic,
    ),
    (
        Agent::Cline,
        "cline/session-v1.messages.json",
        Provider::Anthropic,
    ),
    (
        Agent::LangChain,
        "langchain/messages_to_dict-1.8.3.json",
        Provider::OpenAiChat,
    ),
];

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(manifest_dir().join("tests/data/agents").join(rel)).unwrap()
}

/// A 5.8 MB screenshot (four bits of noise a channel do not compress):
/// over Anthropic's 5 MB.
fn big_png() -> &'static [u8] {
    static PNG: OnceLock<Vec<u8>> = OnceLock::new();
    PNG.get_or_init(|| {
        let mut noise = media::Noise::new(7);
        let shot = image::RgbImage::from_fn(2480, 1560, |_, _| {
            let n = noise.next_u64();
            image::Rgb([
                n as u8 & 0xf0,
                (n >> 8) as u8 & 0xf0,
                (n >> 16) as u8 & 0xf0,
            ])
        });
        let png = media::png_rgb(&shot);
        assert!(png.len() > 5_500_000, "{}", png.len());
        png
    })
}

/// A screenshot of flat blocks, `width` × `height`: small, and quick to
/// decode.
fn blocks(width: u32, height: u32) -> Vec<u8> {
    let shot = image::RgbImage::from_fn(width, height, |x, y| {
        let v = ((x / 40 + y / 40) % 2) as u8;
        image::Rgb([30 + 170 * v, 120, 40])
    });
    media::png_rgb(&shot)
}

/// A 2880×1800 screenshot.
fn retina_png() -> &'static [u8] {
    static PNG: OnceLock<Vec<u8>> = OnceLock::new();
    PNG.get_or_init(|| blocks(2880, 1800))
}

/// A 1024×640 screenshot: within every provider's size.
fn small_png() -> &'static [u8] {
    static PNG: OnceLock<Vec<u8>> = OnceLock::new();
    PNG.get_or_init(|| blocks(1024, 640))
}

/// Where the reader says each payload of `text` stands.
fn spans(agent: Agent, text: &str) -> Vec<Range<usize>> {
    let h = from_agent(
        agent,
        &mut text.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap_or_else(|e| panic!("{agent}: {e}"));
    h.payloads
        .iter()
        .map(|p| p.span.start as usize..p.span.end as usize)
        .collect()
}

/// Whether a payload's text holds a PNG.
fn is_png(payload: &str) -> bool {
    payload.starts_with("iVBOR") || payload.starts_with("data:image/png;base64,")
}

/// `bytes` written as the payload `like` was: a `data:` URL, or base64
/// in its alphabet.
fn written_like(like: &str, bytes: &[u8]) -> String {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};
    if like.starts_with("data:") {
        format!("data:image/png;base64,{}", STANDARD.encode(bytes))
    } else if like.contains(['-', '_']) {
        URL_SAFE.encode(bytes)
    } else {
        STANDARD.encode(bytes)
    }
}

/// `text` with each PNG payload `pick` chooses replaced by `bytes`.
fn with_payloads(
    agent: Agent,
    text: &str,
    bytes: &[u8],
    pick: impl Fn(usize) -> bool,
) -> (String, usize) {
    let mut out = text.to_owned();
    let mut n = 0;
    let mut spans = spans(agent, text);
    spans.reverse();
    let count = spans.len();
    for (i, span) in spans.into_iter().enumerate() {
        let payload = &text[span.clone()];
        if is_png(payload) && pick(count - 1 - i) {
            out.replace_range(span, &written_like(payload, bytes));
            n += 1;
        }
    }
    (out, n)
}

/// The span of the array element holding the byte at `at` (the part a
/// payload stands in), found by scanning the JSON text from `start`.
fn part_of(text: &str, start: usize, at: usize) -> Range<usize> {
    try_part_of(text, start, at).unwrap_or_else(|| panic!("no array holds {at}"))
}

fn try_part_of(text: &str, start: usize, at: usize) -> Option<Range<usize>> {
    let b = text.as_bytes();
    // (is an array, where its current element starts)
    let mut stack: Vec<(bool, usize)> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut found: Option<(usize, usize)> = None; // (depth, element start)
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        if i == at && found.is_none() {
            let depth = stack.iter().rposition(|(array, _)| *array)?;
            found = Some((depth, stack[depth].1));
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else {
            match c {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    stack.push((c == b'[', next_value(b, i + 1)));
                }
                b',' | b']' | b'}' => {
                    // The element at the found depth ends here.
                    if let Some((d, s)) = found {
                        if d == stack.len() - 1 {
                            let end = b[..i]
                                .iter()
                                .rposition(|c| !c.is_ascii_whitespace())
                                .unwrap()
                                + 1;
                            return Some(s..end);
                        }
                    }
                    if c == b',' {
                        if let Some(top) = stack.last_mut() {
                            top.1 = next_value(b, i + 1);
                        }
                    } else {
                        stack.pop();
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

fn next_value(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Every byte of `before` outside `regions` is in `after`, in order:
/// the segments between them, each found after the one before.
fn kept_outside(before: &str, after: &str, mut regions: Vec<Range<usize>>) {
    regions.sort_by_key(|r| r.start);
    let mut at = 0;
    let mut from = 0;
    for r in regions
        .iter()
        .chain(std::iter::once(&(before.len()..before.len())))
    {
        if r.start < at {
            at = at.max(r.end);
            continue;
        }
        let segment = &before[at..r.start];
        let found = if at == 0 {
            after.starts_with(segment).then_some(0)
        } else {
            after[from..].find(segment).map(|i| from + i)
        };
        let found = found.unwrap_or_else(|| panic!("bytes {at}..{} changed", r.start));
        from = found + segment.len();
        at = r.end;
    }
    assert_eq!(from, after.len(), "bytes after the last payload changed");
}

/// Fit `text` and check what every fit must hold; the fitted text.
fn fitted(
    agent: Agent,
    text: &str,
    provider: Provider,
    options: &Options,
) -> (String, tool_carrier::fit::FitReport) {
    fitted_checked(agent, text, provider, options, true)
}

/// [`fitted`]; with `again`, fitted again and converted here too (the
/// library's own check does both, so the heaviest tests leave them to it).
fn fitted_checked(
    agent: Agent,
    text: &str,
    provider: Provider,
    options: &Options,
    again: bool,
) -> (String, tool_carrier::fit::FitReport) {
    let from = Some(Detected::Agent(agent));
    let f =
        fit(text.as_bytes(), from, provider, options).unwrap_or_else(|e| panic!("{agent}: {e}"));
    let report = f.report().clone();
    let out = String::from_utf8(f.to_vec()).unwrap();
    assert_eq!(out.len(), f.len());
    // Each payload read is one item: the counts add up.
    assert_eq!(report.items.len(), spans(agent, text).len());
    assert_eq!(
        report.kept() + report.fitted() + report.left_out(),
        report.items.len()
    );
    // Only the payloads' parts changed.
    let regions = spans(agent, text)
        .into_iter()
        .map(|s| try_part_of(text, 0, s.start).unwrap_or(s))
        .collect();
    kept_outside(text, &out, regions);
    if !again {
        return (out, report);
    }
    // Fitted once, fitted for good.
    let again = fit(out.as_bytes(), from, provider, options).unwrap();
    assert!(!again.report().changes(), "{agent}: {}", again.report());
    assert_eq!(again.to_vec(), out.as_bytes());
    // The agent's reader reads it, and its request passes the rules.
    let h = from_agent(
        agent,
        &mut out.as_bytes(),
        &mut InlineStore,
        &ImportOptions::new(),
    )
    .unwrap();
    let request = build(provider, &h.messages, options);
    assert_eq!(
        request
            .report
            .failures()
            .filter(|n| n.target.starts_with("data:"))
            .count(),
        0
    );
    (out, report)
}

#[test]
fn each_agents_file_as_it_is_fits() {
    for (agent, rel, provider) in FIXTURES {
        let text = fixture(rel);
        let (_, report) = fitted(agent, &text, provider, &Options::new());
        assert!(!report.items.is_empty(), "{rel} holds no payload");
    }
}

#[test]
fn a_screenshot_over_5_mb_in_a_tool_result_is_fitted() {
    for (agent, rel, provider) in FIXTURES {
        let text = fixture(rel);
        let last = last_listed_png(agent, &text);
        let (dead, n) = with_payloads(agent, &text, big_png(), |i| i == last);
        assert_eq!(n, 1, "{rel}");
        // Anthropic takes no image over 5 MB (Gemini and OpenAI take it).
        let (out, report) = fitted(agent, &dead, Provider::Anthropic, &Options::new());
        assert!(
            matches!(report.items[last].action, FitAction::Fitted(_)),
            "{rel}: {report}"
        );
        assert!(out.len() < dead.len(), "{rel}");
        let _ = provider;
        for item in &report.items {
            if let FitAction::Fitted(after) = &item.action {
                assert!(
                    after.bytes < 5_000_000 && after.width.unwrap() <= 2000,
                    "{rel}: {after:?}"
                );
            }
        }
    }
}

#[test]
fn a_users_pasted_image_is_fitted_too() {
    // The first payload of these fixtures is the user's own (pasted, or
    // referenced with @).
    for (agent, rel, provider) in [FIXTURES[0], FIXTURES[2], FIXTURES[4]] {
        let (dead, n) = with_payloads(agent, &fixture(rel), big_png(), |i| i == 0);
        assert!(n >= 1, "{rel}");
        let (_, report) = fitted(agent, &dead, Provider::Anthropic, &Options::new());
        assert!(
            matches!(report.items[0].action, FitAction::Fitted(_)),
            "{rel}: {report}"
        );
        let _ = provider;
    }
}

/// The last PNG payload of `text` that stands in an array (a part of a
/// list: a tool result's, as a rule).
fn last_listed_png(agent: Agent, text: &str) -> usize {
    spans(agent, text)
        .into_iter()
        .rposition(|s| is_png(&text[s.clone()]) && try_part_of(text, 0, s.start).is_some())
        .unwrap()
}

/// `text` with the last listed PNG payload `shot` and its part
/// written `copies` times more after it; how many images it then holds.
fn many_screenshots(agent: Agent, text: &str, copies: usize, shot: &[u8]) -> (String, usize) {
    let last = last_listed_png(agent, text);
    let (text, _) = with_payloads(agent, text, shot, |i| i == last);
    let span = spans(agent, &text)[last].clone();
    let part = part_of(&text, 0, span.start);
    let copy = format!(",{}", &text[part.clone()]);
    let mut out = text.clone();
    out.insert_str(part.end, &copy.repeat(copies));
    let images = spans(agent, &out)
        .into_iter()
        .filter(|s| is_png(&out[s.clone()]))
        .count();
    (out, images)
}

#[test]
fn twenty_two_screenshots_fit_the_count_in_every_format() {
    // Small screenshots: what is left out, and how, is the format's; the
    // pixels are `twenty_two_retina_screenshots_…`'s.
    for (agent, rel, _) in FIXTURES {
        let (dead, images) = many_screenshots(agent, &fixture(rel), 21, small_png());
        over_the_count(agent, rel, &dead, images);
    }
}

/// Claude on Bedrock takes 20 images: the oldest beyond go, each a text
/// part of the file's own format saying what was there.
fn over_the_count(agent: Agent, rel: &str, dead: &str, images: usize) {
    assert!(images >= 22, "{rel}");
    let (out, report) = fitted_checked(agent, dead, Provider::Bedrock, &Options::new(), false);
    assert_eq!(report.left_out(), images - 20, "{rel}: {report}");
    assert!(
        out.contains("was here; left out by tool-carrier fit"),
        "{rel}"
    );
    oldest_go_first(&report, rel);
}

/// Anthropic takes 100 images, each within 2000 px when there are over 20.
fn within_the_edge(agent: Agent, rel: &str, dead: &str) {
    let (_, report) = fitted_checked(agent, dead, Provider::Anthropic, &Options::new(), false);
    assert_eq!(report.left_out(), 0, "{rel}: {report}");
    for item in &report.items {
        let after = match &item.action {
            FitAction::Fitted(after) => *after,
            FitAction::Kept => item.before.unwrap(),
            _ => continue,
        };
        if after.media_type.is_image() {
            let side = after.width.unwrap().max(after.height.unwrap());
            assert!(side <= 2000, "{rel}: {after:?}");
        }
    }
}

#[test]
fn twenty_two_retina_screenshots_fit_the_many_image_edge() {
    let (agent, rel, _) = FIXTURES[0];
    let (dead, _) = many_screenshots(agent, &fixture(rel), 21, retina_png());
    within_the_edge(agent, rel, &dead);
}

/// Opt-in (about 40 s of CPU a format in a debug build): 22 screenshots of
/// 2880×1800 in every format, for Bedrock's count and Anthropic's edge.
#[test]
fn twenty_two_retina_screenshots_in_every_format() {
    if std::env::var_os("TOOL_CARRIER_FIT_FULL").is_none() {
        eprintln!(
            "skipped: TOOL_CARRIER_FIT_FULL is not set (22 retina screenshots in every format)"
        );
        return;
    }
    for (agent, rel, _) in FIXTURES {
        let (dead, images) = many_screenshots(agent, &fixture(rel), 21, retina_png());
        over_the_count(agent, rel, &dead, images);
        within_the_edge(agent, rel, &dead);
    }
}

/// No image older than one left out was kept (documents are counted
/// apart).
fn oldest_go_first(report: &tool_carrier::fit::FitReport, rel: &str) {
    let image = |i: &&tool_carrier::fit::FitItem| i.before.is_some_and(|b| b.media_type.is_image());
    let images: Vec<_> = report.items.iter().filter(image).collect();
    let last_left = images
        .iter()
        .rposition(|i| matches!(i.action, FitAction::LeftOut(_)))
        .unwrap();
    assert!(
        images[..last_left]
            .iter()
            .all(|i| matches!(i.action, FitAction::LeftOut(_))),
        "{rel}: {report}"
    );
}

#[test]
fn keep_images_leaves_out_the_oldest() {
    let (agent, rel, provider) = FIXTURES[0];
    let (dead, images) = many_screenshots(agent, &fixture(rel), 5, small_png());
    let options = Options::new().with_keep_images(3);
    let (out, report) = fitted(agent, &dead, provider, &options);
    assert_eq!(report.left_out(), images - 3);
    let left: Vec<usize> = report
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i.action, FitAction::LeftOut(_)))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(left, (0..images - 3).collect::<Vec<_>>());
    oldest_go_first(&report, rel);
    // Claude Code's text part, in the tool result where the image was.
    assert!(
        out.contains(r#"{"type":"text","text":"[a PNG image"#),
        "{report}"
    );
}

#[test]
fn an_eviction_step_moves_the_boundary_once_in_k_turns() {
    // Keep 5, step 3: as a session grows by one screenshot a turn, the
    // images left out go 3 at a time, so what comes before the newest
    // left out (the prompt cache's prefix) changes once in 3 turns.
    let (agent, rel, provider) = FIXTURES[0];
    let options = Options::new().with_keep_images(5).with_evict_step(3);
    let mut previous: Option<usize> = None;
    let mut moves = 0;
    for copies in 5..=11 {
        let (dead, images) = many_screenshots(agent, &fixture(rel), copies, small_png());
        let (out, report) = fitted(agent, &dead, provider, &options);
        let over = images.saturating_sub(5);
        assert_eq!(
            report.left_out(),
            over.div_ceil(3) * 3,
            "{images} images: {report}"
        );
        assert!(images - report.left_out() <= 5 && images - report.left_out() > 2);
        oldest_go_first(&report, rel);
        assert!(
            out.contains("the oldest are left out 3 at a time"),
            "{report}"
        );
        if previous.is_some_and(|p| p != report.left_out()) {
            moves += 1;
        }
        previous = Some(report.left_out());
    }
    // 6 to 12 images: 3 left out, then 6 (at 9), then 9 (at 12).
    assert_eq!(moves, 2);
}

#[test]
fn what_a_file_cannot_be_fitted_from_is_a_clear_error() {
    let options = Options::new();
    let f = |bytes: &[u8], from| fit(bytes, from, Provider::Anthropic, &options).unwrap_err();
    assert!(matches!(f(b"\xff\xfe{}", None), FitError::NotText(0)));
    assert!(matches!(
        f(b"SQLite format 3\0....", None),
        FitError::Read(_)
    ));
    let e = f(b"{\"role\":", Some(Detected::Agent(Agent::ClaudeCode)));
    assert!(e.to_string().contains("Claude Code"), "{e}");
    // A Bedrock body keeps its bytes where fit does not look: refused,
    // nothing rewritten, rather than fitted in part.
    let png = base64::engine::general_purpose::STANDARD.encode(big_png());
    let body = format!(
        r#"{{"messages":[{{"role":"user","content":[{{"image":{{"format":"png","source":{{"bytes":"{png}"}}}}}}]}}]}}"#
    );
    let e = f(body.as_bytes(), Some(Detected::Request(Provider::Bedrock)));
    assert!(
        matches!(
            e,
            FitError::Unlocated {
                stored: 1,
                located: 0,
                ..
            }
        ),
        "{e}"
    );
    let e = fit(
        b"{}",
        None,
        Provider::Anthropic,
        &Options::new().with_keep_images(2).with_evict_step(5),
    )
    .unwrap_err();
    assert!(matches!(e, FitError::Options(_)), "{e}");
}

#[test]
fn a_request_body_is_fitted_in_its_own_shapes() {
    let png = base64::engine::general_purpose::STANDARD.encode(big_png());
    let body = format!(
        r#"{{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{{"role":"user","content":[{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{png}"}}}},{{"type":"text","text":"hi"}}]}}]}}"#
    );
    let f = fit(body.as_bytes(), None, Provider::Anthropic, &Options::new()).unwrap();
    assert_eq!(f.report().format, Detected::Request(Provider::Anthropic));
    assert_eq!(f.report().fitted(), 1);
    let out = String::from_utf8(f.to_vec()).unwrap();
    assert!(out.starts_with(r#"{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":""#));
    assert!(out.ends_with(r#""}},{"type":"text","text":"hi"}]}]}"#));
}

#[test]
fn a_changed_type_changes_the_member_naming_it() {
    // A WEBP photo over the limit for Gemini CLI's Gemini, which takes it,
    // and for a policy that sends it as JPEG: `mimeType` follows.
    let (agent, rel, _) = FIXTURES[2];
    let text = fixture(rel);
    let photo = media::webp(&image::DynamicImage::ImageRgb8(media::photo(3000, 2000, 5)));
    let spans = spans(agent, &text);
    let first = spans[0].clone();
    let mut dead = text.clone();
    dead.replace_range(
        first,
        &base64::engine::general_purpose::STANDARD.encode(&photo),
    );
    let dead = dead.replacen(
        "\"mimeType\":\"image/png\"",
        "\"mimeType\":\"image/webp\"",
        1,
    );
    let options = Options::new().with_policy(Policy::default());
    let (out, report) = fitted(agent, &dead, Provider::Anthropic, &options);
    let FitAction::Fitted(after) = report.items[0].action else {
        panic!("{report}")
    };
    assert_eq!(after.media_type, MediaType::Jpeg);
    assert!(out.contains("\"mimeType\":\"image/jpeg\""));
    assert!(!out.contains("image/webp"));
}

/// The libraries' own recordings, as their fitted dead sessions are
/// written for their own validators, and what each is called there.
const LIBRARY_FILES: [(Agent, &str, &str); 6] = [
    (
        Agent::VercelAi,
        "vercel-ai/model-messages.json",
        "vercel-ai-model-messages",
    ),
    (
        Agent::VercelAi,
        "vercel-ai/ui-messages.json",
        "vercel-ai-ui-messages",
    ),
    (
        Agent::PydanticAi,
        "pydantic-ai/messages-2.68.0.json",
        "pydantic-ai-messages",
    ),
    (
        Agent::LangChain,
        "langchain/messages_to_dict-1.8.3.json",
        "langchain-messages_to_dict",
    ),
    (
        Agent::LangChain,
        "langchain/dumpd-1.8.3.json",
        "langchain-dumpd",
    ),
    (
        Agent::OpenAiAgents,
        "openai-agents/items.jsonl",
        "openai-agents-items",
    ),
];

/// Opt-in: with `TOOL_CARRIER_FIT_OUT` naming a folder, each library's
/// recording made a dead session twice (a 5.8 MB screenshot in its last
/// listed image, fitted for Anthropic; 22 screenshots, fitted for
/// Bedrock's 20, the oldest text parts) and written there fitted, for
/// `.ci/libraries` to read back with the library's own types
/// (`tests/data/fit/validate.py`, `validate.mjs`).
#[test]
fn fitted_library_files_for_their_own_validators() {
    let Some(dir) = std::env::var_os("TOOL_CARRIER_FIT_OUT") else {
        eprintln!("skipped: TOOL_CARRIER_FIT_OUT names no folder for the libraries' validators");
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (agent, rel, name) in LIBRARY_FILES {
        let text = fixture(rel);
        let ext = if rel.ends_with(".jsonl") {
            "jsonl"
        } else {
            "json"
        };
        std::fs::write(dir.join(format!("{name}.orig.{ext}")), &text).unwrap();
        let last = last_listed_png(agent, &text);
        let (big, _) = with_payloads(agent, &text, big_png(), |i| i == last);
        let (out, report) = fitted(agent, &big, Provider::Anthropic, &Options::new());
        assert!(
            matches!(report.items[last].action, FitAction::Fitted(_)),
            "{rel}: {report}"
        );
        std::fs::write(dir.join(format!("{name}.big.{ext}")), out).unwrap();
        let (many, images) = many_screenshots(agent, &text, 21, small_png());
        let (out, report) = fitted(agent, &many, Provider::Bedrock, &Options::new());
        assert_eq!(report.left_out(), images - 20, "{rel}: {report}");
        std::fs::write(dir.join(format!("{name}.many.{ext}")), out).unwrap();
    }
}

#[test]
fn with_say_scale_a_text_after_each_image_made_smaller_says_its_scale() {
    for (agent, rel, provider) in FIXTURES {
        let text = fixture(rel);
        let last = last_listed_png(agent, &text);
        let (dead, _) = with_payloads(agent, &text, &blocks(4000, 2500), |i| i == last);
        let options = Options::new().with_say_scale(true);
        let (out, report) = fitted(agent, &dead, provider, &options);
        let FitAction::Fitted(after) = &report.items[last].action else {
            panic!("{rel}: {report}");
        };
        let (w, h) = (after.width.unwrap(), after.height.unwrap());
        let said = format!(
            "scaled from 4000×2500 to {w}×{h}: multiply coordinates by {:.3}",
            4000.0 / f64::from(w)
        );
        assert_eq!(out.matches(&said).count(), 1, "{rel}: {said}");
        // Said once for each image made smaller; those kept as they were
        // have nothing to say.
        let smaller = report
            .items
            .iter()
            .filter(|i| match (&i.before, &i.action) {
                (Some(b), FitAction::Fitted(a)) => a.width < b.width,
                _ => false,
            })
            .count();
        assert_eq!(out.matches("scaled from").count(), smaller, "{rel}");
        // It follows the image it is about: after its payload, before the
        // payload after it.
        let payloads = spans(agent, &out);
        let at = out.find(&said).unwrap();
        assert!(payloads[last].end < at, "{rel}");
        assert!(
            payloads.get(last + 1).is_none_or(|next| at < next.start),
            "{rel}"
        );
        // Off by default.
        if agent == Agent::ClaudeCode {
            let (plain, _) = fitted_checked(agent, &dead, provider, &Options::new(), false);
            assert!(!plain.contains("scaled from"), "{rel}");
        }
    }
}
