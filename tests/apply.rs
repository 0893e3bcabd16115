//! The apply engine against the specs' own merge algorithms, written here
//! from their text, and against the corpus deltas.

use ace_apply::{Compat, Options};
use ace_model::Playbook;
use ace_registry::{Format, WriteCtx};
use ace_tests::{corpus_dir, corpus_files, fixture};
use serde_json::{json, Value};

const NOW: &str = "2026-01-01T00:00:00Z";

/// Reads `playbook` as `format`, applies the deltas of `deltas` and writes
/// the result: the text and the engine's outcome.
fn apply(
    format: &str,
    playbook: &str,
    deltas: &[&str],
    compat: Compat,
) -> (String, ace_apply::Outcome) {
    let format = Format::from_name(format).expect("a format");
    let mut pb = ace_registry::read(format, playbook)
        .expect("the playbook reads")
        .playbook;
    let mut all = Vec::new();
    for (i, text) in deltas.iter().enumerate() {
        let (_, ds) = ace_apply::read_deltas(
            ace_registry::Registry::builtin(),
            text,
            None,
            None,
            &ace_apply::ReadOptions::default(),
        )
        .unwrap_or_else(|e| panic!("delta {i} reads: {e:?}"));
        all.extend(ds.into_iter().map(|d| (i, d)));
    }
    let opts = Options {
        compat,
        now: NOW.into(),
        ..Options::default()
    };
    let t = format.imp().curation(&pb);
    let outcome = ace_apply::apply(&mut pb, all.clone(), &t, &opts);
    let ctx = WriteCtx::default().with_now(Some(NOW.into()));
    let text = ace_tests::applied_text(format, playbook, &outcome, &pb, &ctx);
    (text, outcome)
}

fn bullets(text: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(text).expect("JSON");
    v["bullets"].as_array().expect("bullets").clone()
}

fn find<'a>(bullets: &'a mut [Value], id: &str) -> Option<&'a mut Value> {
    bullets.iter_mut().find(|b| b["id"] == id)
}

fn add(b: &mut Value, key: &str, by: &Value) {
    let n = b[key].as_i64().unwrap_or(0) + by.as_i64().unwrap_or(0);
    b[key] = json!(n);
}

/// The counter step both merge algorithms share: missing targets skipped.
fn count(bullets: &mut [Value], counters: &[Value]) {
    for c in counters {
        if let Some(b) = find(bullets, c["id"].as_str().unwrap()) {
            add(b, "helpful_count", &c["helpful_delta"]);
            add(b, "harmful_count", &c["harmful_delta"]);
            b["last_updated"] = json!(NOW);
        }
    }
}

/// The skill spec's `merge_delta`, as its text gives it.
fn seed_merge(mut bullets: Vec<Value>, delta: &Value) -> Vec<Value> {
    let list = |k: &str| delta[k].as_array().cloned().unwrap_or_default();
    // 1. Update counters
    count(&mut bullets, &list("counters"));
    // 2. Add new bullets
    for mut b in list("new_bullets") {
        b["created"] = json!(NOW);
        b["last_updated"] = json!(NOW);
        bullets.push(b);
    }
    // 3. Apply edits
    for e in list("edits") {
        if let Some(b) = find(&mut bullets, e["id"].as_str().unwrap()) {
            for (k, v) in e["set"].as_object().unwrap() {
                b[k] = v.clone();
            }
            b["last_updated"] = json!(NOW);
        }
    }
    // 4. Execute merges
    for m in list("merges") {
        let keep = m["keep_id"].as_str().unwrap().to_owned();
        for mid in m["merge_ids"].as_array().unwrap() {
            let Some(merged) = find(&mut bullets, mid.as_str().unwrap()).map(|b| b.clone()) else {
                continue;
            };
            let k = find(&mut bullets, &keep).unwrap();
            add(k, "helpful_count", &merged["helpful_count"]);
            add(k, "harmful_count", &merged["harmful_count"]);
            let merged = find(&mut bullets, mid.as_str().unwrap()).unwrap();
            merged["status"] = json!("archived");
            merged["deprecation_reason"] = json!(format!("Merged into {keep}"));
        }
        let k = find(&mut bullets, &keep).unwrap();
        if let Some(c) = m.get("merged_content") {
            k["content"] = c.clone();
        }
        k["last_updated"] = json!(NOW);
    }
    // 5. Process deprecations
    for d in list("deprecations") {
        if let Some(b) = find(&mut bullets, d["id"].as_str().unwrap()) {
            b["status"] = json!("deprecated");
            b["deprecation_reason"] = d["reason"].clone();
            b["last_updated"] = json!(NOW);
        }
    }
    bullets
}

/// `scripts/merge_deltas.py` as the skill ships it: new bullets, edits,
/// merges, deprecations, then counters. Its sets are compared sorted.
fn script_merge(mut bullets: Vec<Value>, delta: &Value) -> Vec<Value> {
    let list = |k: &str| delta[k].as_array().cloned().unwrap_or_default();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let union = |a: Vec<String>, b: Vec<String>| {
        let mut v: Vec<String> = a.into_iter().chain(b).collect();
        v.sort();
        v.dedup();
        json!(v)
    };
    bullets.extend(list("new_bullets"));
    for e in list("edits") {
        let b = find(&mut bullets, e["id"].as_str().unwrap()).expect("edit target");
        for (k, v) in e["set"].as_object().unwrap() {
            b[k] = v.clone();
        }
        b["last_updated"] = json!(NOW);
    }
    for m in list("merges") {
        let keep = m["keep_id"].as_str().unwrap().to_owned();
        for mid in m["merge_ids"].as_array().unwrap() {
            let mid = mid.as_str().unwrap();
            if mid == keep {
                continue;
            }
            let Some(other) = find(&mut bullets, mid).map(|b| b.clone()) else {
                continue;
            };
            let k = find(&mut bullets, &keep).expect("keep target");
            k["tags"] = union(strings(&k["tags"]), strings(&other["tags"]));
            k["prerequisites"] = union(
                strings(&k["prerequisites"]),
                strings(&other["prerequisites"]),
            );
            add(k, "helpful_count", &other["helpful_count"]);
            add(k, "harmful_count", &other["harmful_count"]);
            let content = format!(
                "{}\n\n[Merged from {mid}]: {}",
                k["content"].as_str().unwrap(),
                other["content"].as_str().unwrap()
            );
            k["content"] = json!(content);
            let o = find(&mut bullets, mid).unwrap();
            o["tags"] = union(strings(&o["tags"]), vec!["merged".into()]);
        }
        find(&mut bullets, &keep).unwrap()["last_updated"] = json!(NOW);
    }
    for d in list("deprecations") {
        if let Some(b) = find(&mut bullets, d["id"].as_str().unwrap()) {
            b["tags"] = union(strings(&b["tags"]), vec!["deprecated".into()]);
            let content = format!(
                "{}\n\n[Deprecated]: {}",
                b["content"].as_str().unwrap(),
                d["reason"].as_str().unwrap()
            );
            b["content"] = json!(content);
            b["last_updated"] = json!(NOW);
        }
    }
    count(&mut bullets, &list("counters"));
    bullets
}

/// The fields the Done-when of the apply issue compares: ids, counters,
/// status, title, content (and tags, which the script changes).
fn summary(bullets: &[Value]) -> Vec<Value> {
    bullets
        .iter()
        .map(|b| {
            let mut tags = b["tags"].as_array().cloned().unwrap_or_default();
            tags.sort_by_key(|t| t.to_string());
            json!({
                "id": b["id"],
                "helpful": b["helpful_count"].as_i64().unwrap_or(0),
                "harmful": b["harmful_count"].as_i64().unwrap_or(0),
                "status": b.get("status").cloned().unwrap_or(json!("active")),
                "title": b["title"],
                "content": b["content"],
                "tags": tags,
            })
        })
        .collect()
}

#[test]
fn a_skill_delta_applies_as_the_skill_specs_merge_algorithm_says() {
    let playbook = fixture("apply/skill-playbook.json");
    let delta = fixture("apply/skill-delta.json");
    let expected = seed_merge(bullets(&playbook), &serde_json::from_str(&delta).unwrap());
    let (text, outcome) = apply("skill-json", &playbook, &[&delta], Compat::Spec);
    assert_eq!(outcome.rejected().count(), 0, "{outcome:?}");
    assert_eq!(summary(&bullets(&text)), summary(&expected));
    // The timestamps the seed sets are set too.
    let got = bullets(&text);
    assert_eq!(got[0]["last_updated"], NOW);
    assert_eq!(got[4]["created"], NOW);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["metadata"]["last_curated"], NOW);
    assert_eq!(v["metadata"]["archived_bullets"], 1);
}

#[test]
fn compat_skill_script_applies_as_merge_deltas_py_does() {
    let playbook = fixture("apply/skill-playbook.json");
    let delta = fixture("apply/skill-delta.json");
    let expected = script_merge(bullets(&playbook), &serde_json::from_str(&delta).unwrap());
    let (text, outcome) = apply("skill-json", &playbook, &[&delta], Compat::Script);
    assert_eq!(outcome.rejected().count(), 0, "{outcome:?}");
    assert_eq!(summary(&bullets(&text)), summary(&expected));
    // The two semantics do differ on this delta.
    let seed = seed_merge(bullets(&playbook), &serde_json::from_str(&delta).unwrap());
    assert_ne!(summary(&seed), summary(&expected));
}

#[test]
fn an_acedelta_batch_gets_the_curators_verdicts() {
    let agents = fixture("apply/AGENTS.md");
    let batch = fixture("apply/acedelta-batch.json");
    let (text, outcome) = apply("agents-md", &agents, &[&batch], Compat::Spec);
    let report = outcome.report_json();
    assert_eq!(
        report["accepted"],
        json!(["7f1c2a9e-0b1d-4c5e-9f00-1a2b3c4d5e6f"])
    );
    let reasons: Vec<&str> = report["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["low-confidence", "low-evidence", "duplicate"]);
    // The new bullet carries its provenance comment.
    assert!(
        text.contains("[Bullet #7f1c2a9e, helpful:1, harmful:0] Run vitest with --run in CI"),
        "{text}"
    );
    assert!(
        text.contains("<!-- deltaId=7f1c2a9e-0b1d-4c5e-9f00-1a2b3c4d5e6f, beadsId=bd-101,"),
        "{text}"
    );
    // Every line that is not the new bullet's is the input's, in order.
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains("7f1c2a9e")).collect();
    let input: Vec<&str> = agents.lines().collect();
    let mut it = input.iter();
    for line in &kept {
        if line.is_empty() {
            continue;
        }
        assert!(
            it.any(|l| l == line),
            "line {line:?} is not the input's, in order"
        );
    }
    // Applied again, the delta is refused: the playbook records it.
    let (again, second) = apply("agents-md", &text, &[&batch], Compat::Spec);
    assert_eq!(again, text);
    assert_eq!(second.accepted().count(), 0);
    assert_eq!(
        second
            .rejected()
            .next()
            .unwrap()
            .refusal
            .as_ref()
            .unwrap()
            .reason
            .code(),
        "already-applied"
    );
}

#[test]
fn an_empty_patch_changes_nothing() {
    for (format, file) in [
        ("skill-json", "apply/skill-playbook.json"),
        ("agents-md", "apply/AGENTS.md"),
    ] {
        let text = fixture(file);
        let (out, outcome) = apply(format, &text, &[r#"{"operations": []}"#], Compat::Spec);
        assert_eq!(outcome.accepted().next().unwrap().applied, 0);
        assert_eq!(out, text, "{format}");
    }
}

#[test]
fn a_new_skill_bullet_without_a_title_gets_one_from_its_content() {
    let playbook = fixture("apply/skill-playbook.json");
    let patch = r#"{"operations": [
        {"op": "appendEntry", "entry": {"id": "bullet-2026-01-01-001", "kind": "strategy", "text": "Read the whole error message before retrying a failed API call.", "helpfulCount": 0, "harmfulCount": 0}},
        {"op": "appendEntry", "entry": {"id": "bullet-2026-01-01-002", "kind": "strategy", "title": "Timeouts", "text": "Set a timeout on every network call.", "helpfulCount": 0, "harmfulCount": 0}}
    ]}"#;
    let (text, outcome) = apply("skill-json", &playbook, &[patch], Compat::Spec);
    assert_eq!(outcome.accepted().count(), 1);
    let mut b = bullets(&text);
    let titles: Vec<Value> = ["bullet-2026-01-01-001", "bullet-2026-01-01-002"]
        .iter()
        .map(|id| find(&mut b, id).expect("added")["title"].clone())
        .collect();
    assert_eq!(
        titles,
        [
            json!("Read the whole error message before retrying a failed API"),
            json!("Timeouts")
        ]
    );
    let format = Format::from_name("skill-json").expect("a format");
    let report = ace_check::validate(format, &text, &ace_lint::Options::default());
    assert!(!report.iter().any(|d| d.code == "ACE035"), "{report:#?}");
}

#[test]
fn a_new_skill_bullet_drops_what_its_schema_refuses_and_says_so() {
    let playbook = fixture("apply/skill-playbook.json");
    let batch = r#"{"reasoning": "r", "operations": [{"type": "ADD", "section": "api", "content": "Retry idempotent HTTP calls with backoff when the server answers 429.", "justification": "seen in two runs", "evidence": "run 12"}]}"#;
    let (text, outcome) = apply("skill-json", &playbook, &[batch], Compat::Spec);
    assert_eq!(outcome.accepted().count(), 1);
    let fields: Vec<&str> = outcome.losses.iter().map(|l| l.field.as_ref()).collect();
    assert_eq!(fields, ["evidence", "extra.justification"]);
    assert!(!text.contains("seen in two runs") && !text.contains("run 12"));
    let format = Format::from_name("skill-json").expect("a format");
    let report = ace_check::validate(format, &text, &ace_lint::Options::default());
    assert!(!report.iter().any(|d| d.code == "ACE035"), "{report:#?}");
}

#[test]
fn an_update_keeps_off_a_skill_bullet_what_its_schema_refuses_and_says_so() {
    let playbook = fixture("apply/skill-playbook.json");
    let legacy = r#"{"reasoning": "r", "operations": [{"type": "UPDATE", "section": "api", "skill_id": "bullet-2025-10-25-001", "content": "Retry idempotent HTTP calls with backoff on 429 and 503.", "justification": "seen in two runs", "evidence": "run 12"}]}"#;
    let current = r#"{"reasoning": "r", "operations": [{"type": "UPDATE", "section": "api", "skill_id": "bullet-2025-10-25-002", "insight": "Pin the container image by digest, not by tag.", "issue": "a tag moved under us"}]}"#;
    let format = Format::from_name("skill-json").expect("a format");
    for (batch, taken, gone) in [
        (
            legacy,
            vec!["extra.justification", "evidence"],
            "seen in two runs",
        ),
        (current, vec!["extra.issue"], "a tag moved under us"),
    ] {
        let (text, outcome) = apply("skill-json", &playbook, &[batch], Compat::Spec);
        assert_eq!(outcome.accepted().count(), 1);
        let fields: Vec<&str> = outcome.losses.iter().map(|l| l.field.as_ref()).collect();
        assert_eq!(fields, taken);
        assert!(!text.contains(gone) && !text.contains("run 12"), "{text}");
        let report = ace_check::validate(format, &text, &ace_lint::Options::default());
        assert!(!report.iter().any(|d| d.code == "ACE035"), "{report:#?}");
        let before: Value = serde_json::from_str(&playbook).unwrap();
        let after: Value = serde_json::from_str(&text).unwrap();
        let evidence = |v: &Value| {
            v["bullets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["evidence"].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            evidence(&before),
            evidence(&after),
            "the bullets keep their evidence"
        );
    }
}

#[test]
fn a_patch_on_a_stale_sequence_is_a_conflict_unless_it_commutes() {
    let doc = r#"{
  "vAgendaInfo": {"version": "0.2"},
  "plan": {
    "title": "p",
    "status": "active",
    "sequence": 3,
    "playbook": {"version": 1, "created": "2025-01-01T00:00:00Z", "updated": "2025-01-01T00:00:00Z", "entries": [
      {"id": "e1", "kind": "strategy", "text": "Write the test first.", "helpfulCount": 1, "harmfulCount": 0}
    ]}
  }
}
"#;
    let bump = r#"{"baseDocumentSequence": 2, "operations": [{"op": "incrementCounter", "entryId": "e1", "delta": {"helpfulCount": 2}}]}"#;
    let edit = r#"{"baseDocumentSequence": 2, "operations": [{"op": "updateEntry", "entryId": "e1", "entry": {"id": "e1", "kind": "strategy", "text": "Write the failing test first."}}]}"#;
    let (text, outcome) = apply("vagenda-json", doc, &[bump, edit], Compat::Spec);
    let r = outcome.report_json();
    assert_eq!(r["accepted"], json!(["#1"]));
    assert_eq!(r["rejected"][0]["reason"], "conflict");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["plan"]["playbook"]["entries"][0]["helpfulCount"], 3);
    // Applying bumps the document's sequence.
    assert_eq!(v["plan"]["sequence"], 4);
}

/// Every corpus delta applies to a corpus playbook of its dialect, or is
/// refused with the reason the dialect's own checks give.
#[test]
#[ignore = "reads the shared corpus (ACE_CORPUS)"]
fn every_corpus_delta_applies_or_is_refused_with_its_reason() {
    let deltas_dir = corpus_dir("deltas");
    let dir = deltas_dir.parent().expect("the corpus root").to_owned();
    let deltas = corpus_files(&deltas_dir);
    assert_eq!(deltas.len(), 17, "the corpus holds 17 delta files");
    let read =
        |rel: &str| std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let skill = read("skill-json/jmanhype__claude-code-plugin-marketplace__.claude__.claude__skills__ace-context-engineering__playbook.json");
    let agents = read("agents-md/sjarmak__ace_beads__knowledge__AGENTS.md");
    let paper = read("markdown-playbook/yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__final_playbook.txt");
    let appworld = read("markdown-playbook/ace-agent__ace-appworld__experiments__playbooks__appworld_initial_playbook.txt");
    let vagenda = fixture("apply/vagenda-playbook.json");
    let mut seen = Vec::new();
    for path in &deltas {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let (dialect, _) = ace_apply::read_deltas(
            ace_registry::Registry::builtin(),
            &text,
            Some(&name),
            None,
            &ace_apply::ReadOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let (format, playbook): (&str, &str) = match dialect.name() {
            "skill-delta" => ("skill-json", &skill),
            "acedelta" => ("agents-md", &agents),
            "acepatch" => ("vagenda-json", &vagenda),
            _ => ("markdown", &paper),
        };
        let (_, outcome) = apply(format, playbook, &[&text], Compat::Spec);
        let verdicts: Vec<String> = outcome
            .verdicts
            .iter()
            .map(|v| {
                v.refusal
                    .as_ref()
                    .map_or("applied".into(), |r| r.reason.code().to_owned())
            })
            .collect();
        seen.push((name, verdicts));
    }
    let verdict = |part: &str| -> Vec<String> {
        seen.iter()
            .find(|(n, _)| n.contains(part))
            .unwrap_or_else(|| panic!("no corpus delta named like {part}"))
            .1
            .clone()
    };
    // The skill's deltas: the one whose new bullet breaks the reflector
    // schema and the one with a key its schema forbids are invalid; the
    // one that counts on a bullet the playbook lacks names an unknown id.
    assert_eq!(verdict("02_reflector_output"), ["invalid"]);
    assert_eq!(verdict("03_curator_output"), ["applied"]);
    assert_eq!(verdict("ace_script_fix_delta"), ["applied"]);
    assert_eq!(verdict("delta_ace_implementation"), ["applied"]);
    assert_eq!(verdict("validation_task_delta_real_ace"), ["invalid"]);
    assert_eq!(verdict("__validation_task_delta.json"), ["unknown-id"]);
    // ace_beads: an empty queue, an insight below the confidence gate,
    // insights that propose nothing, and one whose `add` applies.
    assert_eq!(verdict("delta-queue"), Vec::<String>::new());
    assert_eq!(verdict("reflector-insights"), ["low-confidence"]);
    assert_eq!(
        verdict("reflector-output"),
        ["applied", "applied", "applied"]
    );
    assert_eq!(verdict("insights.jsonl"), ["applied", "applied"]);
    // vAgenda's examples name entries of their own documents.
    assert_eq!(verdict("block05"), ["applied"]);
    assert_eq!(verdict("block12"), ["applied"]);
    assert_eq!(verdict("block13"), ["applied"]);
    for block in ["block14", "block15", "block16"] {
        assert_eq!(verdict(block), ["unknown-id"], "{block}");
    }
    // The paper's 18 ADDs, one delta each.
    assert_eq!(verdict("curator_operations_diff"), vec!["applied"; 18]);
    let ops = read(&format!(
        "deltas/{}",
        seen.iter()
            .find(|(n, _)| n.contains("curator_operations"))
            .unwrap()
            .0
    ));
    for (playbook, grew_in) in [(&paper, None), (&appworld, Some("OTHERS"))] {
        let before = ace_registry::read(Format::from_name("markdown").unwrap(), playbook)
            .unwrap()
            .playbook;
        let (after_text, _) = apply("markdown", playbook, &[&ops], Compat::Spec);
        let after = ace_registry::read(Format::from_name("markdown").unwrap(), &after_text)
            .unwrap()
            .playbook;
        assert_eq!(after.entries.len(), before.entries.len() + 18);
        if let Some(title) = grew_in {
            let key = &after
                .sections
                .iter()
                .find(|s| s.display_title() == title)
                .unwrap()
                .key;
            let n = |pb: &Playbook| {
                pb.entries
                    .iter()
                    .filter(|e| e.section.as_ref() == Some(key))
                    .count()
            };
            assert_eq!(
                n(&after),
                n(&before) + 18,
                "the paper files unknown sections under OTHERS"
            );
        } else {
            // Each ADD lands in the section its `section` names.
            for line in ops.lines() {
                let op: Value = serde_json::from_str(line).unwrap();
                let content = op["content"].as_str().unwrap();
                let old_ids: std::collections::HashSet<&str> =
                    before.entries.iter().map(|e| e.id.as_str()).collect();
                let e = after
                    .entries
                    .iter()
                    .find(|e| e.content == content && !old_ids.contains(e.id.as_str()))
                    .unwrap();
                let s = after.section(e.section.as_deref().unwrap()).unwrap();
                let wanted = op["section"].as_str().unwrap();
                // The paper writes a section as its title, or as a key
                // with or without its `and`s.
                let loose = |t: &str| ace_model::normalize::section_key(t).replace("_and_", "_");
                assert_eq!(loose(s.display_title()), loose(wanted), "{content}");
            }
        }
    }
}

/// The ace_beads curator's run on the real ace_beads knowledge base: our batch
/// into its AGENTS.md and playbook.yaml gives the seed's verdicts, a
/// provenance comment on the bullet it adds, and leaves every other line
/// of both files as it was.
#[test]
#[ignore = "reads the shared corpus (ACE_CORPUS)"]
fn an_acedelta_batch_into_the_real_ace_beads_pair() {
    let read = |variant: &str, name: &str| {
        let path = corpus_dir(variant).join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let agents = read("agents-md", "sjarmak__ace_beads__knowledge__AGENTS.md");
    let yaml = read(
        "playbook-yaml",
        "sjarmak__ace_beads__knowledge__playbook.yaml",
    );
    let format = Format::from_name("agents-md").unwrap();
    let mut pb = ace_registry::read_files(format, &agents, Some(&yaml))
        .expect("the pair reads")
        .playbook;
    let (_, deltas) = ace_apply::read_deltas(
        ace_registry::Registry::builtin(),
        &fixture("apply/acedelta-batch.json"),
        None,
        None,
        &ace_apply::ReadOptions::default(),
    )
    .expect("the batch reads");
    let all: Vec<(usize, ace_model::delta::Delta)> = deltas.into_iter().map(|d| (0, d)).collect();
    let opts = Options {
        now: NOW.into(),
        ..Options::default()
    };
    let t = format.imp().curation(&pb);
    let outcome = ace_apply::apply(&mut pb, all.clone(), &t, &opts);
    let verdicts: Vec<&str> = outcome
        .verdicts
        .iter()
        .map(|v| v.refusal.as_ref().map_or("applied", |r| r.reason.code()))
        .collect();
    assert_eq!(
        verdicts,
        ["applied", "low-confidence", "low-evidence", "duplicate"]
    );
    let ctx = WriteCtx::default().with_now(Some(NOW.into()));
    let files = ace_registry::write_files(format, &pb, &ctx);
    // The bullet comes with its provenance comment.
    let lines: Vec<&str> = files.main.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("[Bullet #7f1c2a9e, helpful:1, harmful:0] Run vitest"))
        .unwrap_or_else(|| panic!("the new bullet is written:\n{}", files.main));
    assert!(
        lines[at + 1]
            .starts_with("<!-- deltaId=7f1c2a9e-0b1d-4c5e-9f00-1a2b3c4d5e6f, beadsId=bd-101,"),
        "{}",
        lines[at + 1]
    );
    // Every line of the file is still there, in order, and the new ones
    // are the bullet, its comment and the heading of the section the
    // knowledge base did not have yet.
    let old: Vec<&str> = agents.lines().collect();
    let mut rest = lines.iter();
    for line in &old {
        assert!(
            rest.any(|l| l == line),
            "line {line:?} is kept, in order:\n{}",
            files.main
        );
    }
    let added: Vec<&&str> = lines.iter().filter(|l| !old.contains(l)).collect();
    assert_eq!(added.len(), 3, "{added:?}");
    assert_eq!(*added[0], "## typescript/testing");
    // playbook.yaml already lists the section: it is written as it was.
    assert_eq!(files.companion.as_deref(), Some(yaml.as_str()));
    // Applied again, the batch finds its bullet recorded.
    let mut again = ace_registry::read_files(format, &files.main, files.companion.as_deref())
        .unwrap()
        .playbook;
    let second = ace_apply::apply(&mut again, all.clone(), &t, &opts);
    assert_eq!(
        second.verdicts[0].refusal.as_ref().map(|r| r.reason),
        Some(ace_model::delta::Reason::AlreadyApplied)
    );
}

/// The Playbooks extension's own event examples, applied in order to a
/// vAgenda playbook: the append creates the entry, the updates count and
/// refine it, and the dedup event adds a deprecated duplicate. Applied a
/// second time, each is recorded already.
#[test]
#[ignore = "reads the shared corpus (ACE_CORPUS)"]
fn the_playbooks_extension_events_apply_in_order() {
    let dir = corpus_dir("vagenda");
    let events: Vec<String> = [
        "append",
        "delta",
        "refine",
        "supersede-new",
        "supersede-old",
        "dedup",
    ]
    .iter()
    .map(|n| {
        let p = dir.join(format!(
            "visionik__vAgenda__vAgenda-extension-playbooks.md--pb-event-{n}.json"
        ));
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    })
    .collect();
    let refs: Vec<&str> = events.iter().map(String::as_str).collect();
    let base = fixture("apply/vagenda-playbook.json");
    let (text, outcome) = apply("vagenda-json", &base, &refs, Compat::Spec);
    assert!(
        outcome.rejected().next().is_none(),
        "{:?}",
        outcome.report_json()
    );
    let pb = ace_registry::read(Format::from_name("vagenda-json").unwrap(), &text)
        .unwrap()
        .playbook;
    let e = |id: &str| pb.entries.iter().find(|e| e.id == id).expect(id);
    let first = e("entry-test-first");
    assert_eq!(first.helpful, Some(1));
    assert!(first
        .content
        .starts_with("Write a failing test first; then"));
    assert_eq!(
        first.superseded_by.as_deref(),
        Some("entry-tests-before-fix-v2")
    );
    let dup = e("entry-test-first-duplicate");
    assert_eq!(dup.status, Some(ace_model::Status::Deprecated));
    assert_eq!(dup.duplicate_of.as_deref(), Some("entry-test-first"));
    let (again, second) = apply("vagenda-json", &text, &refs, Compat::Spec);
    assert_eq!(again, text);
    assert!(second
        .verdicts
        .iter()
        .all(|v| v.refusal.as_ref().map(|r| r.reason)
            == Some(ace_model::delta::Reason::AlreadyApplied)));
}

/// An event applied to an event-log playbook must follow the head of its
/// target's log, and is appended to the log as it came.
#[test]
fn an_event_must_follow_its_target_s_last_event() {
    let log = r#"{"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": [
        {"eventId": "a1", "targetId": "t", "operation": "append", "kind": "rule", "narrative": {"Overview": "Pin the toolchain."}, "createdAt": "2025-12-01T00:00:00Z"},
        {"eventId": "a2", "targetId": "t", "operation": "update", "prevEventId": "a1", "delta": {"helpfulCount": 1}, "createdAt": "2025-12-02T00:00:00Z"}
    ]}}"#;
    let event = r#"{"eventId": "b1", "targetId": "t", "operation": "update", "prevEventId": "a2", "delta": {"helpfulCount": 1}, "createdAt": "2025-12-03T00:00:00Z"}"#;
    let stale = event.replace("\"a2\"", "\"a1\"").replace("b1", "b0");
    let (_, outcome) = apply("vagenda-json", log, &[&stale], Compat::Spec);
    assert_eq!(
        outcome.verdicts[0].refusal.as_ref().map(|r| r.reason),
        Some(ace_model::delta::Reason::Conflict)
    );
    let append = r#"{"eventId": "c1", "targetId": "u", "operation": "append", "kind": "warning", "narrative": {"Overview": "Never force-push main."}, "createdAt": "2025-12-03T00:00:00Z", "reason": "incident 12"}"#;
    let refine = r#"{"eventId": "c2", "targetId": "u", "operation": "update", "prevEventId": "c1", "narrative": {"Overview": "Never force-push a shared branch."}, "createdAt": "2025-12-04T00:00:00Z"}"#;
    let (text, outcome) = apply("vagenda-json", log, &[event, append, refine], Compat::Spec);
    assert!(
        outcome.rejected().next().is_none(),
        "{:?}",
        outcome.report_json()
    );
    // The log gets the events as they came, and nothing of the writer's.
    let doc: Value = serde_json::from_str(&text).unwrap();
    let items = doc["playbook"]["items"].as_array().unwrap();
    let ids: Vec<&str> = items
        .iter()
        .map(|e| e["eventId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a1", "a2", "b1", "c1", "c2"], "{text}");
    for (got, sent) in items[2..].iter().zip([event, append, refine]) {
        assert_eq!(got, &serde_json::from_str::<Value>(sent).unwrap());
    }
    // The log holds the event now: applied again, it is refused as such;
    // one of another ID made against the same head is a conflict.
    let (_, again) = apply("vagenda-json", &text, &[event], Compat::Spec);
    assert_eq!(
        again.verdicts[0].refusal.as_ref().map(|r| r.reason),
        Some(ace_model::delta::Reason::AlreadyApplied)
    );
    let rival = event.replace("b1", "b2");
    let (_, rival) = apply("vagenda-json", &text, &[&rival], Compat::Spec);
    assert_eq!(
        rival.verdicts[0].refusal.as_ref().map(|r| r.reason),
        Some(ace_model::delta::Reason::Conflict)
    );
}

/// A vAgenda file's entries keep their key order when one of them
/// changes, and every other entry keeps its own.
#[test]
fn vagenda_entries_keep_the_file_s_key_order() {
    let base = fixture("apply/vagenda-playbook.json");
    let patch = r#"{"operations": [{"op": "incrementCounter", "entryId": "entry-1", "delta": {"helpfulCount": 1}}, {"op": "appendEntry", "entry": {"id": "entry-3", "kind": "rule", "text": "Pin the toolchain.", "tags": ["ci"], "helpfulCount": 0, "harmfulCount": 0}}]}"#;
    let (text, outcome) = apply("vagenda-json", &base, &[patch], Compat::Spec);
    assert!(outcome.rejected().next().is_none());
    let doc: Value = serde_json::from_str(&text).unwrap();
    let keys = |i: usize| -> Vec<String> {
        doc["plan"]["playbook"]["entries"][i]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    // As the file has them: status before the timestamps.
    let file_order = [
        "id",
        "kind",
        "text",
        "helpfulCount",
        "harmfulCount",
        "status",
        "createdAt",
        "updatedAt",
    ];
    assert_eq!(keys(0), file_order);
    assert_eq!(keys(1), file_order);
    // A key the file's entries lack (tags) follows the key it follows in
    // the writer's own order.
    assert_eq!(
        keys(2),
        ["id", "kind", "text", "tags", "helpfulCount", "harmfulCount"]
    );
}

/// A vAgenda file printed as JSON.stringify or Python's json.dump print
/// it (each array item on its own line, two or four spaces or a tab) is
/// written back as it was, and an increment changes only its own lines,
/// the document's sequence and its change log.
#[test]
fn vagenda_files_keep_their_print_style() {
    use serde::Serialize as _;
    let mut doc: Value = serde_json::from_str(&fixture("apply/vagenda-playbook.json")).unwrap();
    doc["plan"]["playbook"]["entries"][0]["tags"] = json!(["review", "size"]);
    doc["plan"]["playbook"]["entries"][0]["text"] =
        json!("Don\u{2019}t merge work a reviewer can\u{2019}t check in ten minutes.");
    for (indent, ascii) in [("  ", false), ("    ", true), ("\t", false)] {
        let mut text = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut text, fmt);
        doc.serialize(&mut ser).unwrap();
        let mut text = String::from_utf8(text).unwrap();
        text.push('\n');
        if ascii {
            // As json.dump writes it by default.
            text = text.replace('\u{2019}', "\\u2019");
        }
        let format = Format::from_name("vagenda-json").unwrap();
        let pb = ace_registry::read(format, &text).unwrap().playbook;
        assert_eq!(
            ace_registry::write(format, &pb).text,
            text,
            "indent {indent:?}"
        );
        let patch = r#"{"operations": [{"op": "incrementCounter", "entryId": "entry-2", "delta": {"helpfulCount": 1}}]}"#;
        let (out, _) = apply("vagenda-json", &text, &[patch], Compat::Spec);
        let old: Vec<&str> = text.lines().collect();
        let new: Vec<&str> = out.lines().collect();
        let changed: Vec<&&str> = new.iter().filter(|l| !old.contains(l)).collect();
        // helpfulCount, updatedAt, sequence, updated, and the change log.
        assert!(
            changed.iter().all(|l| [
                "\"helpfulCount\": 3",
                "2026-01-01T00:00:00Z",
                "\"sequence\": 13",
                "changeLog",
                "ace-apply",
                "\"system\"",
                "\"update\"",
                "\"playbook\"",
                "{",
                "}",
                "},",
                "]"
            ]
            .iter()
            .any(|k| l.contains(k))),
            "indent {indent:?}: {changed:#?}"
        );
    }
}

/// A vAgenda file laid out by hand (one-line entries, blank lines between
/// groups of them, compact objects) keeps every byte the deltas do not
/// change: the changed entry is written on one line as its neighbours
/// are, the new one follows the last, and the document's sequence, times,
/// metrics and change log are edited in place.
#[test]
fn a_hand_laid_out_vagenda_file_changes_only_where_the_deltas_do() {
    let src = r#"{
  "vAgendaInfo": {"version": "0.2"},
  "plan": {
    "title": "Hand-kept playbook",
    "status": "inProgress",
    "sequence": 3,
    "narratives": {"proposal": {"title": "Why", "content": "Lessons we keep."}},
    "playbook": {
      "version": 1,
      "created": "2025-12-01T00:00:00Z",
      "updated": "2025-12-01T00:00:00Z",
      "entries": [
        { "id": "entry-a", "kind": "strategy", "text": "Small pull requests.", "helpfulCount": 1, "harmfulCount": 0 },

        { "id": "entry-b", "kind": "warning", "text": "No merges on red CI.", "helpfulCount": 0, "harmfulCount": 0 },
        { "id": "entry-c", "kind": "warning", "text": "No force pushes.", "helpfulCount": 0, "harmfulCount": 0 }
      ]
    }
  }
}
"#;
    let patch = r#"{"baseDocumentSequence": 3, "operations": [
        {"op": "incrementCounter", "entryId": "entry-a", "delta": {"helpfulCount": 2}},
        {"op": "appendEntry", "entry": {"id": "entry-d", "kind": "rule", "text": "Pin the toolchain."}}]}"#;
    let (out, outcome) = apply("vagenda-json", src, &[patch], Compat::Spec);
    assert!(outcome.rejected().next().is_none());
    let expected = r#"{
  "vAgendaInfo": {"version": "0.2"},
  "plan": {
    "title": "Hand-kept playbook",
    "status": "inProgress",
    "sequence": 4,
    "narratives": {"proposal": {"title": "Why", "content": "Lessons we keep."}},
    "playbook": {
      "version": 1,
      "created": "2025-12-01T00:00:00Z",
      "updated": "2026-01-01T00:00:00Z",
      "entries": [
        { "id": "entry-a", "kind": "strategy", "text": "Small pull requests.", "helpfulCount": 3, "harmfulCount": 0, "updatedAt": "2026-01-01T00:00:00Z" },

        { "id": "entry-b", "kind": "warning", "text": "No merges on red CI.", "helpfulCount": 0, "harmfulCount": 0 },
        { "id": "entry-c", "kind": "warning", "text": "No force pushes.", "helpfulCount": 0, "harmfulCount": 0 },
        { "id": "entry-d", "kind": "rule", "text": "Pin the toolchain." }
      ],
      "metrics": {
        "totalEntries": 4,
        "lastUpdated": "2026-01-01T00:00:00Z"
      }
    },
    "changeLog": [
      {
        "sequence": 4,
        "timestamp": "2026-01-01T00:00:00Z",
        "agent": {
          "id": "ace-apply",
          "type": "system"
        },
        "operation": "update",
        "path": "playbook",
        "reason": "ace-apply: 2 operation(s)"
      }
    ]
  }
}
"#;
    assert_eq!(out, expected);
    // In CRLF, the same edits in the file's line endings.
    let (crlf, _) = apply(
        "vagenda-json",
        &src.replace('\n', "\r\n"),
        &[patch],
        Compat::Spec,
    );
    assert_eq!(crlf, expected.replace('\n', "\r\n"));
}
