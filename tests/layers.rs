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
    let mut out = vec![".".to_owned()];
    for m in members {
        expand(m.as_str().unwrap(), &mut out);
    }
    out
}

/// A member path, its `*` parts matched against the folders that exist,
/// as Cargo matches them: every folder it names that holds a Cargo.toml.
fn expand(pattern: &str, out: &mut Vec<String>) {
    let Some((head, rest)) = pattern.split_once('*') else {
        out.push(pattern.to_owned());
        return;
    };
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    let mut names: Vec<String> = std::fs::read_dir(root().join(head))
        .unwrap_or_else(|e| panic!("{head}: {e}"))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let path = format!("{head}{name}");
        if rest.is_empty() {
            if root().join(&path).join("Cargo.toml").exists() {
                out.push(path);
            }
        } else {
            expand(&format!("{path}/{rest}"), out);
        }
    }
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
        ["core", "support", "formats", "rules", "stores", "app", "python", "tools", "tests"]
    );
}

/// The modules of the crate whose sources are under `src`, each with the
/// modules of the same crate its code names (`crate::m`, `crate::m::n`,
/// `super::m`), its tests and comments left out. The crate root is no
/// module here: it holds what its modules share.
fn module_uses(src: &Path) -> HashMap<String, Vec<String>> {
    let mut files = Vec::new();
    let mut dirs = vec![src.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    let name_of = |p: &Path| {
        let rel = p.strip_prefix(src).expect("below src").with_extension("");
        let name = rel.to_string_lossy().replace('\\', "/");
        let name = name
            .strip_suffix("/mod")
            .unwrap_or(&name)
            .replace('/', "::");
        if matches!(name.as_str(), "lib" | "main") || name.starts_with("bin::") {
            String::new()
        } else {
            name
        }
    };
    let names: Vec<String> = files.iter().map(|p| name_of(p)).collect();
    let known = |n: &str| !n.is_empty() && names.iter().any(|m| m == n);
    let mut uses = HashMap::new();
    for (path, name) in files.iter().zip(&names) {
        if name.is_empty() {
            continue;
        }
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let code = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let parent = name.rsplit_once("::").map_or("", |(p, _)| p);
        let mut named = Vec::new();
        for (prefix, base) in [("crate::", String::new()), ("super::", parent.to_owned())] {
            for (at, _) in code.match_indices(prefix) {
                let path: Vec<&str> = code[at + prefix.len()..]
                    .split("::")
                    .map(|s| {
                        s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .next()
                            .unwrap_or_default()
                    })
                    .take(2)
                    .collect();
                let join = |parts: &[&str]| match base.as_str() {
                    "" => parts.join("::"),
                    b => format!("{b}::{}", parts.join("::")),
                };
                let target = [join(&path), join(&path[..1])]
                    .into_iter()
                    .find(|t| known(t));
                if let Some(t) = target.filter(|t| t != name) {
                    if !named.contains(&t) {
                        named.push(t);
                    }
                }
            }
        }
        uses.insert(name.clone(), named);
    }
    uses
}

/// A module that reaches itself through the modules it uses, if any: the
/// circle, from it and back.
fn circle(uses: &HashMap<String, Vec<String>>) -> Option<Vec<String>> {
    let mut names: Vec<&String> = uses.keys().collect();
    names.sort();
    for start in names {
        // Depth-first from `start`, looking for a way back to it.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = std::collections::HashSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in uses.get(&at).into_iter().flatten() {
                if next == start {
                    let mut circle = path.clone();
                    circle.push(start.clone());
                    return Some(circle);
                }
                if seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    None
}

#[test]
fn no_two_modules_of_a_crate_use_each_other_in_a_circle() {
    let mut srcs = vec![root().join("src")];
    for layer in std::fs::read_dir(root().join("crates")).expect("crates/") {
        for krate in std::fs::read_dir(layer.expect("a layer").path()).expect("a layer folder") {
            let src = krate.expect("a crate").path().join("src");
            if src.is_dir() {
                srcs.push(src);
            }
        }
    }
    let mut circles = Vec::new();
    for src in &srcs {
        if let Some(c) = circle(&module_uses(src)) {
            circles.push(format!("{}: {}", src.display(), c.join(" -> ")));
        }
    }
    assert!(
        circles.is_empty(),
        "modules in a circle:\n{}",
        circles.join("\n")
    );
}

#[test]
fn a_circle_of_modules_is_found() {
    let uses: HashMap<String, Vec<String>> = [
        ("read", vec!["stream"]),
        ("stream", vec!["direct"]),
        ("direct", vec!["read"]),
        ("write", vec!["read"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    let c = circle(&uses).expect("read -> stream -> direct -> read");
    assert_eq!(c.first(), c.last());
    assert_eq!(c.len(), 4);
    let mut no_circle = uses.clone();
    no_circle.insert("direct".into(), Vec::new());
    assert_eq!(circle(&no_circle), None);
}
