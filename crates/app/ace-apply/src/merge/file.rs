//! The three-way merge of one playbook file, as git's merge driver writes
//! it: OURS' text with THEIRS' entry changes applied by the engine (the
//! [`super::plan`]), conflicts between git's markers where the format is
//! read line by line, and THEIRS' changes outside its entries (prose, a
//! title, the rest of a vAgenda document) merged too.

use std::collections::HashMap;

use ace_model::delta::Delta;
use ace_model::{LineIndex, Playbook};
use ace_registry::Format;

use super::{plan_with, theirs_way, with_markers, Conflict, Fresh, Joined, Markers, Renumbered};
use crate::{apply_to, Options, Subject};

/// One of the three versions: its text and the playbook read from it.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub text: &'a str,
    pub playbook: &'a Playbook,
}

/// How [`merge_file`] works.
#[derive(Debug, Clone, Default)]
pub struct FileOptions {
    /// The time stamped on what the merge changes (RFC 3339).
    pub now: String,
    pub markers: Markers,
}

/// A conflict as reported: where it is in the merged text, the entry's
/// conflict if it is one, and what to print.
#[derive(Debug, Clone, PartialEq)]
pub struct Reported {
    pub line: usize,
    pub conflict: Option<Conflict>,
    pub message: String,
}

impl Reported {
    /// As `ace-merge --conflicts FILE` lists it, for the file at `path`:
    /// `{path, line, entry, field, ours, theirs}` for an entry's field,
    /// else `{path, line, entry: null, field: null, message}`.
    pub fn to_json(&self, path: &str) -> serde_json::Value {
        match &self.conflict {
            Some(c) => serde_json::json!({"path": path, "line": self.line, "entry": c.entry,
                "field": c.field, "ours": c.ours, "theirs": c.theirs}),
            None => serde_json::json!({"path": path, "line": self.line, "entry": null,
                "field": null, "message": self.message}),
        }
    }
}

/// The merged text and what could not be merged.
#[derive(Debug, Clone)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Reported>,
    /// THEIRS' changes the engine refused (its messages).
    pub refused: Vec<String>,
    /// THEIRS' new entries given new IDs, OURS having taken theirs.
    pub renumbered: Vec<Renumbered>,
    /// THEIRS' new entries that OURS had added too.
    pub joined: Vec<Joined>,
}

/// Formats whose conflicts are marked in the file, git's way: those read
/// line by line, where markers are lines like any other prose
/// ([`ace_registry::Curation::line_based`]). In JSON, YAML and TRON they would
/// break the file.
pub fn takes_markers(format: Format) -> bool {
    format.imp().curation(&Playbook::default()).line_based
}

/// Merges THEIRS into OURS, both from BASE, all three of `format`.
pub fn merge_file(
    format: Format,
    base: Side<'_>,
    ours: Side<'_>,
    theirs: Side<'_>,
    opts: &FileOptions,
) -> Merged {
    let fresh = Fresh::of(format, ours.playbook, &opts.now);
    let p = plan_with(base.playbook, ours.playbook, theirs.playbook, &fresh);
    let apply_opts = Options {
        now: opts.now.clone(),
        verbatim: true,
        ..Options::default()
    };
    // `deltas` applied to one side and written over its text, as
    // ace-apply writes.
    let write = |side: Side<'_>, deltas: &[(usize, Delta)]| {
        let subject = Subject {
            format,
            text: side.text,
            companion: None,
            playbook: side.playbook.clone(),
        };
        let applied = apply_to(subject, deltas, &apply_opts);
        (applied.main_text(), applied.playbook, applied.outcome)
    };
    let (mut out, merged_pb, outcome) = write(ours, &[(0, p.delta.clone())]);
    let refused = outcome
        .rejected()
        .filter_map(|v| v.refusal.as_ref().map(|r| r.message.clone()))
        .collect();
    let m = &opts.markers;
    let markers = takes_markers(format);
    if markers && !p.conflicts.is_empty() {
        // The merge written again with the conflicts resolved THEIRS'
        // way: the two differ at the conflicting entries alone.
        let resolve = theirs_way(&p.conflicts, &merged_pb, theirs.playbook);
        let (alt, _, _) = write(ours, &[(0, p.delta), (1, resolve)]);
        out = with_markers(&out, &alt, m);
    }
    // What THEIRS changed besides its entries is the difference between
    // THEIRS and BASE with THEIRS' entry changes written over it by the
    // engine, whose own timestamps, counts and change log are then the
    // merge's, not lines in conflict.
    let to_theirs = p.theirs.to_delta();
    let (bare, _, _) = write(base, &[(0, to_theirs)]);
    let mut other: Vec<(usize, String)> = Vec::new();
    let json = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
    if bare == theirs.text {
        // THEIRS changed its entries alone.
    } else if let (Some(b), Some(x), Some(t), Some(mut o)) =
        (json(base.text), json(&bare), json(theirs.text), json(&out))
    {
        let was = o.clone();
        let paths = super::merge_outside(&b, &x, &t, &mut o);
        if o != was {
            match splice_json(&out, &o).filter(|new| same_entries(format, new, &out)) {
                Some(new) => out = new,
                None => other.push((
                    first_difference_line(&bare, theirs.text),
                    "THEIRS' changes outside its entries could not be written without changing the entries; OURS' kept".into(),
                )),
            }
        }
        for p in paths {
            other.push((
                json_line(&out, &p),
                format!("`{p}` changed on both sides to different values; OURS' kept"),
            ));
        }
    } else {
        let at = first_difference_line(&bare, theirs.text);
        match merge_lines(&bare, &out, theirs.text, m) {
            Ok(r) if same_entries(format, &r, &out) => out = r,
            Err(r) if markers && same_entries(format, &strip(&r, m), &strip(&out, m)) => out = r,
            _ => other.push((
                at,
                format!(
                    "THEIRS changed the file outside its entries (its line {at}) where OURS changed it too; OURS' {} kept, THEIRS' not merged",
                    if markers { "lines" } else { "text" }
                ),
            )),
        }
    }
    // Each conflict's line: its marked block, else where OURS holds the
    // field in a JSON file, else where OURS held the entry.
    let blocks = marker_blocks(&out, m);
    let doc = match markers {
        true => None,
        false => ace_jsonspan::parse(ours.text).ok(),
    };
    let mut claimed = vec![false; blocks.len()];
    let lines = LineIndex::new(ours.text);
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut field_at: HashMap<(&str, &str), usize> = HashMap::new();
    for c in &p.conflicts {
        let origin = ours
            .playbook
            .entries
            .iter()
            .find(|e| e.id == c.entry || (e.id.is_empty() && e.content == c.entry))
            .and_then(|e| e.origin.0);
        if let (Some(doc), Some(o)) = (&doc, origin) {
            if let Some(key) = field_key(&doc.root, o.start, &c.field) {
                field_at.insert(
                    (c.entry.as_str(), c.field.as_str()),
                    lines.line_col(ours.text, key.start).line,
                );
            }
        }
        if at.contains_key(c.entry.as_str()) {
            continue;
        }
        let line = match blocks.iter().position(|(_, b)| b.contains(&c.entry)) {
            Some(k) => {
                claimed[k] = true;
                blocks[k].0
            }
            None => origin.map_or(1, |s| lines.line_col(ours.text, s.start).line),
        };
        at.insert(&c.entry, line);
    }
    for (k, (line, _)) in blocks.iter().enumerate() {
        if !claimed[k] {
            other.push((
                *line,
                "lines outside the entries changed on both sides; marked".into(),
            ));
        }
    }
    let how = if markers { "marked" } else { "ours kept" };
    let mut conflicts: Vec<Reported> = p
        .conflicts
        .iter()
        .map(|c| Reported {
            line: field_at
                .get(&(c.entry.as_str(), c.field.as_str()))
                .or_else(|| at.get(c.entry.as_str()))
                .copied()
                .unwrap_or(1),
            message: format!(
                "`{}` {}: ours {}, theirs {}; {how}",
                c.entry, c.field, c.ours, c.theirs
            ),
            conflict: Some(c.clone()),
        })
        .collect();
    conflicts.extend(other.into_iter().map(|(line, message)| Reported {
        line,
        conflict: None,
        message,
    }));
    Merged {
        text: out,
        conflicts,
        refused,
        renumbered: p.renumbered,
        joined: p.joined,
    }
}

/// A three-way merge of lines, git's way, with markers labelled as `m`
/// says: `Err` holds the text with conflict markers. What git does
/// without a driver, and what ace-merge does with files it cannot read
/// as playbooks.
pub fn merge_lines(base: &str, ours: &str, theirs: &str, m: &Markers) -> Result<String, String> {
    let mut o = diffy::MergeOptions::new();
    o.set_conflict_style(diffy::ConflictStyle::Merge)
        .set_conflict_marker_length(m.size);
    // diffy names the sides `ours` and `theirs`; a line that is exactly a
    // marker with that name is one of its markers.
    let (open, close) = (
        format!("{} ours", "<".repeat(m.size)),
        format!("{} theirs", ">".repeat(m.size)),
    );
    let relabel = |t: String| -> String {
        t.split_inclusive('\n')
            .map(|l| {
                let bare = l.trim_end_matches(['\n', '\r']);
                if bare == open {
                    l.replacen("ours", &m.ours, 1)
                } else if bare == close {
                    l.replacen("theirs", &m.theirs, 1)
                } else {
                    l.to_owned()
                }
            })
            .collect()
    };
    o.merge(base, ours, theirs).map_err(relabel)
}

/// The marked blocks of a text: the line of each `<<<<<<<` and the
/// block's text.
fn marker_blocks(text: &str, m: &Markers) -> Vec<(usize, String)> {
    let open = format!("{} ", "<".repeat(m.size));
    let close = format!("{} ", ">".repeat(m.size));
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, l) in text.lines().enumerate() {
        if l.starts_with(&open) && current.is_none() {
            current = Some((i + 1, String::new()));
        } else if l.starts_with(&close) {
            out.extend(current.take());
        } else if let Some((_, b)) = &mut current {
            b.push_str(l);
            b.push('\n');
        }
    }
    out
}

/// `text` without its marker lines: both sides of every block kept, as a
/// reader of the file sees its entries.
fn strip(text: &str, m: &Markers) -> String {
    let bars = ["<", "=", ">"].map(|c| c.repeat(m.size));
    text.split_inclusive('\n')
        .filter(|l| !bars.iter().any(|b| l.starts_with(b.as_str())))
        .collect()
}

/// Whether two texts of one format hold the same entries, whatever they
/// hold around them.
fn same_entries(format: Format, a: &str, b: &str) -> bool {
    let ctx = ace_registry::ReadCtx::min(ace_model::Severity::Error);
    let read = |t: &str| format.read(t, &ctx).ok().map(|r| r.parsed.playbook.entries);
    matches!((read(a), read(b)), (Some(x), Some(y)) if x == y)
}

/// `text`, a JSON document, with `new` written over it: only what differs
/// is printed anew.
fn splice_json(text: &str, new: &serde_json::Value) -> Option<String> {
    let doc = ace_jsonspan::parse(text).ok()?;
    let mut edits = Vec::new();
    let mut printer = ace_jsonspan::splice::Plain::of(text);
    ace_jsonspan::splice::edits(text, &doc.root, new, &mut printer, &mut edits);
    ace_model::edit::apply(text, edits)
}

/// The key of `field` (a model field, `extra.KEY` for one kept as the
/// file had it) in the innermost object of `root` that holds byte `at` (an
/// entry's origin), or in an object nested in it (vAgenda's
/// `metadata.aceTools`): the key as the file spells it, snake or camel
/// case, with a `Count`/`_count` for a counter, `text` for `content`.
fn field_key(root: &ace_jsonspan::Node, at: usize, field: &str) -> Option<ace_model::Span> {
    let name = field.rsplit('.').next().unwrap_or(field);
    let camel: String = {
        let mut up = false;
        name.chars()
            .filter_map(|c| match c {
                '_' => {
                    up = true;
                    None
                }
                c if up => {
                    up = false;
                    Some(c.to_ascii_uppercase())
                }
                c => Some(c),
            })
            .collect()
    };
    let mut names = vec![
        name.to_owned(),
        camel.clone(),
        format!("{name}_count"),
        format!("{camel}Count"),
    ];
    match name {
        "content" => names.push("text".into()),
        "created_at" => names.push("created".into()),
        "updated_at" => names.extend(["last_updated".into(), "updated".into()]),
        _ => {}
    }
    root.object_at(at)?.key_within(&names, 3)
}

/// The line (from 1) of the value at JSON Pointer `pointer` in `text`.
fn json_line(text: &str, pointer: &str) -> usize {
    let Ok(doc) = ace_jsonspan::parse(text) else {
        return 1;
    };
    let path: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let at = doc.root.locate(&path).value_span().start;
    text[..at].matches('\n').count() + 1
}

/// The line (from 1) of `b` where it first differs from `a`.
fn first_difference_line(a: &str, b: &str) -> usize {
    let same = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    b[..same].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_merge_as_git_merges_them() {
        let m = Markers {
            size: 7,
            ours: "HEAD".into(),
            theirs: "b".into(),
        };
        let base = "a\nb\nc\n";
        assert_eq!(
            merge_lines(base, "A\nb\nc\n", "a\nb\nC\n", &m),
            Ok("A\nb\nC\n".into())
        );
        assert_eq!(
            merge_lines(base, "a\nX\nc\n", "a\nY\nc\n", &m),
            Err("a\n<<<<<<< HEAD\nX\n=======\nY\n>>>>>>> b\nc\n".into())
        );
    }

    #[test]
    fn a_marked_block_is_found_by_its_line() {
        let m = Markers::default();
        let text = "x\n<<<<<<< ours\n[a] 1\n=======\n[a] 2\n>>>>>>> theirs\ny\n";
        assert_eq!(
            marker_blocks(text, &m),
            [(2, "[a] 1\n=======\n[a] 2\n".to_owned())]
        );
        assert_eq!(strip(text, &m), "x\n[a] 1\n[a] 2\ny\n");
    }
}

/// How a three-way merge of one file by [`merge_three`] came out.
#[derive(Debug, Clone)]
pub enum ThreeWay {
    /// The playbooks merged ([`merge_file`]); `unreadable` says why the
    /// result does not read as a playbook when no conflict is marked.
    Merged {
        merged: Merged,
        unreadable: Option<String>,
    },
    /// A side (`file`) did not read as a playbook of the format (`why`):
    /// the texts merged line by line, as git merges them, `clean` when no
    /// line changed on both sides; `unreadable` as above.
    ByLines {
        file: String,
        why: String,
        text: String,
        clean: bool,
        unreadable: Option<String>,
    },
}

impl ThreeWay {
    /// The text to write over OURS.
    pub fn text(&self) -> &str {
        match self {
            ThreeWay::Merged { merged, .. } => &merged.text,
            ThreeWay::ByLines { text, .. } => text,
        }
    }

    /// Whether git may take the result as a clean merge: no conflict, and
    /// it reads as a playbook (a broken side, a truncated JSON, never
    /// passes through as a clean merge).
    pub fn clean(&self) -> bool {
        match self {
            ThreeWay::Merged { merged, unreadable } => {
                merged.conflicts.is_empty() && unreadable.is_none()
            }
            ThreeWay::ByLines {
                clean, unreadable, ..
            } => *clean && unreadable.is_none(),
        }
    }
}

/// One file merged three ways, as git's merge driver does: a side of
/// another format, or one that kept none of BASE's entries (unless
/// `allow_empty`), is refused before anything is written, naming the side;
/// a side that does not read as a playbook is merged line by line, never
/// worse than git without the driver; else the playbooks are merged.
pub fn merge_three(
    format: Format,
    base: &ace_fs::Source,
    ours: &ace_fs::Source,
    theirs: &ace_fs::Source,
    opts: &FileOptions,
    allow_empty: bool,
) -> Result<ThreeWay, (String, super::Unfit)> {
    for side in [ours, theirs] {
        if let Some(found) = super::other_format(format, &base.text, &side.text) {
            return Err((side.name.clone(), super::Unfit::OtherFormat { found }));
        }
    }
    let read = |s: &ace_fs::Source| {
        ace_registry::convert::read_playbook(s, format).map_err(|e| (s.name.clone(), e.to_string()))
    };
    let unreadable = |text: &str| {
        let source = ace_fs::Source {
            name: String::new(),
            path: None,
            text: text.to_owned().into(),
        };
        ace_registry::convert::read_playbook(&source, format)
            .err()
            .map(|e| e.to_string())
    };
    let all = (|| Ok((read(base)?, read(ours)?, read(theirs)?)))();
    let (b, o, t) = match all {
        Ok(all) => all,
        Err((file, why)) => {
            let (text, clean) =
                match merge_lines(&base.text, &ours.text, &theirs.text, &opts.markers) {
                    Ok(t) => (t, true),
                    Err(t) => (t, false),
                };
            let unreadable = clean.then(|| unreadable(&text)).flatten();
            return Ok(ThreeWay::ByLines {
                file,
                why,
                text,
                clean,
                unreadable,
            });
        }
    };
    if !allow_empty {
        for (src, pb) in [(ours, &o), (theirs, &t)] {
            if let Some(had) = super::emptied(&b, pb) {
                return Err((src.name.clone(), super::Unfit::Emptied { had }));
            }
        }
    }
    let merged = merge_file(
        format,
        side(base, &b),
        side(ours, &o),
        side(theirs, &t),
        opts,
    );
    let unreadable = merged
        .conflicts
        .is_empty()
        .then(|| unreadable(&merged.text))
        .flatten();
    Ok(ThreeWay::Merged { merged, unreadable })
}

fn side<'a>(s: &'a ace_fs::Source, playbook: &'a Playbook) -> Side<'a> {
    Side {
        text: &s.text,
        playbook,
    }
}
