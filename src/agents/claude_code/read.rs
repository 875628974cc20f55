//! A Claude Code transcript as a carrier history.
//!
//! | line | what becomes of it |
//! |---|---|
//! | `assistant` lines sharing a `message.id` (one content block each) | merged into one Anthropic assistant message, read as `import --from anthropic` reads it: text, `tool_use` calls, `thinking` with its signature |
//! | `user` lines of `tool_result` blocks (one per result, even of one turn's parallel calls) | one native carrier each, after the turn they answer, wherever they stand among its lines |
//! | other `user` lines (a prompt, a pasted image, Claude Code's own `isMeta` text, a compaction's summary) | a user record, the user's images and PDFs its `attachments` |
//! | `toolUseResult` | left out: it repeats the line's `tool_result`, which is read |
//! | `assistant` lines Claude Code wrote itself (`model` `<synthetic>`, `isApiErrorMessage`) | left out: no model wrote them |
//! | `isSidechain` lines of a session's file (a sub-agent's), or the session's lines in a sub-agent's file | left out: another conversation (the file's first conversation line says which it holds) |
//! | `system` `compact_boundary` | everything before it left out, as Claude Code sends the summary after it in its place |
//! | `summary`, other `system` lines, `file-history-snapshot`, and lines of any other type | left out: no message |
//!
//! | lines on a branch the conversation left (a rewind, an edited prompt) | left out: the conversation is the chain of `parentUuid`s from its latest line, as Claude Code resumes it |
//!
//! A line is read a line at a time, and a turn (an answer's lines and
//! its results) is held until the next begins; what is kept of each turn
//! is its records (small, with a folder store) and each line's `uuid`, so
//! a transcript of any size is read in the memory of its largest turn.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use crate::apis::anthropic::read::message as read_message;
use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory, PayloadSpan};

use super::super::left::Left;
use super::super::lines::{Line, Lines};
use super::super::payloads::{self, Step};

/// The Claude Code versions whose transcripts the reader was written for
/// (by major version).
const MAJORS: std::ops::RangeInclusive<u64> = 1..=2;

/// Read a Claude Code transcript.
///
/// # Errors
/// [`ImportError`] naming the line (and the JSON path in it) of what is
/// not a transcript line, or of a block the Anthropic reader refuses.
pub(crate) fn read(
    input: &mut dyn std::io::BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut lines = Lines::new(input);
    let mut reader = Reader {
        store,
        options,
        out: ImportedHistory::default(),
        units: Vec::new(),
        graph: HashMap::new(),
        left: Left::default(),
        side: None,
        open: None,
    };
    while let Some(line) = lines.next_line()? {
        let value = line.value()?;
        reader.line(&line, &value)?;
    }
    reader.finish()
}

struct Reader<'a> {
    store: &'a mut dyn MediaStore,
    options: &'a ImportOptions,
    /// What is counted of lines that are no turn's, and what was left
    /// out before the last compaction.
    out: ImportedHistory,
    /// What each turn (or lone user line) since the last compaction gave.
    units: Vec<Unit>,
    /// Every line with a `uuid` since the last compaction.
    graph: HashMap<String, Node>,
    left: Left,
    /// Whether the file's conversation is a sub-agent's (`isSidechain`).
    side: Option<bool>,
    /// The turn being read.
    open: Option<Turn>,
}

/// A line in the chain of `parentUuid`s.
struct Node {
    parent: Option<String>,
    /// Its place in the file.
    order: usize,
    /// Whether it is a line of the file's conversation a session can end
    /// on (a user's or the model's, not Claude Code's own).
    leaf: bool,
}

/// What a turn's lines gave, and their `uuid`s.
struct Unit {
    uuids: Vec<String>,
    first: usize,
    part: ImportedHistory,
}

/// An answer's lines, merged, and the results that answer it.
struct Turn {
    id: String,
    blocks: Vec<Value>,
    /// Each block's line and index in that line's content.
    from: Vec<(usize, usize)>,
    first: usize,
    /// How many lines the answer came in.
    lines: usize,
    /// The results' lines: `(line, message)`.
    results: Vec<(usize, Value)>,
    uuids: Vec<String>,
    payloads: Vec<PayloadSpan>,
}

fn uuid_of(v: &Value) -> Option<String> {
    v.get("uuid").and_then(Value::as_str).map(str::to_owned)
}

impl Reader<'_> {
    fn line(&mut self, line: &Line<'_>, v: &Value) -> Result<(), ImportError> {
        let Some(kind) = v.get("type").and_then(Value::as_str) else {
            return Err(ImportError::at(
                &line.at("$"),
                "no `type`: not a line of a Claude Code transcript",
            ));
        };
        self.version(line, v)?;
        let n = line.number;
        if let Some(uuid) = uuid_of(v) {
            let side = v
                .get("isSidechain")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let conversation = matches!(kind, "user" | "assistant");
            let ours = conversation && side == *self.side.get_or_insert(side);
            let meta = v.get("isMeta").and_then(Value::as_bool) == Some(true);
            let order = self.graph.len();
            self.graph.insert(
                uuid,
                Node {
                    parent: v
                        .get("parentUuid")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    order,
                    leaf: ours && !meta,
                },
            );
        }
        match kind {
            "user" | "assistant" => self.conversation(line, kind, v)?,
            "summary" => self.left.one(
                &mut self.out,
                "summary line",
                n,
                "a session's title, no message",
            ),
            "system" if v.get("subtype").and_then(Value::as_str) == Some("compact_boundary") => {
                self.compaction(line)?;
            }
            "system" => self.left.one(
                &mut self.out,
                "system line",
                n,
                "Claude Code's own notice, never sent to the model",
            ),
            // Each version adds records of its own, all of them the
            // session's (2.1.332 wrote nine types no reader names); a
            // line of no session is another program's file.
            other
                if v.get("sessionId").is_some_and(Value::is_string)
                    || other == "file-history-snapshot"
                    || self.options.keep_unknown =>
            {
                self.left.one(
                    &mut self.out,
                    &format!("{other} line"),
                    n,
                    "Claude Code's own record, no message",
                );
            }
            other => {
                return Err(ImportError::at(
                    &line.at("$"),
                    format!(
                        "a line of type {other:?} without a `sessionId`: not a line of a \
                         Claude Code transcript (--keep-unknown reads it as one of its own records)"
                    ),
                ))
            }
        }
        Ok(())
    }

    /// Refuse a version the reader was not written for.
    fn version(&self, line: &Line<'_>, v: &Value) -> Result<(), ImportError> {
        let Some(version) = v.get("version").and_then(Value::as_str) else {
            return Ok(());
        };
        let keep = self.options.keep_unknown;
        super::super::version::check(line, "$.version", "Claude Code", version, &MAJORS, keep)
    }

    fn conversation(&mut self, line: &Line<'_>, kind: &str, v: &Value) -> Result<(), ImportError> {
        let n = line.number;
        let side = v
            .get("isSidechain")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if side != *self.side.get_or_insert(side) {
            let (what, why) = if side {
                (
                    "sidechain line",
                    "a sub-agent's conversation, in a file of its own too",
                )
            } else {
                (
                    "main-conversation line",
                    "the file holds a sub-agent's conversation",
                )
            };
            self.left.one(&mut self.out, what, n, why);
            return Ok(());
        }
        let Some(message) = v.get("message").filter(|m| m.is_object()) else {
            return Err(ImportError::at(
                &line.at("$"),
                format!("a {kind} line without a `message` object"),
            ));
        };
        if kind == "assistant" {
            let synthetic = message.get("model").and_then(Value::as_str) == Some("<synthetic>")
                || v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
            if synthetic {
                self.left.one(
                    &mut self.out,
                    "synthetic assistant line",
                    n,
                    "Claude Code wrote it (an API error, an interruption), not the model",
                );
                return Ok(());
            }
            return self.answer(line, v, message);
        }
        let mut part = ImportedHistory::default();
        if v.get("toolUseResult").is_some() {
            self.left.one(
                &mut part,
                "toolUseResult member",
                n,
                "it repeats the tool_result of its line, which is read",
            );
        }
        let results_only = message
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| {
                !blocks.is_empty()
                    && blocks
                        .iter()
                        .all(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            });
        if let Some(turn) = self.open.as_mut().filter(|_| results_only) {
            turn.results.push((n, message.clone()));
            turn.uuids.extend(uuid_of(v));
            payloads::find(line, &[Step::Key("message")], message, &mut turn.payloads);
            self.out.absorb(part);
            return Ok(());
        }
        self.flush()?;
        turn_counts(&mut part, "user line", 1);
        payloads::find(line, &[Step::Key("message")], message, &mut part.payloads);
        let at = line.at("$.message");
        read_message(n - 1, &at, message, self.store, self.options, &mut part)?;
        self.units.push(Unit {
            uuids: uuid_of(v).into_iter().collect(),
            first: n,
            part,
        });
        Ok(())
    }

    /// One line of an answer: merged into the turn of its `message.id`.
    fn answer(&mut self, line: &Line<'_>, v: &Value, message: &Value) -> Result<(), ImportError> {
        let n = line.number;
        let id = match message.get("id").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            // Merged with nothing.
            None => format!("line {n}"),
        };
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(text)) => vec![json!({"type": "text", "text": text})],
            _ => {
                return Err(ImportError::at(
                    &line.at("$.message.content"),
                    "an assistant message's content is text or a list of blocks",
                ))
            }
        };
        if self.open.as_ref().is_none_or(|t| t.id != id) {
            self.flush()?;
            self.open = Some(Turn {
                id,
                blocks: Vec::new(),
                from: Vec::new(),
                first: n,
                lines: 0,
                results: Vec::new(),
                uuids: Vec::new(),
                payloads: Vec::new(),
            });
        }
        let turn = self.open.as_mut().expect("opened above");
        turn.lines += 1;
        turn.uuids.extend(uuid_of(v));
        payloads::find(line, &[Step::Key("message")], message, &mut turn.payloads);
        turn.from.extend((0..blocks.len()).map(|j| (n, j)));
        turn.blocks.extend(blocks);
        Ok(())
    }

    /// Read the open turn: its answer, then its results.
    fn flush(&mut self) -> Result<(), ImportError> {
        let Some(turn) = self.open.take() else {
            return Ok(());
        };
        let answer = json!({"role": "assistant", "content": turn.blocks});
        let mut part = ImportedHistory::default();
        turn_counts(&mut part, "assistant line", turn.lines);
        read_message(
            turn.first - 1,
            "$",
            &answer,
            self.store,
            self.options,
            &mut part,
        )
        .map_err(|e| match e {
            ImportError::Invalid { at, what } => ImportError::Invalid {
                at: rebase(&at, &turn.from),
                what,
            },
            other => other,
        })?;
        for note in &mut part.notes {
            let (at, rest) = note.text.split_once(": ").unwrap_or((&note.text, ""));
            note.text = format!("{}: {rest}", rebase(at, &turn.from));
        }
        turn_counts(&mut part, "user line", turn.results.len());
        for (n, result) in turn.results {
            let at = format!("line {n}: $.message");
            read_message(n - 1, &at, &result, self.store, self.options, &mut part)?;
        }
        part.payloads = turn.payloads;
        self.units.push(Unit {
            uuids: turn.uuids,
            first: turn.first,
            part,
        });
        Ok(())
    }

    /// A compaction: what was read before it is left out.
    fn compaction(&mut self, line: &Line<'_>) -> Result<(), ImportError> {
        self.flush()?;
        let mut records = 0;
        for unit in std::mem::take(&mut self.units) {
            records += unit.part.messages.len();
            self.out.absorb(left_out(unit.part));
        }
        self.graph.clear();
        self.left.one(
            &mut self.out,
            "compact_boundary line",
            line.number,
            "a compaction: what came before it is out of the conversation",
        );
        self.out.note(
            line.number - 1,
            format!(
                "line {}: a compaction: the {records} records before it are left out, \
                 as Claude Code sends the summary that follows in their place",
                line.number
            ),
        );
        Ok(())
    }

    fn finish(mut self) -> Result<ImportedHistory, ImportError> {
        self.flush()?;
        let chain = chain(&self.graph);
        let mut out = self.out;
        let mut off = (0, Vec::new());
        for unit in self.units {
            let kept = chain.as_ref().is_none_or(|chain| {
                unit.uuids.is_empty() || unit.uuids.iter().any(|u| chain.contains(u.as_str()))
            });
            if kept {
                out.absorb(unit.part);
            } else {
                off.0 += unit.part.messages.len();
                off.1.push(unit.first);
                out.absorb(left_out(unit.part));
            }
        }
        if let Some(&first) = off.1.first() {
            let lines: Vec<String> = off.1.iter().take(8).map(ToString::to_string).collect();
            let more = if off.1.len() > 8 { ", …" } else { "" };
            out.note(
                first - 1,
                format!(
                    "lines {}{more}: {} records on a branch the conversation left \
                     (a rewind, an edited prompt) are left out, as Claude Code resumes \
                     the chain of its latest line",
                    lines.join(", "),
                    off.0
                ),
            );
        }
        self.left.finish(&mut out);
        Ok(out)
    }
}

/// One `what` of each of `n` lines, read and kept.
fn turn_counts(part: &mut ImportedHistory, what: &str, n: usize) {
    part.tally.read(what, n);
    part.tally.sent_n(what, n);
}

/// A unit's records, as left out: counted as noted, its notes kept.
fn left_out(mut part: ImportedHistory) -> ImportedHistory {
    part.tally.all_left_out();
    part.messages.clear();
    part.payloads.clear();
    part
}

/// The `uuid`s of the conversation's chain, as Claude Code resumes it:
/// from its latest line a session can end on (of the lines that no other
/// names as its parent, each taken back to the nearest such line), back
/// through the `parentUuid`s. `None` for a file without `uuid`s.
fn chain(graph: &HashMap<String, Node>) -> Option<HashSet<&str>> {
    if graph.is_empty() {
        return None;
    }
    let parents: HashSet<&str> = graph.values().filter_map(|n| n.parent.as_deref()).collect();
    let mut leaf: Option<(usize, &str)> = None;
    for uuid in graph.keys().filter(|u| !parents.contains(u.as_str())) {
        let mut at = Some(uuid.as_str());
        for _ in 0..graph.len() {
            let Some((u, node)) = at.and_then(|u| graph.get_key_value(u)) else {
                break;
            };
            if node.leaf {
                if leaf.is_none_or(|(order, _)| node.order > order) {
                    leaf = Some((node.order, u.as_str()));
                }
                break;
            }
            at = node.parent.as_deref();
        }
    }
    let mut chain = HashSet::new();
    let mut at = leaf.map(|(_, u)| u);
    while let Some((u, node)) = at.and_then(|u| graph.get_key_value(u)) {
        if !chain.insert(u.as_str()) {
            break;
        }
        at = node.parent.as_deref();
    }
    Some(chain)
}

/// A path in a merged answer (`$.content[K]…`) as the line and path its
/// block came from (`line N: $.message.content[J]…`); a path above the
/// blocks names the answer's lines.
fn rebase(at: &str, from: &[(usize, usize)]) -> String {
    let block = at
        .strip_prefix("$.content[")
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(k, rest)| Some((k.parse::<usize>().ok()?, rest)));
    match block.and_then(|(k, rest)| Some((from.get(k)?, rest))) {
        Some(((line, j), rest)) => format!("line {line}: $.message.content[{j}]{rest}"),
        None => {
            let first = from.first().map_or(0, |f| f.0);
            let last = from.last().map_or(0, |f| f.0);
            let lines = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}-{last}")
            };
            format!("{lines}: $.message{}", at.strip_prefix('$').unwrap_or(at))
        }
    }
}
