//! The curator's tools in `cargo xtask compare`: `ace-apply`, `ace-diff`
//! and `ace-merge` run by both builds on the same inputs.
//!
//! Each playbook (every corpus file outside `deltas/` and `schemas/`, and
//! the generated playbook in every format) gets:
//! - every corpus delta applied to it;
//! - two edits, OURS and THEIRS, made by OLD's `ace-apply` from two
//!   generated AcePatches that touch some of the same entries (so that
//!   merging them conflicts);
//! - `ace-diff` of the playbook and OURS in every output format, its
//!   `--textconv`, and the deltas OLD's `ace-diff` writes applied back to
//!   the playbook;
//! - `ace-merge` of OURS and THEIRS from the playbook, both ways round;
//! - `ace-diff` against the next playbook of the corpus, in another format
//!   as often as not.
//!
//! Derived inputs come from OLD alone, so both builds see the same bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::compare::{Case, CLOCK};

/// The delta dialects `ace-diff --output-format` writes.
const DIFF_DIALECTS: [&str; 3] = ["acepatch", "skill-delta", "acedelta"];

fn case(label: String, tool: &'static str, args: Vec<String>, writes: bool) -> Case {
    Case {
        label,
        tool,
        args,
        writes,
    }
}

/// A playbook to curate: its path, how the output of a tool that rewrites
/// it is named (`-o`), and the IDs of its entries.
struct Target {
    path: PathBuf,
    shown: String,
    /// A directory for a format kept with a companion, else the file name.
    out: String,
    ids: Vec<String>,
}

fn target(path: &Path, shown: String) -> Target {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let format = ace_registry::detect(Some(path), &text);
    let ids = ace_fs::Source {
        name: shown.clone(),
        path: Some(path.to_owned()),
        text: text.into(),
    };
    let ids = ace_registry::convert::read_playbook(&ids, format)
        .map(|pb| {
            pb.entries
                .into_iter()
                .map(|e| e.id)
                .filter(|id| !id.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let out = match format.companion() {
        Some(_) => String::new(),
        None => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "playbook".into()),
    };
    Target {
        path: path.to_owned(),
        shown,
        out,
        ids,
    }
}

/// An AcePatch over `ids`: counters of entries spread over the playbook,
/// new entries, an edit of the second entry and, on THEIRS' side, a
/// deprecation of the third. `side` 0 is OURS, 1 THEIRS.
fn patch(ids: &[String], side: usize) -> String {
    use serde_json::json;
    let n = ids.len();
    let mut ops = Vec::new();
    let step = (n / 100).max(1) + side;
    for id in ids.iter().step_by(step).take(100) {
        ops.push(json!({"op": "incrementCounter", "entryId": id,
            "delta": if side == 0 { json!({"helpfulCount": 1}) } else { json!({"harmfulCount": 2}) }}));
    }
    let name = ["ours", "theirs"][side];
    for k in 0..(1 + n.min(9)) {
        let kind = ["strategy", "pitfall"][(k + side) % 2];
        ops.push(json!({"op": "appendEntry", "entry": {
            "id": format!("cmp-{name}-{:03}", k + 1),
            "kind": kind,
            "text": format!("Advice {k} from {name}: read the error before retrying."),
            "helpfulCount": 0,
            "harmfulCount": 0,
        }}));
    }
    if let Some(id) = ids.get(1) {
        ops.push(json!({"op": "updateEntry", "entryId": id,
            "entry": {"text": format!("Edited on the {name} branch.")}}));
    }
    if let (Some(id), 1) = (ids.get(2), side) {
        ops.push(json!({"op": "deprecateEntry", "entryId": id, "reason": "superseded"}));
    }
    json!({ "operations": ops }).to_string()
}

fn io(p: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", p.display())
}

/// Runs OLD's `tool` with the fixed clock; its standard output, or `None`
/// when it failed.
fn old_run(old: &Path, tool: &str, args: &[&std::ffi::OsStr]) -> Result<Option<Vec<u8>>, String> {
    let out = Command::new(old.join(tool))
        .args(args)
        .env("SOURCE_DATE_EPOCH", CLOCK)
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| format!("{}: {e}", old.join(tool).display()))?;
    // ace-apply exits 1 when a delta is refused but still writes; ace-diff
    // exits 1 when the files differ.
    Ok(matches!(out.status.code(), Some(0 | 1)).then_some(out.stdout))
}

/// OLD's `ace-apply` of `patch` to `t`, written under `dir`: the path of
/// the new playbook, if it wrote one.
fn edited(old: &Path, t: &Target, patch: &Path, dir: &Path) -> Result<Option<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let (out, made) = if t.out.is_empty() {
        let name = t.path.file_name().unwrap_or_default();
        (format!("{}/", dir.display()), dir.join(name))
    } else {
        (dir.join(&t.out).display().to_string(), dir.join(&t.out))
    };
    let args = [
        t.path.as_os_str(),
        patch.as_os_str(),
        "-q".as_ref(),
        "-o".as_ref(),
        out.as_ref(),
    ];
    old_run(old, "ace-apply", &args)?;
    Ok(made.is_file().then_some(made))
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The runs of the curator's tools, with the inputs they need derived
/// under `derived` by OLD.
pub fn cases(
    old: &Path,
    corpus: &Path,
    corpus_files: &[PathBuf],
    generated: &[PathBuf],
    derived: &Path,
) -> Result<Vec<Case>, String> {
    let rel = |p: &Path| p.strip_prefix(corpus).unwrap_or(p).to_owned();
    let first = |p: &Path| {
        rel(p)
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let deltas: Vec<&PathBuf> = corpus_files
        .iter()
        .filter(|p| first(p) == "deltas")
        .collect();
    let skip = |p: &Path| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        matches!(first(p).as_str(), "deltas" | "schemas")
            || name == "SOURCES.md"
            || name.starts_with("DERIVED__")
    };
    let mut targets: Vec<Target> = corpus_files
        .iter()
        .filter(|p| !skip(p))
        .map(|p| target(p, rel(p).display().to_string()))
        .collect();
    let corpus_targets = targets.len();
    targets.extend(generated.iter().map(|p| {
        let shown = format!(
            "generated {}",
            p.file_name().unwrap_or_default().to_string_lossy()
        );
        target(p, shown)
    }));
    println!(
        "curation: {} playbooks, {} corpus deltas",
        targets.len(),
        deltas.len()
    );
    let mut cases = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let path = s(&t.path);
        let out = format!("{{out}}/{}", t.out);
        let dir = derived.join(format!("{i}"));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        for d in &deltas {
            cases.push(case(
                format!("ace-apply {} {}", t.shown, rel(d).display()),
                "ace-apply",
                vec![
                    path.clone(),
                    s(d),
                    "--report".into(),
                    "json".into(),
                    "-o".into(),
                    out.clone(),
                ],
                true,
            ));
        }
        cases.push(case(
            format!("ace-diff --textconv {}", t.shown),
            "ace-diff",
            vec!["--textconv".into(), path.clone()],
            false,
        ));
        if i + 1 < corpus_targets {
            let next = &targets[i + 1];
            for how in ["text", "json"] {
                cases.push(case(
                    format!("ace-diff {} {} ({how})", t.shown, next.shown),
                    "ace-diff",
                    vec![
                        path.clone(),
                        s(&next.path),
                        "--output-format".into(),
                        how.into(),
                    ],
                    false,
                ));
            }
        }
        if t.ids.is_empty() {
            continue;
        }
        let mut sides = Vec::new();
        for side in 0..2 {
            let p = dir.join(format!("patch{side}.json"));
            std::fs::write(&p, patch(&t.ids, side)).map_err(io(&p))?;
            cases.push(case(
                format!("ace-apply {} generated patch {side}", t.shown),
                "ace-apply",
                vec![
                    path.clone(),
                    s(&p),
                    "--report".into(),
                    "json".into(),
                    "-o".into(),
                    out.clone(),
                ],
                true,
            ));
            sides.extend(edited(old, t, &p, &dir.join(format!("side{side}")))?);
        }
        let [ours, theirs] = sides.as_slice() else {
            continue;
        };
        for how in ["text", "json"].into_iter().chain(DIFF_DIALECTS) {
            cases.push(case(
                format!("ace-diff {} OURS ({how})", t.shown),
                "ace-diff",
                vec![path.clone(), s(ours), "--output-format".into(), how.into()],
                false,
            ));
        }
        for dialect in DIFF_DIALECTS {
            let args = [
                t.path.as_os_str(),
                ours.as_os_str(),
                "--output-format".as_ref(),
                dialect.as_ref(),
            ];
            let Some(delta) = old_run(old, "ace-diff", &args)? else {
                continue;
            };
            let p = dir.join(format!("{dialect}.json"));
            std::fs::write(&p, delta).map_err(io(&p))?;
            cases.push(case(
                format!("ace-apply {} (ace-diff OURS as {dialect})", t.shown),
                "ace-apply",
                vec![
                    path.clone(),
                    s(&p),
                    "--report".into(),
                    "json".into(),
                    "-o".into(),
                    out.clone(),
                ],
                true,
            ));
        }
        let merged = format!(
            "{{out}}/{}",
            ours.file_name().unwrap_or_default().to_string_lossy()
        );
        for (label, a, b) in [("OURS THEIRS", ours, theirs), ("THEIRS OURS", theirs, ours)] {
            cases.push(case(
                format!("ace-merge {} {label}", t.shown),
                "ace-merge",
                vec![
                    path.clone(),
                    s(a),
                    s(b),
                    "-o".into(),
                    merged.clone(),
                    "--conflicts".into(),
                    "{out}/conflicts.json".into(),
                ],
                true,
            ));
        }
    }
    Ok(cases)
}
