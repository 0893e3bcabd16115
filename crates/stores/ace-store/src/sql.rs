//! What ace-store asks of a database engine: a connection that runs
//! statements with `$1`-style parameters and holds one write transaction.
//! Each engine is its own crate (`ace-sqlite`, `ace-postgres`), named only by
//! the registry.

use std::time::Duration;

use ace_model::Error;

use crate::Location;

/// A value of a row, as ace-store reads and binds them.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// The value as it would be shown: text as it is, a number in decimal.
    pub fn shown(&self) -> String {
        match self {
            Cell::Null => "NULL".to_owned(),
            Cell::Int(i) => i.to_string(),
            Cell::Real(r) => r.to_string(),
            Cell::Text(t) => format!("{t:?}"),
            Cell::Blob(b) => format!("a blob of {} bytes", b.len()),
        }
    }
}

/// The SQL an engine speaks where engines differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A table and its columns, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub name: String,
    pub columns: Vec<String>,
}

/// An open connection.
pub trait Connection {
    fn dialect(&self) -> Dialect;
    /// The tables of the database (its default schema), each with its
    /// columns.
    fn tables(&mut self) -> Result<Vec<Table>, Error>;
    /// The rows a query gives. Parameters are `$1`, `$2`, … in the order
    /// of `params`.
    fn query(&mut self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>, Error>;
    /// Runs a statement; how many rows it changed.
    fn execute(&mut self, sql: &str, params: &[Cell]) -> Result<u64, Error>;
    /// Runs statements with no parameters, separated by `;`.
    fn batch(&mut self, sql: &str) -> Result<(), Error>;
    /// Starts the one write transaction of a run: once it has begun, no
    /// other writer of `lock` changes the playbook until it ends. Waits up
    /// to `wait` for a writer before it, then fails with the message a
    /// locked file gives.
    fn begin(&mut self, lock: &str, wait: Duration) -> Result<(), Error>;
    fn commit(&mut self) -> Result<(), Error>;
    /// Ends the transaction with nothing written (also what a connection
    /// dropped mid-transaction, or a killed process, leaves).
    fn rollback(&mut self) -> Result<(), Error>;
}

/// What a database is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading: a SQLite file that is not there is an error.
    Read,
    /// Writing. `create`: a SQLite file that is not there is made.
    /// `force`: a SQLite file marked read-only is written all the same,
    /// as `--force` replaces a read-only playbook file; without it such a
    /// file is opened read-only, even by root, and a write is refused.
    Write { create: bool, force: bool },
}

/// An engine: opens the locations it serves.
pub trait Engine: Sync {
    /// Whether `location` is this engine's.
    fn serves(&self, location: &Location) -> bool;
    /// Opens `location` for what `access` says.
    fn open(&self, location: &Location, access: Access) -> Result<Box<dyn Connection>, Error>;
}

/// The message of a writer that waited `wait` for another, as the file
/// lock words it.
pub fn busy(location: &Location, wait: Duration) -> Error {
    Error::Refused(format!(
        "{location}: another process has held the playbook for {} s; nothing written \
         (raise --lock-timeout to wait longer)",
        wait.as_secs()
    ))
}
