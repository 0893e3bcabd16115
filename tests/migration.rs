//! Every corpus playbook of every variant, converted to every other format:
//! the conversion contract of docs/formats/mapping.md, checked on the files
//! people have.
//!
//! For each conversion: the output reads back; it carries no other
//! format's bookkeeping; `ace-validate` finds no error in it that the
//! source did not have; and converted back to the source's format, every
//! entry's content is there. With `ACE_MIGRATION_OUT` set, the skill-json
//! and vAgenda JSON outputs are saved there for `.ci/run` to check with
//! check-jsonschema, an independent validator.

use std::path::{Path, PathBuf};

use ace_format::ReadCtx;
use ace_model::{rules, Diagnostic, Playbook, Severity};
use ace_registry::Format;
use ace_tests::{corpus_dir, corpus_files};

/// A corpus file read as a playbook.
struct Source {
    path: PathBuf,
    format: Format,
    playbook: Playbook,
    text: String,
    /// The errors ace-validate finds in the source itself.
    errors: Vec<&'static str>,
}

fn is_error(d: &Diagnostic) -> bool {
    d.severity == Severity::Error
}

/// Every corpus file that reads as a playbook: no error that stops a
/// conversion, not a patch or delta, and for vAgenda a document that has a
/// playbook.
fn sources() -> Vec<Source> {
    let mut files: Vec<PathBuf> = Vec::new();
    for variant in [
        "markdown-playbook",
        "agents-md",
        "playbook-yaml",
        "skill-json",
        "vagenda",
    ] {
        files.extend(corpus_files(&corpus_dir(variant)));
    }
    for (variant, prefix) in [("tron", "visionik__"), ("other", "kayba-ai__")] {
        files.extend(corpus_files(&corpus_dir(variant)).into_iter().filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && (name.ends_with(".json") || name.ends_with(".tron"))
        }));
    }
    let mut out = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let format = ace_registry::detect(Some(&path), &text);
        let Ok(read) = format.read(&text, &ReadCtx::default()) else {
            continue;
        };
        let stops = read
            .parsed
            .diagnostics
            .iter()
            .any(|d| is_error(d) && !rules::is_conformance(d.code));
        let vagenda = format.name().starts_with("vagenda");
        if read.other.is_some() || stops || (vagenda && read.parsed.playbook.entries.is_empty()) {
            continue;
        }
        let errors: Vec<&'static str> =
            ace_check::validate(format, &text, &ace_check::LintOptions::default())
                .iter()
                .filter(|d| is_error(d))
                .map(|d| d.code)
                .collect();
        out.push(Source {
            path,
            format,
            playbook: read.parsed.playbook,
            text,
            errors,
        });
    }
    out
}

/// Marks of a format's bookkeeping that no other format's output may hold.
fn bookkeeping(target: Format) -> Vec<&'static str> {
    let mut marks = vec![
        "\"skill_json\"",
        "skill_json:",
        "agents_md",
        "\"skillbook\"",
    ];
    if !target.name().starts_with("vagenda") {
        marks.extend([
            "aceTools",
            "vAgendaInfo",
            "vContextInfo",
            "\"vagenda\"",
            "vagenda:",
        ]);
    }
    marks
}

/// Whitespace runs as one space: a target may rewrap or indent text.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_playbook_converts_cleanly_to_every_other_format() {
    let sources = sources();
    let save = std::env::var_os("ACE_MIGRATION_OUT").map(PathBuf::from);
    let mut by_format = std::collections::BTreeMap::<&str, usize>::new();
    for s in &sources {
        *by_format.entry(s.format.name()).or_default() += 1;
    }
    for name in [
        "markdown",
        "agents-md",
        "playbook-yaml",
        "skill-json",
        "vagenda-json",
        "vagenda-tron",
        "skillbook",
    ] {
        assert!(
            by_format.get(name).is_some_and(|n| *n > 0),
            "no corpus playbook read as {name}: {by_format:?}"
        );
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for s in &sources {
        let name = s.path.file_name().unwrap().to_string_lossy().into_owned();
        for &target in Format::all() {
            if target == s.format {
                continue;
            }
            checked += 1;
            if let Err(why) = check(s, target, save.as_deref()) {
                failures.push(format!("{name} ({}) -> {target}: {why}", s.format));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} conversions broke the contract:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 400, "only {checked} conversions: {by_format:?}");
    eprintln!(
        "{checked} conversions from {} playbooks: {by_format:?}",
        sources.len()
    );
}

fn check(s: &Source, target: Format, save: Option<&Path>) -> Result<(), String> {
    check_with(s, target, None, save)?;
    // vAgenda is written in each version it has (`--vagenda-version`).
    if target.name().starts_with("vagenda") {
        for v in ["0.2", "0.3", "0.4"] {
            check_with(s, target, Some(v), save).map_err(|e| format!("version {v}: {e}"))?;
        }
    }
    Ok(())
}

fn check_with(
    s: &Source,
    target: Format,
    version: Option<&str>,
    save: Option<&Path>,
) -> Result<(), String> {
    let mut ctx = ace_registry::WriteCtx::default();
    if let Some(v) = version {
        ctx = ctx.with_option("vagenda-version", v);
    }
    let files = ace_registry::write_files(target, &s.playbook, &ctx);
    if let Some(v) = version {
        let declared = format!("\"version\": \"{v}\"");
        // TRON: `vAgendaInfo("0.2")`, or the class's fields over lines.
        let tron = format!("Info(\"{v}\"");
        let squeezed: String = files.main.split_whitespace().collect();
        if !files.main.contains(&declared) && !squeezed.contains(&tron) {
            return Err(format!("does not declare version {v}"));
        }
    }
    // A mark the source's own text holds is its data (a spec document
    // that quotes `vAgendaInfo`), not bookkeeping.
    for mark in bookkeeping(target)
        .into_iter()
        .filter(|m| !s.text.contains(m))
    {
        let hit = files.main.contains(mark)
            || files.companion.as_deref().is_some_and(|c| c.contains(mark));
        if hit {
            return Err(format!("the output holds `{mark}`"));
        }
    }
    let from_vagenda = s.format.name().starts_with("vagenda");
    if target.name().starts_with("vagenda") && !from_vagenda && files.main.contains(": null") {
        return Err("a vAgenda output with a null in it".into());
    }
    let parsed = ace_registry::read_files(target, &files.main, files.companion.as_deref())
        .map_err(|d| format!("does not read back: {d}"))?;
    let back = parsed.playbook.clone();
    let new_errors: Vec<String> =
        ace_check::validate_parsed(target, parsed, &ace_check::LintOptions::default())
            .into_iter()
            .filter(|d| is_error(d) && !s.errors.contains(&d.code))
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
    if !new_errors.is_empty() {
        return Err(format!("ace-validate finds {new_errors:?}"));
    }
    // And back to the source's format: every entry's content is there.
    let again = ace_registry::write_files(s.format, &back, &ace_registry::WriteCtx::default());
    let returned = ace_registry::read_files(s.format, &again.main, again.companion.as_deref())
        .map_err(|d| format!("converted back, does not read: {d}"))?
        .playbook;
    let mut got: Vec<String> = returned.entries.iter().map(|e| words(&e.content)).collect();
    got.sort();
    for e in &s.playbook.entries {
        let want = words(&e.content);
        match got.binary_search(&want) {
            Ok(i) => {
                got.remove(i);
            }
            Err(_) => return Err(format!("entry `{}`'s content did not come back", e.id)),
        }
    }
    // Saved for the independent schema check, unless the source breaks
    // its own schema (a vAgenda document kept whole keeps its flaws).
    if let Some(dir) = save.filter(|_| s.errors.is_empty()) {
        if target.imp().extensions().first() == Some(&"json") {
            let stem = s.path.file_name().unwrap().to_string_lossy();
            let out = dir.join(target.name());
            std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
            let suffix = version.map(|v| format!(".v{v}")).unwrap_or_default();
            std::fs::write(out.join(format!("{stem}{suffix}.json")), &files.main)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// No silent loss: a conversion whose way back does not give the source's
/// data again (a field, an entry, or what only the source's layout kept:
/// AGENTS.md's prose, the vAgenda document around the playbook) has said
/// so on one of its two legs, with a loss `--strict` refuses.
#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_trip_that_loses_data_says_so_on_one_leg() {
    let ctx = ace_registry::WriteCtx::default().with_now(Some("2026-01-31T12:00:00Z".into()));
    let mut silent = Vec::new();
    let mut reported = 0;
    let mut trips = 0;
    for s in &sources() {
        let name = s.path.file_name().unwrap().to_string_lossy().into_owned();
        for &target in Format::all() {
            if target == s.format {
                continue;
            }
            trips += 1;
            let there = ace_registry::write_files(target, &s.playbook, &ctx);
            let Ok(b) = ace_registry::read_files(target, &there.main, there.companion.as_deref())
            else {
                continue;
            };
            let back = ace_registry::write_files(s.format, &b.playbook, &ctx);
            let Ok(c) = ace_registry::read_files(s.format, &back.main, back.companion.as_deref())
            else {
                continue;
            };
            // Each original ID to the ID it has after both legs.
            let first: std::collections::HashMap<String, String> = there
                .id_changes
                .iter()
                .map(|c| (c.old.clone(), c.new.clone()))
                .collect();
            let second: std::collections::HashMap<String, String> = back
                .id_changes
                .iter()
                .map(|c| (c.old.clone(), c.new.clone()))
                .collect();
            let ids: std::collections::HashMap<String, String> = s
                .playbook
                .entries
                .iter()
                .map(|e| {
                    let mid = first.get(&e.id).unwrap_or(&e.id);
                    (e.id.clone(), second.get(mid).unwrap_or(mid).clone())
                })
                .collect();
            let mut lost = ace_tests::props::lost_fields(&s.playbook, &c.playbook, &ids);
            // What the source's layout kept goes where the target keeps a
            // layout of the same owner (vAgenda JSON and TRON), else it is
            // left behind.
            if let Some((owner, holds)) = s.playbook.layout_holds() {
                if target.imp().layout_owner() != Some(owner) {
                    lost.extend(holds.iter().map(|h| (None, h.clone())));
                }
            }
            if lost.is_empty() {
                continue;
            }
            let said = there.losses.iter().chain(&back.losses).any(|l| l.loses());
            if said {
                reported += 1;
            } else {
                silent.push(format!(
                    "{name} ({}) -> {target} -> back: {:?}",
                    s.format,
                    lost.iter().take(4).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(
        silent.is_empty(),
        "{} of {trips} trips lose data and neither leg says so:\n{}",
        silent.len(),
        silent.join("\n")
    );
    eprintln!("{trips} trips, {reported} lose data and say so");
}

/// No false loss: on every corpus playbook, each conversion reports a loss
/// only where the data read back differs, and every difference is reported
/// (the property the generated playbooks are held to, on the files people
/// have).
#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_loss_report_is_exactly_the_difference() {
    let registry = ace_registry::Registry::builtin();
    let mut failures = Vec::new();
    let sources = sources();
    for s in &sources {
        if let Err(e) =
            ace_tests::props::the_loss_report_is_exactly_the_difference(registry, &s.playbook)
        {
            let name = s.path.file_name().unwrap().to_string_lossy().into_owned();
            let first = e.to_string();
            failures.push(format!(
                "{name} ({}): {}",
                s.format,
                first.lines().next().unwrap_or("")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus playbooks:\n{}",
        failures.len(),
        sources.len(),
        failures.join("\n")
    );
}
