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
    assert_fresh(
        "docs/formats/mapping.md",
        &ace_model::mapping::markdown_doc(),
    );
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
        let format = ace_io::detect(Some(&path), &text);
        let pb = ace_io::read(format, &text).unwrap().playbook;
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

/// What users read (rule summaries and docs, format descriptions, and
/// every message the code builds) names a spec or its project, never the
/// internal label of the copy this project keeps (`seed 001`). Comments
/// may use the labels; string literals may not.
#[test]
fn messages_name_specs_not_internal_labels() {
    let label = mentions_a_seed_label();
    let mut found = Vec::new();
    for r in ace_model::rules::ALL {
        for text in [r.summary, r.doc, r.source] {
            if label(text) {
                found.push(format!("{}: {text}", r.code));
            }
        }
    }
    for f in ace_io::Format::all() {
        if label(f.describe()) {
            found.push(format!("format {}: {}", f.name(), f.describe()));
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut stack = vec![root.join("crates"), root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    if !line.trim_start().starts_with("//") && label(code) {
                        found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// `seed 000`, `Seeds 002 and 004`: the labels, in any case.
fn mentions_a_seed_label() -> impl Fn(&str) -> bool {
    |text: &str| {
        let lower = text.to_ascii_lowercase();
        ["seed 00", "seeds 00"].iter().any(|l| lower.contains(l))
    }
}
