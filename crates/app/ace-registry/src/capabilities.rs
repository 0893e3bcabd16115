//! What each format can hold, found by writing a playbook that uses every
//! field of the model and reading the writer's loss report. The table
//! `ace-convert --list-formats` prints is therefore what the writers do,
//! not a list kept by hand beside them.

use ace_model::{rules, LossEntry, Playbook};

use crate::Format;

/// How a format keeps one field of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// Written and read back as it was.
    Yes,
    /// Written in another form: an ID reassigned, a value defaulted or
    /// converted, text escaped (the loss report says how).
    Changed,
    /// No place for it: dropped, with a loss report.
    No,
}

impl Holds {
    pub fn mark(self) -> &'static str {
        match self {
            Holds::Yes => "yes",
            Holds::Changed => "changed",
            Holds::No => "-",
        }
    }
}

/// Where a row's field lives, which decides the loss fields that name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Playbook,
    Section,
    Entry,
}

/// The rows of the table: a label and the loss field it is reported as.
const ROWS: [(&str, Scope, &str); 30] = [
    ("playbook title", Scope::Playbook, "title"),
    ("playbook description", Scope::Playbook, "description"),
    ("playbook version", Scope::Playbook, "version"),
    ("playbook timestamps", Scope::Playbook, "created_at"),
    ("playbook project id", Scope::Playbook, "project_id"),
    ("playbook extra fields", Scope::Playbook, "extra"),
    ("section title", Scope::Section, "title"),
    ("section key", Scope::Section, "key"),
    ("section prefix", Scope::Section, "prefix"),
    ("section weight", Scope::Section, "weight"),
    ("section description", Scope::Section, "description"),
    ("entry id without a digit", Scope::Entry, "id"),
    ("entry's section", Scope::Entry, "section"),
    ("entry order across sections", Scope::Playbook, "entries"),
    ("helpful / harmful", Scope::Entry, "helpful"),
    ("neutral", Scope::Entry, "neutral"),
    ("multi-line content", Scope::Entry, "content"),
    ("kind", Scope::Entry, "kind"),
    ("title", Scope::Entry, "title"),
    ("tags", Scope::Entry, "tags"),
    ("evidence", Scope::Entry, "evidence"),
    ("confidence", Scope::Entry, "confidence"),
    ("status, deprecation reason", Scope::Entry, "status"),
    ("entry timestamps", Scope::Entry, "created_at"),
    ("supersedes / superseded by", Scope::Entry, "supersedes"),
    ("duplicate of, links", Scope::Entry, "links"),
    ("provenance", Scope::Entry, "provenance"),
    ("scope", Scope::Entry, "scope"),
    ("entry project id", Scope::Entry, "project_id"),
    ("entry extra fields", Scope::Entry, "extra"),
];

/// A playbook with every field set, in two sections whose entries
/// interleave.
fn probe() -> Playbook {
    let json = r#"{"format": "ace-canonical", "version": 1, "playbook": {
        "title": "Probe", "description": "Every field.", "version": 3, "project_id": "p",
        "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-02T00:00:00Z",
        "sections": [
            {"key": "build_patterns", "title": "Build Patterns", "prefix": "bld", "weight": 0.7,
             "description": "How we build."},
            {"key": "pitfalls", "title": "Pitfalls", "prefix": "pit", "weight": 0.4}],
        "entries": [
            {"id": "t-migrate", "section": "build_patterns", "kind": "rule", "title": "Migrate first",
             "content": "Run migrations in staging.\nThen in production.",
             "tags": ["db.migrations"], "evidence": ["pr:42"], "confidence": 0.8,
             "helpful": 3, "harmful": 1, "neutral": 2, "status": "deprecated",
             "deprecation_reason": "replaced", "created_at": "2025-01-01T00:00:00Z",
             "updated_at": "2025-01-02T00:00:00Z", "supersedes": ["pit-00001"],
             "superseded_by": "bld-00002", "duplicate_of": "pit-00001", "links": ["pit-00001"],
             "provenance": {"delta_id": "d-1"}, "scope": "global", "project_id": "p",
             "extra": {"author": "agent"}},
            {"id": "pit-00001", "section": "pitfalls", "content": "Never skip staging.",
             "helpful": 0, "harmful": 0},
            {"id": "bld-00002", "section": "build_patterns", "content": "Back up first.",
             "helpful": 1, "harmful": 0}],
        "extra": {"owner": "team"}}}"#;
    ace_json::read(json).expect("the probe is canonical JSON")
}

fn losses(format: Format, pb: &Playbook) -> Vec<LossEntry> {
    // A format is measured with its companion (the curator keeps AGENTS.md
    // and playbook.yaml together).
    crate::write_files(format, pb, &crate::WriteCtx::default()).losses
}

fn names(loss: &LossEntry, scope: Scope, field: &str) -> bool {
    let f = &*loss.field;
    let on = |name: &str| name == field || name.starts_with(&format!("{field}."));
    match scope {
        Scope::Entry => {
            loss.entry_id.is_some()
                && (on(f)
                    || (field == "created_at" && f == "updated_at")
                    || (field == "helpful" && f == "harmful")
                    || (field == "status" && f == "deprecation_reason")
                    || (field == "supersedes" && f == "superseded_by")
                    || (field == "links" && f == "duplicate_of"))
        }
        Scope::Playbook => {
            loss.entry_id.is_none()
                && !f.starts_with("sections[")
                && (on(f) || (field == "created_at" && f == "updated_at"))
        }
        // `sections[key]` alone: the whole section has no place.
        Scope::Section => f.strip_prefix("sections[").is_some_and(|rest| {
            rest.ends_with(']') || rest.split_once("].").is_some_and(|(_, name)| on(name))
        }),
    }
}

/// For every row, its label and how `format` holds it.
pub fn capabilities(format: Format) -> Vec<(&'static str, Holds)> {
    let lost = losses(format, &probe());
    ROWS.iter()
        .map(|&(label, scope, field)| {
            // A value the target derived where the probe had none (a
            // skill title for an entry without one) changes nothing held.
            let hits: Vec<&LossEntry> = lost
                .iter()
                .filter(|l| l.loses() && names(l, scope, field))
                .collect();
            let holds = if hits.is_empty() {
                Holds::Yes
            } else if hits.iter().any(|l| l.code == rules::DROPPED_FIELD.code) {
                Holds::No
            } else {
                Holds::Changed
            };
            (label, holds)
        })
        .collect()
}

/// How `format` holds the entry field a loss report names `field`
/// (`status`, `supersedes`, ...); `None` for a field with no row.
pub fn entry_field(format: Format, field: &str) -> Option<Holds> {
    entry_fields(format, &[field])[0]
}

/// [`entry_field`] for several fields, with one probe written.
pub fn entry_fields(format: Format, fields: &[&str]) -> Vec<Option<Holds>> {
    let caps = capabilities(format);
    fields
        .iter()
        .map(|field| {
            let row = ROWS
                .iter()
                .position(|&(_, scope, f)| scope == Scope::Entry && f == *field)?;
            Some(caps[row].1)
        })
        .collect()
}

/// `ace-convert --list-formats`: each format of `registry` with its
/// description, then the table of what each holds.
pub fn format_table(registry: &crate::Registry) -> String {
    use std::fmt::Write as _;
    let formats = registry.formats();
    let mut out = String::new();
    for f in formats {
        let _ = writeln!(
            out,
            "{:<14} {:<18} {}",
            f.name(),
            "read, write",
            f.describe()
        );
    }
    let columns: Vec<Vec<(&str, Holds)>> = formats.iter().map(|f| capabilities(*f)).collect();
    let _ = write!(out, "\n{:<28}", "what each holds");
    for f in formats {
        let _ = write!(out, " {:>13}", f.name());
    }
    out.push('\n');
    for (row, (label, _)) in ROWS.iter().map(|r| (r.0, ())).enumerate() {
        let _ = write!(out, "{label:<28}");
        for col in &columns {
            let _ = write!(out, " {:>13}", col[row].1.mark());
        }
        out.push('\n');
    }
    out.push_str(
        "\nyes: kept as is; changed: written in another form (an ID reassigned, a value defaulted or\nconverted, text escaped); -: no place for it. Either is reported when converting.\n",
    );
    out
}

/// The losses of the probe written as `format` that no row of the table
/// names: a format whose writer reports one needs a row for it.
pub fn unlisted_losses(format: Format) -> Vec<LossEntry> {
    losses(format, &probe())
        .into_iter()
        .filter(|loss| {
            !ROWS
                .iter()
                .any(|&(_, scope, field)| names(loss, scope, field))
        })
        .collect()
}

/// Whether what `format` tells the curator it keeps
/// ([`ace_format::Curation`]) is what its writer keeps: status,
/// provenance and timestamps, each held as is or in another form. The
/// mismatches, as `field: declared, written`.
pub fn curation_mismatches(format: Format) -> Vec<String> {
    let c = format.imp().curation(&Playbook::default());
    let mut held = entry_fields(format, &["status", "provenance", "created_at"]);
    // A status kept without its reason (kayba's `active`) is a status the
    // curator can set: the row's `No` there is the reason's.
    let status_dropped = losses(format, &probe()).iter().any(|l| {
        l.loses()
            && l.entry_id.is_some()
            && &*l.field == "status"
            && l.code == rules::DROPPED_FIELD.code
    });
    if !status_dropped && held[0] == Some(Holds::No) {
        held[0] = Some(Holds::Changed);
    }
    let keeps = |h: Option<Holds>| matches!(h, Some(Holds::Yes | Holds::Changed));
    [
        ("status", c.status, held[0]),
        ("provenance", c.provenance, held[1]),
        ("timestamps", c.timestamps, held[2]),
    ]
    .into_iter()
    .filter(|(_, declared, h)| *declared != keeps(*h))
    .map(|(field, declared, h)| format!("{field}: declared {declared}, written {h:?}"))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_json_holds_everything() {
        assert!(capabilities(Format::JSON)
            .iter()
            .all(|(_, h)| *h == Holds::Yes));
    }

    #[test]
    fn the_markdown_playbook_holds_what_its_format_spec_defines() {
        let caps = capabilities(Format::MARKDOWN);
        let get = |label: &str| caps.iter().find(|(l, _)| *l == label).unwrap().1;
        assert_eq!(get("helpful / harmful"), Holds::Yes);
        assert_eq!(get("section title"), Holds::Yes);
        assert_eq!(get("entry id without a digit"), Holds::Changed);
        assert_eq!(get("tags"), Holds::No);
        assert_eq!(get("section weight"), Holds::No);
        assert_eq!(entry_field(Format::MARKDOWN, "status"), Some(Holds::No));
        assert_eq!(
            entry_field(Format::VAGENDA_JSON, "supersedes"),
            Some(Holds::Yes)
        );
        assert_eq!(entry_field(Format::MARKDOWN, "nothing"), None);
    }

    #[test]
    fn what_each_format_tells_the_curator_is_what_its_writer_keeps() {
        let wrong: Vec<String> = Format::all()
            .iter()
            .flat_map(|&f| {
                curation_mismatches(f)
                    .into_iter()
                    .map(move |m| format!("{f}: {m}"))
            })
            .collect();
        assert_eq!(wrong, Vec::<String>::new());
    }

    #[test]
    fn every_loss_of_the_probe_falls_in_some_row() {
        for &format in Format::all() {
            assert_eq!(unlisted_losses(format), [], "{format}: losses with no row");
        }
    }
}
