//! The crate's public surface is a decision: every name a user can reach
//! (and each public type's inherent methods and constants) is listed in
//! `tests/surface.txt`, and this test fails when the two differ. It also holds what makes the surface one a user can hold in
//! their head: each item on one path, and no two public types of one name.
//!
//! The list comes from rustdoc's JSON output (an unstable format, asked of
//! the stable toolchain with `RUSTC_BOOTSTRAP=1`), built with every
//! feature in a folder of its own under the target directory: walked from
//! the crate root through public modules and re-exports, as a user's `use`
//! would. After a deliberate change, write the list again with
//! `TOOL_CARRIER_BLESS=1 cargo test --test surface`, and say in the
//! CHANGELOG what moved.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The rustdoc JSON format this walker reads (`format_version`).
const FORMAT: u64 = 57;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// rustdoc's JSON of the library, every feature on.
fn rustdoc_json() -> Value {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("surface");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(manifest_dir())
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove("RUSTDOCFLAGS")
        .args([
            "rustdoc",
            "-p",
            "tool-carrier",
            "--lib",
            "--all-features",
            "--offline",
        ])
        .arg("--target-dir")
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo rustdoc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = target.join("doc").join("tool_carrier.json");
    let text = std::fs::read_to_string(&path).expect("rustdoc wrote its JSON");
    serde_json::from_str(&text).expect("rustdoc's JSON parses")
}

/// One public name: the path a user writes, what it is, and the item it
/// names (its id in rustdoc's index).
struct Name {
    path: String,
    kind: String,
    id: String,
}

/// Every name reachable from the crate root, through public modules and
/// public re-exports.
fn names(doc: &Value) -> Vec<Name> {
    let index = doc["index"].as_object().expect("an index");
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    walk(
        index,
        &id_of(&doc["root"]),
        "tool_carrier",
        &mut out,
        &mut seen,
    );
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn id_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn kind_of(item: &Value) -> String {
    let inner = item["inner"].as_object().expect("an item's inner");
    inner.keys().next().expect("one kind").clone()
}

fn walk(
    index: &serde_json::Map<String, Value>,
    module: &str,
    path: &str,
    out: &mut Vec<Name>,
    seen: &mut BTreeSet<String>,
) {
    if !seen.insert(path.to_owned()) {
        return;
    }
    let items = index[module]["inner"]["module"]["items"]
        .as_array()
        .expect("a module's items");
    for id in items {
        let id = id_of(id);
        let Some(item) = index.get(&id) else { continue };
        if item["visibility"] != "public" {
            continue;
        }
        let kind = kind_of(item);
        let (name, target, kind) = match kind.as_str() {
            "impl" => continue,
            "use" => {
                let u = &item["inner"]["use"];
                assert!(
                    u["is_glob"] != true,
                    "{path}: a glob re-export hides what it exports"
                );
                let target = id_of(&u["id"]);
                let Some(t) = index.get(&target) else {
                    panic!("{path}::{}: re-exports another crate's item", u["name"])
                };
                (u["name"].as_str().unwrap().to_owned(), target, kind_of(t))
            }
            _ => (item["name"].as_str().unwrap().to_owned(), id, kind),
        };
        let full = format!("{path}::{name}");
        if kind == "module" {
            walk(index, &target, &full, out, seen);
        }
        members(index, &target, &kind, &full, out);
        out.push(Name {
            path: full,
            kind,
            id: target,
        });
    }
}

/// A struct's, enum's or union's public inherent methods and associated
/// constants, listed under its path (trait impls are the traits').
fn members(
    index: &serde_json::Map<String, Value>,
    id: &str,
    kind: &str,
    path: &str,
    out: &mut Vec<Name>,
) {
    if !matches!(kind, "struct" | "enum" | "union") {
        return;
    }
    let Some(impls) = index[id]["inner"][kind]["impls"].as_array() else {
        return;
    };
    for i in impls {
        let Some(imp) = index.get(&id_of(i)) else {
            continue;
        };
        let imp = &imp["inner"]["impl"];
        if !imp["trait"].is_null() {
            continue;
        }
        for m in imp["items"].as_array().into_iter().flatten() {
            let Some(item) = index.get(&id_of(m)) else {
                continue;
            };
            if item["visibility"] != "public" {
                continue;
            }
            let what = match kind_of(item).as_str() {
                "function" => "method",
                "assoc_const" => "const",
                _ => continue,
            };
            out.push(Name {
                path: format!("{path}::{}", item["name"].as_str().unwrap()),
                kind: what.to_owned(),
                id: id_of(m),
            });
        }
    }
}

fn listing(names: &[Name]) -> String {
    let mut text = String::new();
    for n in names {
        text.push_str(&format!("{} {}\n", n.kind, n.path));
    }
    text
}

#[test]
fn the_public_surface_is_the_listed_one() {
    let doc = rustdoc_json();
    assert_eq!(
        doc["format_version"].as_u64(),
        Some(FORMAT),
        "rustdoc's JSON format changed: check this walker against it, then FORMAT"
    );
    let names = names(&doc);

    // Each item on one path.
    let mut paths: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for n in names
        .iter()
        .filter(|n| !matches!(n.kind.as_str(), "method" | "const"))
    {
        paths.entry(&n.id).or_default().push(&n.path);
    }
    let twice: Vec<_> = paths.values().filter(|p| p.len() > 1).collect();
    assert!(twice.is_empty(), "items on two paths: {twice:#?}");

    // No two public types of one name.
    let mut types: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for n in &names {
        if matches!(
            n.kind.as_str(),
            "struct" | "enum" | "trait" | "type_alias" | "union"
        ) {
            let last = n.path.rsplit("::").next().unwrap();
            types.entry(last).or_default().push(&n.path);
        }
    }
    let shared: Vec<_> = types.values().filter(|p| p.len() > 1).collect();
    assert!(shared.is_empty(), "types that share a name: {shared:#?}");

    let listed = manifest_dir().join("tests/surface.txt");
    let now = listing(&names);
    if std::env::var_os("TOOL_CARRIER_BLESS").is_some() {
        std::fs::write(&listed, &now).unwrap();
        return;
    }
    let before = std::fs::read_to_string(&listed).unwrap_or_default();
    if before != now {
        let old: BTreeSet<&str> = before.lines().collect();
        let new: BTreeSet<&str> = now.lines().collect();
        let gone: Vec<_> = old.difference(&new).collect();
        let added: Vec<_> = new.difference(&old).collect();
        panic!(
            "the public surface changed without tests/surface.txt:\n  gone: {gone:#?}\n  new: {added:#?}\n\
             If it is meant, run TOOL_CARRIER_BLESS=1 cargo test --test surface and say so in the CHANGELOG."
        );
    }
}
