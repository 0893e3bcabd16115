//! Concurrent updates of one playbook: processes that each apply a delta
//! in place take turns, so none of their changes is lost, and a delta
//! applied by one is refused as applied by the others.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use crate::validate::write;

const WRITERS: usize = 20;

fn spawn(bin: &str, args: &[&Path]) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin(bin))
        .args(args)
        .args(["--in-place", "--quiet"])
        .env("SOURCE_DATE_EPOCH", "1766880000")
        .spawn()
        .unwrap()
}

/// Starts every process before waiting for any, and gives their exit codes.
fn all_at_once(runs: Vec<Vec<PathBuf>>) -> Vec<i32> {
    let children: Vec<Child> = runs
        .iter()
        .map(|args| {
            let args: Vec<&Path> = args.iter().map(|p| p.as_path()).collect();
            spawn("ace-apply", &args)
        })
        .collect();
    children
        .into_iter()
        .map(|mut c| c.wait().unwrap().code().unwrap_or(-1))
        .collect()
}

fn increment(dir: &Path, entry: &str) -> PathBuf {
    write(
        dir,
        "inc.json",
        &format!(
            r#"{{"operations":[{{"op":"incrementCounter","entryId":"{entry}","delta":{{"helpfulCount":1}}}}]}}"#
        ),
    )
}

#[test]
fn twenty_increments_of_a_markdown_playbook_all_count() {
    let dir = tempfile::tempdir().unwrap();
    let pb = write(
        dir.path(),
        "playbook.md",
        "## STRATEGIES & INSIGHTS\n[str-00001] helpful=5 harmful=0 :: Always verify data types\n",
    );
    let inc = increment(dir.path(), "str-00001");
    let codes = all_at_once(
        (0..WRITERS)
            .map(|_| vec![pb.clone(), inc.clone()])
            .collect(),
    );
    assert!(codes.iter().all(|&c| c == 0), "{codes:?}");
    let text = std::fs::read_to_string(&pb).unwrap();
    assert!(
        text.contains(&format!("helpful={} harmful=0", 5 + WRITERS)),
        "{text}"
    );
}

/// Each process increments one bullet and adds one of its own in a new
/// section, which playbook.yaml lists; every delta is also applied by a
/// second process, which finds it applied.
#[test]
fn twenty_updates_of_an_agents_md_pair_all_count_once() {
    let dir = tempfile::tempdir().unwrap();
    let agents = write(
        dir.path(),
        "AGENTS.md",
        "# Knowledge\n\n## build/patterns\n\n[Bullet #43ea43ee, helpful:2, harmful:0] Import with .js extensions\n",
    );
    let yaml = write(
        dir.path(),
        "playbook.yaml",
        "version: 0.3\nsections:\n  - id: \"build/patterns\"\n    weight: 0.7\n",
    );
    let inc = increment(dir.path(), "43ea43ee");
    let adds: Vec<PathBuf> = (0..WRITERS)
        .map(|i| {
            write(
                dir.path(),
                &format!("add-{i}.json"),
                &format!(
                    r#"{{"id":"{i:02x}1c2a9e-0b1d-4c5e-9f00-1a2b3c4d{i:04}","section":"area-{i}/notes","op":"add","content":"Advice number {i} from a parallel run","metadata":{{"source":{{"beadsId":"bd-{i}"}},"createdAt":"2025-11-04T10:00:00Z","tags":[],"confidence":0.9,"evidence":"seen in run {i} of the loop","helpful":0,"harmful":0}}}}"#
                ),
            )
        })
        .collect();
    let mut runs: Vec<Vec<PathBuf>> = adds
        .iter()
        .map(|a| vec![agents.clone(), inc.clone(), a.clone()])
        .collect();
    runs.extend(adds.iter().map(|a| vec![agents.clone(), a.clone()]));
    let codes = all_at_once(runs);
    // The repeat of each add is refused (exit 1) by whichever came second.
    assert_eq!(
        codes.iter().filter(|&&c| c == 1).count(),
        WRITERS,
        "{codes:?}"
    );
    assert!(codes.iter().all(|&c| c == 0 || c == 1), "{codes:?}");
    let text = std::fs::read_to_string(&agents).unwrap();
    assert!(
        text.contains(&format!("helpful:{}, harmful:0] Import", 2 + WRITERS)),
        "{text}"
    );
    let yaml = std::fs::read_to_string(&yaml).unwrap();
    for i in 0..WRITERS {
        let bullet = format!("Advice number {i} from");
        assert_eq!(text.matches(&bullet).count(), 1, "{bullet}: {text}");
        assert!(yaml.contains(&format!("area-{i}/notes")), "{i}: {yaml}");
    }
}

#[test]
fn twenty_skill_deltas_all_count_once() {
    let dir = tempfile::tempdir().unwrap();
    let pb = write(
        dir.path(),
        "playbook.json",
        r#"{"version":"1.0.0","last_updated":"2025-10-25T00:00:00Z","bullets":[{"id":"bullet-2025-10-25-001","title":"Read first","content":"Read a file before editing it.","tags":[],"helpful_count":3,"harmful_count":0,"last_updated":"2025-10-25T00:00:00Z","created":"2025-10-25T00:00:00Z","prerequisites":[],"status":"active"}],"metadata":{"total_bullets":1,"active_bullets":1,"last_curated":"2025-10-25T00:00:00Z"}}
"#,
    );
    let deltas: Vec<PathBuf> = (0..WRITERS)
        .map(|i| {
            write(
                dir.path(),
                &format!("delta-{i}.json"),
                &format!(
                    r#"{{"delta_id":"delta-2025-10-27-{i:03}","timestamp":"2025-10-27T00:00:00Z","author":"agent","rationale":"counted in parallel run {i}","counters":[{{"id":"bullet-2025-10-25-001","helpful_delta":1}}]}}"#
                ),
            )
        })
        .collect();
    let runs: Vec<Vec<PathBuf>> = deltas
        .iter()
        .chain(&deltas)
        .map(|d| vec![pb.clone(), d.clone()])
        .collect();
    let codes = all_at_once(runs);
    assert_eq!(
        codes.iter().filter(|&&c| c == 1).count(),
        WRITERS,
        "each delta's repeat is refused: {codes:?}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pb).unwrap()).unwrap();
    assert_eq!(v["bullets"][0]["helpful_count"], 3 + WRITERS as u64);
    assert_eq!(
        v["metadata"]["applied_deltas"].as_array().unwrap().len(),
        WRITERS
    );
}

/// `ace-convert --in-place` holds the same lock: a rewrite that runs while
/// updates do loses none of them.
#[test]
fn a_conversion_in_place_among_updates_loses_none() {
    let dir = tempfile::tempdir().unwrap();
    let pb = write(
        dir.path(),
        "playbook.md",
        "## STRATEGIES & INSIGHTS\n[str-00001] helpful=0 harmful=0 :: Always verify data types\n",
    );
    let inc = increment(dir.path(), "str-00001");
    let mut children: Vec<Child> = Vec::new();
    for i in 0..WRITERS {
        children.push(spawn("ace-apply", &[&pb, &inc]));
        if i % 4 == 0 {
            children.push(spawn("ace-convert", &[&pb]));
        }
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let text = std::fs::read_to_string(&pb).unwrap();
    assert!(
        text.contains(&format!("helpful={WRITERS} harmful=0")),
        "{text}"
    );
}
