//! Generated documentation is committed; this fails when it is stale.

#[test]
fn rules_doc_is_fresh() {
    assert_fresh("docs/rules.md", &ace_model::rules::markdown_doc());
}

/// The committed file is what the code generates; if not, the message
/// shows where they part, as a diff of the first lines that differ.
fn assert_fresh(rel: &str, fresh: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == fresh {
        return;
    }
    let (old, new): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), fresh.lines().collect());
    let first = old
        .iter()
        .zip(&new)
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    let mut diff = format!("@@ line {} @@\n", first + 1);
    for l in old.iter().skip(first).take(5) {
        diff.push_str(&format!("-{l}\n"));
    }
    for l in new.iter().skip(first).take(5) {
        diff.push_str(&format!("+{l}\n"));
    }
    panic!("{rel} is stale: run `cargo xtask docs`\n--- committed\n+++ generated\n{diff}");
}

#[test]
fn canonical_model_schema_is_fresh() {
    assert_fresh(
        "schemas/ace-canonical.schema.json",
        &ace_json::json_schema(),
    );
}

#[test]
fn mapping_doc_is_fresh() {
    assert_fresh("docs/formats/mapping.md", &ace_registry::mapping_doc());
}

#[test]
fn ace_toml_schema_is_fresh() {
    assert_fresh("schemas/ace-toml.schema.json", &ace_config::json_schema());
}

/// The schema describes what `--to json` writes: every fixture playbook's
/// canonical JSON validates against it.
#[test]
fn canonical_json_validates_against_its_schema() {
    let schema: serde_json::Value = serde_json::from_str(&ace_json::json_schema()).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let mut n = 0;
    for rel in [
        "markdown/canonical.md",
        "markdown/multiline.txt",
        "agents-md/seed-layout.md",
        "skill-json/gen2-hand.json",
        "skill-json/gen1-python.json",
        "vagenda/plan-multiline-header.json",
        "vagenda/event-log.json",
    ] {
        let path = ace_tests::fixture_path(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let format = ace_registry::detect(Some(&path), &text);
        let pb = ace_registry::read(format, &text).unwrap().playbook;
        let doc: serde_json::Value = serde_json::from_str(&ace_json::write(&pb)).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{rel}: {errors:#?}");
        n += 1;
    }
    assert_eq!(n, 7);
}

/// What users and maintainers read (rule summaries and docs, format
/// descriptions, every message the code builds, comments, the docs) names
/// a spec or its project, never the label of the copy this project keeps
/// (the word and a number, 000 to 004): the labels appear only in docs/architecture.md's
/// glossary, which says what each names.
#[test]
fn texts_name_specs_not_internal_labels() {
    let label = mentions_a_seed_label();
    let mut found = Vec::new();
    for r in ace_model::rules::ALL {
        for text in [r.summary, r.doc, r.source] {
            if label(text) {
                found.push(format!("{}: {text}", r.code));
            }
        }
    }
    for f in ace_registry::Format::all() {
        if label(f.describe()) {
            found.push(format!("format {}: {}", f.name(), f.describe()));
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let glossary = root.join("docs/architecture.md");
    let mut stack = [
        "crates", "src", "tests", "xtask", "fuzz", "docs", "python", "schemas", "grammars",
    ]
    .map(|d| root.join(d))
    .to_vec();
    let mut files = vec![
        root.join("README.md"),
        root.join("Cargo.toml"),
        root.join("tests/fixtures/README.md"),
    ];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir()
                && !["target", "corpus", "node_modules", "fixtures"].contains(&name.as_str())
            {
                stack.push(path);
            } else if path.extension().is_some_and(|e| {
                ["rs", "md", "py", "pyi", "json", "pest", "ebnf", "toml"]
                    .contains(&e.to_str().unwrap_or(""))
            }) {
                files.push(path);
            }
        }
    }
    let glossary_text = std::fs::read_to_string(&glossary).unwrap();
    assert!(
        ["000", "001", "002", "003", "004"]
            .iter()
            .all(|n| glossary_text.contains(&format!("seed {n}"))),
        "docs/architecture.md's glossary says what each label names"
    );
    for path in files.iter().filter(|p| **p != glossary) {
        let text = std::fs::read_to_string(path).unwrap();
        for (n, line) in text.lines().enumerate() {
            if label(line) {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// The labels (`seed` and a number from 000, alone or in the plural,
/// with a space, `_` or `-` between, or none), in any case, and the word capitalised as
/// a name in code; made here so that this file does not hold them.
fn mentions_a_seed_label() -> impl Fn(&str) -> bool {
    let word = "seed";
    let labels: Vec<String> = ["", "s"]
        .iter()
        .flat_map(|s| ["", " ", "_", "-"].map(|sep| format!("{word}{s}{sep}00")))
        .collect();
    let name = format!("S{}", &word[1..]);
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    move |text: &str| {
        let lower = text.to_ascii_lowercase();
        let as_name = text.match_indices(name.as_str()).any(|(i, n)| {
            !is_word(text[..i].chars().next_back()) && !is_word(text[i + n.len()..].chars().next())
        });
        labels.iter().any(|l| lower.contains(l.as_str())) || as_name
    }
}

/// The README's pre-commit snippet is the first one of docs/validate.md,
/// which `tests/precommit/run.sh` installs and commits with: the quick
/// start cannot drift from the hook that is tested.
#[test]
fn the_readme_s_pre_commit_snippet_is_the_tested_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let validate = std::fs::read_to_string(root.join("docs/validate.md")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = validate
        .split("\n## ")
        .find(|s| s.starts_with("pre-commit"))
        .expect("docs/validate.md has a `## pre-commit` section");
    let snippet = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a yaml block");
    assert!(
        readme.contains(snippet),
        "README.md should hold docs/validate.md's first pre-commit snippet:\n{snippet}"
    );
}
