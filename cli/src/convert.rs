//! `tool-carrier convert --provider NAME [--model M] [--family F] [--root DIR]… [--no-vision] [--keep-images N] [--keep-documents N] [--image-tokens T] [--evict-step K] [--max-dim N] [--cache-dir DIR [--cache-max-mb MB]] [--detail low|high|original|auto] [--cache-ttl 5m|1h] [--prompt-cache-key KEY] [--prompt-cache-retention in_memory|24h] [--no-cache-breakpoints] [--tools FILE] [--uploads FILE] [--profile NAME|FILE] [--base-url URL] [--vision on|off] [--tool-images on|off] [--params FILE.json] [--param KEY=VALUE]… [--extra PATH=JSON]… [--fetch-urls HOST,… [--fetch-max-mb MB] [--fetch-timeout SECS]] [FILE|-]`

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};

use tool_carrier::facts::{Detail, Facts, Family, Profile};
use tool_carrier::history::{ReadError, Record};
use tool_carrier::import::{read_records, ImportOptions};
use tool_carrier::media::store::InlineStore;
use tool_carrier::media::Policy;
use tool_carrier::provider::{
    build_request, BuildError, Extra, Note, NoteReason, Options, Params, Provider, ReplayNote,
    Report, Request, Tools,
};
use tool_carrier::roots::Roots;
use tool_carrier::rules::Target;

use super::{input, Context, Failure, ATTACHMENTS_FAILED, FOUND, REFUSED, SHOWN};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The API the request is for.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = crate::provider_parser(),
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
    /// Media already uploaded to providers: a JSON object of content hash
    /// (the SHA-256 of a file's bytes, 64 hex digits) to a list of
    /// provider file targets (`anthropic-file:ID`, `openai-file:ID`,
    /// `gemini-file:TYPE;URI`, `bedrock-file:[TYPE;][OWNER@]s3://…`). A
    /// local image or PDF the map names goes to that provider by
    /// reference, unchanged, and inline to any other.
    #[arg(long, value_name = "FILE")]
    uploads: Option<PathBuf>,
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
    /// of each image at the size it is fitted to (read from its header,
    /// before it is loaded); the oldest go first.
    #[arg(long, value_name = "T")]
    image_tokens: Option<u64>,
    /// Once a limit leaves images out, leave them out K at a time: the
    /// request then changes before its last message only every K turns,
    /// which keeps a provider's prompt cache (see docs/providers.md).
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
    /// The image detail level: OpenAI's `detail` (Chat Completions and
    /// Responses), Gemini 3's per-part media resolution (original as its
    /// ultra high). Images are fitted and counted at that level. A level
    /// the model's facts do not list is refused; a provider without such a
    /// setting is sent none, and the report says so.
    #[arg(
        long,
        value_name = "LEVEL",
        value_parser = crate::detail_parser(),
    )]
    detail: Option<Detail>,
    /// How long the prompt-cache breakpoints keep their prefix: 5m (the
    /// APIs' default) or 1h, on every breakpoint; for Anthropic, and
    /// Claude on Bedrock (1h from Claude 4.5 on) (the setting cache_ttl;
    /// others refuse it).
    #[arg(long, value_name = "5m|1h", value_parser = ["5m", "1h"], conflicts_with = "no_cache_breakpoints")]
    cache_ttl: Option<String>,
    /// OpenAI's prompt_cache_key (Chat Completions and Responses; others
    /// refuse it): requests sharing a prefix and a key go to the same
    /// cache.
    #[arg(long, value_name = "KEY")]
    prompt_cache_key: Option<String>,
    /// OpenAI's prompt_cache_retention, in_memory or 24h (Chat Completions
    /// and Responses; GPT-5.5 and later take 24h only).
    #[arg(long, value_name = "in_memory|24h", value_parser = ["in_memory", "24h"])]
    prompt_cache_retention: Option<String>,
    /// Write no prompt-cache breakpoints (Anthropic's cache_control,
    /// Bedrock's cachePoint for Claude), which are written by default.
    #[arg(long)]
    no_cache_breakpoints: bool,
    /// With --provider openai-compatible: the server's profile, a built-in
    /// name (generic, vllm, llama-cpp, lm-studio, ollama-openai, mistral,
    /// deepseek, groq, xai, openrouter, azure-openai), one a --facts file
    /// adds, or a profile file (a value with a path separator or a .toml or
    /// .json extension).
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
    /// Fail (exit 3, nothing written) when any declared attachment cannot
    /// be sent: unreadable, outside the roots, corrupt, of a kind the
    /// provider does not take. Left out by a limit or --no-vision is no
    /// failure.
    #[arg(long)]
    strict: bool,
    /// Write the body as one line of compact JSON (the bytes the rules
    /// were checked on) instead of indented.
    #[arg(long)]
    compact: bool,
    /// Read the input as a request body written for this provider (any
    /// --provider name) and convert it for --provider, its tool
    /// definitions included (unless --tools is given); or as an agent's
    /// transcript (claude-code), a line at a time.
    #[arg(long, value_name = "FORMAT", value_parser = crate::source_parser())]
    from: Option<crate::Source>,
    /// Keep a block, part or item of a kind the provider's pinned SDK
    /// does not list (in a Chat-spelled record, or a --from body) as a
    /// note, instead of refusing the input (exit 2).
    #[arg(long)]
    keep_unknown: bool,
    /// With --from openai-agents (or auto) and a SQLite session file: the
    /// session to read, where it holds several.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// A generation setting, KEY=VALUE (repeatable): max_tokens,
    /// temperature, top_p, top_k, stop, seed, reasoning_effort (low,
    /// medium, high), thinking_budget, stream, store, parallel_tool_calls
    /// (true, false), service_tier (as the API spells it), verbosity (low,
    /// medium, high), reasoning_summary (auto, concise, detailed),
    /// tool_choice (auto, none, required, {"tool": NAME}), user, metadata
    /// (an object of strings), response_format ("json", or {"schema": {…},
    /// "name": …, "description": …, "strict": …}). VALUE is read as JSON,
    /// else as a string. Each is sent where the provider's
    /// API takes it; one it does not take is an error. Overrides the same
    /// key of --params.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    param: Vec<String>,
    /// Generation settings as a JSON object file (the keys of --param).
    #[arg(long, value_name = "FILE.json")]
    params: Option<PathBuf>,
    /// A member added to the body as given, PATH=JSON (repeatable), for a
    /// setting --param does not know: PATH is member names joined by dots
    /// (`metadata.user_id`), JSON its value (a bare word is taken as a
    /// string). Merged into the body, never over a value the crate writes
    /// nor into the history's members; the body is then checked against
    /// the API's SDK's member tables.
    #[arg(long = "extra", value_name = "PATH=JSON")]
    extra: Vec<String>,
    /// Fetch the `http(s)` attachments of these hosts (comma-separated,
    /// repeatable; any port) for a provider that takes no URL for them:
    /// nothing is fetched otherwise. Redirects are followed to the same
    /// host only; the bytes are checked and fitted as a local file's.
    #[arg(
        long = "fetch-urls",
        value_name = "HOST[,HOST...]",
        value_delimiter = ','
    )]
    fetch_urls: Vec<String>,
    /// With --fetch-urls: the most one URL may answer, in MiB (at most,
    /// and by default, 64: the local file limit).
    #[arg(long, value_name = "MB", requires = "fetch_urls")]
    fetch_max_mb: Option<u64>,
    /// With --fetch-urls: the seconds one URL may take, redirects included
    /// (default 10).
    #[arg(long, value_name = "SECS", requires = "fetch_urls")]
    fetch_timeout: Option<u64>,
    #[command(flatten)]
    limits: input::Limits,
    #[command(flatten)]
    facts: crate::facts::Arg,
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
/// separator or a `.toml`/`.json` extension, else a name in the facts.
fn read_profile(value: &str, facts: &Facts) -> Result<Profile, Failure> {
    let path = std::path::Path::new(value);
    let ext = path.extension().and_then(|e| e.to_str());
    let is_file = value.contains(std::path::MAIN_SEPARATOR)
        || value.contains('/')
        || matches!(ext, Some("toml" | "json"));
    if !is_file {
        return Profile::named(facts, value).map_err(|e| Failure::new(format!("--profile: {e}")));
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

/// The settings of `--params FILE` with each `--param KEY=VALUE` laid
/// over them; `None` when neither is given.
fn read_params(args: &Args) -> Result<Option<Params>, Failure> {
    let flags = [
        ("cache_ttl", &args.cache_ttl),
        ("prompt_cache_key", &args.prompt_cache_key),
        ("prompt_cache_retention", &args.prompt_cache_retention),
    ];
    if args.params.is_none() && args.param.is_empty() && flags.iter().all(|(_, v)| v.is_none()) {
        return Ok(None);
    }
    let mut object = serde_json::Map::new();
    if let Some(path) = &args.params {
        let fail =
            |e: &dyn std::fmt::Display| Failure::new(format!("--params {}: {e}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| fail(&e))?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(&e))?;
        match value {
            serde_json::Value::Object(map) => object = map,
            _ => return Err(fail(&"expected a JSON object of settings")),
        }
        Params::from_json(&serde_json::Value::Object(object.clone())).map_err(|e| fail(&e))?;
    }
    for pair in &args.param {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| Failure::new(format!("--param {pair:?}: expected KEY=VALUE")))?;
        let value = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_owned()));
        object.insert(key.trim().to_owned(), value);
    }
    for (key, value) in flags {
        if let Some(value) = value {
            object.insert(key.to_owned(), serde_json::Value::String(value.clone()));
        }
    }
    Params::from_json(&serde_json::Value::Object(object))
        .map(Some)
        .map_err(|e| Failure::new(format!("--param: {e}")))
}

/// The members of each `--extra PATH=JSON`, in order.
fn read_extra(args: &Args) -> Result<Extra, Failure> {
    let mut extra = Extra::new();
    for pair in &args.extra {
        let (path, text) = pair
            .split_once('=')
            .ok_or_else(|| Failure::new(format!("--extra {pair:?}: expected PATH=JSON")))?;
        // A bare word is a string; what looks like JSON must be JSON.
        let value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(e) if text.trim_start().starts_with(['{', '[', '"']) => {
                return Err(Failure::new(format!("--extra {path}: not JSON: {e}")))
            }
            Err(_) => serde_json::Value::String(text.to_owned()),
        };
        extra = extra
            .with(path.trim(), value)
            .map_err(|e| Failure::new(format!("--extra: {e}")))?;
    }
    Ok(extra)
}

/// `options` with the fetcher `--fetch-urls` asks for.
#[cfg(feature = "gateway")]
fn with_fetcher(options: Options, args: &Args) -> Result<Options, Failure> {
    let limit = options.policy().max_file_bytes();
    let max_bytes = match args.fetch_max_mb {
        Some(mb) if mb.saturating_mul(1 << 20) > limit => {
            return Err(Failure::new(format!(
                "--fetch-max-mb {mb}: at most {} (the local file limit)",
                limit >> 20
            )))
        }
        Some(mb) => mb << 20,
        None => limit,
    };
    let timeout = std::time::Duration::from_secs(args.fetch_timeout.unwrap_or(10));
    let fetcher = crate::fetch_urls::Fetcher::new(&args.fetch_urls, max_bytes, timeout)?;
    Ok(options.with_url_fetcher(std::sync::Arc::new(fetcher)))
}

/// Without the `gateway` feature there is no HTTP client to fetch with.
#[cfg(not(feature = "gateway"))]
fn with_fetcher(_: Options, _: &Args) -> Result<Options, Failure> {
    Err(Failure::new(
        "--fetch-urls: this tool-carrier was built without the gateway feature, whose HTTP client fetches",
    ))
}

/// Options that contradict each other, refused before anything is read,
/// named by their flags.
fn contradictions(args: &Args, options: &Options) -> Result<(), Failure> {
    options.check().map_err(crate::keep::contradiction)?;
    if args.family.is_some() && args.provider != Provider::Bedrock {
        return Err(Failure::new(format!(
            "--family names a Bedrock model's family; it means nothing for --provider {}",
            args.provider
        )));
    }
    if args.tool_images == Some(true) && !options.vision() {
        return Err(Failure::new(
            "--tool-images on places images, but --no-vision or --vision off sends none",
        ));
    }
    Ok(())
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
    let user_facts = args.facts.load()?;
    let facts = user_facts.as_deref().unwrap_or_else(|| Facts::builtin());
    let params = read_params(&args)?;
    let mut options = Options::new()
        .with_vision(!args.no_vision && args.vision != Some(false))
        .with_policy(policy)
        .with_fit_to_model(args.max_dim.is_none());
    if let Some(facts) = user_facts.clone() {
        options = options.with_facts(facts);
    }
    if let Some(model) = args.model.clone() {
        options = options.with_model(model);
    }
    if let Some(params) = params {
        options = options.with_params(params);
    }
    options = options.with_extra(read_extra(&args)?);
    if !args.fetch_urls.is_empty() {
        options = with_fetcher(options, &args)?;
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
    if let Some(detail) = args.detail {
        options = options.with_detail(detail);
    }
    options = options
        .with_cache_breakpoints(!args.no_cache_breakpoints)
        .with_strict(args.strict);
    contradictions(&args, &options)?;
    let mut disk_cache = None;
    if let Some(dir) = &args.cache_dir {
        let cache = crate::cache::DiskCache::new(dir, args.cache_max_mb.saturating_mul(1_000_000))
            .map_err(|e| Failure::new(format!("--cache-dir {}: {e}", dir.display())))?;
        let cache = std::sync::Arc::new(cache);
        options = options.with_cache(cache.clone());
        disk_cache = Some(cache);
    }
    if compatible {
        let mut profile = match &args.profile {
            Some(value) => read_profile(value, facts)?,
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
    crate::facts::warn_model(facts, args.provider, options.model_for(args.provider));
    if let Some(path) = &args.tools {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::new(format!("--tools {}: {e}", path.display())))?;
        let tools = Tools::from_json(&text)
            .map_err(|e| Failure::new(format!("--tools {}: {e}", path.display())))?;
        options = options.with_tools(tools);
    }
    if let Some(path) = &args.uploads {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::new(format!("--uploads {}: {e}", path.display())))?;
        let uploads = tool_carrier::media::Uploads::from_json(&text)
            .map_err(|e| Failure::new(format!("--uploads {}: {e}", path.display())))?;
        options = options.with_uploads(uploads);
    }
    let reading = ImportOptions::new().with_keep_unknown(args.keep_unknown);
    let from_name = match args.from {
        Some(crate::Source::Agent(agent)) => agent.name(),
        Some(crate::Source::Auto) => "auto",
        _ => "",
    };
    let database = crate::import::agent_database(
        from_name,
        args.file.as_deref(),
        args.session.as_deref(),
        &mut InlineStore,
        &reading,
    )?;
    let mut input = input::open(args.file.as_deref())?;
    let name = input.name.clone();
    let agent = match args.from {
        _ if database.is_some() => {
            database.map(|(agent, history)| (agent.name().to_owned(), history))
        }
        Some(crate::Source::Agent(agent)) => {
            let taken = std::mem::replace(&mut input.reader, Box::new(std::io::empty()));
            let mut reader = input.progress.track(taken);
            let history = tool_carrier::import::from_agent(
                agent,
                &mut reader,
                &mut tool_carrier::media::store::InlineStore,
                &reading,
            )
            .map_err(|e| Failure::new(format!("--from {agent}: {name}: {e}")))?;
            Some((agent.name().to_owned(), history))
        }
        Some(crate::Source::Auto) => {
            let taken = std::mem::replace(&mut input.reader, Box::new(std::io::empty()));
            let mut reader = input.progress.track(taken);
            let read = tool_carrier::import::read_auto(
                &mut reader,
                &mut tool_carrier::media::store::InlineStore,
                &reading,
            )
            .map_err(|e| Failure::new(format!("--from auto: {name}: {e}")))?;
            eprintln!("  --from auto: {}", crate::import::said(&read));
            Some(("auto".to_owned(), read.history))
        }
        _ => None,
    };
    if let Some((from, history)) = agent {
        for note in &history.notes {
            eprintln!("  --from {from}: {}", note.text);
        }
        eprintln!("  --from {from}: {}", history.tally.summary("kept"));
        let out = Output {
            provider: args.provider,
            tools_given: options.tools().is_some(),
            name: &name,
            compact: args.compact,
            cache: disk_cache.as_deref(),
        };
        return finish(&out, &history.messages, &options, &input.progress);
    }
    if let Some(crate::Source::Provider(from)) = args.from {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut input.reader, &mut text)
            .context(|| format!("reading {name}"))?;
        let body = crate::import::json_or_lines(&text)
            .map_err(|e| Failure::new(format!("{name}: {e}")))?;
        let history = tool_carrier::import::from_provider(
            from,
            &body,
            &mut tool_carrier::media::store::InlineStore,
            &reading,
        )
        .map_err(|e| Failure::new(format!("--from {from}: {name}: {e}")))?;
        for note in &history.notes {
            eprintln!("  --from {from}: message {}: {}", note.message, note.text);
        }
        eprintln!("  --from {from}: {}", history.tally.summary("kept"));
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
        let out = Output {
            provider: args.provider,
            tools_given: options.tools().is_some(),
            name: &name,
            compact: args.compact,
            cache: disk_cache.as_deref(),
        };
        return finish(&out, &history.messages, &options, &input.progress);
    }
    // Records `{role, content}` or spelled the OpenAI Chat way; a Chat
    // record's inline media stay inline, as with --from.
    let reader = input.progress.track(input.reader);
    let history = input::history(reader, &args.limits).context(|| format!("reading {name}"))?;
    let messages = match read_records(history, &mut InlineStore, &reading) {
        Ok(history) => {
            for note in &history.notes {
                eprintln!("  record {}: {}", note.message, note.text);
            }
            if !history.tally.rows().is_empty() {
                eprintln!(
                    "  records spelled the OpenAI Chat way: {}",
                    history.tally.summary("kept")
                );
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
    let building = input.progress.then("building the request");
    let out = Output {
        provider: args.provider,
        tools_given: args.tools.is_some(),
        name: &name,
        compact: args.compact,
        cache: disk_cache.as_deref(),
    };
    finish(&out, &messages, &options, &building)
}

/// What `finish` needs besides the messages.
struct Output<'a> {
    provider: Provider,
    tools_given: bool,
    name: &'a str,
    compact: bool,
    cache: Option<&'a crate::cache::DiskCache>,
}

/// Build the request from `messages`, write it, and report.
fn finish(
    out: &Output<'_>,
    messages: &[Record],
    options: &Options,
    building: &input::Progress,
) -> Result<ExitCode, Failure> {
    let (provider, name) = (out.provider, out.name);
    let built = build_request(provider, messages, options);
    building.finish();
    if let Some(cache) = out.cache.filter(|c| c.damaged() > 0) {
        let n = cache.damaged();
        eprintln!(
            "  --cache-dir {}: {n} entr{} not whole (cut short, changed or of an older version): prepared again from {} source and replaced",
            cache.dir().display(),
            if n == 1 { "y was" } else { "ies were" },
            if n == 1 { "its" } else { "their" },
        );
    }
    let request = match built {
        Ok(request) => request,
        Err(BuildError::Attachments(failed)) => {
            let mut err = io::stderr().lock();
            let _ = writeln!(
                err,
                "tool-carrier: nothing converted from {name} (--strict): {} declared attachment{} failed",
                failed.len(),
                if failed.len() == 1 { "" } else { "s" }
            );
            print_notes(&mut err, &failed);
            return Ok(ExitCode::from(ATTACHMENTS_FAILED));
        }
        Err(BuildError::Replayed(left)) => {
            let mut err = io::stderr().lock();
            let _ = writeln!(
                err,
                "tool-carrier: nothing converted from {name} (--strict): {} kept entr{} left out",
                left.len(),
                if left.len() == 1 { "y was" } else { "ies were" }
            );
            print_replay_notes(&mut err, &left);
            return Ok(ExitCode::from(ATTACHMENTS_FAILED));
        }
        Err(e @ (BuildError::TooLarge { .. } | BuildError::Refused { .. })) => {
            eprintln!("tool-carrier: nothing converted from {name} for {provider}: {e}");
            return Ok(ExitCode::from(REFUSED));
        }
        Err(e) => {
            return Err(Failure::new(format!(
                "cannot convert {name} for {provider}: {e}"
            )))
        }
    };
    // Indented, the body is written once into memory and measured there:
    // indenting adds bytes without bound against the compact size, so a
    // body that fits its provider's limit compact may not once indented.
    let pretty = if out.compact {
        None
    } else {
        let mut text = Vec::with_capacity(request.json().len() + request.json().len() / 4);
        request
            .write_pretty(&mut text)
            .context(|| "writing the request".into())?;
        if let Some(e) = pretty_too_large(&request, options, text.len()) {
            eprintln!("tool-carrier: nothing converted from {name} for {provider}: {e}");
            return Ok(ExitCode::from(REFUSED));
        }
        Some(text)
    };
    let mut stdout = BufWriter::with_capacity(
        1 << 16,
        crate::output::stdout_file().context(|| "writing the request".into())?,
    );
    let written = match &pretty {
        Some(text) => stdout.write_all(text),
        None => request
            .write_compact(&mut stdout)
            .and_then(|()| stdout.write_all(b"\n")),
    };
    written
        .and_then(|()| stdout.flush())
        .context(|| "writing the request".into())?;
    report(&request, out.tools_given);
    Ok(ExitCode::SUCCESS)
}

/// Where the indented body (`size` bytes) is over the provider's size
/// limit: why, naming the size with --compact.
fn pretty_too_large(request: &Request, options: &Options, size: usize) -> Option<String> {
    let mut target = Target::of(request);
    if let Some(family) = options.family() {
        target = target.with_family(family);
    }
    let (rule, limit) = tool_carrier::rules::size_limit(&target)?;
    (size > limit).then(|| {
        format!(
            "indented, the body is {size} bytes, over the {limit}-byte limit of {} ({}); it is {} bytes with --compact",
            request.provider,
            rule.id,
            request.json().len() + 1
        )
    })
}

/// What became of the history, on standard error.
fn report(request: &Request, tools_given: bool) {
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
    let _ = writeln!(err, "  {}", request.report.tally.summary("sent"));
    if let Some(tokens) = request.report.image_tokens {
        let _ = writeln!(
            err,
            "  image input tokens: {tokens} (the provider's own count)"
        );
    }
    print_notes(&mut err, &request.report.notes);
    print_replay_notes(&mut err, &request.report.replay_notes);
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
    for note in report
        .tool_notes
        .iter()
        .chain(&report.setting_notes)
        .chain(&report.caveats)
    {
        let _ = writeln!(err, "  {note}");
    }
    if let Some(line) = failure_summary(report) {
        let _ = writeln!(err, "{line}");
    }
    let failed = report.replay_notes.iter().filter(|n| n.failure).count();
    if failed > 0 {
        let _ = writeln!(
            err,
            "convert: {failed} kept entr{} of assistant messages left out (written for another API, or of a kind or with a member {} does not take); --strict refuses such a request",
            if failed == 1 { "y" } else { "ies" },
            request.provider
        );
    }
}

/// Notes printed one a line, up to this many; the rest are counted.
const NOTES_SHOWN: usize = 20;

fn print_notes(err: &mut impl Write, notes: &[Note]) {
    for note in notes.iter().take(NOTES_SHOWN) {
        let _ = writeln!(err, "  message {}: {}", note.index, note.text);
    }
    if notes.len() > NOTES_SHOWN {
        let _ = writeln!(
            err,
            "  … and {} more notes (the request holds every one)",
            notes.len() - NOTES_SHOWN
        );
    }
}

fn print_replay_notes(err: &mut impl Write, notes: &[ReplayNote]) {
    for note in notes.iter().take(NOTES_SHOWN) {
        let _ = writeln!(err, "  message {}: {}", note.index, note.text);
    }
    if notes.len() > NOTES_SHOWN {
        let _ = writeln!(
            err,
            "  … and {} more entries left out",
            notes.len() - NOTES_SHOWN
        );
    }
}

/// The cause a media note gives, without its details: `corrupt or
/// truncated PNG`, `outside the allowed folders`, `cannot resolve`.
fn media_cause(note: &str) -> &str {
    let cause = note
        .split_once(" not attached: ")
        .map_or(note, |(_, cause)| cause)
        .trim_end_matches(']');
    cause.split(':').next().unwrap_or(cause).trim()
}

/// One line saying how many declared attachments failed and why, when
/// any did.
pub(crate) fn failure_summary(report: &Report) -> Option<String> {
    let failed: Vec<&Note> = report.failures().collect();
    if failed.is_empty() {
        return None;
    }
    let declared =
        report.images + report.documents + report.urls + report.files + report.notes.len();
    let mut why: Vec<(&str, usize)> = Vec::new();
    for note in &failed {
        let label = match note.reason {
            NoteReason::Media => media_cause(&note.text),
            NoteReason::WrongKind => "declared as the wrong kind",
            NoteReason::NotTaken => "of a kind or source the provider does not take here",
            NoteReason::KindNotSent => "audio or video",
            NoteReason::InvalidRecord => "no attachment record",
            _ => "failed",
        };
        match why.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n += 1,
            None => why.push((label, 1)),
        }
    }
    let why: Vec<String> = why.iter().map(|(l, n)| format!("{n} {l}")).collect();
    Some(format!(
        "convert: {} of {declared} declared attachments failed and were sent as notes ({}); --strict refuses such a request",
        failed.len(),
        why.join(", ")
    ))
}
