//! The step between tool definitions and a provider's declarations: which
//! tools a request declares, under which names, with which input schema.
//!
//! * With definitions ([`Options::with_tools`](crate::provider::Options::with_tools)):
//!   every defined tool, each fitted to the provider (its schema's
//!   keywords as the provider documents them; an Anthropic typed tool as
//!   itself where the provider takes it, else as a plain function with
//!   Anthropic's documented input schema, else refused by name). A tool
//!   the history calls that is not defined gets a minimal declaration,
//!   reported.
//! * Without definitions: every tool the history calls gets a minimal
//!   declaration, and where the API can say so the model is told not to
//!   call any ([`Declarations::choice_none`]).

use serde_json::{Map, Value};

use super::names::Rename;
use super::spec::Spec;
use super::tools::schema::{self, Dialect};
use super::tools::{Kind, Tools};
use crate::steps::error::BuildError;
use crate::steps::report::Report;

/// One tool as the request declares it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Declared {
    /// The name as sent (rewritten to the provider's pattern).
    pub name: String,
    /// The description, when there is one.
    pub description: Option<String>,
    /// What it takes.
    pub input: Input,
}

/// A declared tool's input.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Input {
    /// A JSON Schema object, fitted to the provider.
    Schema(Map<String, Value>),
    /// An Anthropic typed tool's definition, unchanged (Anthropic, and
    /// Claude models on Bedrock), with the beta it needs.
    Typed {
        /// The definition as given.
        definition: Map<String, Value>,
        /// The `anthropic-beta` value its version needs.
        beta: Option<&'static str>,
    },
}

/// What a request declares.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Declarations {
    /// The tools, definitions first (in their order), then minimal ones.
    pub tools: Vec<Declared>,
    /// Whether every tool is a minimal declaration standing in for
    /// definitions that were not given: the model is told not to call
    /// them where the API can say so.
    pub choice_none: bool,
}

impl Declarations {
    /// Whether there is anything to declare.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The declared tools that are plain functions.
    pub fn functions(&self) -> impl Iterator<Item = (&Declared, &Map<String, Value>)> {
        self.tools.iter().filter_map(|d| match &d.input {
            Input::Schema(s) => Some((d, s)),
            Input::Typed { .. } => None,
        })
    }

    /// The declared tools that are Anthropic typed tools, as their
    /// definitions.
    pub fn typed(&self) -> impl Iterator<Item = &Map<String, Value>> {
        self.tools.iter().filter_map(|d| match &d.input {
            Input::Typed { definition, .. } => Some(definition),
            Input::Schema(_) => None,
        })
    }

    /// The `anthropic-beta` values the typed tools need, each once, in
    /// order.
    pub fn betas(&self) -> Vec<&'static str> {
        let mut betas: Vec<&'static str> = Vec::new();
        for d in &self.tools {
            if let Input::Typed { beta: Some(b), .. } = &d.input {
                if !betas.contains(b) {
                    betas.push(b);
                }
            }
        }
        betas
    }
}

/// Description of a minimal declaration.
pub(crate) const STUB_DESCRIPTION: &str =
    "Declared so that earlier calls of this tool in the conversation can be replayed.";

/// How a provider takes Anthropic's typed tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TypedTools {
    /// As they are (Anthropic).
    AsThemselves,
    /// As they are, in a second place beside the function declarations
    /// (Claude on Bedrock: `additionalModelRequestFields.tools`).
    InExtraFields,
    /// Only as plain functions.
    AsFunctions,
}

/// Work out the declarations, reserving typed tools' fixed names in
/// `names` and rewriting every other name through it.
///
/// `called` lists the tool names the history calls, in order of first
/// use.
pub(crate) fn declare(
    tools: Option<&Tools>,
    called: &[&str],
    spec: &Spec,
    typed_tools: TypedTools,
    names: &mut Rename,
    report: &mut Report,
) -> Result<Declarations, BuildError> {
    let provider = spec.provider;
    let dialect = spec.dialect;
    let mut out = Declarations::default();
    if let Some(tools) = tools {
        for tool in tools {
            if let Kind::Typed { .. } = tool.kind() {
                if typed_tools != TypedTools::AsFunctions {
                    names.keep(tool.name());
                }
            }
        }
        for tool in tools {
            let declared = match tool.kind() {
                Kind::Function { schema } => Declared {
                    name: names.get(tool.name()),
                    description: tool.description().map(str::to_owned),
                    input: Input::Schema(fit(schema, dialect, tool.name(), report)?),
                },
                Kind::Typed { definition, known } => {
                    let ty = tool.typed_as().unwrap_or("?").to_owned();
                    if let Some(k) = known.filter(|k| k.name != tool.name()) {
                        return Err(BuildError::TypedName {
                            tool: tool.name().to_owned(),
                            tool_type: ty,
                            expected: k.name,
                        });
                    }
                    let documented = known.map(|k| (k, k.input_schema()));
                    let beta = known.and_then(|k| k.beta);
                    let as_itself = || Declared {
                        name: tool.name().to_owned(),
                        description: None,
                        input: Input::Typed {
                            definition: definition.clone(),
                            beta,
                        },
                    };
                    match (typed_tools, documented) {
                        // The beta it needs goes in Request::headers.
                        (TypedTools::AsThemselves, _) => as_itself(),
                        (_, None) => {
                            return Err(BuildError::NoDeclaration {
                                tool: tool.name().to_owned(),
                                tool_type: ty,
                                provider,
                            })
                        }
                        (TypedTools::InExtraFields, Some(_)) => {
                            report.tool_notes.push(format!(
                                "tool {}: {ty} sent as it is in additionalModelRequestFields.tools (how Converse integrations pass Claude's typed tools; AWS documents it for InvokeModel)",
                                tool.name()
                            ));
                            as_itself()
                        }
                        (_, Some((known, schema))) => {
                            report.tool_notes.push(format!(
                                "tool {}: Anthropic's {ty} declared for {provider} as a plain function with the input Anthropic documents for it",
                                tool.name()
                            ));
                            Declared {
                                name: names.get(tool.name()),
                                description: Some(known.description.to_owned()),
                                input: Input::Schema(fit(&schema, dialect, tool.name(), report)?),
                            }
                        }
                    }
                }
            };
            out.tools.push(declared);
        }
        let undefined: Vec<&str> = called
            .iter()
            .copied()
            .filter(|name| tools.get(name).is_none())
            .filter(|_| spec.needs_declared_calls)
            .collect();
        stubs(&undefined, names, &mut out, report);
        for name in &undefined {
            report.tool_notes.push(format!(
                "tool {name}: called in the history but not among the definitions; declared with a minimal schema"
            ));
        }
    } else if !called.is_empty() && spec.needs_declared_calls {
        stubs(called, names, &mut out, report);
        out.choice_none = true;
    }
    Ok(out)
}

fn stubs(called: &[&str], names: &mut Rename, out: &mut Declarations, report: &mut Report) {
    for name in called {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(Map::new()));
        out.tools.push(Declared {
            name: names.get(name),
            description: Some(STUB_DESCRIPTION.to_owned()),
            input: Input::Schema(schema),
        });
        report.stubbed.push((*name).to_owned());
    }
}

fn fit(
    schema: &Map<String, Value>,
    dialect: Dialect,
    tool: &str,
    report: &mut Report,
) -> Result<Map<String, Value>, BuildError> {
    let fitted = schema::fit(schema, dialect).map_err(|e| BuildError::Schema {
        tool: tool.to_owned(),
        error: e,
    })?;
    for dropped in fitted.dropped {
        report.tool_notes.push(format!(
            "tool {tool}: {dropped} left out of the input schema ({})",
            dialect.why_left_out()
        ));
    }
    for (at, what) in fitted.mended {
        report.tool_notes.push(format!(
            "tool {tool}: {what} at {at} given `\"items\": {{}}` (OpenAI refuses it)"
        ));
    }
    Ok(fitted.schema)
}
