//! `tool-carrier import --from FORMAT [--media-dir DIR] [--call-id ID] [FILE|-]`

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;
use tool_carrier::import::{from_mcp, from_provider, read_response, response_form, PROVIDERS};
use tool_carrier::media::store::{DirStore, InlineStore, MediaStore};
use tool_carrier::provider::Provider;

use super::{input, interrupt, Context, Failure};

/// The formats `--from` takes: MCP results and the providers' bodies.
fn formats() -> Vec<&'static str> {
    std::iter::once("mcp")
        .chain(PROVIDERS.iter().map(|p| p.name()))
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
    /// body, a bare list of its messages, or JSON Lines of them.
    #[arg(long, value_name = "FORMAT", value_parser = clap::builder::PossibleValuesParser::new(formats()))]
    from: String,
    /// Write inline images and files here, each named by the SHA-256 of
    /// its bytes and declared by that name (convert --root DIR reads
    /// them); without it they stay as data: targets.
    #[arg(long, value_name = "DIR")]
    media_dir: Option<PathBuf>,
    /// With one MCP result: the call it answers.
    #[arg(long, value_name = "ID")]
    call_id: Option<String>,
    /// The input; `-` or nothing for standard input.
    file: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let mut dir_store;
    let mut inline = InlineStore;
    // Media files are written through temporary files: removed on a signal.
    let _cleanup = args.media_dir.as_deref().map(interrupt::store_dir);
    let store: &mut dyn MediaStore = match &args.media_dir {
        Some(dir) => {
            dir_store = DirStore::new(dir)
                .map_err(|e| Failure::new(format!("--media-dir {}: {e}", dir.display())))?;
            &mut dir_store
        }
        None => &mut inline,
    };
    let mut input = input::open(args.file.as_deref())?;
    let name = input.name.clone();
    let mut text = String::new();
    input
        .reader
        .read_to_string(&mut text)
        .context(|| format!("reading {name}"))?;
    if args.from != "mcp" {
        let provider: Provider = args.from.parse().expect("a listed format");
        if let Some(form) = response_form(provider, &text) {
            let turn = read_response(provider, form, &text)
                .map_err(|e| Failure::new(format!("{name}: {e}")))?;
            let mut out = BufWriter::new(io::stdout().lock());
            writeln!(out, "{}", turn.to_record())
                .and_then(|()| out.flush())
                .context(|| "writing the history".into())?;
            eprintln!(
                "import: one assistant record from a {provider} response, {} calls",
                turn.calls().len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        let value = json_or_lines(&text).map_err(|e| Failure::new(format!("{name}: {e}")))?;
        let history = from_provider(provider, &value, store).map_err(|e| {
            Failure::new(format!(
                "{name}: {e} (read as a request body for {provider}; it has no shape \
                 of a response of {provider} either: see --help)"
            ))
        })?;
        let mut out = BufWriter::new(io::stdout().lock());
        out.write_all(history.to_json_lines().as_bytes())
            .and_then(|()| out.flush())
            .context(|| "writing the history".into())?;
        for note in &history.notes {
            eprintln!("  message {}: {}", note.message, note.text);
        }
        eprintln!(
            "import: {} messages from {provider} format, {} notes",
            history.messages.len(),
            history.notes.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let results = mcp_results(&text, args.call_id.as_deref())
        .map_err(|e| Failure::new(format!("{name}: {e}")))?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut notes = 0;
    for (n, (call_id, result)) in results.iter().enumerate() {
        let imported = from_mcp(call_id.as_deref(), result, store)
            .map_err(|e| Failure::new(format!("{name}: result {}: {e}", n + 1)))?;
        let record = serde_json::json!({"role": "tool", "content": imported.content});
        writeln!(out, "{record}").context(|| "writing the history".into())?;
        for note in &imported.notes {
            eprintln!("  result {}: {note}", n + 1);
            notes += 1;
        }
    }
    out.flush().context(|| "writing the history".into())?;
    eprintln!("import: {} MCP results, {notes} notes", results.len());
    Ok(ExitCode::SUCCESS)
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
