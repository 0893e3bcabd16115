//! `ace-merge --base BASE RUN...`: runs that grew one playbook each,
//! merged into one. Each run is made as a curator makes it: deltas applied
//! to BASE by the engine, which gives a new entry the next free ID, so two
//! runs give two different lessons one ID.

use std::path::{Path, PathBuf};

use ace_apply::{Change, Op, Target};
use ace_model::delta::Delta;
use ace_model::{Entry, Span};
use ace_registry::Format;

const NOW: &str = "2026-01-02T00:00:00Z";

fn format(name: &str) -> Format {
    Format::from_name(name).unwrap()
}

/// A run: BASE (`text`, of `f`) with `changes` applied by the engine.
fn run(f: Format, text: &str, changes: Vec<Change>) -> String {
    let playbook = ace_registry::read(f, text).unwrap().playbook;
    let mut d = Delta::new(Span::default());
    d.ops = changes
        .into_iter()
        .map(|change| Op {
            change,
            span: Span::default(),
        })
        .collect();
    let subject = ace_apply::Subject {
        format: f,
        text,
        companion: None,
        playbook,
    };
    let opts = ace_apply::Options {
        now: NOW.into(),
        ..ace_apply::Options::default()
    };
    let applied = ace_apply::apply_to(subject, &[(0, d)], &opts);
    assert_eq!(applied.refused(), 0, "{}", applied.report_text("test"));
    applied.main_text()
}

fn bump(id: &str, helpful: i64, harmful: i64) -> Change {
    Change::Count {
        target: Target::Id(id.into()),
        helpful,
        harmful,
        neutral: 0,
    }
}

fn add(section: Option<&str>, content: &str) -> Change {
    Change::Add(Entry {
        section: section.map(str::to_owned),
        content: content.into(),
        helpful: Some(0),
        harmful: Some(0),
        ..Entry::default()
    })
}

fn ace_merge() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("ace-merge").unwrap();
    c.env_remove("SOURCE_DATE_EPOCH");
    c
}

const A: &str = "Retry a failed request once before reporting it.";
const B: &str = "Page through every result before counting them.";
const C: &str = "Log the shape of an API response before parsing it.";

/// Three runs of `base` (a file of format `f` named `name`): the first
/// bumps entry 0 and adds A, the second bumps entry 1 twice and adds B,
/// the third bumps entry 0 (helpful and harmful) and adds A again and C.
/// Merged, each counter is BASE plus the runs' bumps, A, B and C are there
/// once each, and nothing else changed.
fn three_runs_merge(f: Format, name: &str, base: &str) {
    let dir = tempfile::tempdir().unwrap();
    let pb = ace_registry::read(f, base).unwrap().playbook;
    assert!(pb.entries.len() >= 2, "{name}");
    let (e0, e1) = (&pb.entries[0], &pb.entries[1]);
    let section = e0.section.as_deref();
    let runs = [
        run(f, base, vec![bump(&e0.id, 1, 0), add(section, A)]),
        run(f, base, vec![bump(&e1.id, 2, 0), add(section, B)]),
        run(
            f,
            base,
            vec![bump(&e0.id, 1, 1), add(section, A), add(section, C)],
        ),
    ];
    let write = |file: &str, text: &str| -> PathBuf {
        let p = dir.path().join(file);
        std::fs::write(&p, text).unwrap();
        p
    };
    let base_path = write(&format!("base-{name}"), base);
    let mut args: Vec<std::ffi::OsString> = vec!["--base".into(), base_path.into()];
    args.extend(["--from".into(), f.name().into(), "--id-map".into()]);
    args.push(dir.path().join("ids.json").into());
    for (i, r) in runs.iter().enumerate() {
        args.push(write(&format!("run{}-{name}", i + 1), r).into());
    }
    let out_path = dir.path().join(format!("merged-{name}"));
    let out = ace_merge()
        .args(&args)
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {stderr}");
    let text = std::fs::read_to_string(&out_path).unwrap();
    let merged = ace_registry::read(f, &text).unwrap().playbook;
    let find = |id: &str| merged.entries.iter().find(|e| e.id == id).unwrap();
    let count = |v: Option<i64>| v.unwrap_or(0);
    assert_eq!(count(find(&e0.id).helpful), count(e0.helpful) + 2, "{name}");
    assert_eq!(count(find(&e0.id).harmful), count(e0.harmful) + 1, "{name}");
    assert_eq!(count(find(&e1.id).helpful), count(e1.helpful) + 2, "{name}");
    for lesson in [A, B, C] {
        let n = merged
            .entries
            .iter()
            .filter(|e| e.content == lesson)
            .count();
        assert_eq!(n, 1, "{name}: {lesson} {n} times:\n{text}");
    }
    assert_eq!(merged.entries.len(), pb.entries.len() + 3, "{name}");
    let mut ids: Vec<&str> = merged.entries.iter().map(|e| e.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), merged.entries.len(), "{name}: an ID twice");
    // The runs' other entries are BASE's, as they were.
    for e in &pb.entries[2..] {
        let m = find(&e.id);
        assert_eq!((&m.content, m.helpful), (&e.content, e.helpful), "{name}");
    }
    // The third run's A is the first run's: one entry, named in the map.
    let map: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ids.json")).unwrap())
            .unwrap();
    let joined: Vec<&serde_json::Value> = map
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["joined"] == true)
        .collect();
    assert_eq!(joined.len(), 1, "{name}: {map}");
    assert!(joined[0]["run"].as_str().unwrap().contains("run3"), "{map}");
    // The same inputs give the same bytes.
    let again = ace_merge().args(&args).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&again.stdout), text, "{name}");
    // What was written is a valid file of its format.
    let v = assert_cmd::Command::cargo_bin("ace-validate")
        .unwrap()
        .arg("--from")
        .arg(f.name())
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(
        v.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&v.stdout)
    );
}

/// The formats the corpus AppWorld playbook is merged in, and their files'
/// names.
const FORMATS: [(&str, &str); 5] = [
    ("markdown", "playbook.md"),
    ("agents-md", "AGENTS.md"),
    ("skill-json", "playbook.json"),
    ("vagenda-json", "playbook.vagenda.json"),
    ("skillbook", "skillbook.json"),
];

/// `text` (markdown) in format `to`, as ace-convert writes it.
fn converted(dir: &Path, text: &str, to: &str, name: &str) -> String {
    let src = dir.join("source.md");
    std::fs::write(&src, text).unwrap();
    let out = dir.join(name);
    let status = assert_cmd::Command::cargo_bin("ace-convert")
        .unwrap()
        .arg(&src)
        .args(["--to", to, "--now", NOW, "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{to}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn three_runs_of_a_playbook_merge_into_one_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let md = "## STRATEGIES AND HARD RULES\n[shr-00001] helpful=2 harmful=0 :: Read the API docs first.\n[shr-00002] helpful=0 harmful=1 :: Write small chunks of code.\n## TROUBLESHOOTING AND PITFALLS\n[ts-00003] helpful=1 harmful=0 :: Check pagination.\n";
    for (f, name) in FORMATS {
        let base = converted(dir.path(), md, f, name);
        three_runs_merge(format(f), name, &base);
    }
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn three_runs_of_the_corpus_appworld_playbook_merge_into_one() {
    let file = ace_tests::corpus_dir("markdown-playbook").join(
        "ace-agent__ace-appworld__experiments__playbooks__appworld_online_trained_playbook.txt",
    );
    let md = std::fs::read_to_string(&file).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (f, name) in FORMATS {
        let base = converted(dir.path(), &md, f, name);
        three_runs_merge(format(f), name, &base);
    }
}

/// Two runs edit one entry's text differently: the first run's text is
/// kept, the exit status is 1, and the conflicts file names the entry, the
/// field and both runs.
#[test]
fn two_runs_editing_one_text_differently_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let base = "## S\n[str-00001] helpful=1 harmful=0 :: Check the input first.\n[str-00002] helpful=0 harmful=0 :: Keep functions small.\n";
    let files: Vec<PathBuf> = [
        ("base.md", base.to_owned()),
        (
            "one.md",
            base.replace("Check the input first.", "Check every input first."),
        ),
        ("two.md", base.replace("helpful=0", "helpful=1")),
        (
            "three.md",
            base.replace("Check the input first.", "Validate the input."),
        ),
    ]
    .iter()
    .map(|(n, t)| {
        let p = dir.path().join(n);
        std::fs::write(&p, t).unwrap();
        p
    })
    .collect();
    let conflicts = dir.path().join("conflicts.json");
    let out = ace_merge()
        .arg("--base")
        .args(&files)
        .arg("--conflicts")
        .arg(&conflicts)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[str-00001] helpful=1 harmful=0 :: Check every input first."));
    assert!(text.contains("[str-00002] helpful=1 harmful=0 :: Keep functions small."));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("-:2: conflict: `str-00001` content"),
        "{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&conflicts).unwrap()).unwrap();
    let c = &report[0];
    assert_eq!(report.as_array().unwrap().len(), 1, "{report}");
    assert_eq!(c["entry"], "str-00001");
    assert_eq!(c["field"], "content");
    assert!(c["kept_run"].as_str().unwrap().ends_with("one.md"), "{c}");
    assert!(c["run"].as_str().unwrap().ends_with("three.md"), "{c}");
    assert_eq!(c["kept"], "Check every input first.");
    assert_eq!(c["value"], "Validate the input.");
    assert_eq!(c["line"], 2);
}

/// A three-way merge takes three files; anything else is a usage error
/// that says how to merge runs.
#[test]
fn a_three_way_merge_wants_three_files() {
    let out = ace_merge().args(["a.md", "b.md"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--base"));
}

/// A BASE without counters, as the AppWorld playbooks and the README's
/// example are: each run's counters are its increments from 0, so every
/// order of the runs, and the two-way driver either way round, gives the
/// same sums, harmful as well as helpful.
#[test]
fn counters_absent_on_base_add_up_in_every_order_of_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let base = "## S\n\n[s-00001] A rule about things.\n[s-00002] Another rule.\n";
    let runs = [
        "## S\n\n[s-00001] helpful=1 harmful=1 :: A rule about things.\n[s-00002] Another rule.\n",
        "## S\n\n[s-00001] helpful=1 harmful=0 :: A rule about things.\n[s-00002] helpful=0 harmful=2 :: Another rule.\n",
        "## S\n\n[s-00001] helpful=0 harmful=3 :: A rule about things.\n[s-00002] Another rule.\n",
    ];
    let want = "## S\n\n[s-00001] helpful=2 harmful=4 :: A rule about things.\n[s-00002] helpful=0 harmful=2 :: Another rule.\n";
    std::fs::write(dir.path().join("base.md"), base).unwrap();
    for (i, r) in runs.iter().enumerate() {
        std::fs::write(dir.path().join(format!("run{i}.md")), r).unwrap();
    }
    for order in [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ] {
        let out = ace_merge()
            .current_dir(dir.path())
            .arg("--base")
            .arg("base.md")
            .args(order.map(|i| format!("run{i}.md")))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{order:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{order:?}");
    }
    // Git's driver: BASE, OURS (rewritten in place), THEIRS.
    let two = "## S\n\n[s-00001] helpful=2 harmful=1 :: A rule about things.\n[s-00002] helpful=0 harmful=2 :: Another rule.\n";
    for (ours, theirs) in [(0, 1), (1, 0)] {
        let a = dir.path().join("a.md");
        std::fs::write(&a, runs[ours]).unwrap();
        ace_merge()
            .current_dir(dir.path())
            .arg("base.md")
            .arg(&a)
            .arg(format!("run{theirs}.md"))
            .assert()
            .success();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), two, "ours {ours}");
    }
}
