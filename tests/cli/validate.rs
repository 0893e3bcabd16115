//! ace-validate's conventions for pre-commit and CI: arguments, ace.toml,
//! suppression comments, history, and the machine outputs.

use std::path::{Path, PathBuf};
use std::process::Command as Std;

use crate::validate;

const GOOD: &str = "## STRATEGIES & INSIGHTS\n\n\
    [str-00001] helpful=5 harmful=0 :: Reproduce a failing case with a small test before changing the code.\n\
    [str-00002] helpful=2 harmful=1 :: Read the API schema before writing a request so field names match.\n";

/// Writes `text` to `dir/rel`, making the folders on the way.
pub(super) fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn json_codes(stdout: &[u8]) -> Vec<(String, String, u64)> {
    let v: serde_json::Value = serde_json::from_slice(stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_owned(),
                d["code"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn directories_are_walked_and_empty_selections_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "knowledge/playbook.md", GOOD);
    write(
        dir.path(),
        "knowledge/notes.md",
        "# Notes\n\nNothing to see.\n",
    );
    write(dir.path(), "src/main.rs", "fn main() {}\n");
    let out = validate()
        .current_dir(dir.path())
        .args(["--isolated", "--output-format", "concise", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("(1 file checked)"), "{stdout}");
    for empty in ["src", "knowledge/*.tron", "nowhere/**/*.md"] {
        let out = validate()
            .current_dir(dir.path())
            .args(["--isolated", empty])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{empty}: {stderr}");
        assert!(
            stderr.contains(empty) && stderr.contains("no ACE file"),
            "{stderr}"
        );
    }
    // A glob names files as a shell's would: one that is no ACE file is
    // an error unless a format is given for all of them.
    let out = validate()
        .current_dir(dir.path())
        .args(["--isolated", "--output-format", "concise", "knowledge/*.md"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("knowledge/notes.md: not an ACE artifact (pass --from FORMAT"),
        "{stderr}"
    );
    let out = validate()
        .current_dir(dir.path())
        .args(["--isolated", "--output-format", "concise"])
        .args(["--from", "markdown", "knowledge/*.md"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("in 2 files"),
        "a glob selects by name: {stdout}"
    );
}

#[test]
fn ace_toml_is_found_upward_and_sets_rules_thresholds_and_excludes() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "ace.toml",
        "exclude = [\"vendor\"]\nignore = [\"ACE001\"]\n[severity]\nACE006 = \"error\"\n[thresholds]\ncuration = 1\n",
    );
    let pb = "## STRATEGIES & INSIGHTS\n\n[str-1] helpful=1 harmful=3 :: Reproduce a failing case with a small test before changing the code.\n[s2] helpful=1 harmful=0 :: Read the API schema before writing a request so field names match.\n";
    write(dir.path(), "knowledge/playbook.md", pb);
    write(dir.path(), "vendor/playbook.md", pb);
    let sub = dir.path().join("knowledge");
    let out = validate()
        .current_dir(&sub)
        .args(["--output-format", "json", "playbook.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "ACE006 raised to error");
    let codes = json_codes(&out.stdout);
    assert!(codes.iter().any(|(_, c, _)| c == "ACE006"), "{codes:?}");
    assert!(
        !codes.iter().any(|(_, c, _)| c == "ACE001"),
        "ignored by ace.toml"
    );
    // Walking skips the excluded folder; naming the file checks it anyway
    // unless --force-exclude.
    let walk = validate()
        .current_dir(dir.path())
        .args(["--output-format", "json", "."])
        .output()
        .unwrap();
    assert!(json_codes(&walk.stdout)
        .iter()
        .all(|(f, _, _)| !f.contains("vendor")));
    let named = validate()
        .current_dir(dir.path())
        .args(["--output-format", "json", "vendor/playbook.md"])
        .output()
        .unwrap();
    assert_eq!(named.status.code(), Some(1));
    let forced = validate()
        .current_dir(dir.path())
        .args(["--force-exclude", "vendor/playbook.md"])
        .output()
        .unwrap();
    assert_eq!(forced.status.code(), Some(0));
    // --isolated ignores the file: ACE001 is back, ACE006 a warning again.
    let isolated = validate()
        .current_dir(&sub)
        .args(["--isolated", "--output-format", "json", "playbook.md"])
        .output()
        .unwrap();
    assert_eq!(isolated.status.code(), Some(0));
    let codes = json_codes(&isolated.stdout);
    assert!(codes.iter().any(|(_, c, _)| c == "ACE001"));
    // A broken ace.toml is a usage error naming its line and column.
    write(
        dir.path(),
        "ace.toml",
        "[thresholds]\ncuration = \"many\"\n",
    );
    let bad = validate()
        .current_dir(&sub)
        .arg("playbook.md")
        .output()
        .unwrap();
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr.contains("ace.toml:2:12"), "{stderr}");
}

#[test]
fn inline_suppressions() {
    let dir = tempfile::tempdir().unwrap();
    let text = "<!-- ace-validate: disable-file ACE062 -->\n## STRATEGIES & INSIGHTS\n\n\
        <!-- ace-validate: disable-next-line ACE001 -->\n\
        [s1] helpful=1 harmful=1 :: Reproduce a failing case with a small test before changing the code.\n\
        [s2] helpful=1 harmful=1 :: Read the API schema before writing a request so field names match.\n\
        <!-- ace-validate: disable -->\n\
        [str-3] helpful=0 harmful=0 :: Be careful.\n\
        <!-- ace-validate: enable -->\n";
    let p = write(dir.path(), "playbook.md", text);
    let out = validate()
        .args(["--isolated", "--output-format", "json"])
        .arg(&p)
        .output()
        .unwrap();
    let codes: Vec<(String, u64)> = json_codes(&out.stdout)
        .into_iter()
        .map(|(_, c, l)| (c, l))
        .collect();
    assert_eq!(codes, [("ACE001".to_owned(), 6)], "{codes:?}");
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Std::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .output()
        .unwrap();
    assert!(ok.status.success(), "git {args:?}: {:?}", ok);
}

#[test]
fn baseline_from_a_git_revision_and_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let p = write(dir.path(), "knowledge/playbook.md", GOOD);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    // Counters go down and an entry disappears.
    let edited = GOOD
        .replace("helpful=5", "helpful=3")
        .lines()
        .filter(|l| !l.starts_with("[str-00002]"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    std::fs::write(&p, &edited).unwrap();
    let out = validate()
        .current_dir(dir.path())
        .args([
            "--isolated",
            "--output-format",
            "json",
            "--baseline",
            "HEAD",
        ])
        .arg("knowledge/playbook.md")
        .output()
        .unwrap();
    let codes: Vec<String> = json_codes(&out.stdout).into_iter().map(|c| c.1).collect();
    assert!(
        codes.contains(&"ACE073".into()) && codes.contains(&"ACE075".into()),
        "{codes:?}"
    );
    assert_eq!(out.status.code(), Some(1));
    // A new file has no history at that revision.
    write(dir.path(), "knowledge/new.md", GOOD);
    let out = validate()
        .current_dir(dir.path())
        .args(["--isolated", "--baseline", "HEAD", "knowledge/new.md"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A baseline file; and an unknown revision is a usage error.
    let old = write(dir.path(), "old.md", GOOD);
    let out = validate()
        .current_dir(dir.path())
        .args(["--isolated", "--output-format", "json", "--baseline"])
        .arg(&old)
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = validate()
        .current_dir(dir.path())
        .args([
            "--isolated",
            "--baseline",
            "no-such-rev",
            "knowledge/playbook.md",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn stdin_with_a_filename_is_detected_by_that_name() {
    let out = validate()
        .args(["--isolated", "--output-format", "concise", "--stdin-filename", "knowledge/AGENTS.md", "-"])
        .write_stdin("## build\n\n[Bullet #a1, helpful:1, harmful:3] Run the build before the tests so types are fresh\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("knowledge/AGENTS.md:3:1: warning[ACE029]"),
        "{stdout}"
    );
}

#[test]
fn github_annotations_are_escaped_and_summarised_past_ten() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("## STRATEGIES & INSIGHTS\n\n");
    for i in 1..=12 {
        text.push_str(&format!(
            "[s{i}] helpful=1 harmful=0 :: Reproduce case {i} with a small test, then fix: 100% of the time\n"
        ));
    }
    let p = write(dir.path(), "a,b:c.md", &text);
    let out = validate()
        .args([
            "--isolated",
            "--output-format",
            "github",
            "--select",
            "ACE001",
        ])
        .arg(&p)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 10, "{stdout}");
    assert!(
        annotations[0].contains("a%2Cb%3Ac.md,line=3,col=1"),
        "{}",
        annotations[0]
    );
    assert!(annotations[9].starts_with("::warning title=ace-validate::3 more warning"));
    assert_eq!(stdout.lines().filter(|l| !l.starts_with("::")).count(), 3);
}

/// The SARIF log of a playbook with a duplicate ID.
fn sarif_log() -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "my playbook.md",
        "## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=1 harmful=0 :: Reproduce the failure with a test first.\n[str-00001] helpful=1 harmful=9 :: Be careful.\n",
    );
    // Named by its absolute path, as editors and CI scripts do: the log
    // still locates it relative to the working directory.
    let out = validate()
        .args(["--isolated", "--output-format", "sarif"])
        .arg(&p)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sarif_output_locates_each_finding() {
    let log = sarif_log();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 3);
    let dup = results.iter().find(|r| r["ruleId"] == "ACE002").unwrap();
    assert_eq!(dup["level"], "error");
    assert_eq!(
        dup["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
    assert_eq!(
        dup["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert_eq!(
        dup["locations"][0]["physicalLocation"]["artifactLocation"],
        serde_json::json!({"uri": "my%20playbook.md", "uriBaseId": "%SRCROOT%"})
    );
    let root = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        root.starts_with("file:///") && root.ends_with('/'),
        "{root}"
    );
    // Each rule links to its paragraph of docs/rules.md in the repository
    // the package names.
    let rules_doc = format!("{}/blob/main/docs/rules.md", env!("CARGO_PKG_REPOSITORY"));
    let driver = &log["runs"][0]["tool"]["driver"];
    let rule = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "ACE002")
        .unwrap();
    assert_eq!(rule["helpUri"], format!("{rules_doc}#ace002"), "{rule}");
    assert_eq!(driver["informationUri"], rules_doc.as_str());
}

/// Checked against the OASIS SARIF 2.1.0 schema (errata 01), bundled in
/// tests/schemas (its source is in tests/schemas/README.md).
#[test]
fn sarif_output_validates_against_the_sarif_schema() {
    let log = sarif_log();
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../schemas/sarif-schema-2.1.0.json")).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// The ace_beads reflector's insights, in each of their shapes, are said
/// for what they are (ACE082), never read as skill bullets, and are no
/// error.
#[test]
fn reflector_insights_are_recognised_in_every_shape() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/insights");
    for (file, with_delta, refused) in [
        ("reflector-output.json", 1, 0),
        ("reflector-insights.json", 1, 1),
        ("insights.jsonl", 1, 0),
    ] {
        let out = validate()
            .args(["--isolated", "--output-format", "json"])
            .arg(root.join(file))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{file}");
        let codes = json_codes(&out.stdout);
        assert!(
            codes.iter().all(|(_, c, _)| c == "ACE082"),
            "{file}: {codes:?}"
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let first = v[0]["message"].as_str().unwrap();
        assert!(
            first.contains(&format!(
                "{with_delta} with a delta ({refused} the curator would refuse)"
            )),
            "{file}: {first}"
        );
        assert_eq!(codes.len(), 1 + refused, "{file}: {codes:?}");
    }
}

/// A walk checks what a format or a check claims and skips the rest: a
/// JSON array that is a test suite, a vBRIEF document (vAgenda's successor,
/// no playbook). Named, the vBRIEF file is told apart.
#[test]
fn a_walk_skips_what_no_format_claims() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "playbook.md",
        "## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=1 harmful=0 :: Reproduce a failing case with a small test before changing the code.\n",
    );
    write(
        dir.path(),
        "cases.json",
        "[\n {\"id\": \"js-prim-int\", \"mode\": \"decode\", \"input\": \"123\", \"note\": \"bad \\ud83d\"}\n]\n",
    );
    write(
        dir.path(),
        "plan.vbrief.json",
        "{\"vBRIEFInfo\": {\"version\": \"0.5\"}, \"plan\": {\"title\": \"x\", \"status\": \"draft\", \"items\": []}}\n",
    );
    let out = validate()
        .current_dir(dir.path())
        .args(["--isolated", "--show-files", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.contains("cases.json") && !stdout.contains("vbrief"),
        "{stdout}"
    );
    let named = validate()
        .current_dir(dir.path())
        .args(["--isolated", "plan.vbrief.json"])
        .output()
        .unwrap();
    assert_eq!(named.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&named.stderr).contains("vBRIEF"));
}

/// The files under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The hooks' `files:` pattern, which pre-commit matches against each
/// staged path with Python's `re.search`.
fn hook_pattern() -> regex::Regex {
    regex::Regex::new(&ace_registry::Registry::builtin().hook_files()).unwrap()
}

/// Every file in `files` that ace-validate recognises as an ACE file is
/// one the hooks pass it.
fn hooks_pass_every_ace_file(files: &[PathBuf]) -> usize {
    let pattern = hook_pattern();
    let mut recognised = 0;
    for f in files {
        if ace_registry::recognise(f) {
            recognised += 1;
            let name = f.to_string_lossy();
            assert!(pattern.is_match(&name), "the hooks skip {name}");
        }
    }
    recognised
}

#[test]
fn the_precommit_hooks_are_generated_from_the_registry_and_pass_every_ace_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (rel, mirror) in [
        (".pre-commit-hooks.yaml", false),
        ("packaging/pre-commit-mirror/.pre-commit-hooks.yaml", true),
    ] {
        let committed = std::fs::read_to_string(root.join(rel)).unwrap();
        assert_eq!(
            committed,
            ace_tools::precommit_hooks(mirror),
            "{rel} is stale: run `cargo xtask docs`"
        );
    }
    // docs/validate.md's `repo: local` hook passes the same files.
    let docs = std::fs::read_to_string(root.join("docs/validate.md")).unwrap();
    let files = ace_registry::Registry::builtin().hook_files();
    assert!(docs.contains(&format!("files: '{files}'")), "{files}");
    let mut all = Vec::new();
    files_under(&root.join("tests/fixtures"), &mut all);
    files_under(&root.join("examples"), &mut all);
    assert!(hooks_pass_every_ace_file(&all) > 100);
    // kayba's files and a context file's block, whatever their names.
    let pattern = hook_pattern();
    for name in [
        "skillbook.json",
        "CLAUDE.md",
        "batch-0001.json",
        ".cursor/rules/ace.mdc",
        "dir/Notes.MD",
    ] {
        assert!(pattern.is_match(name), "{name}");
    }
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn the_precommit_hooks_pass_every_corpus_file_ace_validate_recognises() {
    let root = PathBuf::from(std::env::var_os("ACE_CORPUS").expect(ace_tests::NEEDS_CORPUS));
    assert!(
        root.is_dir(),
        "ACE_CORPUS is set but {} is missing",
        root.display()
    );
    let mut all = Vec::new();
    files_under(&root, &mut all);
    assert!(hooks_pass_every_ace_file(&all) > 100);
}

/// What the hooks run: every staged file of a format's syntax, of which
/// those that are no ACE file are left out, and the broken ones refused.
#[test]
fn only_ace_leaves_out_other_files_and_checks_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("README.md"), "# Readme\n\nJust prose.\n").unwrap();
    std::fs::write(
        d.join("package.json"),
        "{\"name\": \"x\", \"version\": \"1.0.0\"}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("skillbook.json"),
        "{\"skills\": {}, \"sections\": {}, \"next_id\": 0, \"next_id\": 1}\n",
    )
    .unwrap();
    validate()
        .current_dir(d)
        .args(["--only-ace", "README.md", "package.json"])
        .assert()
        .success()
        .stderr(predicates::str::contains("every file given is no ACE file"));
    let out = validate()
        .current_dir(d)
        .args([
            "--only-ace",
            "-q",
            "README.md",
            "package.json",
            "skillbook.json",
        ])
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("skillbook.json:1:32: error[ACE034]"),
        "{text}"
    );
    assert!(
        !text.contains("README") && !text.contains("package"),
        "{text}"
    );
    // Without the flag a named file that is no ACE file is refused.
    validate().current_dir(d).arg("README.md").assert().code(2);
}

/// ACE062 is the append-only ADR's GuardrailMonitor: a markdown playbook
/// is told of it, kayba's skillbook and markdown, whose curation is their
/// own, are not, and an entry no longer active never is.
#[test]
fn the_guardrail_rule_is_not_applied_to_kaybas_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("playbook.md"),
        "## STRATEGIES & INSIGHTS\n[str-00001] helpful=0 harmful=2 :: Retry a failed request once before reporting it.\n",
    )
    .unwrap();
    let skill = |id: &str, active: bool| {
        format!(
            "\"{id}\": {{\"id\": \"{id}\", \"section\": \"context\", \"keywords\": [\"context\"], \"issue\": \"Requests fail.\", \"insight\": \"Retry a failed request once before reporting it {id}.\", \"helpful_count\": 0, \"harmful_count\": 2, \"neutral_count\": 0, \"active\": {active}}}"
        )
    };
    std::fs::write(
        d.join("skillbook.json"),
        format!(
            "{{\"skills\": {{{}, {}}}, \"sections\": {{\"context\": [\"context-00001\", \"context-00002\"]}}, \"next_id\": 2, \"schema_version\": \"2\"}}\n",
            skill("context-00001", true),
            skill("context-00002", false)
        ),
    )
    .unwrap();
    let found = |file: &str| -> usize {
        let out = validate()
            .current_dir(d)
            .args(["--select", "ACE062", "--output-format", "json", file])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{file}: {}", String::from_utf8_lossy(&out.stderr)));
        v.as_array().unwrap().len()
    };
    assert_eq!(found("playbook.md"), 1);
    assert_eq!(found("skillbook.json"), 0);
}
