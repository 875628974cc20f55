//! `tool-carrier import --from FORMAT [--media-dir DIR] [--call-id ID] [FILE|-]`

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;
use tool_carrier::import::{
    from_agent, from_mcp, from_provider, read_auto, read_response, response_form, Agent,
    ImportOptions, ImportedHistory, ResponseForm,
};
use tool_carrier::media::store::{DirStore, InlineStore, MediaStore};
use tool_carrier::provider::Provider;
use tool_carrier::provider::Tally;

use super::{input, interrupt, Context, Failure};

/// The formats `--from` takes: MCP results, the providers' bodies and
/// the agents' transcripts.
fn formats() -> Vec<&'static str> {
    ["auto", "mcp"]
        .into_iter()
        .chain(Provider::ALL.iter().map(|p| p.name()))
        .chain(Agent::ALL.iter().map(|a| a.name()))
        .collect()
}

/// Read JSON text: one value, or JSON Lines of values (as a list).
pub fn json_or_lines(text: &str) -> Result<Value, String> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        // One line of JSON Lines: a lone message.
        if v.get("role").is_some() {
            return Ok(Value::Array(vec![v]));
        }
        return Ok(v);
    }
    let mut items = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        items.push(serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 1))?);
    }
    Ok(Value::Array(items))
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// What the input is: `mcp` (one MCP CallToolResult, or JSON Lines of
    /// {"tool_call_id", "result"}), or a provider's name (any --provider
    /// name). For a provider the input's shape says what it is. A response
    /// becomes one assistant record: a body is a JSON object of the API's
    /// own response shape or its error answer (anthropic: "type"
    /// "message"; openai-chat, openai-compatible: "choices" or "object"
    /// "chat.completion"; openai-responses: "object" "response"; gemini,
    /// gemini-2: "candidates", "promptFeedback" or "usageMetadata";
    /// bedrock: "output" or "stopReason"; ollama: "message" with "done"
    /// true); a stream is Server-Sent Events (text starting with `event:`
    /// or `data:`; anthropic, openai-*, gemini with alt=sse), a JSON array
    /// of chunks (gemini without alt=sse) or JSON Lines (bedrock's
    /// ConverseStream events, ollama's chunks). Anything else is a request
    /// body, a bare list of its messages, or JSON Lines of them. An
    /// agent's name (claude-code, codex, gemini-cli) reads its transcript,
    /// a line at a time; a library's (vercel-ai, openai-agents,
    /// pydantic-ai, cline, langchain) the history it saves (an
    /// openai-agents SQLite file too, see --session). `auto` tells them apart by shape (an agent's
    /// transcript by its first line; else every format with the input's
    /// shape is tried, and the history taken when all that read it agree)
    /// and says which it read.
    #[arg(long, value_name = "FORMAT", value_parser = clap::builder::PossibleValuesParser::new(formats()))]
    from: String,
    /// Write inline images and files here, each named by the SHA-256 of
    /// its bytes and declared by that name (convert --root DIR reads
    /// them); without it they stay as data: targets.
    #[arg(long, value_name = "DIR")]
    media_dir: Option<PathBuf>,
    /// Keep a block, part or item of a kind the format's pinned SDK does
    /// not list, with a note, instead of refusing the input (exit 2).
    #[arg(long)]
    keep_unknown: bool,
    /// With an OpenAI Agents SDK session database (`--from openai-agents`
    /// or `auto` and a SQLite file): the session to read, where it holds
    /// several.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// With one MCP result: the call it answers.
    #[arg(long, value_name = "ID")]
    call_id: Option<String>,
    /// The input; `-` or nothing for standard input.
    file: Option<PathBuf>,
}

/// A store that remembers what it wrote, so a failed import can say which
/// files it left (they are whole, named by their content: harmless, and
/// reused by the next run).
struct Recording<'a> {
    inner: &'a mut dyn MediaStore,
    written: Vec<String>,
}

impl MediaStore for Recording<'_> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<tool_carrier::media::store::Stored> {
        let stored = self.inner.put(bytes)?;
        if stored.written {
            self.written.push(stored.target.clone());
        }
        Ok(stored)
    }
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let mut dir_store;
    let mut inline = InlineStore;
    // Media files are written through temporary files: removed on a signal.
    let _cleanup = args.media_dir.as_deref().map(interrupt::store_dir);
    let inner: &mut dyn MediaStore = match &args.media_dir {
        Some(dir) => {
            dir_store = DirStore::new(dir)
                .map_err(|e| Failure::new(format!("--media-dir {}: {e}", dir.display())))?;
            &mut dir_store
        }
        None => &mut inline,
    };
    let mut store = Recording {
        inner,
        written: Vec::new(),
    };
    let read = read(&args, &mut store);
    match read {
        // Nothing goes to standard output until everything was read.
        Ok((history, report)) => {
            let mut out = BufWriter::new(io::stdout().lock());
            match &history {
                Output::Text(text) => out.write_all(text.as_bytes()),
                Output::History(history) => history.write_json_lines(&mut out),
            }
            .and_then(|()| out.flush())
            .context(|| "writing the history".into())?;
            let mut err = io::stderr().lock();
            for line in report {
                let _ = writeln!(err, "{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(failure) => {
            if let Some(dir) = &args.media_dir {
                for target in &store.written {
                    eprintln!(
                        "tool-carrier: import: left in {}: {target} (whole; nothing refers to it)",
                        dir.display()
                    );
                }
            }
            Err(failure)
        }
    }
}

/// An agent's database file (the OpenAI Agents SDK's SQLite session),
/// read as one (with `--from` that agent, or `auto`), or `None` for any
/// other input.
fn database(
    args: &Args,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<Option<(Output, Vec<String>)>, Failure> {
    let from = args.from.as_str();
    let file = args.file.as_deref();
    let session = args.session.as_deref();
    let Some((agent, history)) = agent_database(from, file, session, store, options)? else {
        return Ok(None);
    };
    let what = format!("{} database", agent.what());
    let mut report = report(&history, &what, "line");
    if from == "auto" {
        report.push(format!(
            "  --from auto: read as {what} (--from {})",
            agent.name()
        ));
    }
    Ok(Some((Output::History(history), report)))
}

/// The history in `file` when it is the database of the agent `from`
/// names (or, for `auto`, of the agent that keeps one), else `None`;
/// `--session` given for any other input is an error.
pub(crate) fn agent_database(
    from: &str,
    file: Option<&std::path::Path>,
    session: Option<&str>,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<Option<(Agent, ImportedHistory)>, Failure> {
    let keeper = match from {
        "auto" => Agent::ALL.into_iter().find(|a| a.keeps_database()),
        name => name.parse::<Agent>().ok().filter(|a| a.keeps_database()),
    };
    let file = file.filter(|f| f.as_os_str() != "-");
    let sqlite = match (file, keeper) {
        (Some(path), Some(_)) => {
            let mut head = [0u8; 16];
            let n = std::fs::File::open(path)
                .and_then(|mut f| f.read(&mut head))
                .unwrap_or(0);
            tool_carrier::import::is_sqlite(&head[..n])
        }
        _ => false,
    };
    let (Some(path), Some(agent), true) = (file, keeper, sqlite) else {
        if session.is_some() {
            return Err(Failure::new(
                "--session names a session of an agent's database file (an OpenAI Agents SDK SQLite file); the input is none",
            ));
        }
        return Ok(None);
    };
    let history = tool_carrier::import::from_agent_db(agent, path, session, store, options)
        .map_err(|e| {
            Failure::new(format!(
                "{}: {e} (read as {})",
                path.display(),
                agent.what()
            ))
        })?;
    Ok(Some((agent, history)))
}

/// What `import` writes: a history is written a record at a time.
enum Output {
    Text(String),
    History(ImportedHistory),
}

/// The input read whole: what to write, and the report's lines.
fn read(args: &Args, store: &mut dyn MediaStore) -> Result<(Output, Vec<String>), Failure> {
    let options = ImportOptions::new().with_keep_unknown(args.keep_unknown);
    if let Some(read) = database(args, store, &options)? {
        return Ok(read);
    }
    let mut input = input::open(args.file.as_deref())?;
    let name = input.name.clone();
    if args.from == "auto" {
        let mut reader = input.progress.track(input.reader);
        let read = read_auto(&mut reader, store, &options)
            .map_err(|e| Failure::new(format!("{name}: {e}")))?;
        let unit = match read.format {
            tool_carrier::import::Detected::Agent(_) => "line",
            _ => "message",
        };
        let mut report = report(&read.history, &read.format.to_string(), unit);
        report.push(format!("  --from auto: {}", said(&read)));
        return Ok((Output::History(read.history), report));
    }
    if let Ok(agent) = args.from.parse::<Agent>() {
        let mut reader = input.progress.track(input.reader);
        let history = from_agent(agent, &mut reader, store, &options)
            .map_err(|e| Failure::new(format!("{name}: {e} (read as {})", agent.title())))?;
        let report = report(&history, agent.what(), "line");
        return Ok((Output::History(history), report));
    }
    let mut bytes = Vec::new();
    input
        .reader
        .read_to_end(&mut bytes)
        .context(|| format!("reading {name}"))?;
    let text = text_of(&name, bytes)?;
    if args.from != "mcp" {
        let provider: Provider = args.from.parse().expect("a listed format");
        return from_provider_text(provider, &name, &text, store, &options);
    }
    let results = mcp_results(&text, args.call_id.as_deref())
        .map_err(|e| Failure::new(format!("{name}: {e}")))?;
    let mut history = String::new();
    let mut report = Vec::new();
    let mut tally = Tally::default();
    let mut notes = 0;
    for (n, (call_id, result)) in results.iter().enumerate() {
        let imported = from_mcp(call_id.as_deref(), result, store, &options)
            .map_err(|e| Failure::new(format!("{name}: result {}: {e}", n + 1)))?;
        let record = serde_json::json!({"role": "tool", "content": imported.content});
        history.push_str(&record.to_string());
        history.push('\n');
        for note in &imported.notes {
            report.push(format!("  result {}: {note}", n + 1));
            notes += 1;
        }
        tally.extend(&imported.tally);
    }
    report.push(format!(
        "import: {} MCP results, {notes} notes",
        results.len()
    ));
    report.push(format!("  {}", tally.summary("kept")));
    Ok((Output::Text(history), report))
}

/// The input as text: UTF-8, without a byte order mark.
fn text_of(name: &str, bytes: Vec<u8>) -> Result<String, Failure> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(Failure::new(format!(
            "{name}: the input starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not allow: save it without one"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Failure::new(format!(
            "{name}: not UTF-8: invalid byte at {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A provider's response (a body, a stream) or request body, read.
fn from_provider_text(
    provider: Provider,
    name: &str,
    text: &str,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<(Output, Vec<String>), Failure> {
    if let Some(form) = response_form(provider, text) {
        let turn = read_response(provider, form, text).map_err(|e| {
            match stream_of_another(provider, text) {
                Some(other) => Failure::new(format!(
                    "{name}: a stream, but not {provider}'s ({e}): it reads as a stream of {other} (--from {other})"
                )),
                None => Failure::new(format!("{name}: {e}")),
            }
        })?;
        let report = vec![format!(
            "import: one assistant record from a {provider} response, {} calls",
            turn.calls().len()
        )];
        return Ok((Output::Text(format!("{}\n", turn.to_record())), report));
    }
    let value = json_or_lines(text).map_err(|e| Failure::new(format!("{name}: {e}")))?;
    let history = from_provider(provider, &value, store, options).map_err(|e| {
        Failure::new(format!(
            "{name}: {e} (read as a request body for {provider}; it has no shape \
             of a response of {provider} either: see --help)"
        ))
    })?;
    let report = report(&history, &format!("{provider} format"), "message");
    Ok((Output::History(history), report))
}

/// What `--from auto` read: `read as a Codex rollout (--from codex)`,
/// and the other formats that read the same.
pub fn said(read: &tool_carrier::import::AutoRead) -> String {
    let mut text = format!(
        "read as {} (--from {})",
        read.format,
        read.format.from_name()
    );
    let others: Vec<&str> = read.agreeing[1..].iter().map(|d| d.from_name()).collect();
    if !others.is_empty() {
        text.push_str(&format!(
            "; the same as read by --from {}",
            others.join(", ")
        ));
    }
    text
}

/// What an import says of `history`, read from `what`: its notes (each
/// under the input's `unit` it concerns, unless it names its line) and
/// its counts.
fn report(history: &ImportedHistory, what: &str, unit: &str) -> Vec<String> {
    let mut report: Vec<String> = history
        .notes
        .iter()
        .map(|note| match unit {
            "line" => format!("  {}", note.text),
            _ => format!("  {unit} {}: {}", note.message, note.text),
        })
        .collect();
    report.push(format!(
        "import: {} messages from {what}, {} notes",
        history.messages.len(),
        history.notes.len()
    ));
    report.push(format!("  {}", history.tally.summary("kept")));
    report
}

/// The API another than `provider` whose stream reader reads `text`
/// whole, if one does (the first in the list).
fn stream_of_another(provider: Provider, text: &str) -> Option<Provider> {
    Provider::ALL.iter().copied().find(|p| {
        *p != provider
            && response_form(*p, text) == Some(ResponseForm::Stream)
            && read_response(*p, ResponseForm::Stream, text).is_ok()
    })
}

/// One `CallToolResult` (an object without `result`), or JSON Lines of
/// `{"tool_call_id", "result"}`.
fn mcp_results(text: &str, call_id: Option<&str>) -> Result<Vec<(Option<String>, Value)>, String> {
    let line = |v: Value, at: usize| -> Result<(Option<String>, Value), String> {
        match v {
            Value::Object(mut m) if m.contains_key("result") => {
                let id = match m.remove("tool_call_id") {
                    None => None,
                    Some(Value::String(s)) => Some(s),
                    Some(_) => return Err(format!("line {at}: tool_call_id is not a string")),
                };
                Ok((id, m.remove("result").unwrap_or(Value::Null)))
            }
            other => Err(format!(
                "line {at}: expected {{\"tool_call_id\", \"result\"}}, found {other}"
            )),
        }
    };
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        if v.get("result").is_none() {
            return Ok(vec![(call_id.map(str::to_owned), v)]);
        }
        return Ok(vec![line(v, 1)?]);
    }
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 1))?;
        out.push(line(v, i + 1)?);
    }
    Ok(out)
}
