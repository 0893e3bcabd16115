//! SQLite for ace-store: a `sqlite:PATH` location (or a file whose header
//! says SQLite), opened through rusqlite with SQLite built in, in WAL mode,
//! its writers taking turns with `BEGIN IMMEDIATE` and a busy timeout.

use std::path::Path;
use std::time::Duration;

use ace_model::Error;
use ace_store::{sql, Access, Cell, Connection, Db, Dialect, Engine, Location, Table};
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::OpenFlags;

/// The engine the registry lists.
pub static ENGINE: Sqlite = Sqlite;

pub struct Sqlite;

impl Engine for Sqlite {
    fn serves(&self, location: &Location) -> bool {
        matches!(location.db, Db::Sqlite(_))
    }

    fn open(&self, location: &Location, access: Access) -> Result<Box<dyn Connection>, Error> {
        let Db::Sqlite(path) = &location.db else {
            return Err(Error::Usage(format!("{location}: not a SQLite location")));
        };
        let (create, force) = match access {
            Access::Read => (false, false),
            Access::Write { create, force } => (create, force),
        };
        let exists = path.exists();
        if !exists && !create {
            return Err(Error::io(path, "no such file"));
        }
        if exists && !path.is_file() {
            // A FIFO or a directory is never handed to SQLite, which would
            // block on the one and fail obscurely on the other.
            return Err(Error::io(path, "not a regular file"));
        }
        if exists && !ace_store::location::is_sqlite_file(path) && !is_empty(path) {
            return Err(Error::io(
                path,
                "not a SQLite database (its header says otherwise)",
            ));
        }
        // The user's read-only mark holds for a write, as it does for a
        // playbook file: root's open would ignore it, so the file is not
        // opened for writing at all.
        let marked = matches!(access, Access::Write { .. })
            && !force
            && std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly());
        let read_only = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = match marked {
            true => rusqlite::Connection::open_with_flags(path, read_only),
            false => {
                let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | if create {
                        OpenFlags::SQLITE_OPEN_CREATE
                    } else {
                        OpenFlags::empty()
                    };
                rusqlite::Connection::open_with_flags(path, flags)
                    .or_else(|_| rusqlite::Connection::open_with_flags(path, read_only))
            }
        }
        .map_err(|e| Error::io(path, e))?;
        Ok(Box::new(Conn {
            conn,
            location: location.clone(),
            marked,
        }))
    }
}

fn is_empty(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() == 0)
}

struct Conn {
    conn: rusqlite::Connection,
    location: Location,
    /// Opened read-only for a write because the file is marked read-only.
    marked: bool,
}

impl Conn {
    fn err(&self, e: rusqlite::Error) -> Error {
        let shown = self.location.shown();
        let path = Path::new(&shown);
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::ReadOnly) => Error::io(
                path,
                "cannot be written (a read-only file, or a folder where its journal cannot be \
                 made); nothing written",
            ),
            _ => Error::io(path, e),
        }
    }
}

/// `$1`-style parameters as SQLite's own numbered form, `?1`.
fn numbered(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    for (i, ch) in sql.char_indices() {
        if ch == '$' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            out.push('?');
        } else {
            out.push(ch);
        }
    }
    out
}

fn to_sql(cell: &Cell) -> SqlValue {
    match cell {
        Cell::Null => SqlValue::Null,
        Cell::Int(i) => SqlValue::Integer(*i),
        Cell::Real(r) => SqlValue::Real(*r),
        Cell::Text(t) => SqlValue::Text(t.clone()),
        Cell::Blob(b) => SqlValue::Blob(b.clone()),
    }
}

fn from_sql(v: ValueRef<'_>) -> Cell {
    match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::Int(i),
        ValueRef::Real(r) => Cell::Real(r),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(s) => Cell::Text(s.to_owned()),
            Err(_) => Cell::Blob(t.to_vec()),
        },
        ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
    }
}

impl Connection for Conn {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn tables(&mut self) -> Result<Vec<Table>, Error> {
        let names: Vec<String> = {
            let mut st = self
                .conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .map_err(|e| self.err(e))?;
            let rows = st
                .query_map([], |r| r.get::<_, String>(0))
                .map_err(|e| self.err(e))?;
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
        };
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let columns: Vec<String> = {
                let mut st = self
                    .conn
                    .prepare("SELECT name FROM pragma_table_info(?1)")
                    .map_err(|e| self.err(e))?;
                let rows = st
                    .query_map([&name], |r| r.get::<_, String>(0))
                    .map_err(|e| self.err(e))?;
                rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
            };
            out.push(Table { name, columns });
        }
        Ok(out)
    }

    fn query(&mut self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>, Error> {
        let mut st = self
            .conn
            .prepare_cached(&numbered(sql))
            .map_err(|e| self.err(e))?;
        let n = st.column_count();
        let params: Vec<SqlValue> = params.iter().map(to_sql).collect();
        let mut rows = st
            .query(rusqlite::params_from_iter(params))
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let mut cells = Vec::with_capacity(n);
            for i in 0..n {
                cells.push(row.get_ref(i).map(from_sql).map_err(|e| self.err(e))?);
            }
            out.push(cells);
        }
        Ok(out)
    }

    fn execute(&mut self, sql: &str, params: &[Cell]) -> Result<u64, Error> {
        let params: Vec<SqlValue> = params.iter().map(to_sql).collect();
        let mut st = self
            .conn
            .prepare_cached(&numbered(sql))
            .map_err(|e| self.err(e))?;
        st.execute(rusqlite::params_from_iter(params))
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    fn batch(&mut self, sql: &str) -> Result<(), Error> {
        self.conn.execute_batch(sql).map_err(|e| self.err(e))
    }

    fn begin(&mut self, _lock: &str, wait: Duration) -> Result<(), Error> {
        if self.marked {
            return Err(Error::io(
                Path::new(&self.location.shown()),
                "read-only; nothing written (--force writes to it)",
            ));
        }
        // One writer at a time for the whole file: `BEGIN IMMEDIATE` takes
        // the write lock before anything is read, so that two runs never
        // both read the same counter and write it back.
        self.conn.busy_timeout(wait).map_err(|e| self.err(e))?;
        // WAL lets readers go on while a writer writes. Set by the first
        // write, never by a read, which leaves the file as it was.
        let _ = self.conn.pragma_update(None, "journal_mode", "WAL");
        match self.conn.execute_batch("BEGIN IMMEDIATE") {
            Ok(()) => Ok(()),
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::DatabaseBusy
                    || f.code == rusqlite::ErrorCode::DatabaseLocked =>
            {
                Err(sql::busy(&self.location, wait))
            }
            Err(e) => Err(self.err(e)),
        }
    }

    fn commit(&mut self) -> Result<(), Error> {
        self.conn.execute_batch("COMMIT").map_err(|e| self.err(e))
    }

    fn rollback(&mut self) -> Result<(), Error> {
        self.conn.execute_batch("ROLLBACK").map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_numbered_as_sqlite_numbers_them() {
        assert_eq!(numbered("a = $1 AND b = $12"), "a = ?1 AND b = ?12");
        assert_eq!(numbered("price$ = $"), "price$ = $");
    }
}
