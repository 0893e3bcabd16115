//! The schemas ace-tools reads and writes, as data: which table holds the
//! entries, which column holds each field, and the DDL that makes one.
//! A database's schema is known by its tables ([`detect`]); a new schema
//! is one more [`Schema`] in [`SCHEMAS`].

use ace_format::{IdScheme, LintProfile};

use crate::sql::{Dialect, Table};

/// One database schema of an ACE project.
#[derive(Debug)]
pub struct Schema {
    /// As the user names it and messages show it.
    pub name: &'static str,
    /// Whose schema it is, and where it is defined.
    pub about: &'static str,
    /// The table of entries.
    pub table: &'static str,
    pub columns: Columns,
    /// The project every reader sees besides its own (ace_claude_mcp's
    /// `global`), read first in each section; `None` where projects are
    /// kept apart (ace-playbook's domains).
    pub shared_project: Option<&'static str>,
    /// The project and user a write takes when the database has none and
    /// the location names none.
    pub default_project: &'static str,
    pub default_user: &'static str,
    /// The table of projects, if the schema keeps one: a project written
    /// to gets a row there, as the project's own server makes it.
    pub projects: Option<Projects>,
    /// The table the project's server logs task reflections in
    /// (ace_claude_mcp's `reflections`: `project_id`, `user_id` where the
    /// entry table has users, `task_summary`, `outcome`, `learnings`,
    /// `created_at`), if the schema keeps one.
    pub reflections: Option<&'static str>,
    /// Whether each write of an entry adds a row to ace-playbook's
    /// `diff_journal_entries`, and entries are never deleted or rewritten
    /// (its append-only ADR): a removal quarantines.
    pub journal: bool,
    /// The DDL that makes the schema, per engine.
    pub ddl: fn(Dialect) -> String,
    /// Which of the lint rules that depend on a project's conventions
    /// hold for its rows.
    pub lint: LintProfile,
    /// How the project numbers a new entry.
    pub ids: IdScheme,
}

/// The entry table's columns, `None` for a field the schema has no
/// column for.
#[derive(Debug)]
pub struct Columns {
    pub id: &'static str,
    pub project: Option<&'static str>,
    pub user: Option<&'static str>,
    pub stage: Option<&'static str>,
    pub section: &'static str,
    pub content: &'static str,
    pub helpful: &'static str,
    pub harmful: &'static str,
    pub created: Option<&'static str>,
    pub updated: Option<&'static str>,
    /// A time kept in the entry's extra fields under the column's name
    /// (ace-playbook's `last_used_at`).
    pub used: Option<&'static str>,
    /// A JSON list of strings.
    pub tags: Option<&'static str>,
    /// A JSON value kept in the entry's extra fields under the column's
    /// name (ace-playbook's `embedding`); a new entry gets `[]`.
    pub vector: Option<&'static str>,
    /// The largest length each text column takes, where the schema
    /// bounds it (`String(36)`), as `(column, characters)`.
    pub bounds: &'static [(&'static str, usize)],
}

impl Columns {
    /// Every column, in the order reads select them.
    pub fn all(&self) -> Vec<&'static str> {
        let mut v = vec![self.id];
        v.extend(self.project);
        v.extend(self.user);
        v.extend(self.stage);
        v.extend([self.section, self.content, self.helpful, self.harmful]);
        v.extend(self.created);
        v.extend(self.updated);
        v.extend(self.used);
        v.extend(self.tags);
        v.extend(self.vector);
        v
    }
}

/// A table of projects.
#[derive(Debug)]
pub struct Projects {
    pub table: &'static str,
    pub id: &'static str,
    /// The owner column, where projects belong to users.
    pub user: Option<&'static str>,
    pub description: &'static str,
    /// When the project was made: written with the run's time rather
    /// than left to the column's default, so that a migration made again
    /// is the same database.
    pub created: &'static str,
}

/// ace-tools' own tables, beside any schema's: the delta IDs applied, for
/// exactly-once, and what a file held that the entry table cannot (title,
/// sections in order, the entries' order), so that a file migrated in
/// comes back out as it went in.
pub fn own_ddl(d: Dialect) -> &'static str {
    match d {
        Dialect::Sqlite | Dialect::Postgres => {
            "CREATE TABLE IF NOT EXISTS ace_applied (
    scope TEXT NOT NULL,
    delta_id TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (scope, delta_id)
);
CREATE TABLE IF NOT EXISTS ace_layout (
    scope TEXT PRIMARY KEY,
    layout TEXT NOT NULL
);"
        }
    }
}

/// `sqlite`, SQLite's DDL, as Postgres takes it where the two differ: an
/// integer key that counts by itself is `SERIAL`.
fn portable(d: Dialect, sqlite: &str) -> String {
    match d {
        Dialect::Sqlite => sqlite.to_owned(),
        Dialect::Postgres => {
            sqlite.replace("INTEGER PRIMARY KEY AUTOINCREMENT", "SERIAL PRIMARY KEY")
        }
    }
}

/// ace_claude_mcp's D1 schema at a2ae8b0 (`schema.sql`), without its OAuth
/// tables.
pub static CLAUDE_MCP: Schema = Schema {
    name: "ace_claude_mcp",
    about: "ace_claude_mcp's D1 schema: entries(entry_id, project_id, user_id, ...)",
    table: "entries",
    columns: Columns {
        id: "entry_id",
        project: Some("project_id"),
        user: Some("user_id"),
        stage: None,
        section: "section",
        content: "content",
        helpful: "helpful_count",
        harmful: "harmful_count",
        created: Some("created_at"),
        updated: Some("updated_at"),
        used: None,
        tags: None,
        vector: None,
        bounds: &[],
    },
    shared_project: Some("global"),
    default_project: "global",
    default_user: "default",
    projects: Some(Projects {
        table: "projects",
        id: "project_id",
        user: Some("user_id"),
        description: "description",
        created: "created_at",
    }),
    reflections: Some("reflections"),
    journal: false,
    ddl: claude_mcp_ddl,
    // ace_core.py's `_get_next_id`: the highest number of the prefix
    // across the projects, plus one, five digits.
    ids: IdScheme::PREFIXED,
    lint: LintProfile {
        id_shape: true,
        prefixes: true,
        deprecation: false,
        suppression_comments: false,
        guardrail: false,
    },
};

fn claude_mcp_ddl(d: Dialect) -> String {
    portable(
        d,
        "CREATE TABLE IF NOT EXISTS users (
    user_id TEXT PRIMARY KEY,
    google_sub TEXT UNIQUE,
    email TEXT,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS projects (
    project_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    description TEXT,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (project_id, user_id)
);
CREATE TABLE IF NOT EXISTS entries (
    entry_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    section TEXT NOT NULL,
    content TEXT NOT NULL,
    helpful_count INTEGER DEFAULT 0,
    harmful_count INTEGER DEFAULT 0,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (entry_id, user_id)
);
CREATE TABLE IF NOT EXISTS reflections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    task_summary TEXT NOT NULL,
    outcome TEXT NOT NULL,
    learnings TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS idx_entries_user_project ON entries(user_id, project_id);
CREATE INDEX IF NOT EXISTS idx_entries_user_section ON entries(user_id, project_id, section);
CREATE INDEX IF NOT EXISTS idx_reflections_user ON reflections(user_id, project_id);",
    )
}

/// ace_claude_mcp's first D1 schema (6b88556): one user, `entries(id,
/// project_id DEFAULT 'global', ..., helpful, harmful)`.
pub static CLAUDE_MCP_V1: Schema = Schema {
    name: "ace_claude_mcp-v1",
    about: "ace_claude_mcp's first D1 schema: entries(id, project_id, ..., helpful, harmful)",
    table: "entries",
    columns: Columns {
        id: "id",
        project: Some("project_id"),
        user: None,
        stage: None,
        section: "section",
        content: "content",
        helpful: "helpful",
        harmful: "harmful",
        created: Some("created_at"),
        updated: Some("updated_at"),
        used: None,
        tags: None,
        vector: None,
        bounds: &[],
    },
    shared_project: Some("global"),
    default_project: "global",
    default_user: "default",
    projects: Some(Projects {
        table: "projects",
        id: "id",
        user: None,
        description: "description",
        created: "created_at",
    }),
    reflections: Some("reflections"),
    journal: false,
    ddl: claude_mcp_v1_ddl,
    ids: IdScheme::PREFIXED,
    lint: LintProfile {
        id_shape: true,
        prefixes: true,
        deprecation: false,
        suppression_comments: false,
        guardrail: false,
    },
};

fn claude_mcp_v1_ddl(d: Dialect) -> String {
    portable(
        d,
        "CREATE TABLE IF NOT EXISTS projects (
    id TEXT PRIMARY KEY,
    description TEXT,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS entries (
    id TEXT PRIMARY KEY,
    project_id TEXT DEFAULT 'global',
    section TEXT NOT NULL,
    content TEXT NOT NULL,
    helpful INTEGER DEFAULT 0,
    harmful INTEGER DEFAULT 0,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS reflections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id TEXT DEFAULT 'global',
    task_summary TEXT NOT NULL,
    outcome TEXT NOT NULL,
    learnings TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS idx_entries_project ON entries(project_id);
CREATE INDEX IF NOT EXISTS idx_entries_section ON entries(project_id, section);
CREATE INDEX IF NOT EXISTS idx_reflections_project ON reflections(project_id);",
    )
}

/// ace-playbook's `playbook_bullets` and `diff_journal_entries`, as its
/// alembic revision 4c0c6073b96e makes them (`ace/models/playbook.py`,
/// `ace/models/journal.py` at eaa1f01).
pub static ACE_PLAYBOOK: Schema = Schema {
    name: "ace-playbook",
    about: "ace-playbook's SQLAlchemy schema: playbook_bullets(id, domain_id, ..., stage) and diff_journal_entries",
    table: "playbook_bullets",
    columns: Columns {
        id: "id",
        project: Some("domain_id"),
        user: None,
        stage: Some("stage"),
        section: "section",
        content: "content",
        helpful: "helpful_count",
        harmful: "harmful_count",
        created: Some("created_at"),
        updated: None,
        used: Some("last_used_at"),
        tags: Some("tags"),
        vector: Some("embedding"),
        bounds: &[("id", 36), ("domain_id", 64), ("section", 32)],
    },
    shared_project: None,
    default_project: "default",
    default_user: "default",
    projects: None,
    reflections: None,
    journal: true,
    ddl: ace_playbook_ddl,
    // ace-playbook's IDs carry no order (uuid4); eight hex digits fit its
    // String(36) and are made the same on every run.
    ids: IdScheme::HEX,
    lint: LintProfile {
        id_shape: false,
        prefixes: false,
        deprecation: false,
        suppression_comments: false,
        guardrail: true,
    },
};

/// ace-playbook's stages, as SQLAlchemy stores its enum (by name).
pub const STAGES: [&str; 4] = ["SHADOW", "STAGING", "PROD", "QUARANTINED"];

fn ace_playbook_ddl(d: Dialect) -> String {
    let sql = match d {
        Dialect::Sqlite => {
            "CREATE TABLE IF NOT EXISTS playbook_bullets (
    id VARCHAR(36) NOT NULL,
    domain_id VARCHAR(64) NOT NULL,
    content TEXT NOT NULL,
    section VARCHAR(32) NOT NULL,
    helpful_count INTEGER NOT NULL,
    harmful_count INTEGER NOT NULL,
    tags JSON NOT NULL,
    embedding JSON NOT NULL,
    created_at DATETIME NOT NULL,
    last_used_at DATETIME NOT NULL,
    stage VARCHAR(11) NOT NULL,
    CONSTRAINT pk_playbook_bullets PRIMARY KEY (id)
);
CREATE INDEX IF NOT EXISTS idx_domain_section ON playbook_bullets (domain_id, section);
CREATE INDEX IF NOT EXISTS idx_domain_stage ON playbook_bullets (domain_id, stage);
CREATE TABLE IF NOT EXISTS diff_journal_entries (
    id VARCHAR(36) NOT NULL,
    task_id VARCHAR(36) NOT NULL,
    domain_id VARCHAR(64) NOT NULL,
    bullet_id VARCHAR(36) NOT NULL,
    operation VARCHAR(17) NOT NULL,
    before_hash VARCHAR(64),
    after_hash VARCHAR(64),
    before_state JSON,
    after_state JSON,
    similarity_score JSON,
    metadata JSON,
    timestamp DATETIME NOT NULL,
    stage VARCHAR(32),
    CONSTRAINT pk_diff_journal_entries PRIMARY KEY (id)
);
CREATE INDEX IF NOT EXISTS ix_diff_journal_entries_bullet_id ON diff_journal_entries (bullet_id);
CREATE INDEX IF NOT EXISTS ix_diff_journal_entries_timestamp ON diff_journal_entries (timestamp);"
        }
        Dialect::Postgres => {
            "DO $$ BEGIN
    CREATE TYPE playbookstage AS ENUM ('SHADOW', 'STAGING', 'PROD', 'QUARANTINED');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN
    CREATE TYPE mergeoperation AS ENUM ('ADD_NEW', 'INCREMENT_HELPFUL', 'INCREMENT_HARMFUL', 'MERGE_DUPLICATES', 'QUARANTINE');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;
CREATE TABLE IF NOT EXISTS playbook_bullets (
    id VARCHAR(36) NOT NULL,
    domain_id VARCHAR(64) NOT NULL,
    content TEXT NOT NULL,
    section VARCHAR(32) NOT NULL,
    helpful_count INTEGER NOT NULL,
    harmful_count INTEGER NOT NULL,
    tags JSON NOT NULL,
    embedding JSON NOT NULL,
    created_at TIMESTAMP WITHOUT TIME ZONE NOT NULL,
    last_used_at TIMESTAMP WITHOUT TIME ZONE NOT NULL,
    stage playbookstage NOT NULL,
    CONSTRAINT pk_playbook_bullets PRIMARY KEY (id)
);
CREATE INDEX IF NOT EXISTS idx_domain_section ON playbook_bullets (domain_id, section);
CREATE INDEX IF NOT EXISTS idx_domain_stage ON playbook_bullets (domain_id, stage);
CREATE TABLE IF NOT EXISTS diff_journal_entries (
    id VARCHAR(36) NOT NULL,
    task_id VARCHAR(36) NOT NULL,
    domain_id VARCHAR(64) NOT NULL,
    bullet_id VARCHAR(36) NOT NULL,
    operation mergeoperation NOT NULL,
    before_hash VARCHAR(64),
    after_hash VARCHAR(64),
    before_state JSON,
    after_state JSON,
    similarity_score JSON,
    metadata JSON,
    timestamp TIMESTAMP WITHOUT TIME ZONE NOT NULL,
    stage VARCHAR(32),
    CONSTRAINT pk_diff_journal_entries PRIMARY KEY (id)
);
CREATE INDEX IF NOT EXISTS ix_diff_journal_entries_bullet_id ON diff_journal_entries (bullet_id);
CREATE INDEX IF NOT EXISTS ix_diff_journal_entries_timestamp ON diff_journal_entries (timestamp);"
        }
    };
    sql.to_owned()
}

/// Every schema, in the order detection tries them.
pub static SCHEMAS: [&Schema; 3] = [&CLAUDE_MCP, &CLAUDE_MCP_V1, &ACE_PLAYBOOK];

/// What a database's tables say it is.
#[derive(Debug)]
pub enum Detected {
    Schema(&'static Schema),
    /// No tables but ace-tools' own: a write makes the default schema.
    Empty,
    /// Tables of no schema ace-tools knows.
    Unknown(Vec<String>),
}

/// The schema whose entry table has every column it names, first in
/// [`SCHEMAS`] order.
pub fn detect(tables: &[Table]) -> Detected {
    for schema in SCHEMAS {
        let Some(t) = tables.iter().find(|t| t.name == schema.table) else {
            continue;
        };
        if schema
            .columns
            .all()
            .iter()
            .all(|c| t.columns.iter().any(|have| have == c))
        {
            return Detected::Schema(schema);
        }
    }
    let names: Vec<String> = tables
        .iter()
        .map(|t| t.name.clone())
        .filter(|n| !n.starts_with("ace_") && !n.starts_with("sqlite_"))
        .collect();
    match names.is_empty() {
        true => Detected::Empty,
        false => Detected::Unknown(names),
    }
}

/// The schema called `name`.
pub fn by_name(name: &str) -> Option<&'static Schema> {
    SCHEMAS.iter().copied().find(|s| s.name == name)
}

/// The known schemas, on one line, as an error lists them.
pub fn known() -> String {
    SCHEMAS
        .iter()
        .map(|s| format!("`{}` ({})", s.name, s.about))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str, cols: &[&str]) -> Table {
        Table {
            name: name.into(),
            columns: cols.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    #[test]
    fn each_schema_is_known_by_its_columns() {
        let v2 = table("entries", &CLAUDE_MCP.columns.all());
        let v1 = table("entries", &CLAUDE_MCP_V1.columns.all());
        let ap = table("playbook_bullets", &ACE_PLAYBOOK.columns.all());
        assert!(matches!(detect(&[v2]), Detected::Schema(s) if s.name == "ace_claude_mcp"));
        assert!(matches!(detect(&[v1]), Detected::Schema(s) if s.name == "ace_claude_mcp-v1"));
        assert!(matches!(detect(&[ap]), Detected::Schema(s) if s.name == "ace-playbook"));
        assert!(matches!(
            detect(&[table("ace_applied", &["scope"])]),
            Detected::Empty
        ));
        assert!(matches!(
            detect(&[table("entries", &["id", "text"])]),
            Detected::Unknown(t) if t == ["entries"]
        ));
    }
}
