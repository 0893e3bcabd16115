//! Playbook locations that are databases: the engines ace-tools opens them
//! with (one line each), and reading and writing them as the tools do.

use ace_fs::Source;
use ace_model::{Error, LossEntry, Playbook, Severity};
use ace_store::{Engine, Location};

use crate::convert::Stop;
pub use crate::located::{Reading, StoreInput};
use crate::Parsed;

/// Every database engine, by the locations it serves.
static ENGINES: &[&dyn Engine] = &[&ace_sqlite::ENGINE, &ace_postgres::ENGINE];

pub use ace_store::{
    Access, Change, Db, Location as StoreLocation, Project, Reflection, Store, StoreRead,
    WriteOptions, Written,
};

/// `arg` as a database location, `None` when it names a file (or standard
/// input) to read as a playbook file. A name that is not UTF-8 is a
/// file's: every location is written in UTF-8.
pub fn location(arg: impl AsRef<std::ffi::OsStr>) -> Result<Option<Location>, Error> {
    match arg.as_ref().to_str() {
        Some(arg) => Location::parse(arg),
        None => Ok(None),
    }
}

/// Opens `location` for what `access` says.
pub fn open(location: &Location, access: Access) -> Result<Store, Error> {
    let engine = ENGINES.iter().find(|e| e.serves(location)).ok_or_else(|| {
        Error::Usage(format!(
            "{location}: ace-tools has no engine for this kind of database"
        ))
    })?;
    Store::open(*engine, location, access)
}

/// The playbook at `location` ([`StoreInput`]), for a tool that only
/// reads: a project or user the location names that the database holds
/// nothing of is refused, as a missing file is, rather than read as an
/// empty playbook (a misspelt `#project=` would otherwise pass every
/// check).
pub fn read(location: &Location) -> Result<StoreInput, Stop> {
    let refuse = |absent: String| {
        Stop::Usage(Error::Usage(format!(
            "{location}: {absent}; a write to it makes it"
        )))
    };
    if let Db::Folder(_) = location.db {
        if let Some(absent) = crate::folder::absent(location)? {
            return Err(refuse(absent));
        }
        return crate::folder::read(location);
    }
    let mut store = open(location, Access::Read)?;
    if let Some(absent) = store.absent()? {
        return Err(refuse(absent));
    }
    input(&mut store, location)
}

/// The playbook at `location` as an agent's server reads it: a project
/// not made yet reads as the shared entries alone, as ace_claude_mcp's
/// `read_playbook` reads it.
pub fn view(location: &Location) -> Result<StoreInput, Stop> {
    if let Db::Folder(_) = location.db {
        return crate::folder::read(location);
    }
    input(&mut open(location, Access::Read)?, location)
}

/// The playbook `store` holds at `location`.
fn input(store: &mut Store, location: &Location) -> Result<StoreInput, Stop> {
    let read = store.read()?;
    let source = Source {
        name: location.shown(),
        path: None,
        text: read.listing.into(),
    };
    let mut playbook = read.playbook;
    // The layout goes back to the format that owns it, by its own name.
    if let Some(kept) = read.layout {
        let owner = crate::Format::all()
            .iter()
            .filter_map(|f| f.imp().layout_owner())
            .find(|o| *o == kept.owner);
        if let Some(owner) = owner {
            playbook.set_layout_holding(owner, kept.value, kept.holds);
        }
    }
    let parsed = Parsed {
        playbook,
        diagnostics: read.diagnostics,
    };
    Ok(StoreInput {
        source,
        parsed,
        lint: read.schema.lint,
    })
}

/// Whether any finding of `parsed` is an error, which stops a write.
pub fn has_errors(parsed: &Parsed) -> bool {
    parsed
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
}

/// What writing `pb` to `location` loses, for the loss report: the
/// database's schema's, or the one a new database gets.
pub fn losses(location: &Location, pb: &Playbook) -> Result<(Vec<LossEntry>, String), Error> {
    if let Db::Folder(_) = location.db {
        let written = crate::write(crate::Format::MARKDOWN, pb);
        return Ok((written.losses, format!("{} (markdown)", location.shown())));
    }
    // A file not there yet is not made for this: `--strict` may stop the
    // write.
    let existing = match &location.db {
        Db::Sqlite(path) if !path.exists() => None,
        _ => open(location, Access::Read)?.schema,
    };
    let schema = existing
        .or_else(|| {
            location
                .select
                .schema
                .as_deref()
                .and_then(ace_store::schema::by_name)
        })
        .unwrap_or(&ace_store::schema::CLAUDE_MCP);
    Ok((
        ace_store::losses(schema, pb),
        format!("{} ({} schema)", location.shown(), schema.name),
    ))
}

/// Writes `pb` to `location` in one transaction (see [`Store::write`]);
/// `force`: a SQLite file marked read-only is written all the same.
pub fn write(
    location: &Location,
    pb: &Playbook,
    opts: &WriteOptions,
    force: bool,
) -> Result<Written, Error> {
    if let Db::Folder(_) = location.db {
        return crate::folder::write(location, pb, opts, force);
    }
    let access = Access::Write {
        create: true,
        force,
    };
    open(location, access)?.write(pb, opts)
}

/// Reads the playbook at `location` and writes back what `change` makes
/// of it, with no other writer in between (see [`Store::update`]); with
/// `access` [`Access::Read`], nothing is written.
pub fn update<T>(
    location: &Location,
    access: Access,
    opts: &WriteOptions,
    change: impl FnOnce(Reading) -> Result<Change<T>, Error>,
) -> Result<(Option<Written>, T), Error> {
    let (write, force) = match access {
        Access::Read => (false, false),
        Access::Write { force, .. } => (true, force),
    };
    if let Db::Folder(_) = location.db {
        return crate::folder::update(location, force, write, opts, change);
    }
    open(location, access)?.update(opts, |read| {
        change(Reading {
            curation: read.schema.curation(),
            playbook: read.playbook,
            listing: read.listing,
            diagnostics: read.diagnostics,
        })
    })
}

/// The files a write to `location` may change, for the write scope: a
/// SQLite file, a folder's project files and `projects.json`; none for a
/// database on a server.
pub fn files(location: &Location) -> Vec<std::path::PathBuf> {
    match &location.db {
        Db::Sqlite(path) => vec![path.clone()],
        Db::Postgres(_) => Vec::new(),
        Db::Folder(dir) => {
            let project = location.select.project.as_deref().unwrap_or("global");
            vec![
                dir.join("projects.json"),
                dir.join("playbooks").join("global.md"),
                dir.join("playbooks").join(format!("{project}.md")),
            ]
        }
    }
}

/// The projects `location` lists: a folder's `projects.json`, in its
/// order; a database's table of projects, by ID.
pub fn projects(location: &Location) -> Result<Vec<Project>, Error> {
    if let Db::Folder(_) = location.db {
        return crate::folder::projects(location);
    }
    open(location, Access::Read)?.projects()
}

/// Lists project `id` at `location` (a folder also gets its file), made
/// at `now`; `false` when it is listed already. `force`: as for
/// [`write`].
pub fn create_project(
    location: &Location,
    id: &str,
    description: Option<&str>,
    now: &str,
    wait: std::time::Duration,
    force: bool,
) -> Result<bool, Error> {
    if let Db::Folder(_) = location.db {
        return crate::folder::create_project(location, id, description, wait, force);
    }
    let access = Access::Write {
        create: false,
        force,
    };
    open(location, access)?.create_project(id, description, now, wait)
}

/// Logs reflection `r` at `location`, made at `now`: a folder's
/// `reflections/{project}.jsonl`, a database's table of reflections. The
/// file written, for a folder.
pub fn reflect(
    location: &Location,
    r: &Reflection,
    now: &str,
    wait: std::time::Duration,
    force: bool,
) -> Result<Option<std::path::PathBuf>, Error> {
    if let Db::Folder(_) = location.db {
        return crate::folder::reflect(location, r, now, wait, force).map(Some);
    }
    let access = Access::Write {
        create: false,
        force,
    };
    open(location, access)?.reflect(r, now, wait).map(|()| None)
}
