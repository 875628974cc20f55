//! Provider request builders: a history with carriers to one request body
//! per provider.
//!
//! A history goes through one shared walk that pairs
//! each assistant's tool calls with their results and keeps the orderings
//! every API demands (results right after their calls; other messages that
//! sat between them move after the results). The declared attachments of
//! every carrier then go through the media pipeline with the provider's
//! byte budget; only declared attachments are ever resolved, a
//! body is text and is never scanned. Finally one module per provider
//! writes the request body:
//!
//! | provider | tool results with media |
//! |---|---|
//! | [`Provider::Anthropic`] | `tool_result` blocks holding `text`, `image`, `document` blocks |
//! | [`Provider::OpenAiChat`] | `tool` messages with text; the media in one `user` message after the batch |
//! | [`Provider::OpenAiResponses`] | `function_call_output` with `input_text` / `input_image` / `input_file` |
//! | [`Provider::Gemini`] | `functionResponse.parts[].inlineData` (Gemini 3) |
//! | [`Provider::Gemini2`] | a `user` content with `inlineData` parts after the responses |
//! | [`Provider::Bedrock`] | Converse `toolResult` content with `image` and `document` blocks |
//! | [`Provider::Ollama`] | `tool` messages with text; raw base64 `images` on a following `user` message |
//! | [`Provider::OpenAiCompatible`] | as its [`Profile`] says: Chat Completions with the media in the `tool` messages or after them |
//!
//! An attachment that cannot be sent (refused by the media policy, corrupt,
//! over a cap, a kind or source the provider does not take, vision turned
//! off) becomes a short note in its tool result's text naming the target
//! and the reason, and is listed in [`Report::notes`]; with
//! [`Options::with_strict`] a failed one refuses the request instead.
//!
//! Every body is checked before it is returned: it is serialized once
//! ([`Request::json`]) and every rule of its API ([`crate::rules`]) runs on
//! those bytes. Over the provider's request size limit the oldest inline
//! media are left out until it fits; a body that still breaks a rule is a
//! [`BuildError`], never a `Request`.
//!
//! # Example
//!
//! ```
//! use tool_carrier::provider::{build_request, Options, Provider};
//!
//! let history = [
//!     ("user", r#"Show me the dashboard."#),
//!     ("assistant", r#"{"content":null,"tool_calls":[{"id":"call_1","name":"screenshot","arguments":"{}"}]}"#),
//!     ("tool", r#"{"tool_call_id":"call_1","content":"Saved.","attachments":[{"kind":"image","target":"https://example.com/a.png"}]}"#),
//! ];
//! let request = build_request(Provider::OpenAiChat, &history, &Options::new().with_model("gpt-5"))?;
//! let body = request.body.to_value();
//! let messages = body["messages"].as_array().unwrap();
//! assert_eq!(messages[2]["role"], "tool");
//! assert_eq!(messages[3]["role"], "user"); // the image, right after the batch
//! assert_eq!(messages[3]["content"][1]["image_url"]["url"], "https://example.com/a.png");
//! // No definitions were given: the called tool gets a minimal declaration,
//! // and the model is told not to call it.
//! assert_eq!(body["tools"][0]["function"]["name"], "screenshot");
//! assert_eq!(body["tool_choice"], "none");
//! assert_eq!(request.report.stubbed, ["screenshot"]);
//! # Ok::<(), tool_carrier::provider::BuildError>(())
//! ```
//!
//! # Limitations
//!
//! * Each body is written by typed structs with one fixed field order (the
//!   conversation last); JSON the caller gave (tool schemas, typed tools)
//!   is written with its keys sorted, so the same input gives the same
//!   bytes whatever serde_json features are enabled.
//! * Tool-call arguments are sent as the history wrote them, less
//!   insignificant white space: key order, number spellings and integers
//!   beyond 64 bits survive.
//! * Anthropic, Gemini and Bedrock take system text once, at the top: every
//!   system message is joined there, wherever it stood.
//! * Anthropic, Gemini and Bedrock require the first turn to be the user's:
//!   a history that opens with the assistant gets a `(conversation
//!   continues)` user turn first. Anthropic and Bedrock also get empty text
//!   left out (they refuse it), and consecutive turns of one role joined.
//! * Gemini 3 function calls get the documented placeholder thought
//!   signature, since a history written elsewhere has none to replay.
//! * Tool-use ids and tool names are rewritten to what each API allows
//!   (consistently in calls, results and declarations, never two into
//!   one), and every call gets an id of its own.
//! * A tool result whose call is not in the assistant turn just before it,
//!   or that answers a call already answered, is sent as a labelled user
//!   message; a call nobody answered gets a result saying so.
//! * Only images and PDFs are sent; audio and video attachments are notes.
//!   A declared `image` must be an image and a `document` a PDF.

use std::collections::HashSet;
use std::io::BufRead;
use std::sync::Arc;

use thiserror::Error;

use crate::rules;
use crate::steps::account;
use crate::steps::attach;
use crate::steps::context::Context;
use crate::steps::declare::{self, Declarations};
use crate::steps::detail;
use crate::steps::model as capabilities;
use crate::steps::names::{self, Rename};
use crate::steps::replay;
use crate::steps::walk::{self, Turn};

mod request;
mod settings;

pub use crate::facts::provider::{Provider, UnknownProvider};
pub use crate::steps::detail::{detail_effect, DetailEffect};
pub use crate::steps::error::BuildError;
pub use crate::steps::extra::{Extra, ExtraError};
pub use crate::steps::options::{Options, OptionsError};
pub use crate::steps::params::{
    CacheTtl, Effort, OutputSchema, Params, ParamsError, ReasoningSummary, ResponseFormat,
    Retention, ToolChoice, Verbosity,
};
pub use crate::steps::report::{Note, NoteReason, ReplayNote, Report};
pub use crate::steps::spec::Endpoint;
pub use crate::steps::tally::{Count, Summary, Tally};
pub use crate::steps::tools::schema::{Pointer, SchemaError};
pub use crate::steps::tools::{Shape, Tool, Tools, ToolsError, ToolsErrorKind};
pub use request::{Body, Request};

use crate::facts::Profile;
use crate::history::{AsRecord, ReadError};
use crate::import::{read_records, ImportOptions};
use crate::media::store::InlineStore;

/// Build `provider`'s request body from a history:
/// [`Record`](crate::history::Record)s, or
/// `(role, content)` pairs.
///
/// An attachment that cannot be sent becomes a note (see the
/// [module docs](self)), and every message of the history is represented.
/// The same history, options and files give the same body.
///
/// # Errors
/// [`BuildError`] says why no body is returned: options that contradict
/// each other, a tool definition the provider cannot be given, declared
/// attachments that failed (with [`Options::with_strict`]), a body over
/// the provider's size limit even with every inline attachment left out,
/// or a body that breaks another rule of the API (a history with no
/// message to send: empty, or system text alone).
///
/// # Example
/// ```
/// use tool_carrier::provider::{build_request, Options, Provider};
///
/// let history = [
///     ("system", "Be brief."),
///     ("user", "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/no/roots/a.png]\nSaved a.png"),
/// ];
/// let request = build_request(Provider::Anthropic, &history, &Options::new())?;
/// let body = request.body.to_value();
/// // The system text is a prompt-cache breakpoint (Options::with_cache_breakpoints).
/// assert_eq!(body["system"][0]["text"], "Be brief.");
/// assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
/// let text = body["messages"][0]["content"][0]["text"].as_str().unwrap();
/// assert!(text.ends_with("[image /no/roots/a.png not attached: local files are not allowed (no roots configured)]"));
/// assert_eq!(request.report.notes.len(), 1);
/// # Ok::<(), tool_carrier::provider::BuildError>(())
/// ```
pub fn build_request<M: AsRecord>(
    provider: Provider,
    messages: &[M],
    options: &Options,
) -> Result<Request, BuildError> {
    let (model, profile, caps) = target_of(provider, options);
    options.check()?;
    if let Some(e) = options.extra.owned(provider.spec().owned) {
        return Err(BuildError::Extra(e));
    }
    if let Some((index, role, what)) = walk::misroled(messages) {
        return Err(BuildError::Role { index, role, what });
    }
    let fit = fitter(options, &caps);
    let walk = || walk_replayed(messages, provider, &model, &fit);
    let (walked, replayed) = walk();
    let mut media = attach::decide(&walked, provider, &model, &caps, options);
    let mut walked = Some((walked, replayed));
    loop {
        // The walk borrows the history: walking it again costs less than
        // keeping a copy for the rare request that must shrink.
        let (turns, replayed) = walked.take().unwrap_or_else(walk);
        let mut report = Report::default();
        attach::report(
            &turns,
            &media,
            options.facts(),
            provider,
            &model,
            options.detail_at(provider, &model),
            &mut report,
        );
        attach::caveats(&turns, &media, provider, &caps.limits, &mut report);
        account::account(&turns, &media, &mut report.tally);
        replayed.into_report(
            options.facts(),
            provider,
            &model,
            options.detail_at(provider, &model),
            &mut report,
        );
        if options.strict {
            let failed: Vec<Note> = report
                .notes
                .iter()
                .filter(|n| n.reason.is_failure())
                .cloned()
                .collect();
            if !failed.is_empty() {
                return Err(BuildError::Attachments(failed));
            }
            let left: Vec<ReplayNote> = report
                .replay_notes
                .iter()
                .filter(|n| n.failure)
                .cloned()
                .collect();
            if !left.is_empty() {
                return Err(BuildError::Replayed(left));
            }
        }
        let turns = attach::apply(turns, media.clone());
        let mut request = assemble(
            provider,
            model.clone(),
            profile.clone(),
            &caps,
            turns,
            options,
            report,
        )?;
        request.body = request.body.with_extra(&options.extra);
        // The body's length is known from its skeleton, before a payload
        // is encoded; the body that fits is then written once, each
        // payload let go as its text is written (`steps::assembled`).
        let skeleton = request.body.skeleton()?;
        let size = match &skeleton {
            Some(skeleton) => skeleton.len(),
            None => {
                // The payloads' text, most of the body, is known: room for
                // it and for the rest at once.
                let payloads: usize = media
                    .iter()
                    .map(|m| match m {
                        walk::Media::Inline(p) => p.base64_len() + 64,
                        _ => 0,
                    })
                    .sum();
                let json = request
                    .body
                    .try_json_in(payloads + payloads / 64 + (64 << 10))?;
                request.json = Arc::new(json);
                request.json.len()
            }
        };
        if let Some((rule, limit)) = rules::size_limit(&target(&request, options)) {
            if size > limit {
                let (turns, replayed) = walk();
                if attach::shrink(&turns, &mut media, size - limit, provider, options) {
                    walked = Some((turns, replayed));
                    continue;
                }
                return Err(BuildError::TooLarge {
                    provider,
                    size,
                    limit,
                    rule,
                });
            }
        }
        let mut vouched = Vec::new();
        if let Some(skeleton) = skeleton {
            // Nothing below needs the prepared payloads: what the body
            // does not hold is freed as the text is written.
            drop(media);
            (request.json, vouched) = skeleton.fill();
        }
        let target = target(&request, options);
        // The payloads just written are read as their writer vouches for
        // them; in debug builds (every test) read again in full as well.
        let violations = rules::check_vouched(&target, &request.json, &vouched)
            .expect("a body this crate serialized is JSON");
        debug_assert_eq!(
            Some(&violations),
            rules::check_json(&target, &request.json).ok().as_ref(),
            "vouching for the payloads changes no rule's answer"
        );
        if let Some(first) = violations.first() {
            return Err(BuildError::Refused {
                violation: first.clone(),
                more: violations.len() - 1,
            });
        }
        return Ok(request);
    }
}

/// What `request` is checked as: the options' facts and family.
fn target<'a>(request: &'a Request, options: &'a Options) -> rules::Target<'a> {
    let target = rules::Target::of(request).with_facts(options.facts());
    match options.family {
        Some(family) => target.with_family(family),
        None => target,
    }
}

/// The history walked, and what its assistant turns kept that `provider`
/// takes back, checked (the rest left out, with notes).
fn walk_replayed<'m, M: AsRecord>(
    messages: &'m [M],
    provider: Provider,
    model: &str,
    fit: replay::Fit<'_>,
) -> (Vec<Turn<'m, ()>>, replay::Replayed) {
    let mut turns = walk::walk(messages);
    let rows: Vec<&[replay::Replay]> = crate::apis::APIS.iter().map(|a| a.replays).collect();
    let api = crate::apis::api(provider);
    let replayed = replay::replay(
        &mut turns,
        api.replays,
        model,
        &rows,
        provider.display_name(),
        fit,
    );
    (turns, replayed)
}

/// How an image inside an entry given back (a computer call's
/// screenshot) is fitted: as an attachment is, within the model's budget.
fn fitter<'o>(
    options: &'o Options,
    caps: &'o capabilities::Capabilities,
) -> impl Fn(&[u8]) -> Result<std::sync::Arc<crate::media::Prepared>, crate::media::MediaError> + 'o
{
    let policy = options
        .policy
        .clone()
        .with_max_dim(caps.limits.max_dim.min(options.policy.max_dim()));
    move |bytes| {
        crate::media::prepare(bytes.to_vec(), &policy, caps.limits.budget).map(std::sync::Arc::new)
    }
}

/// The request for `turns`, their media decided: tool declarations, ids
/// and names rewritten to what the API allows, and the body written.
fn assemble(
    provider: Provider,
    model: String,
    profile: Option<Profile>,
    caps: &capabilities::Capabilities,
    mut turns: Vec<Turn<'_>>,
    options: &Options,
    mut report: Report,
) -> Result<Request, BuildError> {
    let called = called_names(&turns);
    let called: Vec<&str> = called.iter().map(String::as_str).collect();
    let spec = provider.spec();
    let mut names = Rename::new(spec.names);
    // A server without tools is sent the calls as text: nothing to declare.
    let declarations = if profile.as_ref().is_some_and(|p| !p.tools) {
        Declarations::default()
    } else {
        declare::declare(
            options.tools.as_ref(),
            &called,
            spec,
            caps.typed_tools,
            &mut names,
            &mut report,
        )?
    };
    let tool_choice = settings::tool_choice(options, &declarations, &mut names)?;
    let ids = profile
        .as_ref()
        .map_or(spec.ids, |p| p.tool_call_ids.pattern());
    names::rewrite(&mut turns, &mut Rename::new(ids), &mut names);
    report.declared = declarations.tools.len();
    report.choice_none = declarations.choice_none && spec.choice_none;
    let default_max_tokens =
        settings::settings(provider, &model, caps, options, &mut report.setting_notes)?;
    let detail = detail::decide(
        options.facts(),
        provider,
        &model,
        options.detail,
        &mut report,
    )?;
    let caller_marks = crate::steps::cache_marks::count(&turns);
    if caller_marks > 0 && !caps.takes_marks {
        crate::steps::cache_marks::clear(&mut turns);
        report
            .setting_notes
            .push(crate::steps::cache_marks::left_out(
                caller_marks,
                provider.display_name(),
                &model,
            ));
    }
    if let Some(ttl) = options
        .params
        .cache_ttl
        .filter(|_| !(caps.cache_marks && (options.cache_breakpoints || caller_marks > 0)))
    {
        report.setting_notes.push(format!(
            "cache TTL {ttl}: no effect: no cache breakpoints are written (they are turned off)"
        ));
    }
    let traits = options.facts().traits(
        provider,
        &model,
        options.family.map(crate::facts::Family::facts_name),
    );
    let cx = Context {
        model: &model,
        params: &options.params,
        default_max_tokens,
        declarations: &declarations,
        caps,
        cache_breakpoints: options.cache_breakpoints && caps.cache_marks,
        cache_min_tokens: traits.cache_min_tokens,
        sizing: traits.sizing,
        detail,
        tool_choice,
        profile: profile.as_ref(),
    };
    let body = (crate::apis::api(provider).write)(turns, &cx);
    let headers = match &provider.spec().betas {
        Some(spec) => {
            let mut betas = declarations.betas();
            // The report counts the slots sent as provider files.
            if report.files > 0 {
                betas.push(spec.files);
            }
            if betas.is_empty() {
                Vec::new()
            } else {
                vec![(spec.header, betas.join(","))]
            }
        }
        None => Vec::new(),
    };
    Ok(Request {
        provider,
        model,
        body,
        headers,
        report,
        profile,
        stream: options.params.stream == Some(true),
        json: Arc::default(),
    })
}

/// The input tokens the images of a history cost when converted for
/// `provider` with `options`, by the provider's own count of each image as
/// it would be sent (what [`Report::image_tokens`] says of the request):
/// the figure a compactor can set against its context budget instead of a
/// fixed size per image. `None` where the provider documents no count.
/// With [`Options::with_cache`] the images prepared for it are reused by
/// the conversion that follows.
///
/// No body is written, so a history [`build_request`] would refuse (none
/// at all, or over the request size limit) still has its count: that of
/// the images kept by every limit but the request size, which leaves out
/// more only once the body is written.
///
/// # Errors
/// Options that contradict each other ([`BuildError::Options`]).
///
/// ```
/// use tool_carrier::provider::{history_image_tokens, Options, Provider};
/// let history = [("user", "no images here")];
/// assert_eq!(history_image_tokens(Provider::Anthropic, &history, &Options::new())?, Some(0));
/// assert_eq!(history_image_tokens(Provider::Ollama, &history, &Options::new())?, Some(0));
/// let none: [(&str, &str); 0] = [];
/// assert_eq!(history_image_tokens(Provider::Anthropic, &none, &Options::new())?, Some(0));
/// # Ok::<(), tool_carrier::provider::BuildError>(())
/// ```
pub fn history_image_tokens<M: AsRecord>(
    provider: Provider,
    messages: &[M],
    options: &Options,
) -> Result<Option<u64>, BuildError> {
    let (model, _, caps) = target_of(provider, options);
    options.check()?;
    let fit = fitter(options, &caps);
    let (walked, replayed) = walk_replayed(messages, provider, &model, &fit);
    let media = attach::decide(&walked, provider, &model, &caps, options);
    let mut report = Report::default();
    attach::report(
        &walked,
        &media,
        options.facts(),
        provider,
        &model,
        options.detail_at(provider, &model),
        &mut report,
    );
    replayed.into_report(
        options.facts(),
        provider,
        &model,
        options.detail_at(provider, &model),
        &mut report,
    );
    Ok(report.image_tokens)
}

/// The model a request for `provider` names, the server's profile (for
/// [`Provider::OpenAiCompatible`]) and what the model takes.
pub(crate) fn target_of(
    provider: Provider,
    options: &Options,
) -> (String, Option<Profile>, capabilities::Capabilities) {
    let model = options.model_for(provider).to_owned();
    let profile = provider.spec().profiled.then(|| options.profile().clone());
    let caps = match &profile {
        Some(p) => capabilities::Capabilities::compatible(p),
        None => capabilities::Capabilities::of(options.facts(), provider, &model, options.family),
    };
    (model, profile, caps)
}

/// The tool names the history calls, in order of first call.
fn called_names(turns: &[Turn<'_>]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for turn in turns {
        if let Turn::Assistant(a) = turn {
            for call in &a.calls {
                if seen.insert(call.name.as_str()) {
                    out.push(call.name.clone());
                }
            }
        }
    }
    out
}

/// Why a history could not be converted.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The history could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The request could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Read a history from `reader` and build `provider`'s request body:
/// [`read_records`] (records `{role, content}` or spelled the OpenAI Chat
/// way), then [`build_request`].
///
/// # Errors
/// As [`read_records`] and [`build_request`].
///
/// # Example
/// ```
/// use tool_carrier::provider::{convert, Options, Provider};
///
/// let history = r#"{"role":"user","content":"Hello."}"#;
/// let request = convert(Provider::Ollama, history.as_bytes(), &Options::new().with_vision(false))?;
/// let mut out = Vec::new();
/// request.write_compact(&mut out)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     r#"{"model":"qwen3-vl","stream":false,"messages":[{"role":"user","content":"Hello."}]}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert<R: BufRead>(
    provider: Provider,
    reader: R,
    options: &Options,
) -> Result<Request, ConvertError> {
    let messages = read_records(reader, &mut InlineStore, &ImportOptions::default())?.messages;
    Ok(build_request(provider, &messages, options)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::compose::{display_target, file_name};

    #[test]
    fn provider_names_round_trip() {
        for p in Provider::ALL {
            assert_eq!(p.name().parse::<Provider>(), Ok(p));
            assert_eq!(p.to_string(), p.name());
        }
        assert!("openai".parse::<Provider>().is_err());
        assert!("Anthropic".parse::<Provider>().is_err());
    }

    #[test]
    fn options_and_requests_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Options>();
        send_sync::<Request>();
        send_sync::<Tools>();
        send_sync::<BuildError>();
    }

    #[test]
    fn data_uris_are_shown_by_type_and_length() {
        let t = format!("data:image/png;base64,{}", "A".repeat(1000));
        assert_eq!(display_target(&t), "data:image/png… (1022 characters)");
        assert_eq!(display_target("a\nb"), "a b");
        assert_eq!(file_name("https://x/y/a.pdf?x=1"), Some("a.pdf"));
        assert_eq!(file_name("reports/"), None);
        assert_eq!(file_name("data:application/pdf;base64,AA"), None);
    }
}
