//! `tool-carrier convert --provider NAME [--model M] [--family F] [--root DIR]… [--no-vision] [--keep-images N] [--keep-documents N] [--image-tokens T] [--evict-step K] [--max-dim N] [--cache-dir DIR [--cache-max-mb MB]] [--no-cache-breakpoints] [--tools FILE] [--profile NAME|FILE] [--base-url URL] [--vision on|off] [--tool-images on|off] [FILE|-]`

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use tool_carrier::import::read_records_with;
use tool_carrier::media::store::InlineStore;
use tool_carrier::media::Policy;
use tool_carrier::provider::{build_request, Family, Options, Profile, Provider, ReadError, Tools};
use tool_carrier::roots::Roots;

use super::{input, Context, Failure, FOUND, SHOWN};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The API the request is for.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = PossibleValuesParser::new(Provider::NAMES)
            .map(|name| name.parse::<Provider>().expect("a listed provider name")),
    )]
    provider: Provider,
    /// The model to name (in the body, or in the URL for gemini and
    /// bedrock); each provider has a default.
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// The model's family, for a Bedrock model id the built-in table does
    /// not recognise (an application inference profile, a custom model):
    /// claude and nova take images inside tool results, other models get
    /// them after the results.
    #[arg(
        long,
        value_name = "F",
        value_parser = PossibleValuesParser::new(Family::NAMES)
            .map(|name| name.parse::<Family>().expect("a listed family name")),
    )]
    family: Option<Family>,
    /// Tool definitions to declare: an OpenAI Chat or Responses `tools`
    /// array, an Anthropic `tools` array (typed tools included) or an MCP
    /// tools/list result. Without it, every tool the history calls gets a
    /// minimal declaration and the model is told not to call it.
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// A folder local attachment targets may come from (repeatable;
    /// relative targets resolve against the first). Without one, no local
    /// file is read.
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// Send no attachments: each becomes a text note naming its target.
    #[arg(long)]
    no_vision: bool,
    /// Send only the N most recent images; older ones become notes.
    #[arg(long, value_name = "N")]
    keep_images: Option<usize>,
    /// Send only the N most recent documents (counted apart from images).
    #[arg(long, value_name = "N")]
    keep_documents: Option<usize>,
    /// Keep the images within T input tokens, by the provider's own count
    /// of each image as sent; the oldest go first.
    #[arg(long, value_name = "T")]
    image_tokens: Option<u64>,
    /// Once a limit leaves images out, leave them out K at a time: the
    /// request then changes before its last message only every K turns,
    /// which keeps a provider's prompt cache (see the README).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    evict_step: u64,
    /// Fit images to N × N instead of to the size the model processes
    /// images at (by default, what the provider documents, within 2000 px).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..=16384))]
    max_dim: Option<u32>,
    /// Keep prepared images in DIR and take them from it: a history
    /// converted again prepares each image once. Safe for conversions
    /// running at once.
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// With --cache-dir: the most the folder may hold, in MB.
    #[arg(
        long,
        value_name = "MB",
        default_value_t = 1024,
        requires = "cache_dir"
    )]
    cache_max_mb: u64,
    /// Write no prompt-cache breakpoints (Anthropic's cache_control,
    /// Bedrock's cachePoint for Claude), which are written by default.
    #[arg(long)]
    no_cache_breakpoints: bool,
    /// With --provider openai-compatible: the server's profile, a built-in
    /// name (generic, vllm, llama-cpp, lm-studio, ollama-openai, mistral,
    /// deepseek, groq, xai, openrouter, azure-openai) or a profile file (a
    /// value with a path separator or a .toml or .json extension).
    #[arg(long, value_name = "NAME|FILE")]
    profile: Option<String>,
    /// With --provider openai-compatible: the server's base URL (the
    /// request goes to BASE/chat/completions).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// With --provider openai-compatible: whether the served model takes
    /// images, over what the profile says (off works for every provider,
    /// as --no-vision).
    #[arg(long, value_name = "on|off", value_parser = on_off, conflicts_with = "no_vision")]
    vision: Option<bool>,
    /// With --provider openai-compatible: whether images go inside the
    /// tool messages (on) or in a user message after them (off), over what
    /// the profile says.
    #[arg(long, value_name = "on|off", value_parser = on_off)]
    tool_images: Option<bool>,
    /// Read the input as a request body written for this provider (any
    /// --provider name) and convert it for --provider, its tool
    /// definitions included (unless --tools is given).
    #[arg(long, value_name = "P")]
    from: Option<Provider>,
    #[command(flatten)]
    limits: input::Limits,
    /// A JSON Lines file or a JSON array of messages (`{role, content}`,
    /// or spelled the OpenAI Chat way: `tool_calls`, `tool_call_id`,
    /// content parts); `-` or nothing for standard input.
    file: Option<PathBuf>,
}

fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("expected on or off, found {s:?}")),
    }
}

/// The profile `--profile` names: a file when the value has a path
/// separator or a `.toml`/`.json` extension, else a built-in name.
fn read_profile(value: &str) -> Result<Profile, Failure> {
    let path = std::path::Path::new(value);
    let ext = path.extension().and_then(|e| e.to_str());
    let is_file = value.contains(std::path::MAIN_SEPARATOR)
        || value.contains('/')
        || matches!(ext, Some("toml" | "json"));
    if !is_file {
        return Profile::builtin(value).map_err(|e| Failure::new(format!("--profile: {e}")));
    }
    let fail = |e: &dyn std::fmt::Display| Failure::new(format!("--profile {value}: {e}"));
    let text = std::fs::read_to_string(path).map_err(|e| fail(&e))?;
    if ext == Some("toml") {
        let table: toml::Table = toml::from_str(&text).map_err(|e| fail(&e))?;
        let value = serde_json::to_value(table).map_err(|e| fail(&e))?;
        Profile::from_value(&value).map_err(|e| fail(&e))
    } else {
        Profile::from_json(&text).map_err(|e| fail(&e))
    }
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let roots = Roots::new(&args.root).context(|| "--root".into())?;
    let mut policy = Policy::default().with_roots(roots);
    if let Some(n) = args.max_dim {
        policy = policy.with_max_dim(n);
    }
    let compatible = args.provider == Provider::OpenAiCompatible;
    for (given, flag) in [
        (args.profile.is_some(), "--profile"),
        (args.base_url.is_some(), "--base-url"),
        (args.tool_images.is_some(), "--tool-images"),
        (args.vision == Some(true), "--vision on"),
    ] {
        if given && !compatible {
            return Err(Failure::new(format!(
                "{flag} is for --provider openai-compatible, not {}",
                args.provider
            )));
        }
    }
    let mut options = Options::new()
        .with_vision(!args.no_vision && args.vision != Some(false))
        .with_policy(policy)
        .with_fit_to_model(args.max_dim.is_none());
    if let Some(model) = args.model {
        options = options.with_model(model);
    }
    if let Some(family) = args.family {
        options = options.with_family(family);
    }
    if let Some(n) = args.keep_images {
        options = options.with_keep_images(n);
    }
    if let Some(n) = args.keep_documents {
        options = options.with_keep_documents(n);
    }
    if let Some(t) = args.image_tokens {
        options = options.with_image_tokens(t);
    }
    let step = usize::try_from(args.evict_step).unwrap_or(usize::MAX);
    options = options.with_evict_step(step);
    options = options.with_cache_breakpoints(!args.no_cache_breakpoints);
    if let Some(dir) = &args.cache_dir {
        let cache = crate::cache::DiskCache::new(dir, args.cache_max_mb.saturating_mul(1_000_000))
            .map_err(|e| Failure::new(format!("--cache-dir {}: {e}", dir.display())))?;
        options = options.with_cache(std::sync::Arc::new(cache));
    }
    if compatible {
        let mut profile = match &args.profile {
            Some(value) => read_profile(value)?,
            None => Profile::generic(),
        };
        if let Some(url) = &args.base_url {
            profile
                .set_base_url(url)
                .map_err(|e| Failure::new(format!("--base-url: {e}")))?;
        }
        if let Some(on) = args.vision {
            profile.vision = on;
        }
        if let Some(on) = args.tool_images {
            profile.images_in_tool_messages = on;
        }
        options = options.with_profile(profile);
    }
    if let Some(path) = &args.tools {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::new(format!("--tools {}: {e}", path.display())))?;
        let tools = Tools::from_json(&text)
            .map_err(|e| Failure::new(format!("--tools {}: {e}", path.display())))?;
        options = options.with_tools(tools);
    }
    let mut input = input::open(args.file.as_deref())?;
    let name = input.name.clone();
    if let Some(from) = args.from {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut input.reader, &mut text)
            .context(|| format!("reading {name}"))?;
        let body = crate::import::json_or_lines(&text)
            .map_err(|e| Failure::new(format!("{name}: {e}")))?;
        let history = tool_carrier::import::from_provider(
            from,
            &body,
            &mut tool_carrier::media::store::InlineStore,
        )
        .map_err(|e| Failure::new(format!("--from {from}: {name}: {e}")))?;
        for note in &history.notes {
            eprintln!("  --from {from}: message {}: {}", note.message, note.text);
        }
        if args.tools.is_none() {
            let (tools, left) = tool_carrier::import::tool_definitions(from, &body);
            for tool in &left {
                eprintln!("  --from {from}: a tool that is no function is not declared: {tool}");
            }
            if !tools.is_empty() {
                let tools = Tools::from_json(&serde_json::Value::Array(tools).to_string())
                    .map_err(|e| Failure::new(format!("--from {from}: the body's tools: {e}")))?;
                options = options.with_tools(tools);
            }
        }
        let tools_given = options.tools().is_some();
        return finish(
            args.provider,
            tools_given,
            &name,
            &history.messages,
            &options,
        );
    }
    // Records `{role, content}` or spelled the OpenAI Chat way; a Chat
    // record's inline media stay inline, as with --from.
    let history =
        input::history(input.reader, &args.limits).context(|| format!("reading {name}"))?;
    let messages = match read_records_with(history, &mut InlineStore) {
        Ok(history) => {
            for note in &history.notes {
                eprintln!("  record {}: {}", note.message, note.text);
            }
            history.messages
        }
        Err(ReadError::Records(errors)) => {
            let mut err = io::stderr().lock();
            for e in errors.iter().take(SHOWN) {
                let _ = writeln!(
                    err,
                    "tool-carrier: {name}: line {}: not a message: {}",
                    e.line, e.error
                );
            }
            match errors.len().saturating_sub(SHOWN) {
                0 => {}
                1 => {
                    let _ = writeln!(
                        err,
                        "tool-carrier: {name}: … and 1 more record that is not a message"
                    );
                }
                more => {
                    let _ = writeln!(
                        err,
                        "tool-carrier: {name}: … and {more} more records that are not messages"
                    );
                }
            }
            let what = if errors.len() == 1 {
                "record is not a message"
            } else {
                "records are not messages"
            };
            let _ = writeln!(
                err,
                "tool-carrier: nothing converted from {name}: {} {what}",
                errors.len()
            );
            return Ok(ExitCode::from(FOUND));
        }
        Err(e) => return Err(Failure::new(format!("reading {name}: {e}"))),
    };
    input.progress.finish();
    finish(
        args.provider,
        args.tools.is_some(),
        &name,
        &messages,
        &options,
    )
}

/// Build the request from `messages`, write it, and report.
fn finish(
    provider: Provider,
    tools_given: bool,
    name: &str,
    messages: &[(String, String)],
    options: &Options,
) -> Result<ExitCode, Failure> {
    let request = build_request(provider, messages, options)
        .map_err(|e| Failure::new(format!("cannot convert {name} for {provider}: {e}")))?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    request
        .write_pretty(&mut out)
        .and_then(|()| out.flush())
        .context(|| "writing the request".into())?;
    let mut err = io::stderr().lock();
    let profile = request
        .profile
        .as_ref()
        .map(|p| format!(", profile {}", p.name))
        .unwrap_or_default();
    let _ = writeln!(
        err,
        "convert: {} ({}{profile}): {}",
        request.endpoint(),
        request.model,
        request.report
    );
    if let Some(tokens) = request.report.image_tokens {
        let _ = writeln!(
            err,
            "  image input tokens: {tokens} (the provider's own count)"
        );
    }
    if request.report.replay_left_out > 0 {
        let _ = writeln!(
            err,
            "  replay: the thinking blocks or thought signatures of {} assistant messages were written by another provider and are left out",
            request.report.replay_left_out
        );
    }
    for note in &request.report.notes {
        let _ = writeln!(err, "  message {}: {}", note.index, note.text);
    }
    for (name, value) in &request.headers {
        let _ = writeln!(err, "  header {name}: {value}");
    }
    let report = &request.report;
    if !report.stubbed.is_empty() && !tools_given {
        let told = if report.choice_none {
            "the model is told not to call them"
        } else {
            "this API cannot be told not to call them"
        };
        let _ = writeln!(
            err,
            "  tools: no --tools given; minimal declarations for {} ({told})",
            report.stubbed.join(", ")
        );
    } else if report.declared > 0 {
        let _ = writeln!(err, "  tools: {} declared", report.declared);
    }
    for note in &report.tool_notes {
        let _ = writeln!(err, "  {note}");
    }
    Ok(ExitCode::SUCCESS)
}
