//! Rows into the model: the entries a location selects, in the order
//! ace-tools' layout table keeps (else the shared project's first in each
//! section, then the project's, each in the order they were added), with a
//! listing of the rows that diagnostics point into.

use std::collections::HashMap;

use ace_model::normalize::section_key;
use ace_model::{rules, Diagnostic, Entry, Origin, Playbook, Section, Span, Status};
use serde_json::Value;

use crate::schema::Schema;
use crate::sql::Cell;
use crate::{KeptLayout, Scope, Shell};

/// A row as selected: its cells in [`crate::schema::Columns::all`] order.
pub(crate) struct Row {
    pub cells: Vec<Cell>,
}

/// The playbook read, the listing its diagnostics' spans point into (a
/// line a row: `table(key) column=value …`), and the diagnostics.
pub struct StoreRead {
    pub playbook: Playbook,
    pub listing: String,
    pub diagnostics: Vec<Diagnostic>,
    /// The layout of the file the playbook was written from, kept for the
    /// registry to give back to that format's writer.
    pub layout: Option<KeptLayout>,
    pub schema: &'static Schema,
}

/// Builds the playbook of `scope` from `rows`, with `shell` (what ace-tools
/// kept of the file it came from) when there is one.
pub(crate) fn build(
    schema: &'static Schema,
    scope: &Scope,
    rows: &[Row],
    shell: Option<Shell>,
) -> StoreRead {
    let names = schema.columns.all();
    let at = |name: &str| names.iter().position(|n| *n == name);
    let mut out = StoreRead {
        playbook: Playbook::default(),
        listing: String::new(),
        diagnostics: Vec::new(),
        layout: None,
        schema,
    };
    let (mut pb, order, uncounted, unstamped) = match shell {
        Some(s) => {
            out.layout = s.layout;
            (s.playbook, s.order, s.uncounted, s.unstamped)
        }
        None => (
            Playbook::default(),
            Vec::new(),
            Vec::new(),
            Default::default(),
        ),
    };
    let uncounted: std::collections::HashSet<String> = uncounted.into_iter().collect();
    // Each unstamped entry's ID, with the time its row was stamped with.
    let stamp_of: HashMap<String, String> = unstamped
        .into_iter()
        .flat_map(|(t, ids)| {
            let t = crate::time::from_sql(&t);
            ids.into_iter().map(move |id| (id, t.clone()))
        })
        .collect();
    let mut key_of_title: HashMap<String, String> = pb
        .sections
        .iter()
        .map(|s| (s.display_title().to_owned(), s.key.clone()))
        .collect();
    let mut keys: std::collections::HashSet<String> =
        pb.sections.iter().map(|s| s.key.clone()).collect();
    let mut entries: Vec<Entry> = Vec::with_capacity(rows.len());
    for row in rows {
        let key = match &row.cells[0] {
            Cell::Text(t) => t.clone(),
            other => other.shown(),
        };
        let line_start = out.listing.len();
        out.listing.push_str(&format!("{}({})", schema.table, key));
        let mut spans = Vec::with_capacity(names.len());
        for (name, cell) in names.iter().zip(&row.cells) {
            let start = out.listing.len() + 1;
            out.listing.push_str(&format!(" {name}={}", cell.shown()));
            spans.push(Span::new(start, out.listing.len()));
        }
        let row_span = Span::new(line_start, out.listing.len());
        out.listing.push('\n');
        let mut bad = |column: &str, span: Span, found: &Cell, expected: &str| {
            out.diagnostics.push(Diagnostic::new(
                &rules::STORE_VALUE,
                span,
                format!(
                    "table {}, key {key}, column {column}: found {}; expected {expected}",
                    schema.table,
                    found.shown()
                ),
            ));
        };
        let cell = |name: Option<&str>| name.and_then(at).map(|i| (&row.cells[i], spans[i]));
        let text = |name: &str,
                    cell: Option<(&Cell, Span)>,
                    bad: &mut dyn FnMut(&str, Span, &Cell, &str)|
         -> Option<String> {
            match cell? {
                (Cell::Text(t), _) => Some(t.clone()),
                (Cell::Null, _) => None,
                (other, span) => {
                    bad(name, span, other, "text");
                    None
                }
            }
        };
        let c = &schema.columns;
        let mut e = Entry {
            id: key.clone(),
            origin: Origin::from(row_span),
            ..Entry::default()
        };
        if !matches!(row.cells[0], Cell::Text(_)) {
            bad(c.id, spans[0], &row.cells[0], "text");
        }
        match text(c.content, cell(Some(c.content)), &mut bad) {
            Some(t) => e.content = t,
            None => {
                if let Some((found @ Cell::Null, span)) = cell(Some(c.content)) {
                    bad(c.content, span, found, "the entry's text");
                }
            }
        }
        for (name, slot) in [(c.helpful, &mut e.helpful), (c.harmful, &mut e.harmful)] {
            match cell(Some(name)) {
                Some((Cell::Int(n), _)) => *slot = Some(*n),
                Some((Cell::Null, _)) | None => {}
                Some((other, span)) => bad(name, span, other, "a whole number"),
            }
        }
        if e.helpful == Some(0) && e.harmful == Some(0) && uncounted.contains(&e.id) {
            (e.helpful, e.harmful) = (None, None);
        }
        let section = text(c.section, cell(Some(c.section)), &mut bad).unwrap_or_default();
        // An empty section is how an entry filed under none is written
        // (the column takes no NULL in ace_claude_mcp's schema): it reads
        // back as under none, unless the playbook has a section titled so.
        if !section.is_empty() || key_of_title.contains_key("") {
            let next_key = key_of_title.len();
            let section_key = key_of_title
                .entry(section.clone())
                .or_insert_with(|| new_key(&keys, &section, next_key))
                .clone();
            if keys.insert(section_key.clone()) {
                let mut s = Section::new(section_key.clone());
                s.title = Some(section);
                pb.sections.push(s);
            }
            e.section = Some(section_key);
        }
        // A project's own entry is marked with it where a shared project
        // is read beside it (ace_claude_mcp's `[project]` marker); where
        // projects are kept apart, every row is the selection's own.
        if let Some(project) = text(c.project.unwrap_or(""), cell(c.project), &mut bad) {
            if schema
                .shared_project
                .is_some_and(|shared| shared != project)
            {
                e.project_id = Some(project);
            }
        }
        let time = |t: Option<String>| t.map(|t| crate::time::from_sql(&t));
        e.created_at = time(text(c.created.unwrap_or(""), cell(c.created), &mut bad));
        e.updated_at = time(text(c.updated.unwrap_or(""), cell(c.updated), &mut bad));
        if let Some(stamp) = stamp_of.get(&e.id) {
            let stamped = |t: &Option<String>| t.as_ref().is_none_or(|t| t == stamp);
            if stamped(&e.created_at) && stamped(&e.updated_at) {
                (e.created_at, e.updated_at) = (None, None);
            }
        }
        if let Some(used) = text(c.used.unwrap_or(""), cell(c.used), &mut bad) {
            let used = crate::time::from_sql(&used);
            e.extra
                .insert(c.used.unwrap_or_default(), Value::String(used));
        }
        if let Some(stage) = text(c.stage.unwrap_or(""), cell(c.stage), &mut bad) {
            match stage.as_str() {
                "QUARANTINED" => e.status = Some(Status::Quarantined),
                _ => {
                    e.extra
                        .insert(c.stage.unwrap_or_default(), Value::String(stage));
                }
            }
        }
        if let Some((name, (found, span))) = c.tags.and_then(|n| Some((n, cell(Some(n))?))) {
            match json_cell(found) {
                Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                    e.tags = Some(
                        items
                            .into_iter()
                            .map(|v| v.as_str().unwrap_or_default().to_owned())
                            .collect(),
                    );
                }
                _ if matches!(found, Cell::Null) => {}
                _ => bad(name, span, found, "a JSON list of strings"),
            }
        }
        if let Some((name, (found, span))) = c.vector.and_then(|n| Some((n, cell(Some(n))?))) {
            match json_cell(found) {
                Some(v) => {
                    e.extra.insert(name, v);
                }
                None if matches!(found, Cell::Null) => {}
                None => bad(name, span, found, "JSON"),
            }
        }
        entries.push(e);
    }
    pb.entries = in_order(&pb, entries, &order, scope.reads_shared());
    out.playbook = pb;
    out
}

/// `entries` in the order the layout kept (`order`, by ID). An entry it
/// does not list (one another program added) goes after the last listed
/// entry of its section, or after every entry when its section has none
/// listed; with `shared_first`, an unlisted entry of the shared project
/// goes before the first listed one of its section, as the shared
/// project's entries come first in each section.
fn in_order(
    pb: &Playbook,
    entries: Vec<Entry>,
    order: &[String],
    shared_first: bool,
) -> Vec<Entry> {
    let place: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let rank: HashMap<&str, usize> = pb
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (s.key.as_str(), i))
        .collect();
    let section_of = |e: &Entry| {
        e.section
            .as_deref()
            .and_then(|k| rank.get(k).copied())
            .unwrap_or(usize::MAX)
    };
    let mut known: Vec<(usize, Entry)> = Vec::new();
    // Unlisted: (section rank, 1 if the project's own, arrival, entry).
    let mut unknown: Vec<(usize, usize, usize, Entry)> = Vec::new();
    for (n, e) in entries.into_iter().enumerate() {
        match place.get(e.id.as_str()) {
            Some(&p) => known.push((p, e)),
            None => {
                let own = usize::from(shared_first && e.project_id.is_some());
                unknown.push((section_of(&e), own, n, e));
            }
        }
    }
    known.sort_by_key(|(p, _)| *p);
    unknown.sort_by_key(|(s, own, n, _)| (*s, *own, *n));
    // Where each section's listed entries begin and end.
    let mut first_of: HashMap<usize, usize> = HashMap::new();
    let mut last_of: HashMap<usize, usize> = HashMap::new();
    for (i, (_, e)) in known.iter().enumerate() {
        first_of.entry(section_of(e)).or_insert(i);
        last_of.insert(section_of(e), i);
    }
    let mut before: HashMap<usize, Vec<Entry>> = HashMap::new();
    let mut after: HashMap<usize, Vec<Entry>> = HashMap::new();
    let mut tail = Vec::new();
    for (s, own, _, e) in unknown {
        let shared = shared_first && own == 0;
        match (shared, first_of.get(&s), last_of.get(&s)) {
            (true, Some(&i), _) => before.entry(i).or_default().push(e),
            (false, _, Some(&i)) => after.entry(i).or_default().push(e),
            _ => tail.push(e),
        }
    }
    let mut out = Vec::with_capacity(known.len() + tail.len());
    for (i, (_, e)) in known.into_iter().enumerate() {
        out.extend(before.remove(&i).unwrap_or_default());
        out.push(e);
        out.extend(after.remove(&i).unwrap_or_default());
    }
    out.extend(tail);
    out
}

/// A key for a section titled `title` that is none of `keys`.
fn new_key(keys: &std::collections::HashSet<String>, title: &str, n: usize) -> String {
    let base = match section_key(title) {
        k if k.is_empty() => format!("section_{n}"),
        k => k,
    };
    let mut key = base.clone();
    let mut i = 2;
    while keys.contains(&key) {
        key = format!("{base}_{i}");
        i += 1;
    }
    key
}

/// A JSON column's value: text holding JSON (SQLite), or JSON already.
fn json_cell(cell: &Cell) -> Option<Value> {
    match cell {
        Cell::Text(t) => serde_json::from_str(t).ok(),
        _ => None,
    }
}
