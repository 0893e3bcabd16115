//! Budgets: ACE085 and ACE086 from `[budget]` and the flags, `ace-apply
//! --prune` to a budget, `ace-apply --dedup`, in every format the
//! curator's loop writes.

use std::path::{Path, PathBuf};

use ace_registry::Format;

const NOW: &str = "2026-01-02T00:00:00Z";

/// A playbook whose entries have known counters: two dominated by harmful
/// votes (`str-00002`, `ts-00005`), one already at the threshold (kept),
/// and a pair of near-duplicates (`str-00003`, `str-00004`).
const PLAYBOOK: &str = "\
## STRATEGIES AND HARD RULES
[str-00001] helpful=5 harmful=0 :: Read the API documentation of an app before calling any of its endpoints.
[str-00002] helpful=0 harmful=6 :: Guess the parameters of an endpoint from its name.
[str-00003] helpful=2 harmful=0 :: Check the HTTP status code before parsing the body of a response.
[str-00004] helpful=1 harmful=1 :: Check the HTTP status code before parsing the body of each response.
## TROUBLESHOOTING AND PITFALLS
[ts-00005] helpful=1 harmful=9 :: Retry every failed call at once, as often as it takes.
[ts-00006] helpful=0 harmful=3 :: Print the whole response when a call fails.
[ts-00007] helpful=4 harmful=1 :: Page through every list endpoint until a page comes back empty.
";

const FORMATS: [(&str, &str); 5] = [
    ("markdown", "playbook.md"),
    ("agents-md", "AGENTS.md"),
    ("skill-json", "playbook.json"),
    ("vagenda-json", "playbook.vagenda.json"),
    ("skillbook", "skillbook.json"),
];

fn cmd(bin: &str) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin(bin).unwrap();
    c.env_remove("SOURCE_DATE_EPOCH")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("FORCE_COLOR");
    c
}

/// `text` (markdown) written as format `to` into `dir/name` by ace-convert.
fn converted(dir: &Path, text: &str, to: &str, name: &str) -> PathBuf {
    let src = dir.join("source.md");
    std::fs::write(&src, text).unwrap();
    let out = dir.join(name);
    let o = cmd("ace-convert")
        .arg(&src)
        .args(["--to", to, "--now", NOW, "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{to}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// `ace-apply FILE ARGS...` to standard output: (stdout, stderr, exit).
fn apply(file: &Path, args: &[&str]) -> (String, String, i32) {
    let o = cmd("ace-apply")
        .current_dir(file.parent().unwrap())
        .arg(file)
        .args(["--now", NOW, "--isolated"])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
        o.status.code().unwrap_or(-1),
    )
}

/// The tokens ace-validate counts for `text`, as the budget counts them
/// (with nothing deprecated, the file's text as written).
fn tokens(text: &str) -> usize {
    ace_tokens::Encoding::Cl100k.count(text)
}

fn read(f: Format, text: &str) -> ace_model::Playbook {
    ace_registry::read(f, text).unwrap().playbook
}

#[test]
fn a_playbook_over_its_budget_exits_1_with_the_finding_and_one_within_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("playbook.md");
    std::fs::write(&file, PLAYBOOK).unwrap();
    let total = tokens(PLAYBOOK);
    let run = |toml: &str| {
        std::fs::write(dir.path().join("ace.toml"), toml).unwrap();
        let o = cmd("ace-validate")
            .current_dir(dir.path())
            .args([
                "playbook.md",
                "--select",
                "ACE085,ACE086",
                "--output-format",
                "json",
            ])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let found: Vec<(String, String)> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().into(),
                    d["message"].as_str().unwrap().into(),
                )
            })
            .collect();
        (o.status.code(), found)
    };
    let (code, found) = run(&format!(
        "[budget]\nmax-tokens = {total}\nmax-entries = 7\n"
    ));
    assert_eq!((code, found.len()), (Some(0), 0), "{found:?}");
    let (code, found) = run(&format!("[budget]\nmax-tokens = {}\n", total - 10));
    assert_eq!(code, Some(1));
    assert_eq!(found[0].0, "ACE085");
    assert!(
        found[0].1.contains("over the budget of") && found[0].1.contains("by 10"),
        "{found:?}"
    );
    assert!(
        found[0].1.contains("`STRATEGIES AND HARD RULES`"),
        "{found:?}"
    );
    // A section's limits, by its title, at the section's heading.
    let (code, found) = run(
        "[budget.sections.\"troubleshooting and pitfalls\"]\nmax-entries = 2\nmax-tokens = 5\n",
    );
    assert_eq!(code, Some(1));
    let codes: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(codes, ["ACE085", "ACE086"], "{found:?}");
    assert!(
        found[1].1.contains(
            "section `TROUBLESHOOTING AND PITFALLS`: 3 entries active, over its budget of 2 by 1"
        ),
        "{found:?}"
    );
    // The flags replace ace.toml's numbers.
    std::fs::write(dir.path().join("ace.toml"), "[budget]\nmax-entries = 1\n").unwrap();
    cmd("ace-validate")
        .current_dir(dir.path())
        .args(["playbook.md", "--max-entries", "7", "--select", "ACE086"])
        .assert()
        .code(0);
    // An unknown encoding in ace.toml is an error of the configuration.
    std::fs::write(
        dir.path().join("ace.toml"),
        "[budget]\ntokenizer = \"p50k\"\n",
    )
    .unwrap();
    cmd("ace-validate")
        .current_dir(dir.path())
        .arg("playbook.md")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown encoding `p50k`"));
}

#[test]
fn pruned_to_a_budget_that_fits_all_but_the_harmful_entries_keeps_exactly_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("playbook.md");
    std::fs::write(&file, PLAYBOOK).unwrap();
    let kept: String = PLAYBOOK
        .lines()
        .filter(|l| !l.contains("str-00002") && !l.contains("ts-00005"))
        .map(|l| format!("{l}\n"))
        .collect();
    let budget = tokens(&kept).to_string();
    let (out, err, code) = apply(&file, &["--prune", "--max-tokens", &budget]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, kept, "{err}");
    assert!(
        err.contains("removed `str-00002` (harmful 6 > helpful 0 + 3)"),
        "{err}"
    );
    assert!(
        err.contains("removed `ts-00005` (harmful 9 > helpful 1 + 3)"),
        "{err}"
    );
    assert!(!err.contains("ts-00006"), "{err}");
    // As JSON, each removal with its reason, and the sizes.
    let (_, json, _) = apply(
        &file,
        &["--prune", "--max-tokens", &budget, "--report", "json"],
    );
    let r: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let pruned: Vec<(&str, &str)> = r["pruned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(pruned, [("str-00002", "harmful"), ("ts-00005", "harmful")]);
    assert_eq!(r["budget"]["after"]["tokens"], tokens(&kept));
    assert_eq!(r["budget"]["before"]["entries"], 7);
    // Pruning the pruned file again changes nothing.
    let again = dir.path().join("again.md");
    std::fs::write(&again, &out).unwrap();
    let (twice, _, _) = apply(&again, &["--prune", "--max-tokens", &budget]);
    assert_eq!(twice, out);
    // One token less, and the lowest score left goes: `ts-00006` (-3).
    let less = (tokens(&kept) - 1).to_string();
    let (out, err, _) = apply(&file, &["--prune", "--max-tokens", &less]);
    assert!(
        !out.contains("ts-00006") && out.contains("str-00004"),
        "{err}"
    );
    assert!(tokens(&out) < tokens(&kept));
    // --check and --diff as for deltas.
    let (_, _, code) = apply(&file, &["--prune", "--check"]);
    assert_eq!(code, 1);
    let (diff, _, _) = apply(&file, &["--prune", "--diff"]);
    assert!(
        diff.contains("-[str-00002]") && diff.contains("-[ts-00005]"),
        "{diff}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), PLAYBOOK);
}

#[test]
fn pruning_meets_the_budget_exactly_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for (to, name) in FORMATS {
        let f = Format::from_name(to).unwrap();
        let file = converted(dir.path(), PLAYBOOK, to, name);
        let text = std::fs::read_to_string(&file).unwrap();
        // The spec's rule alone.
        let (rule, err, code) = apply(&file, &["--prune", "--from", to]);
        assert_eq!(code, 0, "{to}: {err}");
        let ids = |t: &str| -> Vec<String> {
            read(f, t)
                .entries
                .iter()
                .filter(|e| !ace_check::budget::retired(e))
                .map(|e| e.id.clone())
                .collect()
        };
        let kept = ids(&rule);
        assert_eq!(kept.len(), 5, "{to}: {kept:?}\n{rule}");
        // The kept entries keep their bytes.
        let before = read(f, &text);
        for e in before.entries.iter().filter(|e| kept.contains(&e.id)) {
            let span = e.origin.0.unwrap();
            assert!(
                rule.contains(&text[span.start..span.end]),
                "{to}: `{}` changed\n{rule}",
                e.id
            );
        }
        // A budget of exactly what the rule leaves removes nothing more;
        // one token less removes the lowest-scoring entry left.
        let fits = tokens(&rule);
        let (out, _, _) = apply(
            &file,
            &["--prune", "--from", to, "--max-tokens", &fits.to_string()],
        );
        assert_eq!(out, rule, "{to}");
        let (out, err, _) = apply(
            &file,
            &[
                "--prune",
                "--from",
                to,
                "--max-tokens",
                &(fits - 1).to_string(),
            ],
        );
        assert!(tokens(&out) < fits, "{to}: {err}");
        assert_eq!(ids(&out).len(), 4, "{to}: {err}");
        assert!(!ids(&out).iter().any(|i| i.ends_with("06")), "{to}: {err}");
        // --max-entries alone.
        let (out, err, _) = apply(&file, &["--prune", "--from", to, "--max-entries", "3"]);
        assert_eq!(ids(&out).len(), 3, "{to}: {err}");
        assert_eq!(
            ace_registry::read(f, &out)
                .unwrap()
                .diagnostics
                .iter()
                .filter(|d| d.severity == ace_model::Severity::Error)
                .count(),
            0,
            "{to}"
        );
    }
}

#[test]
fn deprecating_instead_keeps_the_entries_and_the_budget_counts_the_active_ones() {
    let dir = tempfile::tempdir().unwrap();
    let file = converted(dir.path(), PLAYBOOK, "skill-json", "playbook.json");
    let (out, err, code) = apply(&file, &["--prune", "--deprecate", "--max-entries", "4"]);
    assert_eq!(code, 0, "{err}");
    let pb = read(Format::from_name("skill-json").unwrap(), &out);
    assert_eq!(pb.entries.len(), 7);
    let active = pb
        .entries
        .iter()
        .filter(|e| !ace_check::budget::retired(e))
        .count();
    assert_eq!(active, 4, "{out}");
    let e = pb
        .entries
        .iter()
        .find(|e| e.id.ends_with("002") || e.content.starts_with("Guess"))
        .unwrap();
    assert!(
        e.deprecation_reason
            .as_deref()
            .unwrap()
            .starts_with("pruned: harmful 6 > helpful 0 + 3"),
        "{e:?}"
    );
    // ace-validate counts what the budget counts: 4 active entries fit.
    std::fs::write(dir.path().join("deprecated.json"), &out).unwrap();
    cmd("ace-validate")
        .current_dir(dir.path())
        .args([
            "--isolated",
            "deprecated.json",
            "--max-entries",
            "4",
            "--select",
            "ACE086",
        ])
        .assert()
        .code(0);
    // Without --deprecate, pruning removes the deprecated entries first.
    let dep = dir.path().join("deprecated.json");
    let (out, _, _) = apply(&dep, &["--prune"]);
    assert_eq!(
        read(Format::from_name("skill-json").unwrap(), &out)
            .entries
            .len(),
        4
    );
}

/// Saves an output where `.ci/run` has check-jsonschema check it
/// (tests/schemas/check.py): `ACE_MIGRATION_OUT/FORMAT/`.
fn save(format: &str, name: &str, text: &str) {
    let Some(root) = std::env::var_os("ACE_MIGRATION_OUT") else {
        return;
    };
    let dir = PathBuf::from(root).join(format);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn two_near_duplicates_become_one_with_summed_counters_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for (to, name) in FORMATS {
        let f = Format::from_name(to).unwrap();
        let file = converted(dir.path(), PLAYBOOK, to, name);
        let before = read(f, &std::fs::read_to_string(&file).unwrap());
        let (out, err, code) = apply(&file, &["--dedup", "--from", to]);
        assert_eq!(code, 0, "{to}: {err}");
        assert!(err.contains("into `"), "{to}: {err}");
        let after = read(f, &out);
        assert_eq!(after.entries.len(), before.entries.len() - 1, "{to}\n{out}");
        let checks: Vec<&ace_model::Entry> = after
            .entries
            .iter()
            .filter(|e| e.content.starts_with("Check the HTTP status code"))
            .collect();
        assert_eq!(checks.len(), 1, "{to}\n{out}");
        // The best score kept (2 - 0 over 1 - 1), the other's added.
        assert!(checks[0].content.ends_with("of a response."), "{to}");
        assert_eq!(
            (checks[0].helpful, checks[0].harmful),
            (Some(3), Some(1)),
            "{to}"
        );
        // Merged, the file is still one ace-validate accepts.
        let merged = dir.path().join(format!("dedup-{name}"));
        std::fs::write(&merged, &out).unwrap();
        let v = cmd("ace-validate")
            .args(["--isolated", "--from", to])
            .arg(&merged)
            .output()
            .unwrap();
        assert!(
            v.status.success(),
            "{to}: {}",
            String::from_utf8_lossy(&v.stdout)
        );
        // The same bytes twice; de-duplicating again changes nothing.
        assert_eq!(apply(&file, &["--dedup", "--from", to]).0, out, "{to}");
        assert_eq!(apply(&merged, &["--dedup", "--from", to]).0, out, "{to}");
        if matches!(to, "skill-json" | "vagenda-json") {
            save(to, &format!("dedup-{name}"), &out);
        }
    }
}

#[test]
fn deduplicating_with_deprecate_archives_the_merged_entry_as_the_skill_spec_merges() {
    let dir = tempfile::tempdir().unwrap();
    for to in ["skill-json", "vagenda-json"] {
        let f = Format::from_name(to).unwrap();
        let file = converted(dir.path(), PLAYBOOK, to, &format!("p.{to}.json"));
        let (out, err, code) = apply(&file, &["--dedup", "--deprecate", "--from", to]);
        assert_eq!(code, 0, "{to}: {err}");
        let after = read(f, &out);
        assert_eq!(after.entries.len(), 7, "{to}");
        let merged = after
            .entries
            .iter()
            .find(|e| e.content.ends_with("of each response."))
            .unwrap();
        assert_eq!(merged.status, Some(ace_model::Status::Archived), "{to}");
        let keep = after
            .entries
            .iter()
            .find(|e| e.content.ends_with("of a response."))
            .unwrap();
        assert_eq!(
            merged.deprecation_reason.as_deref(),
            Some(format!("Merged into {}", keep.id).as_str()),
            "{to}"
        );
        save(to, &format!("dedup-deprecated-{to}.json"), &out);
    }
}

#[test]
fn the_merges_can_be_written_as_a_delta_for_review_and_applied_later() {
    let dir = tempfile::tempdir().unwrap();
    for (to, name) in FORMATS {
        let file = converted(dir.path(), PLAYBOOK, to, name);
        let text = std::fs::read_to_string(&file).unwrap();
        let delta = dir.path().join(format!("dedup-{to}.delta.json"));
        let (out, err, code) = apply(
            &file,
            &[
                "--dedup",
                "--prune",
                "--from",
                to,
                "--emit-delta",
                delta.to_str().unwrap(),
            ],
        );
        assert_eq!((code, out.as_str()), (0, ""), "{to}: {err}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            text,
            "{to}: the playbook was written"
        );
        let (direct, _, _) = apply(&file, &["--dedup", "--prune", "--from", to]);
        let (via, err, code) = apply(&file, &["--from", to, delta.to_str().unwrap()]);
        assert_eq!(code, 0, "{to}: {err}");
        let ids = |t: &str| -> Vec<(String, Option<i64>)> {
            let f = Format::from_name(to).unwrap();
            read(f, t)
                .entries
                .iter()
                .filter(|e| !ace_check::budget::retired(e))
                .map(|e| (e.id.clone(), e.helpful))
                .collect()
        };
        assert_eq!(ids(&via), ids(&direct), "{to}: {err}");
        let dialect = std::fs::read_to_string(&delta).unwrap();
        let d: serde_json::Value = serde_json::from_str(&dialect).unwrap();
        let kind = match to {
            "skill-json" => Some("skill-delta"),
            "vagenda-json" | "markdown" => Some("acepatch"),
            "agents-md" => Some("acedelta"),
            _ => None,
        };
        if let Some(kind) = kind {
            save(kind, &format!("dedup-{to}.json"), &dialect);
        }
        assert!(d.is_object() || d.is_array(), "{to}");
    }
}

/// Below 0, `harmful > helpful + N` holds for an entry never counted
/// harmful: a threshold under 0 is refused before anything is pruned,
/// from the flag or from ace.toml, and ace-validate refuses it too.
#[test]
fn a_threshold_below_zero_is_refused_not_a_wiped_playbook() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("playbook.md");
    std::fs::write(&file, PLAYBOOK).unwrap();
    let (_, err, code) = apply(&file, &["--prune", "--threshold=-1", "--in-place"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`-1` is not a whole number 0 or more"),
        "{err}"
    );
    std::fs::write(dir.path().join("ace.toml"), "[thresholds]\ncuration = -1\n").unwrap();
    let out = cmd("ace-apply")
        .current_dir(dir.path())
        .args(["playbook.md", "--prune", "--in-place"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ace.toml:2:12: -1 is below 0"), "{err}");
    let out = cmd("ace-validate")
        .current_dir(dir.path())
        .arg("playbook.md")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), PLAYBOOK);
}
