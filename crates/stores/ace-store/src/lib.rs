//! Playbooks kept in databases: the schemas of the ACE projects that keep
//! theirs in SQL (as data, [`schema`]), read into the canonical model and
//! written back in one transaction, through any engine that implements
//! [`sql::Connection`].

pub mod location;
mod projects;
mod read;
pub mod schema;
pub mod sql;
mod time;
mod write;

use std::time::Duration;

use ace_format::{AppliedDelta, Curation, Ledger};
use ace_model::{Error, Playbook};
use serde::{Deserialize, Serialize};

pub use location::{Db, Location, Selector};
pub use projects::{Project, Reflection};
pub use read::StoreRead;
pub use schema::Schema;
pub use sql::{Access, Cell, Connection, Dialect, Engine, Table};
pub use write::{losses, Written};

/// The rows a location selects, resolved against the database: one
/// project (and the shared one beside it), one user, maybe one stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub project: String,
    pub user: Option<String>,
    /// A stage as the schema stores it (`PROD`).
    pub stage: Option<String>,
    pub shared: Option<&'static str>,
}

impl Scope {
    /// Whether the shared project's rows are read beside the project's.
    pub fn reads_shared(&self) -> bool {
        self.shared.is_some_and(|s| s != self.project)
    }

    /// The key of ace-tools' own rows for this scope.
    pub fn key(&self) -> String {
        let mut k = format!("project={}", self.project);
        if let Some(u) = &self.user {
            k.push_str(&format!("&user={u}"));
        }
        if let Some(s) = &self.stage {
            k.push_str(&format!("&stage={s}"));
        }
        k
    }
}

/// What ace-tools keeps of a playbook beside the schema's rows: the
/// playbook without its entries (title, sections in order, ...) and the
/// entries' order by ID.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Shell {
    pub playbook: Playbook,
    pub order: Vec<String>,
    /// The entries that had no counters: the columns hold 0, which these
    /// read back as none while they still do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncounted: Vec<String>,
    /// The entries that had no times, by the time their rows were stamped
    /// with (as the column holds it): those read back with none while
    /// their rows still hold that time.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub unstamped: std::collections::BTreeMap<String, Vec<String>>,
    /// The file's layout ([`ace_model::Layout`]), for a rewrite in the
    /// format it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<KeptLayout>,
}

/// A [`ace_model::Layout`] as stored: its owner by name, which the
/// registry turns back into the format's own.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KeptLayout {
    pub owner: String,
    pub value: serde_json::Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holds: Vec<String>,
}

/// The key of a playbook's extra fields under which [`Store::update`]
/// lists the delta IDs already applied to it, for the engine's ledger
/// ([`LEDGER`]); taken out again before anything is written.
pub const APPLIED_KEY: &str = "ace_tools_applied";

/// The key under which [`Store::update`] lists the IDs other projects'
/// rows hold, which a new entry must not take; taken out before anything
/// is written.
pub const RESERVED_KEY: &str = "ace_tools_reserved";

/// The ledger of a playbook read from a database: the delta IDs of
/// `ace_applied`, as [`Store::update`] lists them in the playbook, and the
/// IDs of rows outside the selection.
pub struct StoreLedger;

pub static LEDGER: StoreLedger = StoreLedger;

/// The end of a message about a `what` (project, user) a location holds
/// nothing of: what it could have named instead, the first twenty of
/// `names` quoted, or that there is none.
pub fn held(what: &str, names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().take(20).map(|n| format!("`{n}`")).collect();
    let more = match names.len() {
        n if n > 20 => format!(", and {} more", n - 20),
        _ => String::new(),
    };
    match names.len() {
        0 => format!("; it holds no {what}"),
        1 => format!("; it holds {what} {}", quoted[0]),
        _ => format!("; it holds {what}s {}{more}", quoted.join(", ")),
    }
}

/// The strings listed under `key` in `pb`'s extra fields.
fn listed(pb: &Playbook, key: &str) -> Vec<String> {
    pb.extra
        .get(key)
        .and_then(serde_json::Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

impl Ledger for StoreLedger {
    fn applied(&self, pb: &Playbook) -> Vec<String> {
        listed(pb, APPLIED_KEY)
    }

    fn reserved(&self, pb: &Playbook) -> Vec<String> {
        listed(pb, RESERVED_KEY)
    }

    fn record(&self, pb: &mut Playbook, applied: &[AppliedDelta], _now: &str) {
        let list = pb
            .extra
            .entry(APPLIED_KEY)
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let Some(ids) = list.as_array_mut() {
            ids.extend(applied.iter().filter_map(|a| a.id.clone()).map(Into::into));
        }
    }
}

impl Schema {
    /// How the curator treats this schema's rows: its projects' ID scheme,
    /// times kept, the applied deltas in ace-tools' own table.
    pub fn curation(&self) -> Curation {
        Curation {
            ids: self.ids,
            status: false,
            provenance: false,
            timestamps: true,
            line_based: false,
            ledger: Some(&LEDGER),
            counter: None,
            kept_apart: None,
            appends: false,
            dialect: None,
            complete_new: None,
            refuse_set: None,
            title_of: None,
        }
    }
}

/// What [`Store::update`]'s change gives back: the playbook to write, if
/// anything changed, and what else the caller wants out.
pub struct Change<T> {
    pub playbook: Option<Playbook>,
    pub value: T,
}

/// An open database location.
pub struct Store {
    conn: Box<dyn Connection>,
    pub location: Location,
    /// `None` while the database has none of the schemas' tables.
    pub schema: Option<&'static Schema>,
    /// Whether ace-tools' own tables are there.
    own: bool,
}

/// How [`Store::write`] writes.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The time stamped on new and changed rows (RFC 3339, or SQL's
    /// `YYYY-MM-DD HH:MM:SS`).
    pub now: String,
    /// How long to wait for another writer.
    pub wait: Duration,
    /// Delta IDs to record as applied in the same transaction: the write
    /// is refused, with nothing written, when one is recorded already.
    pub applied: Vec<String>,
    /// Whether the playbook holds the shared project's entries beside the
    /// project's (it was read from this location, to be written back):
    /// then a shared entry it lacks is removed. A playbook from elsewhere
    /// (a migration) is the project's alone, and the shared rows stay.
    pub with_shared: bool,
}

impl Store {
    /// Opens `location` with `engine` for what `access` says.
    pub fn open(engine: &dyn Engine, location: &Location, access: Access) -> Result<Store, Error> {
        let mut conn = engine.open(location, access)?;
        let tables = conn.tables()?;
        let schema = match schema::detect(&tables) {
            schema::Detected::Schema(s) => Some(s),
            schema::Detected::Empty => None,
            schema::Detected::Unknown(names) => {
                return Err(Error::Refused(format!(
                    "{location}: the database's tables ({}) are of no schema ace-tools knows; it knows: {}",
                    names.join(", "),
                    schema::known()
                )))
            }
        };
        if let (Some(s), Some(want)) = (schema, &location.select.schema) {
            if s.name != want {
                return Err(Error::Refused(format!(
                    "{location}: the database holds the {} schema, not {want}",
                    s.name
                )));
            }
        }
        if let Some(want) = &location.select.schema {
            if schema::by_name(want).is_none() {
                return Err(Error::value(
                    "schema",
                    want,
                    format!("one of: {}", schema::known()),
                ));
            }
        }
        let own = ["ace_applied", "ace_layout"]
            .iter()
            .all(|name| tables.iter().any(|t| t.name == *name));
        Ok(Store {
            conn,
            location: location.clone(),
            schema,
            own,
        })
    }

    /// The schema a write uses: the database's, else the one the location
    /// names, else ace_claude_mcp's.
    fn write_schema(&self) -> &'static Schema {
        self.schema
            .or_else(|| {
                self.location
                    .select
                    .schema
                    .as_deref()
                    .and_then(schema::by_name)
            })
            .unwrap_or(&schema::CLAUDE_MCP)
    }

    /// The rows the location selects, the defaults filled in from what the
    /// database holds: its one project and user when it has one, the
    /// schema's defaults when it has none.
    pub fn scope(&mut self) -> Result<Scope, Error> {
        let schema = self.write_schema();
        let s = self.location.select.clone();
        let c = &schema.columns;
        let user = match (c.user, &s.user) {
            (None, Some(_)) => {
                return Err(Error::Usage(format!(
                    "{}: the {} schema has no users; drop `user=`",
                    self.location, schema.name
                )))
            }
            (None, None) => None,
            (Some(_), Some(u)) => Some(u.clone()),
            (Some(col), None) => Some(self.only_one(schema, col, "user", schema.default_user)?),
        };
        let project = match &s.project {
            Some(p) => p.clone(),
            None => match (schema.shared_project, c.project) {
                (Some(shared), _) => shared.to_owned(),
                (None, Some(col)) => {
                    self.only_one(schema, col, "project", schema.default_project)?
                }
                (None, None) => schema.default_project.to_owned(),
            },
        };
        let stage = match (&s.stage, c.stage) {
            (None, _) => None,
            (Some(st), Some(_)) => {
                let upper = st.to_ascii_uppercase();
                if !schema::STAGES.contains(&upper.as_str()) {
                    return Err(Error::value(
                        "stage",
                        st,
                        format!("one of {}", schema::STAGES.join(", ").to_lowercase()),
                    ));
                }
                Some(upper)
            }
            (Some(_), None) => {
                return Err(Error::Usage(format!(
                    "{}: the {} schema has no stages; drop `stage=`",
                    self.location, schema.name
                )))
            }
        };
        Ok(Scope {
            project,
            user,
            stage,
            shared: schema.shared_project,
        })
    }

    /// The one value of `column` in the entry table, `default` when there
    /// are none; several are an error that lists them.
    fn only_one(
        &mut self,
        schema: &Schema,
        column: &str,
        what: &str,
        default: &str,
    ) -> Result<String, Error> {
        if self.schema.is_none() {
            return Ok(default.to_owned());
        }
        match self.distinct(schema, column, None)?.as_slice() {
            [] => Ok(default.to_owned()),
            [one] => Ok(one.clone()),
            many => Err(Error::Usage(format!(
                "{}: which {what}? Name one with `#{what}=NAME`{}",
                self.location,
                held(what, many)
            ))),
        }
    }

    /// The values of `expr` in the entry table, sorted; with `user`
    /// (column, value), in that user's rows only.
    fn distinct(
        &mut self,
        schema: &Schema,
        expr: &str,
        user: Option<(&str, &str)>,
    ) -> Result<Vec<String>, Error> {
        let (filter, params) = match user {
            Some((col, u)) => (format!(" WHERE {col} = $1"), vec![Cell::text(u)]),
            None => (String::new(), Vec::new()),
        };
        let rows = self.conn.query(
            &format!(
                "SELECT DISTINCT {expr} FROM {}{filter} ORDER BY 1",
                schema.table
            ),
            &params,
        )?;
        Ok(rows
            .into_iter()
            .filter_map(|r| match r.into_iter().next() {
                Some(Cell::Text(t)) => Some(t),
                _ => None,
            })
            .collect())
    }

    /// The project or user the location names that the database holds
    /// nothing of (no row, no line in its table of projects, no layout
    /// kept), with what it does hold: a read-only tool refuses to read it,
    /// as it would a missing file; a write makes it. The shared project is
    /// always there.
    pub fn absent(&mut self) -> Result<Option<String>, Error> {
        let schema = self.existing_schema()?;
        let scope = self.scope()?;
        if write::shell(&mut *self.conn, &scope, self.own)?.1.is_some() {
            return Ok(None);
        }
        let c = &schema.columns;
        let select = self.location.select.clone();
        if let (Some(col), Some(user)) = (c.user, &select.user) {
            let users = self.distinct(schema, col, None)?;
            if !users.contains(user) {
                return Ok(Some(format!(
                    "no user `{user}` is there{}",
                    held("user", &users)
                )));
            }
        }
        let named = select
            .project
            .filter(|p| Some(p.as_str()) != schema.shared_project);
        if let (Some(col), Some(project)) = (c.project, named) {
            let user = c.user.zip(scope.user.as_deref());
            let mut projects = self.distinct(schema, &write::project_expr(schema, col), user)?;
            for p in self.projects()? {
                if !projects.contains(&p.id) {
                    projects.push(p.id);
                }
            }
            if !projects.contains(&project) {
                projects.sort();
                return Ok(Some(format!(
                    "no project `{project}` is there{}",
                    held("project", &projects)
                )));
            }
        }
        Ok(None)
    }

    /// The database's schema; a database without one holds no playbook
    /// to read or apply to.
    fn existing_schema(&self) -> Result<&'static Schema, Error> {
        self.schema.ok_or_else(|| {
            Error::Refused(format!(
                "{}: the database has no playbook tables; ace-tools knows: {}",
                self.location,
                schema::known()
            ))
        })
    }

    /// The playbook the location selects.
    pub fn read(&mut self) -> Result<StoreRead, Error> {
        let schema = self.existing_schema()?;
        let scope = self.scope()?;
        let rows = write::select(&mut *self.conn, schema, &scope)?;
        let (_, shell) = write::shell(&mut *self.conn, &scope, self.own)?;
        Ok(read::build(schema, &scope, &rows, shell))
    }

    /// Reads the playbook the location selects and writes back what
    /// `change` makes of it, in one transaction that no other writer of
    /// the playbook interleaves with: the read is made under the write
    /// lock, so a counter another process raised meanwhile is seen. The
    /// playbook handed over lists the delta IDs applied to it under
    /// [`APPLIED_KEY`]; those it lists on return are recorded. A change
    /// that fails, or a process that dies, leaves the rows as they were.
    pub fn update<T>(
        &mut self,
        opts: &WriteOptions,
        change: impl FnOnce(StoreRead) -> Result<Change<T>, Error>,
    ) -> Result<(Option<Written>, T), Error> {
        let schema = self.existing_schema()?;
        let scope = self.scope()?;
        self.conn.begin(&scope.key(), opts.wait)?;
        let conn = &mut *self.conn;
        let own = self.own;
        let result = (|| {
            let rows = write::select(conn, schema, &scope)?;
            let (stored, shell) = write::shell(conn, &scope, own)?;
            let before = write::applied(conn, &scope, own)?;
            let inside: std::collections::HashSet<String> = rows
                .iter()
                .filter_map(|r| match r.cells.first() {
                    Some(Cell::Text(id)) => Some(id.clone()),
                    _ => None,
                })
                .collect();
            let elsewhere: Vec<String> =
                write::ids_elsewhere(conn, schema, &scope, &|id| inside.contains(id))?
                    .into_keys()
                    .collect();
            let mut read = read::build(schema, &scope, &rows, shell);
            let extra = &mut read.playbook.extra;
            extra.insert(APPLIED_KEY.to_owned(), before.clone().into());
            extra.insert(RESERVED_KEY.to_owned(), elsewhere.into());
            let Change { playbook, value } = change(read)?;
            let Some(mut pb) = playbook else {
                return Ok((None, value));
            };
            let mut listed = LEDGER.applied(&pb);
            pb.extra.remove(APPLIED_KEY);
            pb.extra.remove(RESERVED_KEY);
            listed.retain(|id| !before.contains(id));
            let opts = WriteOptions {
                applied: listed,
                with_shared: true,
                ..opts.clone()
            };
            let known = write::Known {
                create: false,
                own,
                rows: Some(rows),
                layout: stored,
            };
            let written = write::sync(conn, schema, known, &scope, &pb, &opts)?;
            Ok((Some(written), value))
        })();
        match result {
            Ok(v) => {
                self.conn.commit()?;
                self.own |= v.0.is_some();
                Ok(v)
            }
            Err(e) => {
                let _ = self.conn.rollback();
                Err(e)
            }
        }
    }

    /// Makes the rows the location selects hold `pb`, in one transaction:
    /// new entries inserted into the scope's project, changed ones
    /// updated, missing ones deleted (quarantined where the schema is
    /// append-only). A database without tables gets the schema first.
    pub fn write(&mut self, pb: &Playbook, opts: &WriteOptions) -> Result<Written, Error> {
        let schema = self.write_schema();
        let mut scope = self.scope()?;
        self.conn.begin(&scope.key(), opts.wait)?;
        if !opts.with_shared {
            scope.shared = None;
        }
        let known = write::Known {
            create: self.schema.is_none(),
            own: self.own,
            ..write::Known::default()
        };
        let result = write::sync(&mut *self.conn, schema, known, &scope, pb, opts);
        match result {
            Ok(written) => {
                self.conn.commit()?;
                self.schema = Some(schema);
                self.own = true;
                Ok(written)
            }
            Err(e) => {
                let _ = self.conn.rollback();
                Err(e)
            }
        }
    }
}
