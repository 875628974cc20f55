//! The library's layout, checked on its sources: the arrows run one way
//! (the layer above → the API folders → the shared steps → facts, media,
//! carriers, JSON), no import circle of more than two files, none between
//! folders, no source file over 700 lines, and what is per API in its
//! folder and row: no provider variant named outside `src/apis/` (so no
//! `match` over providers, wildcard or not, that a new API could fall
//! into unnoticed), and the same for agents: each a folder of
//! `src/agents/` and a row of `AGENTS`, named nowhere else, building on
//! the API folders and never on the layer that chooses among them.
//!
//! An import is a `crate::…` or `super::…` path in code (comments and
//! `#[cfg(test)] mod tests` left out), resolved to the file of the longest
//! module it names. A `mod.rs` that only declares and re-exports its
//! children is left out of the circles: it is the folder's table of
//! contents, not a step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, by module path.
fn modules() -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().with_extension("");
            let mut path: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if path.last().is_some_and(|l| l == "mod" || l == "lib") {
                path.pop();
            }
            (path, f)
        })
        .collect()
}

/// The code of a file: comments and its tests module left out.
fn code(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a `mod.rs` only declares and re-exports its children.
fn table_of_contents(path: &[String], file: &Path) -> bool {
    let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
    is_mod
        && code(file).split(';').all(|statement| {
            let s = statement.trim();
            s.is_empty()
                || s.starts_with("#[")
                || ["mod ", "pub mod ", "pub(crate) mod "].iter().any(|p| {
                    s.trim_start_matches(|c| c != 'm' && c != 'p')
                        .starts_with(p)
                })
                || ["pub use self::", "pub(crate) use self::"]
                    .iter()
                    .any(|p| s.starts_with(p))
                || (s.starts_with("pub use ") || s.starts_with("pub(crate) use "))
                    && !s.contains("crate::")
                    && !s.contains("super::")
        })
        && !path.is_empty()
}

/// Each file's imports, as files.
fn imports() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let modules = modules();
    let mut out = BTreeMap::new();
    for (path, file) in &modules {
        let text = code(file);
        let mut deps = BTreeSet::new();
        let bytes = text.as_bytes();
        for start in ["crate::", "super::"] {
            let mut from = 0;
            while let Some(at) = text[from..].find(start) {
                let at = from + at;
                from = at + start.len();
                // A whole word: not `tool_crate::` or `xsuper::`.
                if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                    continue;
                }
                let rest: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let mut parts: Vec<&str> = rest.split("::").filter(|p| !p.is_empty()).collect();
                let mut base: Vec<String> = Vec::new();
                if parts[0] == "super" {
                    base = path.clone();
                    while parts.first() == Some(&"super") {
                        base.pop();
                        parts.remove(0);
                    }
                } else {
                    parts.remove(0);
                }
                base.extend(parts.iter().map(|p| p.to_string()));
                for k in (0..=base.len()).rev() {
                    if let Some(target) = modules.get(&base[..k]) {
                        if target != file {
                            deps.insert(target.clone());
                        }
                        break;
                    }
                }
            }
        }
        out.insert(file.clone(), deps);
    }
    out
}

fn rel(file: &Path) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    file.strip_prefix(&src).unwrap().display().to_string()
}

/// The strongly connected groups of more than one node (Tarjan).
fn circles<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on: BTreeSet<N>,
        out: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(v: &N, edges: &BTreeMap<N, BTreeSet<N>>, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on.insert(v.clone());
        for w in edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, edges, s);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(&w);
                group.push(w.clone());
                if &w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(v, edges, &mut s);
        }
    }
    s.out
}

#[test]
fn no_import_circle_of_more_than_two_files() {
    let modules = modules();
    let contents: BTreeSet<PathBuf> = modules
        .iter()
        .filter(|(p, f)| table_of_contents(p, f))
        .map(|(_, f)| f.clone())
        .collect();
    let edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = imports()
        .into_iter()
        .filter(|(f, _)| !contents.contains(f))
        .map(|(f, deps)| {
            (
                f,
                deps.into_iter().filter(|d| !contents.contains(d)).collect(),
            )
        })
        .collect();
    let too_big: Vec<Vec<String>> = circles(&edges)
        .into_iter()
        .filter(|c| c.len() > 2)
        .map(|c| c.iter().map(|f| rel(f)).collect())
        .collect();
    assert!(too_big.is_empty(), "import circles: {too_big:#?}");
}

/// The folder a file is in (`steps`, `apis/anthropic`, or `` for the top).
fn folder(file: &Path) -> String {
    let r = rel(file);
    match r.rfind('/') {
        Some(at) => r[..at].to_owned(),
        None => String::new(),
    }
}

#[test]
fn no_circle_between_folders() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, deps) in imports() {
        let from = folder(&file);
        for dep in deps {
            let to = folder(&dep);
            // A folder's own files, and a file and the folder it declares
            // (`x.rs` or `x/mod.rs` and `x/…`), are one place.
            if from != to && !to.starts_with(&format!("{from}/")) && !from.is_empty() {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    let found = circles(&edges);
    assert!(found.is_empty(), "folders import each other: {found:?}");
}

#[test]
fn the_shared_steps_and_the_facts_name_no_api_and_no_layer_above() {
    for (file, deps) in imports() {
        let from = rel(&file);
        if !(from.starts_with("steps/") || from.starts_with("facts/")) {
            continue;
        }
        for dep in deps {
            let to = rel(&dep);
            assert!(
                !(to.starts_with("apis/")
                    || to.starts_with("provider/")
                    || to.starts_with("rules/")
                    || to.starts_with("import/")
                    || to.starts_with("fit/")
                    || to.starts_with("gateway/")
                    || to.starts_with("agents/")),
                "{from} imports {to}"
            );
        }
    }
}

#[test]
fn an_api_folder_names_no_layer_above() {
    for (file, deps) in imports() {
        let from = rel(&file);
        if !from.starts_with("apis/") {
            continue;
        }
        for dep in deps {
            let to = rel(&dep);
            assert!(
                !(to.starts_with("provider/")
                    || to.starts_with("rules/")
                    || to.starts_with("fit/")
                    || to.starts_with("gateway/")),
                "{from} imports {to}"
            );
        }
    }
}

/// An agent's reader builds on the provider readers and the shared steps;
/// the layer that chooses a format (`import`) and the provider list's
/// layer above it are not its to name.
#[test]
fn an_agent_folder_names_no_layer_above() {
    for (file, deps) in imports() {
        let from = rel(&file);
        if !from.starts_with("agents/") {
            continue;
        }
        for dep in deps {
            let to = rel(&dep);
            assert!(
                !(to.starts_with("provider/")
                    || to.starts_with("rules/")
                    || to.starts_with("fit/")
                    || to.starts_with("gateway/")
                    || to.starts_with("import/")),
                "{from} imports {to}"
            );
        }
    }
}

#[test]
fn no_source_file_is_over_700_lines() {
    let long: Vec<(String, usize)> = modules()
        .values()
        .map(|f| (rel(f), std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, n)| *n > 700)
        .collect();
    assert!(long.is_empty(), "{long:?}");
}

fn apis() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/apis")
}

/// The folders under `src/apis/`, by name.
fn api_folders() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(apis())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    out.sort();
    out
}

/// An API is its folder and its row: every folder under `src/apis/` holds
/// its spec (`mod.rs`) and its facts (`facts.toml`, which the build script
/// finds), and has one row in `APIS` naming that spec. Nothing else lists
/// the folders.
#[test]
fn an_api_is_a_folder_and_a_row() {
    let table = std::fs::read_to_string(apis().join("mod.rs")).unwrap();
    let mut folders = Vec::new();
    for (name, path) in api_folders() {
        let module = std::fs::read_to_string(path.join("mod.rs")).unwrap();
        assert!(
            module.contains("pub(crate) const SPEC: Spec"),
            "{name}/mod.rs holds no SPEC"
        );
        assert!(
            path.join("facts.toml").is_file(),
            "{name} has no facts.toml"
        );
        assert_eq!(
            table.matches(&format!("spec: &{name}::SPEC,")).count(),
            1,
            "{name} needs one row in APIS"
        );
        folders.push(name);
    }
    assert_eq!(folders.len(), 7);
    let builtin =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/facts/builtin.rs"))
            .unwrap();
    for name in &folders {
        assert!(!builtin.contains(&format!("{name}/facts.toml")), "{name}");
    }
}

/// The provider variants a file's code names, with their lines.
fn variants_named(file: &Path) -> Vec<(usize, String)> {
    let code = code(file);
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("Provider::") {
            rest = &rest[at + "Provider::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // The enum's own lists are not variants.
            let variant = name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().any(|c| c.is_ascii_lowercase());
            if variant {
                out.push((n + 1, name));
            }
        }
    }
    out
}

/// What differs by API is asked of its row: outside `src/apis/` (and the
/// enum's own file) no code names a provider variant, so the shared
/// steps, the facts and the layer above hold no special case for one and
/// no `match` a new API would fall into.
#[test]
fn no_provider_variant_is_named_outside_the_api_folders() {
    let mut named = Vec::new();
    for file in modules().values() {
        let at = rel(file);
        if at.starts_with("apis/") || at == "facts/provider.rs" || at.ends_with("_tests.rs") {
            continue;
        }
        for (line, variant) in variants_named(file) {
            named.push(format!("{at}:{line}: Provider::{variant}"));
        }
    }
    assert!(named.is_empty(), "{named:#?}");
}

/// `Provider` is one place: its public methods are all in the enum's own
/// file. Elsewhere an `impl Provider` (the API table's lookups) is
/// crate-private, so a user reading `Provider` reads one file.
#[test]
fn providers_public_methods_are_in_the_enums_file() {
    let mut elsewhere = Vec::new();
    for file in modules().values() {
        let at = rel(file);
        if at == "facts/provider.rs" {
            continue;
        }
        let code = code(file);
        let mut in_impl = false;
        for (n, line) in code.lines().enumerate() {
            if line.starts_with("impl Provider {") {
                in_impl = true;
            } else if in_impl && line.starts_with('}') {
                in_impl = false;
            } else if in_impl && line.trim_start().starts_with("pub fn") {
                elsewhere.push(format!("{at}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        elsewhere.is_empty(),
        "public methods of Provider outside facts/provider.rs: {elsewhere:#?}"
    );
}

#[test]
fn the_variant_check_sees_a_match_arm() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.rs");
    std::fs::write(
        &file,
        "fn f(p: Provider) -> bool {\n    // Provider::Gemini in a comment\n    matches!(p, Provider::Bedrock | Provider::ALL)\n}\n#[cfg(test)]\nmod tests {\n    const P: Provider = Provider::Ollama;\n}\n",
    )
    .unwrap();
    assert_eq!(variants_named(&file), vec![(3, "Bedrock".to_owned())]);
}

/// An API folder is complete: its spec in `mod.rs` completed from
/// `Spec::of` for one provider of the list, its facts, its rules, and
/// every module its row names is a file of the folder; the rows are as
/// many as the providers.
#[test]
fn an_api_folder_is_complete() {
    let table = code(&apis().join("mod.rs"));
    let list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/facts/provider.rs"),
    )
    .unwrap();
    let mut providers = BTreeSet::new();
    for (name, path) in api_folders() {
        let module = code(&path.join("mod.rs"));
        let of = module
            .split("..Spec::of(Provider::")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .unwrap_or_else(|| panic!("{name}/mod.rs: SPEC is not completed from Spec::of"));
        assert!(
            list.contains(&format!("    {of} = \"")),
            "{name}: {of} is not in the provider list"
        );
        providers.insert(of.to_owned());
        assert!(path.join("rules.rs").is_file(), "{name} has no rules.rs");
        let rules = code(&path.join("rules.rs"));
        assert!(
            rules.contains("pub(crate) static RULES"),
            "{name}/rules.rs lists no RULES"
        );
        // Every `name::module::` the table names is a file here.
        let prefix = format!("{name}::");
        for piece in table.split(&prefix).skip(1) {
            let module: String = piece
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if piece[module.len()..].starts_with("::") {
                assert!(
                    path.join(format!("{module}.rs")).is_file(),
                    "the row names {name}::{module}, which is not a file of src/apis/{name}"
                );
            }
        }
    }
    // One row per line of the provider list (Gemini's two names share a
    // folder), each naming its spec.
    let listed = list
        .lines()
        .filter_map(|l| l.trim_start().split_once(" = \""))
        .filter(|(v, _)| !v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric()))
        .count();
    assert_eq!(table.matches("::SPEC").count(), listed);
    assert!(providers.len() <= listed);
}

/// A facts file's comments name other facts files by their path in the
/// repository, and each exists.
#[test]
fn facts_files_name_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("src/facts/data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.extend(api_folders().into_iter().map(|(_, p)| p.join("facts.toml")));
    let mut missing = Vec::new();
    for file in files.iter().filter(|f| f.is_file()) {
        let text = std::fs::read_to_string(file).unwrap();
        for word in text.split(|c: char| c.is_whitespace() || "(),;:`".contains(c)) {
            let word = word.trim_end_matches('.');
            if word.ends_with(".toml") && !root.join(word).is_file() {
                missing.push(format!("{}: {word}", rel(file)));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

fn agents() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/agents")
}

/// An agent is its folder and its row: every folder under `src/agents/`
/// holds where its format comes from (`SOURCE`) and how its files are
/// told apart (`sniff`) in `mod.rs`, and its reader in `read.rs`; `AGENTS`
/// has one row naming each, and as many rows as `Agent::ALL` has agents.
#[test]
fn an_agent_is_a_folder_and_a_row() {
    let table = code(&agents().join("mod.rs"));
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(agents()).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = code(&path.join("mod.rs"));
        assert!(
            module.contains("pub(crate) const SOURCE: &str"),
            "{name}/mod.rs says no SOURCE"
        );
        assert!(
            module.contains("pub(crate) fn sniff(first: &Value) -> bool"),
            "{name}/mod.rs has no sniff"
        );
        let read = code(&path.join("read.rs"));
        assert!(
            read.contains("pub(crate) fn read("),
            "{name}/read.rs has no read"
        );
        for field in [
            format!("source: {name}::SOURCE,"),
            format!("sniff: {name}::sniff,"),
            format!("read: {name}::read::read,"),
        ] {
            assert_eq!(
                table.matches(&field).count(),
                1,
                "{name} needs one row in AGENTS with `{field}`"
            );
        }
        folders.push(name);
    }
    let rows = table.matches("    Row {").count();
    assert_eq!(rows, folders.len(), "rows {rows}, folders {folders:?}");
    let all = table
        .split("pub const ALL: [Agent; ")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .and_then(|n| n.parse::<usize>().ok())
        .expect("Agent::ALL is declared with its length");
    assert_eq!(all, rows);
}

/// What differs by agent is asked of its row: outside `src/agents/` no
/// code names an agent's variant or reaches into an agent's folder.
#[test]
fn no_agent_is_named_outside_the_agent_folders() {
    let mut named = Vec::new();
    let folders: Vec<String> = std::fs::read_dir(agents())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for file in modules().values() {
        let at = rel(file);
        if at.starts_with("agents/") {
            continue;
        }
        let code = code(file);
        for (n, line) in code.lines().enumerate() {
            if let Some(i) = line.find("Agent::") {
                let next = line[i + "Agent::".len()..].chars().nth(1);
                // `Agent::ALL` is the list, a variant is `Agent::ClaudeCode`.
                if next.is_some_and(|c| c.is_ascii_lowercase()) {
                    named.push(format!("{at}:{}: {}", n + 1, line.trim()));
                }
            }
            for folder in &folders {
                if line.contains(&format!("agents::{folder}")) {
                    named.push(format!("{at}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(named.is_empty(), "{named:#?}");
}
