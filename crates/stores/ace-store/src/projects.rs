//! What a database keeps beside the playbook: its table of projects, and
//! the task reflections its server logs (ace_claude_mcp's `projects` and
//! `reflections`), read and written as that server does.

use std::time::Duration;

use ace_model::Error;

use crate::sql::{Cell, Dialect};
use crate::Store;

/// A project as a table of projects lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub id: String,
    pub description: Option<String>,
}

/// A task's reflection, as ace_claude_mcp's `log_reflection` takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reflection {
    pub project: String,
    pub task_summary: String,
    pub outcome: String,
    pub learnings: Vec<String>,
}

impl Reflection {
    /// The reflection as a line of ace_claude_mcp's
    /// `reflections/{project}.jsonl` (`json.dumps` of its fields), stamped
    /// `now`; with `project`, a `project_id` too, for a log that holds
    /// several projects' reflections.
    pub fn json_line(&self, now: &str, project: bool) -> String {
        let mut line = serde_json::json!({
            "timestamp": now,
            "task_summary": self.task_summary,
            "outcome": self.outcome,
            "learnings": self.learnings,
        });
        if project {
            line["project_id"] = self.project.clone().into();
        }
        let mut text = String::new();
        ace_pyjson::dump_line(&line, true, &mut text);
        text.push('\n');
        text
    }
}

/// `$n` as a time for a `TIMESTAMP` column.
fn stamp(d: Dialect, n: usize) -> String {
    match d {
        Dialect::Sqlite => format!("${n}"),
        Dialect::Postgres => format!("CAST(CAST(${n} AS TEXT) AS TIMESTAMP)"),
    }
}

impl Store {
    /// The projects the database lists, by ID: its table of projects (the
    /// user's rows, where projects belong to users), else the projects
    /// its entries are in.
    pub fn projects(&mut self) -> Result<Vec<Project>, Error> {
        let schema = self.existing_schema()?;
        let scope = self.scope()?;
        let Some(p) = &schema.projects else {
            let Some(col) = schema.columns.project else {
                return Ok(vec![Project {
                    id: scope.project,
                    description: None,
                }]);
            };
            let rows = self.conn.query(
                &format!("SELECT DISTINCT {col} FROM {} ORDER BY {col}", schema.table),
                &[],
            )?;
            return Ok(rows
                .into_iter()
                .filter_map(|r| match r.into_iter().next() {
                    Some(Cell::Text(id)) => Some(Project {
                        id,
                        description: None,
                    }),
                    _ => None,
                })
                .collect());
        };
        let (filter, params) = match (p.user, scope.user) {
            (Some(col), Some(user)) => (format!(" WHERE {col} = $1"), vec![Cell::Text(user)]),
            _ => (String::new(), Vec::new()),
        };
        let rows = self.conn.query(
            &format!(
                "SELECT {}, {} FROM {}{filter} ORDER BY {}",
                p.id, p.description, p.table, p.id
            ),
            &params,
        )?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let mut cells = r.into_iter();
                let id = match cells.next() {
                    Some(Cell::Text(id)) => id,
                    _ => return None,
                };
                let description = match cells.next() {
                    Some(Cell::Text(d)) => Some(d),
                    _ => None,
                };
                Some(Project { id, description })
            })
            .collect())
    }

    /// Adds project `id` to the table of projects, stamped `now` (RFC 3339); `false`
    /// when it is listed already (and then nothing changes).
    pub fn create_project(
        &mut self,
        id: &str,
        description: Option<&str>,
        now: &str,
        wait: Duration,
    ) -> Result<bool, Error> {
        let schema = self.existing_schema()?;
        let Some(p) = &schema.projects else {
            return Err(Error::Refused(format!(
                "{}: the {} schema keeps no table of projects: a project is there once an entry is written to it",
                self.location, schema.name
            )));
        };
        let scope = self.scope()?;
        let d = self.conn.dialect();
        let user = match (p.user, &scope.user) {
            (Some(col), Some(user)) => Some((col, user.clone())),
            _ => None,
        };
        self.conn.begin(&scope.key(), wait)?;
        let result = (|| {
            let (filter, mut params) = match &user {
                Some((col, u)) => (format!(" AND {col} = $2"), vec![Cell::text(u)]),
                None => (String::new(), Vec::new()),
            };
            params.insert(0, Cell::text(id));
            let there = self.conn.query(
                &format!("SELECT 1 FROM {} WHERE {} = $1{filter}", p.table, p.id),
                &params,
            )?;
            if !there.is_empty() {
                return Ok(false);
            }
            let description = description.map_or(Cell::Null, Cell::text);
            let (sql, params) = match &user {
                Some((col, u)) => (
                    format!(
                        "INSERT INTO {} ({}, {col}, {}, {}) VALUES ($1, $2, $3, {})",
                        p.table,
                        p.id,
                        p.description,
                        p.created,
                        stamp(d, 4)
                    ),
                    vec![
                        Cell::text(id),
                        Cell::text(u),
                        description,
                        Cell::Text(crate::time::to_sql(now)),
                    ],
                ),
                None => (
                    format!(
                        "INSERT INTO {} ({}, {}, {}) VALUES ($1, $2, {})",
                        p.table,
                        p.id,
                        p.description,
                        p.created,
                        stamp(d, 3)
                    ),
                    vec![
                        Cell::text(id),
                        description,
                        Cell::Text(crate::time::to_sql(now)),
                    ],
                ),
            };
            self.conn.execute(&sql, &params)?;
            Ok(true)
        })();
        match result {
            Ok(made) => {
                self.conn.commit()?;
                Ok(made)
            }
            Err(e) => {
                let _ = self.conn.rollback();
                Err(e)
            }
        }
    }

    /// Logs `r` in the table of reflections, stamped `now` (RFC 3339), its learnings
    /// as a JSON list.
    pub fn reflect(&mut self, r: &Reflection, now: &str, wait: Duration) -> Result<(), Error> {
        let schema = self.existing_schema()?;
        let Some(table) = schema.reflections else {
            return Err(Error::Refused(format!(
                "{}: the {} schema keeps no reflections",
                self.location, schema.name
            )));
        };
        let scope = self.scope()?;
        let d = self.conn.dialect();
        let learnings = serde_json::to_string(&r.learnings)
            .map_err(|e| Error::Usage(format!("learnings: {e}")))?;
        let mut columns = vec!["project_id"];
        let mut params = vec![Cell::text(&r.project)];
        if let Some(user) = &scope.user {
            columns.push("user_id");
            params.push(Cell::text(user));
        }
        columns.extend(["task_summary", "outcome", "learnings", "created_at"]);
        params.extend([
            Cell::text(&r.task_summary),
            Cell::text(&r.outcome),
            Cell::Text(learnings),
            Cell::Text(crate::time::to_sql(now)),
        ]);
        let n = params.len();
        let mut values: Vec<String> = (1..n).map(|i| format!("${i}")).collect();
        values.push(stamp(d, n));
        let sql = format!(
            "INSERT INTO {table} ({}) VALUES ({})",
            columns.join(", "),
            values.join(", ")
        );
        self.conn.begin(&scope.key(), wait)?;
        match self.conn.execute(&sql, &params) {
            Ok(_) => self.conn.commit(),
            Err(e) => {
                let _ = self.conn.rollback();
                Err(e)
            }
        }
    }
}
