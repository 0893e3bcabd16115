//! The crate map of docs/architecture.md is the dependency rule: a crate
//! depends only on crates above it in the table (lower layers, or earlier
//! in its own layer), and each crate sits in its layer's folder. The test
//! crates (ace-tests, ace-grammars, xtask) stand outside the layers: they
//! may use any crate, and a crate uses them only in its own tests.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_owned()
}

/// One row of the crate map: its layer, crate and folder.
#[derive(Debug)]
struct Row {
    layer: String,
    name: String,
    folder: String,
}

/// The rows of the table under `## Crate map`, in order.
fn crate_map() -> Vec<Row> {
    let path = root().join("docs/architecture.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Crate map"))
        .expect("docs/architecture.md has a `## Crate map` section");
    let cell = |s: &str| s.trim().trim_matches('`').to_owned();
    section
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            assert!(
                cells.len() >= 3,
                "a crate map row has layer, crate, folder: {l}"
            );
            Row {
                layer: cell(cells[0]),
                name: cell(cells[1]),
                folder: cell(cells[2]),
            }
        })
        .collect()
}

/// The workspace's packages: the root package and every member.
fn packages() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    let members = manifest["workspace"]["members"].as_array().unwrap();
    std::iter::once(".".to_owned())
        .chain(members.iter().map(|m| m.as_str().unwrap().to_owned()))
        .collect()
}

/// The workspace crates a manifest depends on, normal and build
/// dependencies apart from dev-dependencies, each with its table's name.
fn dependencies(manifest: &toml::Table, known: &HashMap<String, usize>) -> Vec<(String, bool)> {
    let mut tables: Vec<(&toml::Table, bool)> = Vec::new();
    for (key, dev) in [
        ("dependencies", false),
        ("build-dependencies", false),
        ("dev-dependencies", true),
    ] {
        if let Some(t) = manifest.get(key).and_then(|v| v.as_table()) {
            tables.push((t, dev));
        }
        if let Some(targets) = manifest.get("target").and_then(|v| v.as_table()) {
            for t in targets.values().filter_map(|v| v.get(key)?.as_table()) {
                tables.push((t, dev));
            }
        }
    }
    tables
        .into_iter()
        .flat_map(|(t, dev)| t.keys().map(move |k| (k.clone(), dev)))
        .filter(|(k, _)| known.contains_key(k))
        .collect()
}

/// The folder each layer's crates live in; `None` for the tools (the
/// root package) and the test crates.
fn folder_of(layer: &str) -> Option<String> {
    match layer {
        "tools" | "tests" => None,
        other => Some(format!("crates/{other}/")),
    }
}

#[test]
fn every_crate_depends_only_on_crates_above_it_in_the_crate_map() {
    let rows = crate_map();
    let position: HashMap<String, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.clone(), i))
        .collect();
    // The table lists every package of the workspace, each in its folder.
    let mut folders: Vec<String> = packages();
    let mut listed: Vec<String> = rows.iter().map(|r| r.folder.clone()).collect();
    folders.sort();
    listed.sort();
    assert_eq!(
        listed, folders,
        "docs/architecture.md's crate map and the workspace members differ"
    );
    let mut wrong = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let path = root().join(&row.folder).join("Cargo.toml");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let manifest: toml::Table = toml::from_str(&text).unwrap();
        let name = manifest["package"]["name"].as_str().unwrap();
        if name != row.name {
            wrong.push(format!(
                "{}: the package is `{name}`, the crate map says `{}`",
                row.folder, row.name
            ));
        }
        if let Some(folder) = folder_of(&row.layer) {
            if !row.folder.starts_with(&folder) {
                wrong.push(format!(
                    "{}: a {} crate lives in {folder}",
                    row.name, row.layer
                ));
            }
        }
        if row.layer == "tests" {
            continue;
        }
        for (dep, dev) in dependencies(&manifest, &position) {
            let j = position[&dep];
            // A test crate serves other crates' tests only; any other
            // dependency must be above the crate.
            let allowed = if rows[j].layer == "tests" { dev } else { j < i };
            if !allowed {
                wrong.push(format!(
                    "{} ({}) depends on {} ({}), which is not above it",
                    row.name, row.layer, dep, rows[j].layer
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the crate map's rule is broken:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_layers_are_the_documented_ones_in_order() {
    let mut layers: Vec<String> = Vec::new();
    for r in crate_map() {
        if layers.last() != Some(&r.layer) {
            assert!(
                !layers.contains(&r.layer),
                "layer {} is split in the crate map",
                r.layer
            );
            layers.push(r.layer);
        }
    }
    assert_eq!(
        layers,
        ["core", "support", "formats", "rules", "app", "python", "tools", "tests"]
    );
}
