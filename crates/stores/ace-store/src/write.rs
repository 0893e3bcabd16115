//! The model into rows: which rows change, the SQL that changes them, the
//! journal rows of an append-only schema, and what the schema cannot hold.

use std::collections::{HashMap, HashSet};

use ace_model::{rules, Entry, Error, LossEntry, Playbook, Status};
use serde_json::Value;

use crate::read::Row;
use crate::schema::{own_ddl, Schema};
use crate::sql::{Cell, Connection, Dialect};
use crate::time::to_sql;
use crate::{Scope, Shell, WriteOptions};

/// What a write changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    pub inserted: usize,
    pub updated: usize,
    /// Deleted, or quarantined where the schema never deletes.
    pub removed: usize,
}

/// The SQL text of a column's value: a text parameter cast to the
/// column's type where Postgres would not take text as it.
fn bind(dialect: Dialect, schema: &Schema, column: &str, n: usize) -> String {
    let c = &schema.columns;
    let cast = match dialect {
        Dialect::Sqlite => None,
        Dialect::Postgres if Some(column) == c.tags || Some(column) == c.vector => Some("JSON"),
        Dialect::Postgres if Some(column) == c.stage => Some("playbookstage"),
        Dialect::Postgres if [c.created, c.updated, c.used].contains(&Some(column)) => {
            Some("TIMESTAMP")
        }
        Dialect::Postgres => None,
    };
    match cast {
        // The parameter is text, cast by the server: a client binds text,
        // not JSON, timestamps or the schema's enums.
        Some(t) => format!("CAST(CAST(${n} AS TEXT) AS {t})"),
        None => format!("${n}"),
    }
}

/// A column as read: text columns cast to text where Postgres keeps them
/// as other types (timestamps, JSON, enums); SQLite's as stored, so that a
/// value of the wrong type is seen.
fn selected(dialect: Dialect, schema: &Schema, column: &str) -> String {
    let c = &schema.columns;
    let is_int = column == c.helpful || column == c.harmful;
    match dialect {
        Dialect::Postgres if !is_int => format!("CAST({column} AS TEXT)"),
        _ => column.to_owned(),
    }
}

/// The project column's value, a NULL read as the shared project (the
/// first schema's `project_id DEFAULT 'global'` allows one).
pub(crate) fn project_expr(schema: &Schema, column: &str) -> String {
    match schema.shared_project {
        Some(shared) => format!("COALESCE({column}, '{shared}')"),
        None => column.to_owned(),
    }
}

/// The rows of `scope`, in the order they were added.
pub(crate) fn select(
    conn: &mut dyn Connection,
    schema: &Schema,
    scope: &Scope,
) -> Result<Vec<Row>, Error> {
    let d = conn.dialect();
    let c = &schema.columns;
    let cols: Vec<String> = c.all().iter().map(|col| selected(d, schema, col)).collect();
    let (filter, params) = filter(d, schema, scope);
    let order = match d {
        Dialect::Sqlite => "rowid".to_owned(),
        Dialect::Postgres => match c.created {
            Some(created) => format!("{created}, {}", c.id),
            None => c.id.to_owned(),
        },
    };
    let sql = format!(
        "SELECT {} FROM {} WHERE {filter} ORDER BY {order}",
        cols.join(", "),
        schema.table
    );
    Ok(conn
        .query(&sql, &params)?
        .into_iter()
        .map(|cells| Row { cells })
        .collect())
}

/// The WHERE clause of `scope`'s rows and its parameters.
fn filter(d: Dialect, schema: &Schema, scope: &Scope) -> (String, Vec<Cell>) {
    let c = &schema.columns;
    let mut clauses = Vec::new();
    let mut params = Vec::new();
    if let Some(col) = c.project {
        let expr = project_expr(schema, col);
        match (scope.reads_shared(), scope.shared) {
            (true, Some(shared)) => {
                params.push(Cell::text(shared));
                params.push(Cell::text(&scope.project));
                clauses.push(format!(
                    "{expr} IN (${}, ${})",
                    params.len() - 1,
                    params.len()
                ));
            }
            _ => {
                params.push(Cell::text(&scope.project));
                clauses.push(format!("{expr} = ${}", params.len()));
            }
        }
    }
    if let (Some(col), Some(user)) = (c.user, &scope.user) {
        params.push(Cell::text(user));
        clauses.push(format!("{col} = ${}", params.len()));
    }
    if let (Some(col), Some(stage)) = (c.stage, &scope.stage) {
        params.push(Cell::text(stage));
        let expr = match d {
            Dialect::Postgres => format!("CAST({col} AS TEXT)"),
            Dialect::Sqlite => col.to_owned(),
        };
        clauses.push(format!("{expr} = ${}", params.len()));
    }
    if clauses.is_empty() {
        clauses.push("1 = 1".to_owned());
    }
    (clauses.join(" AND "), params)
}

/// The IDs of rows outside `scope` that a new row could not take (the
/// table's key is the ID, with the user where rows have one), each with
/// its project.
pub(crate) fn ids_elsewhere(
    conn: &mut dyn Connection,
    schema: &Schema,
    scope: &Scope,
    inside: &dyn Fn(&str) -> bool,
) -> Result<HashMap<String, String>, Error> {
    let c = &schema.columns;
    let project = match c.project {
        Some(col) => project_expr(schema, col),
        None => "''".to_owned(),
    };
    let (sql, params) = match (c.user, &scope.user) {
        (Some(col), Some(user)) => (
            format!(
                "SELECT {}, {project} FROM {} WHERE {col} = $1",
                c.id, schema.table
            ),
            vec![Cell::text(user)],
        ),
        _ => (
            format!("SELECT {}, {project} FROM {}", c.id, schema.table),
            Vec::new(),
        ),
    };
    let mut out = HashMap::new();
    for row in conn.query(&sql, &params)? {
        if let [Cell::Text(id), p] = row.as_slice() {
            if !inside(id) {
                let p = match p {
                    Cell::Text(t) => t.clone(),
                    other => other.shown(),
                };
                out.insert(id.clone(), p);
            }
        }
    }
    Ok(out)
}

/// The delta IDs recorded as applied to `scope`'s playbook; `own`: the
/// database has ace-tools' tables.
pub(crate) fn applied(
    conn: &mut dyn Connection,
    scope: &Scope,
    own: bool,
) -> Result<Vec<String>, Error> {
    if !own {
        return Ok(Vec::new());
    }
    Ok(conn
        .query(
            "SELECT delta_id FROM ace_applied WHERE scope = $1 ORDER BY applied_at, delta_id",
            &[Cell::text(scope.key())],
        )?
        .into_iter()
        .filter_map(|r| match r.into_iter().next() {
            Some(Cell::Text(t)) => Some(t),
            _ => None,
        })
        .collect())
}

/// What ace-tools kept of `scope`'s playbook, if anything: as stored, and
/// read. `own`: the database has ace-tools' tables.
pub(crate) fn shell(
    conn: &mut dyn Connection,
    scope: &Scope,
    own: bool,
) -> Result<(Option<String>, Option<Shell>), Error> {
    if !own {
        return Ok((None, None));
    }
    let rows = conn.query(
        "SELECT layout FROM ace_layout WHERE scope = $1",
        &[Cell::text(scope.key())],
    )?;
    let stored = rows
        .into_iter()
        .next()
        .and_then(|r| match r.into_iter().next() {
            Some(Cell::Text(t)) => Some(t),
            _ => None,
        });
    // A layout that does not parse (edited by hand) is as none: the rows
    // alone are the playbook.
    let shell = stored.as_deref().and_then(|t| serde_json::from_str(t).ok());
    Ok((stored, shell))
}

/// What [`sync`] knows already of the database.
#[derive(Default)]
pub(crate) struct Known {
    /// The schema's tables are missing: make them.
    pub create: bool,
    /// ace-tools' own tables are there.
    pub own: bool,
    /// The scope's rows, read in this transaction.
    pub rows: Option<Vec<Row>>,
    /// The layout as stored, left alone when the write would store it again.
    pub layout: Option<String>,
}

/// The values an entry's row holds, by column.
struct Values {
    cells: Vec<Cell>,
}

/// Makes `scope`'s rows hold `pb` (see [`crate::Store::write`]); inside
/// the caller's transaction.
pub(crate) fn sync(
    conn: &mut dyn Connection,
    schema: &'static Schema,
    known: Known,
    scope: &Scope,
    pb: &Playbook,
    opts: &WriteOptions,
) -> Result<Written, Error> {
    let d = conn.dialect();
    if known.create {
        conn.batch(&(schema.ddl)(d))?;
    }
    if !known.own {
        conn.batch(own_ddl(d))?;
    }
    let now = crate::time::to_sql(&opts.now);
    for id in &opts.applied {
        let n = conn.execute(
            "INSERT INTO ace_applied (scope, delta_id, applied_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[Cell::text(scope.key()), Cell::text(id), Cell::text(&now)],
        )?;
        if n == 0 {
            return Err(Error::Refused(format!(
                "already-applied: delta {id} was applied to this playbook before; nothing written"
            )));
        }
    }
    let names = schema.columns.all();
    let current: Vec<Row> = match known.rows {
        Some(rows) => rows,
        None => select(conn, schema, scope)?,
    };
    let mut by_id: HashMap<String, Row> = HashMap::with_capacity(current.len());
    let mut current_order = Vec::with_capacity(current.len());
    for row in current {
        if let Cell::Text(id) = &row.cells[0] {
            current_order.push(id.clone());
            by_id.insert(id.clone(), row);
        }
    }
    let elsewhere = ids_elsewhere(conn, schema, scope, &|id| by_id.contains_key(id))?;
    let at = |name: &str| names.iter().position(|n| *n == name);
    let mut written = Written::default();
    let mut projects: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::with_capacity(pb.entries.len());
    let mut journal = Vec::new();
    let mut pending: Vec<Values> = Vec::new();
    for e in &pb.entries {
        if !seen.insert(e.id.as_str()) {
            return Err(Error::Refused(format!(
                "entry {}: two entries have this ID, and the table keeps one row per ID; nothing written",
                e.id
            )));
        }
        let old = by_id.get(&e.id);
        if old.is_none() {
            if let Some(project) = elsewhere.get(&e.id) {
                return Err(Error::Refused(format!(
                    "table {}, key {}: the ID is project {project}'s in this database, and the table keeps one row per ID; renumber the entry; nothing written",
                    schema.table, e.id
                )));
            }
        }
        let values = values(schema, scope, pb, e, old, &now, &at);
        check_bounds(schema, e, &values, &names)?;
        if let Some(i) = schema.columns.project.and_then(at) {
            if let Cell::Text(p) = &values.cells[i] {
                if !projects.contains(p) {
                    projects.push(p.clone());
                }
            }
        }
        match old {
            None => {
                if schema.journal {
                    journal.push(Journal::new(schema, &values, None, "ADD_NEW", &names));
                }
                pending.push(values);
                written.inserted += 1;
                if pending.len() == ROWS_PER_INSERT {
                    insert(conn, schema, &names, &mut pending)?;
                }
            }
            Some(old) if !same(&old.cells, &values.cells) => {
                // ace-playbook's model stamps `last_used_at` on every
                // update (`onupdate=datetime.utcnow`).
                let mut values = values;
                if let Some(i) = schema.columns.used.and_then(at) {
                    values.cells[i] = Cell::text(&now);
                }
                if schema.journal {
                    let content = at(schema.columns.content).unwrap_or(0);
                    if old.cells[content] != values.cells[content] {
                        return Err(Error::Refused(format!(
                            "table {}, key {}, column {}: the {} schema is append-only (its ADR 0002): a bullet's content is never rewritten; nothing written",
                            schema.table, e.id, schema.columns.content, schema.name
                        )));
                    }
                    let op = operation(schema, &old.cells, &values.cells, &at);
                    journal.push(Journal::new(schema, &values, Some(&old.cells), op, &names));
                }
                update(conn, schema, scope, &names, &values)?;
                written.updated += 1;
            }
            Some(_) => {}
        }
    }
    insert(conn, schema, &names, &mut pending)?;
    for id in &current_order {
        if seen.contains(id.as_str()) {
            continue;
        }
        let old = &by_id[id];
        if schema.journal {
            let Some(stage) = schema.columns.stage.and_then(at) else {
                continue;
            };
            if old.cells[stage] == Cell::text("QUARANTINED") {
                continue;
            }
            let mut cells = old.cells.clone();
            cells[stage] = Cell::text("QUARANTINED");
            let values = Values { cells };
            journal.push(Journal::new(
                schema,
                &values,
                Some(&old.cells),
                "QUARANTINE",
                &names,
            ));
            update(conn, schema, scope, &names, &values)?;
        } else {
            delete(conn, schema, scope, id)?;
        }
        written.removed += 1;
    }
    if let Some(p) = &schema.projects {
        let stamp = |n: usize| match d {
            Dialect::Sqlite => format!("${n}"),
            Dialect::Postgres => format!("CAST(CAST(${n} AS TEXT) AS TIMESTAMP)"),
        };
        for project in &projects {
            let (sql, params) = match (p.user, &scope.user) {
                (Some(user_col), Some(user)) => (
                    format!(
                        "INSERT INTO {} ({}, {user_col}, {}, {}) VALUES ($1, $2, $3, {stamp}) ON CONFLICT DO NOTHING",
                        p.table, p.id, p.description, p.created,
                        stamp = stamp(4)
                    ),
                    vec![
                        Cell::text(project),
                        Cell::text(user),
                        Cell::Null,
                        Cell::text(&*now),
                    ],
                ),
                _ => (
                    format!(
                        "INSERT INTO {} ({}, {}, {}) VALUES ($1, $2, {stamp}) ON CONFLICT DO NOTHING",
                        p.table, p.id, p.description, p.created,
                        stamp = stamp(3)
                    ),
                    vec![Cell::text(project), Cell::Null, Cell::text(&*now)],
                ),
            };
            conn.execute(&sql, &params)?;
        }
    }
    for j in journal {
        j.insert(conn, &scope.project, &now)?;
    }
    let mut kept = pb.clone();
    let entries = std::mem::take(&mut kept.entries);
    let uncounted = entries
        .iter()
        .filter(|e| e.helpful.is_none() && e.harmful.is_none())
        .map(|e| e.id.clone())
        .collect();
    // A row there before keeps its times (an entry without any does not
    // replace them); a new one holds now.
    let created = schema.columns.created.and_then(at);
    let mut unstamped: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for e in entries
        .iter()
        .filter(|e| e.created_at.is_none() && e.updated_at.is_none())
    {
        let held = created.and_then(|i| match &by_id.get(&e.id)?.cells[i] {
            Cell::Text(t) => Some(t.clone()),
            _ => None,
        });
        unstamped
            .entry(held.unwrap_or_else(|| now.clone()))
            .or_default()
            .push(e.id.clone());
    }
    let order = entries.into_iter().map(|e| e.id).collect();
    let layout = std::mem::take(&mut kept.layout)
        .0
        .map(|l| crate::KeptLayout {
            owner: l.owner.to_owned(),
            value: l.value,
            holds: l.holds,
        });
    let layout = serde_json::to_string(&Shell {
        playbook: kept,
        order,
        uncounted,
        unstamped,
        layout,
    })
    .map_err(|e| Error::Refused(format!("the playbook's layout: {e}")))?;
    if known.layout.as_deref() != Some(layout.as_str()) {
        conn.execute(
            "INSERT INTO ace_layout (scope, layout) VALUES ($1, $2) ON CONFLICT (scope) DO UPDATE SET layout = excluded.layout",
            &[Cell::text(scope.key()), Cell::text(layout)],
        )?;
    }
    Ok(written)
}

/// Whether two rows hold the same values (a whole number read back as
/// text from Postgres counts as the same).
fn same(a: &[Cell], b: &[Cell]) -> bool {
    a == b
}

/// `e`'s row: what the entry holds, the rest from its old row, else from
/// the scope and `now`.
fn values(
    schema: &Schema,
    scope: &Scope,
    pb: &Playbook,
    e: &Entry,
    old: Option<&Row>,
    now: &str,
    at: &dyn Fn(&str) -> Option<usize>,
) -> Values {
    let c = &schema.columns;
    let names = c.all();
    let kept = |name: Option<&str>| -> Option<Cell> {
        let i = at(name?)?;
        old.map(|r| r.cells[i].clone())
    };
    let text_or = |v: Option<&str>, name: Option<&str>, default: &str| -> Cell {
        match v {
            Some(v) => Cell::text(v),
            None => kept(name).unwrap_or_else(|| Cell::text(default)),
        }
    };
    let section = e
        .section
        .as_deref()
        .map(|k| {
            pb.sections
                .iter()
                .find(|s| s.key == k)
                .map_or(k, |s| s.display_title())
        })
        .unwrap_or("");
    let mut cells = Vec::with_capacity(names.len());
    for name in &names {
        let name = *name;
        let cell = if name == c.id {
            Cell::text(&e.id)
        } else if Some(name) == c.project {
            match kept(c.project) {
                Some(Cell::Text(p)) => Cell::Text(p),
                _ => Cell::text(e.project_id.as_deref().unwrap_or(&scope.project)),
            }
        } else if Some(name) == c.user {
            Cell::text(scope.user.as_deref().unwrap_or(schema.default_user))
        } else if Some(name) == c.stage {
            match (&e.status, e.extra.get(name).and_then(Value::as_str)) {
                (Some(Status::Quarantined), _) => Cell::text("QUARANTINED"),
                (_, Some(stage)) => Cell::text(stage),
                _ => kept(c.stage)
                    .unwrap_or_else(|| Cell::text(scope.stage.as_deref().unwrap_or("SHADOW"))),
            }
        } else if name == c.section {
            Cell::text(section)
        } else if name == c.content {
            Cell::text(&e.content)
        } else if name == c.helpful {
            Cell::Int(e.helpful.unwrap_or(0))
        } else if name == c.harmful {
            Cell::Int(e.harmful.unwrap_or(0))
        } else if Some(name) == c.created {
            text_or(
                e.created_at.as_deref().map(to_sql).as_deref(),
                c.created,
                now,
            )
        } else if Some(name) == c.updated {
            text_or(
                e.updated_at.as_deref().map(to_sql).as_deref(),
                c.updated,
                now,
            )
        } else if Some(name) == c.used {
            let used = e.extra.get(name).and_then(Value::as_str).map(to_sql);
            text_or(used.as_deref(), c.used, now)
        } else if Some(name) == c.tags {
            let tags = e.tags.clone().unwrap_or_default();
            Cell::text(python_json(&Value::from(tags)))
        } else if Some(name) == c.vector {
            match e.extra.get(name) {
                Some(v) => Cell::text(python_json(v)),
                None => kept(c.vector).unwrap_or_else(|| Cell::text("[]")),
            }
        } else {
            Cell::Null
        };
        cells.push(cell);
    }
    Values { cells }
}

/// A bounded column's value that is longer than the column holds is
/// refused before anything is written: Postgres would refuse it mid-way,
/// and SQLite would store what ace-playbook's own code cannot.
fn check_bounds(schema: &Schema, e: &Entry, v: &Values, names: &[&str]) -> Result<(), Error> {
    for (column, max) in schema.columns.bounds {
        let Some(i) = names.iter().position(|n| n == column) else {
            continue;
        };
        if let Cell::Text(t) = &v.cells[i] {
            let n = t.chars().count();
            if n > *max {
                return Err(Error::Refused(format!(
                    "table {}, key {}, column {column}: {t:?} is {n} characters; the column holds {max}; nothing written",
                    schema.table, e.id
                )));
            }
        }
    }
    Ok(())
}

/// Rows a multi-row `INSERT` carries at most: few enough statements to
/// make a migration a few hundred round trips, and parameters well under
/// SQLite's and Postgres's limits.
const ROWS_PER_INSERT: usize = 256;

/// Inserts `rows`, [`ROWS_PER_INSERT`] to a statement.
fn insert(
    conn: &mut dyn Connection,
    schema: &Schema,
    names: &[&str],
    rows: &mut Vec<Values>,
) -> Result<(), Error> {
    let d = conn.dialect();
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut n = 0;
        let tuples: Vec<String> = chunk
            .iter()
            .map(|_| {
                let binds: Vec<String> = names
                    .iter()
                    .map(|col| {
                        n += 1;
                        bind(d, schema, col, n)
                    })
                    .collect();
                format!("({})", binds.join(", "))
            })
            .collect();
        let params: Vec<Cell> = chunk.iter().flat_map(|v| v.cells.iter().cloned()).collect();
        conn.execute(
            &format!(
                "INSERT INTO {} ({}) VALUES {}",
                schema.table,
                names.join(", "),
                tuples.join(", ")
            ),
            &params,
        )?;
    }
    rows.clear();
    Ok(())
}

/// The WHERE clause of one row: its ID, and its user where rows are
/// keyed by both.
fn key_clause(schema: &Schema, scope: &Scope, first: usize, id: &str) -> (String, Vec<Cell>) {
    let c = &schema.columns;
    match (c.user, &scope.user) {
        (Some(col), Some(user)) => (
            format!("{} = ${first} AND {col} = ${}", c.id, first + 1),
            vec![Cell::text(id), Cell::text(user)],
        ),
        _ => (format!("{} = ${first}", c.id), vec![Cell::text(id)]),
    }
}

fn update(
    conn: &mut dyn Connection,
    schema: &Schema,
    scope: &Scope,
    names: &[&str],
    v: &Values,
) -> Result<(), Error> {
    let d = conn.dialect();
    let sets: Vec<String> = names
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, n)| format!("{n} = {}", bind(d, schema, n, i)))
        .collect();
    let id = match &v.cells[0] {
        Cell::Text(t) => t.clone(),
        other => other.shown(),
    };
    let (clause, key) = key_clause(schema, scope, names.len(), &id);
    let mut params: Vec<Cell> = v.cells[1..].to_vec();
    params.extend(key);
    conn.execute(
        &format!(
            "UPDATE {} SET {} WHERE {clause}",
            schema.table,
            sets.join(", ")
        ),
        &params,
    )?;
    Ok(())
}

fn delete(
    conn: &mut dyn Connection,
    schema: &Schema,
    scope: &Scope,
    id: &str,
) -> Result<(), Error> {
    let (clause, key) = key_clause(schema, scope, 1, id);
    conn.execute(
        &format!("DELETE FROM {} WHERE {clause}", schema.table),
        &key,
    )?;
    Ok(())
}

/// ace-playbook's operation for a changed bullet: which counter grew, or
/// a quarantine.
fn operation(
    schema: &Schema,
    old: &[Cell],
    new: &[Cell],
    at: &dyn Fn(&str) -> Option<usize>,
) -> &'static str {
    let c = &schema.columns;
    let grew = |name: &str| {
        at(name).is_some_and(|i| match (&old[i], &new[i]) {
            (Cell::Int(a), Cell::Int(b)) => b > a,
            _ => false,
        })
    };
    let quarantined = c
        .stage
        .and_then(at)
        .is_some_and(|i| new[i] == Cell::text("QUARANTINED") && old[i] != new[i]);
    if quarantined {
        "QUARANTINE"
    } else if grew(c.harmful) {
        "INCREMENT_HARMFUL"
    } else {
        // ace-playbook journals a neutral increment as a helpful one
        // (`journal_repository.py`'s operation map), and has no
        // operation for other edits.
        "INCREMENT_HELPFUL"
    }
}

/// A row of ace-playbook's `diff_journal_entries`.
struct Journal {
    bullet: String,
    op: &'static str,
    before_hash: Option<String>,
    after_hash: String,
    after_state: Option<Value>,
    stage: Option<String>,
}

impl Journal {
    fn new(
        schema: &Schema,
        new: &Values,
        old: Option<&[Cell]>,
        op: &'static str,
        names: &[&str],
    ) -> Journal {
        let get = |cells: &[Cell], name: Option<&str>| -> Cell {
            name.and_then(|n| names.iter().position(|x| *x == n))
                .map_or(Cell::Null, |i| cells[i].clone())
        };
        let c = &schema.columns;
        let state = |cells: &[Cell]| -> Value {
            let text = |n: Option<&str>| match get(cells, n) {
                Cell::Text(t) => Value::String(t),
                _ => Value::Null,
            };
            let int = |n: &str| match get(cells, Some(n)) {
                Cell::Int(i) => Value::from(i),
                _ => Value::Null,
            };
            let mut tags: Vec<String> = match get(cells, c.tags) {
                Cell::Text(t) => serde_json::from_str(&t).unwrap_or_default(),
                _ => Vec::new(),
            };
            tags.sort();
            serde_json::json!({
                "id": text(Some(c.id)),
                "domain_id": text(c.project),
                "content": text(Some(c.content)),
                "section": text(Some(c.section)),
                "helpful_count": int(c.helpful),
                "harmful_count": int(c.harmful),
                "tags": tags,
            })
        };
        let hash = |v: &Value| sha256_hex(python_json_sorted(v).as_bytes());
        let after = state(&new.cells);
        let stage = match get(&new.cells, c.stage) {
            Cell::Text(t) => Some(t),
            _ => None,
        };
        Journal {
            bullet: match get(&new.cells, Some(c.id)) {
                Cell::Text(t) => t,
                other => other.shown(),
            },
            op,
            before_hash: old.map(|o| hash(&state(o))),
            after_hash: hash(&after),
            // As ace-playbook's journal repository records them: the new
            // bullet's state for an addition, none otherwise.
            after_state: (op == "ADD_NEW").then(|| {
                serde_json::json!({
                    "id": after["id"],
                    "content": after["content"],
                    "section": after["section"],
                    "helpful_count": after["helpful_count"],
                    "harmful_count": after["harmful_count"],
                    "stage": stage.clone().unwrap_or_default().to_lowercase(),
                })
            }),
            stage,
        }
    }

    fn insert(self, conn: &mut dyn Connection, domain: &str, now: &str) -> Result<(), Error> {
        let d = conn.dialect();
        let id = uuid::Uuid::new_v5(
            &uuid::Uuid::NAMESPACE_OID,
            format!("{}|{}|{}|{now}", self.bullet, self.op, self.after_hash).as_bytes(),
        )
        .to_string();
        let (json, op, time) = match d {
            Dialect::Sqlite => ("$8", "$5", "$9"),
            Dialect::Postgres => (
                "CAST(CAST($8 AS TEXT) AS JSON)",
                "CAST(CAST($5 AS TEXT) AS mergeoperation)",
                "CAST(CAST($9 AS TEXT) AS TIMESTAMP)",
            ),
        };
        conn.execute(
            &format!(
                "INSERT INTO diff_journal_entries (id, task_id, domain_id, bullet_id, operation, before_hash, after_hash, after_state, timestamp, stage) \
                 VALUES ($1, $2, $3, $4, {op}, $6, $7, {json}, {time}, $10)"
            ),
            &[
                Cell::text(id),
                Cell::text("ace-tools"),
                Cell::text(domain),
                Cell::text(self.bullet),
                Cell::text(self.op),
                self.before_hash.map_or(Cell::Null, Cell::Text),
                Cell::Text(self.after_hash),
                self.after_state
                    .map_or(Cell::Null, |v| Cell::text(python_json(&v))),
                Cell::text(now),
                self.stage.map_or(Cell::Null, Cell::Text),
            ],
        )?;
        Ok(())
    }
}

/// `json.dumps(v)` as Python prints it.
fn python_json(v: &Value) -> String {
    let mut s = String::new();
    ace_pyjson::dump_line(v, true, &mut s);
    s
}

/// `json.dumps(v, sort_keys=True)`.
fn python_json_sorted(v: &Value) -> String {
    python_json(&ace_pyjson::sort_keys(v))
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What `schema`'s rows cannot hold of `pb`: each such value of an entry,
/// and each counter written as 0 because the entry had none. The
/// playbook's own fields, its sections and the entries' order are kept in
/// ace-tools' layout table.
pub fn losses(schema: &Schema, pb: &Playbook) -> Vec<LossEntry> {
    let c = &schema.columns;
    let mut out = Vec::new();
    let why = |field: &str| -> String {
        format!(
            "the {} schema has no column for an entry's {field}",
            schema.name
        )
    };
    for e in &pb.entries {
        for (field, present) in e.optional_fields() {
            let held = match field {
                "created_at" => c.created.is_some(),
                "updated_at" => c.updated.is_some(),
                "tags" => c.tags.is_some(),
                "project_id" => c.project.is_some(),
                "status" => c.stage.is_some() && e.status == Some(Status::Quarantined),
                _ => false,
            };
            if present && !held {
                out.push(LossEntry::new(
                    &rules::DROPPED_FIELD,
                    Some(&e.id),
                    field,
                    why(field),
                ));
            }
        }
        if e.neutral.is_some() {
            out.push(LossEntry::new(
                &rules::DROPPED_FIELD,
                Some(&e.id),
                "neutral",
                why("neutral"),
            ));
        }
        for key in e.extra.keys() {
            let k = key.as_str();
            if [c.used, c.stage, c.vector].contains(&Some(k)) {
                continue;
            }
            out.push(LossEntry::new(
                &rules::DROPPED_FIELD,
                Some(&e.id),
                format!("extra.{k}"),
                why("extra fields"),
            ));
        }
        for (field, v) in [("helpful", e.helpful), ("harmful", e.harmful)] {
            if v.is_none() {
                out.push(LossEntry::new(
                    &rules::VALUE_DEFAULTED,
                    Some(&e.id),
                    field,
                    "the column needs a number; written as 0",
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bullet_hash_is_ace_playbooks() {
        // compute_bullet_hash's input for this state, as Python prints
        // it: json.dumps(state, sort_keys=True).
        let v = serde_json::json!({"id": "b1", "domain_id": "d", "content": "Caf\u{e9}",
            "section": "Helpful", "helpful_count": 1, "harmful_count": 0, "tags": ["x"]});
        assert_eq!(
            python_json_sorted(&v),
            r#"{"content": "Caf\u00e9", "domain_id": "d", "harmful_count": 0, "helpful_count": 1, "id": "b1", "section": "Helpful", "tags": ["x"]}"#
        );
    }
}
