//! Postgres for ace-store: a `postgres://` or `postgresql://` location,
//! through the synchronous `postgres` client. A write is one transaction
//! that first takes a transaction-scoped advisory lock on the playbook it
//! writes, so that writers on any number of machines take turns.

use std::str::FromStr;
use std::time::Duration;

use ace_model::Error;
use ace_store::{sql, Access, Cell, Connection, Db, Dialect, Engine, Location, Table};
use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls};

/// The engine the registry lists.
pub static ENGINE: Postgres = Postgres;

pub struct Postgres;

/// How long a connection may take when the URL does not say: a server
/// that does not answer is one error, not a hang.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

impl Engine for Postgres {
    fn serves(&self, location: &Location) -> bool {
        matches!(location.db, Db::Postgres(_))
    }

    fn open(&self, location: &Location, _access: Access) -> Result<Box<dyn Connection>, Error> {
        let Db::Postgres(url) = &location.db else {
            return Err(Error::Usage(format!("{location}: not a Postgres location")));
        };
        let fail = |e: postgres::Error| Error::Io {
            path: location.shown(),
            message: format!("cannot connect: {}", said(&e)),
        };
        let mut config = postgres::Config::from_str(url).map_err(fail)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.application_name("ace-tools");
        // One attempt: a refused password or an unreachable host is said
        // once, not retried.
        let client = config.connect(NoTls).map_err(fail)?;
        Ok(Box::new(Conn {
            client,
            location: location.clone(),
            statements: std::collections::HashMap::new(),
        }))
    }
}

struct Conn {
    client: Client,
    location: Location,
    /// Statements prepared once per connection: a write runs the same
    /// UPDATE for every changed row.
    statements: std::collections::HashMap<String, postgres::Statement>,
}

/// What went wrong, in one line: the server's own message (`password
/// authentication failed for user …`) rather than the client's wrapping
/// of it, or the client's error with its cause (`Connection refused`).
fn said(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_owned();
    }
    let mut s = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

impl Conn {
    fn prepared(&mut self, sql: &str) -> Result<postgres::Statement, Error> {
        if let Some(st) = self.statements.get(sql) {
            return Ok(st.clone());
        }
        let st = self.client.prepare(sql).map_err(|e| self.err(e))?;
        self.statements.insert(sql.to_owned(), st.clone());
        Ok(st)
    }

    fn err(&self, e: postgres::Error) -> Error {
        Error::Io {
            path: self.location.shown(),
            message: said(&e),
        }
    }
}

/// A cell as the parameter type the server inferred for it takes it.
fn param(cell: &Cell, ty: &Type) -> Box<dyn ToSql + Sync> {
    match cell {
        Cell::Null => match *ty {
            Type::INT2 => Box::new(None::<i16>),
            Type::INT4 => Box::new(None::<i32>),
            Type::INT8 => Box::new(None::<i64>),
            Type::FLOAT4 | Type::FLOAT8 => Box::new(None::<f64>),
            _ => Box::new(None::<String>),
        },
        Cell::Int(i) => match *ty {
            Type::INT2 => Box::new(*i as i16),
            Type::INT4 => Box::new(*i as i32),
            Type::FLOAT8 => Box::new(*i as f64),
            Type::TEXT | Type::VARCHAR => Box::new(i.to_string()),
            _ => Box::new(*i),
        },
        Cell::Real(r) => match *ty {
            Type::FLOAT4 => Box::new(*r as f32),
            _ => Box::new(*r),
        },
        Cell::Text(t) => Box::new(t.clone()),
        Cell::Blob(b) => Box::new(b.clone()),
    }
}

/// `params` as the types `stmt`'s parameters were inferred as take them.
fn bound(params: &[Cell], stmt: &postgres::Statement) -> Vec<Box<dyn ToSql + Sync>> {
    params
        .iter()
        .zip(stmt.params())
        .map(|(c, t)| param(c, t))
        .collect()
}

/// A result column's value as a cell.
fn cell(row: &postgres::Row, i: usize) -> Cell {
    let ty = row.columns()[i].type_();
    let got = match *ty {
        Type::INT2 => row
            .try_get::<_, Option<i16>>(i)
            .map(|v| v.map(|n| Cell::Int(n.into()))),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(i)
            .map(|v| v.map(|n| Cell::Int(n.into()))),
        Type::INT8 => row.try_get::<_, Option<i64>>(i).map(|v| v.map(Cell::Int)),
        Type::FLOAT4 => row
            .try_get::<_, Option<f32>>(i)
            .map(|v| v.map(|n| Cell::Real(n.into()))),
        Type::FLOAT8 => row.try_get::<_, Option<f64>>(i).map(|v| v.map(Cell::Real)),
        Type::BOOL => row
            .try_get::<_, Option<bool>>(i)
            .map(|v| v.map(|b| Cell::Int(b.into()))),
        Type::BYTEA => row
            .try_get::<_, Option<Vec<u8>>>(i)
            .map(|v| v.map(Cell::Blob)),
        _ => row
            .try_get::<_, Option<String>>(i)
            .map(|v| v.map(Cell::Text)),
    };
    got.ok().flatten().unwrap_or(Cell::Null)
}

/// The advisory lock key of a playbook: a stable 64-bit hash of its
/// selection (FNV-1a), the same in every process and on every machine.
fn lock_key(lock: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in lock.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

impl Connection for Conn {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn tables(&mut self) -> Result<Vec<Table>, Error> {
        let rows = self
            .client
            .query(
                "SELECT table_name::text, column_name::text FROM information_schema.columns \
                 WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
                &[],
            )
            .map_err(|e| self.err(e))?;
        let mut out: Vec<Table> = Vec::new();
        for row in rows {
            let (table, column): (String, String) = (row.get(0), row.get(1));
            match out.last_mut() {
                Some(t) if t.name == table => t.columns.push(column),
                _ => out.push(Table {
                    name: table,
                    columns: vec![column],
                }),
            }
        }
        Ok(out)
    }

    fn query(&mut self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>, Error> {
        let stmt = self.prepared(sql)?;
        let bound = bound(params, &stmt);
        let refs: Vec<&(dyn ToSql + Sync)> = bound.iter().map(|b| &**b).collect();
        let rows = self.client.query(&stmt, &refs).map_err(|e| self.err(e))?;
        Ok(rows
            .iter()
            .map(|r| (0..r.len()).map(|i| cell(r, i)).collect())
            .collect())
    }

    fn execute(&mut self, sql: &str, params: &[Cell]) -> Result<u64, Error> {
        let stmt = self.prepared(sql)?;
        let bound = bound(params, &stmt);
        let refs: Vec<&(dyn ToSql + Sync)> = bound.iter().map(|b| &**b).collect();
        self.client.execute(&stmt, &refs).map_err(|e| self.err(e))
    }

    fn batch(&mut self, sql: &str) -> Result<(), Error> {
        self.client.batch_execute(sql).map_err(|e| self.err(e))
    }

    fn begin(&mut self, lock: &str, wait: Duration) -> Result<(), Error> {
        self.client
            .batch_execute("BEGIN")
            .map_err(|e| self.err(e))?;
        let ms = wait.as_millis().clamp(1, i32::MAX as u128);
        self.client
            .batch_execute(&format!("SET LOCAL lock_timeout = {ms}"))
            .map_err(|e| self.err(e))?;
        match self
            .client
            .execute("SELECT pg_advisory_xact_lock($1)", &[&lock_key(lock)])
        {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE) => {
                let _ = self.client.batch_execute("ROLLBACK");
                Err(sql::busy(&self.location, wait))
            }
            Err(e) => {
                let _ = self.client.batch_execute("ROLLBACK");
                Err(self.err(e))
            }
        }
    }

    fn commit(&mut self) -> Result<(), Error> {
        self.client.batch_execute("COMMIT").map_err(|e| self.err(e))
    }

    fn rollback(&mut self) -> Result<(), Error> {
        self.client
            .batch_execute("ROLLBACK")
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_playbooks_lock_key_is_the_same_everywhere() {
        assert_eq!(
            lock_key("project=global&user=default"),
            lock_key("project=global&user=default")
        );
        assert_ne!(lock_key("project=global"), lock_key("project=finance"));
        // FNV-1a of the empty string, as every implementation gives it.
        assert_eq!(lock_key("") as u64, 0xcbf2_9ce4_8422_2325);
    }
}
