//! `tool-carrier models [--provider P] [--json] [--facts FILE]`: the
//! models the facts know, with their limits, processing size, retirement
//! date and sources.

use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;
use tool_carrier::facts::{Date, Facts, Model, Provenance};
use tool_carrier::media::View;
use tool_carrier::provider::Provider;

use super::{Context, Failure};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only the models this API serves, with its limits.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = crate::provider_parser(),
    )]
    provider: Option<Provider>,
    /// One JSON object a model instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    facts: crate::facts::Arg,
}

/// One model at one API, as listed.
#[derive(Serialize)]
struct Row<'f> {
    id: &'f str,
    name: Option<&'f str>,
    family: Option<&'f str>,
    apis: Vec<&'static str>,
    /// The API its limits are shown for.
    api: &'static str,
    default: bool,
    context: Option<u64>,
    max_output: Option<u64>,
    reasoning: Option<bool>,
    detail: &'f [String],
    max_images: Option<usize>,
    view: Option<ViewRow>,
    tokens_1000x1000: Option<u64>,
    retires: Option<Date>,
    successor: Option<&'f str>,
    /// Every page the model's values were read on, with the date.
    sources: Vec<&'f Provenance>,
}

#[derive(Serialize)]
struct ViewRow {
    long_edge: Option<u32>,
    max_short_edge: Option<u32>,
    max_patches: Option<u64>,
    patch: u32,
}

impl ViewRow {
    fn new(v: View) -> ViewRow {
        ViewRow {
            long_edge: (v.long_edge != u32::MAX).then_some(v.long_edge),
            max_short_edge: v.max_short_edge,
            max_patches: v.max_patches,
            patch: v.patch,
        }
    }
}

impl std::fmt::Display for ViewRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(e) = self.long_edge {
            parts.push(format!("{e} px"));
        }
        if let Some(s) = self.max_short_edge {
            parts.push(format!("short {s} px"));
        }
        if let Some(p) = self.max_patches {
            parts.push(format!("{p}×{}px patches", self.patch));
        }
        f.write_str(&parts.join(", "))
    }
}

fn row<'f>(facts: &'f Facts, model: &'f Model, api: Provider) -> Row<'f> {
    let sources = facts.sources(model);
    let limit = facts.max_images(api, &model.id);
    Row {
        id: &model.id,
        name: model.name.as_deref(),
        family: model.family.as_deref(),
        apis: model.apis.iter().map(|p| p.name()).collect(),
        api: api.name(),
        default: facts
            .model(api, facts.default_model(api))
            .is_some_and(|m| m.id == model.id),
        context: model.context,
        max_output: model.max_output,
        reasoning: model.reasoning,
        detail: &model.detail,
        max_images: (limit != usize::MAX).then_some(limit),
        view: facts.view(api, &model.id).map(ViewRow::new),
        tokens_1000x1000: facts.image_tokens(api, &model.id, 1000, 1000),
        retires: model.retires_at(api),
        successor: model.successor.as_deref(),
        sources,
    }
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let user_facts = args.facts.load()?;
    let facts = user_facts.as_deref().unwrap_or_else(|| Facts::builtin());
    let rows: Vec<Row<'_>> = facts
        .models()
        .iter()
        .filter_map(|m| match args.provider {
            Some(p) => m.apis.contains(&p).then(|| row(facts, m, p)),
            None => m.apis.first().map(|&p| row(facts, m, p)),
        })
        .collect();
    let mut out = io::stdout().lock();
    if args.json {
        for r in &rows {
            let line = serde_json::to_string(r).expect("a row serializes");
            writeln!(out, "{line}").context(|| "writing the list".into())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    write_table(&mut out, &rows).context(|| "writing the list".into())?;
    Ok(ExitCode::SUCCESS)
}

fn write_table(out: &mut impl Write, rows: &[Row<'_>]) -> io::Result<()> {
    let num = |n: Option<u64>| n.map_or("-".to_owned(), |n| n.to_string());
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            [
                format!("{}{}", r.id, if r.default { " *" } else { "" }),
                r.apis.join(","),
                num(r.context),
                num(r.max_output),
                r.max_images.map_or("-".into(), |n| n.to_string()),
                r.view.as_ref().map_or("-".into(), ToString::to_string),
                r.retires.map_or("-".into(), |d| d.to_string()),
                r.sources
                    .first()
                    .and_then(|p| p.source.clone())
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let head = [
        "model",
        "apis",
        "context",
        "output",
        "images",
        "image size",
        "retires",
        "source",
    ];
    let mut widths = head.map(str::len);
    for c in &cells {
        for (w, cell) in widths.iter_mut().zip(c) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut dyn Write, c: [&str; 8]| -> io::Result<()> {
        let mut text = String::new();
        for (i, cell) in c.iter().enumerate() {
            if i == 7 {
                text.push_str(cell);
            } else if (2..=4).contains(&i) {
                text.push_str(&format!("{cell:>w$}  ", w = widths[i]));
            } else {
                text.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(out, head)?;
    for c in &cells {
        line(out, c.each_ref().map(String::as_str))?;
    }
    writeln!(
        out,
        "{} models; * the API's default model; `--json` for every value and its sources",
        rows.len()
    )
}
