//! Where a playbook lives when it is not a file: `sqlite:PATH`,
//! `postgres://…`, or a path whose header says SQLite, with a selector after
//! `#` (`#project=finance&user=alice&stage=prod`, and `schema=NAME` for the
//! schema a new database is made with).
//!
//! The selector is a fragment rather than URL parameters because a
//! Postgres URL's parameters are libpq's own (`?user=` is the login, not
//! the playbook's owner): after `#` nothing is sent to the server, and the
//! same form works for every kind of location.

use std::path::{Path, PathBuf};

use ace_model::Error;

/// The first 16 bytes of every SQLite database file.
pub const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// A database location and which of its playbooks is meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub db: Db,
    pub select: Selector,
}

/// The database itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Db {
    /// A SQLite file (created when written to and missing).
    Sqlite(PathBuf),
    /// A libpq connection URL (`postgres://` or `postgresql://`).
    Postgres(String),
    /// ace_claude_mcp's folder (`~/.ace`): `playbooks/{project}.md`, one
    /// markdown playbook per project, and `projects.json`. Named with a
    /// selector (`~/.ace#project=finance`), so that a bare folder stays a
    /// folder of files to check.
    Folder(PathBuf),
}

/// Which rows make the playbook: a project (ace_claude_mcp's
/// `project_id`, ace-playbook's `domain_id`), a user (ace_claude_mcp's
/// `user_id`) and a stage (ace-playbook's `stage`). Unset, a read takes
/// what the database's schema defaults to ([`crate::Schema`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub project: Option<String>,
    pub user: Option<String>,
    pub stage: Option<String>,
    /// The schema a new database is made with (a name from
    /// [`crate::schema::SCHEMAS`]); an existing one must be of it.
    pub schema: Option<String>,
}

impl Location {
    /// `arg` as a database location: `None` when it names a file (or
    /// standard input) that is not a SQLite database, so that the caller
    /// reads it as a playbook file.
    pub fn parse(arg: &str) -> Result<Option<Location>, Error> {
        if arg == "-" {
            return Ok(None);
        }
        if Path::new(arg).exists() {
            return Ok(is_sqlite_file(Path::new(arg)).then(|| Location {
                db: Db::Sqlite(PathBuf::from(arg)),
                select: Selector::default(),
            }));
        }
        let (base, fragment) = match arg.rsplit_once('#') {
            Some((base, fragment)) => (base, Some(fragment)),
            None => (arg, None),
        };
        let db = if let Some(rest) = base.strip_prefix("sqlite:") {
            // SQLAlchemy's form too (`sqlite:///relative.db`,
            // `sqlite:////absolute.db`), as ace-playbook's DATABASE_URL
            // writes it.
            let path = rest.strip_prefix("///").unwrap_or(rest);
            if path.is_empty() {
                return Err(Error::value(
                    "location",
                    arg,
                    "a file after `sqlite:` (`sqlite:playbook.db`)",
                ));
            }
            Db::Sqlite(PathBuf::from(path))
        } else if let Some(url) = postgres_url(base) {
            Db::Postgres(url)
        } else if fragment.is_some() && Path::new(base).is_dir() {
            Db::Folder(PathBuf::from(base))
        } else if fragment.is_some() && Path::new(base).exists() {
            if !is_sqlite_file(Path::new(base)) {
                return Err(Error::value(
                    "location",
                    arg,
                    "a database: a selector after `#` goes with `sqlite:PATH`, `postgres://…`, a SQLite file or ace_claude_mcp's folder (`~/.ace`)",
                ));
            }
            Db::Sqlite(PathBuf::from(base))
        } else {
            return Ok(None);
        };
        let select = match fragment {
            Some(f) => Selector::parse(f).map_err(|e| Error::value("location", &redact(arg), e))?,
            None => Selector::default(),
        };
        Ok(Some(Location { db, select }))
    }

    /// The location as it may be shown: a URL's password replaced by
    /// `***`.
    pub fn shown(&self) -> String {
        let db = match &self.db {
            Db::Sqlite(p) => format!("sqlite:{}", p.display()),
            Db::Postgres(url) => redact(url),
            Db::Folder(dir) => dir.display().to_string(),
        };
        let select = self.select.fragment();
        match select.is_empty() {
            true => db,
            false => format!("{db}#{select}"),
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

impl Selector {
    fn parse(fragment: &str) -> Result<Selector, String> {
        let mut s = Selector::default();
        for pair in fragment.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("KEY=VALUE after `#`, not `{pair}`"))?;
            let value = percent_decode(value)?;
            if value.is_empty() {
                return Err(format!("a value after `{key}=`"));
            }
            let slot = match key {
                "project" => &mut s.project,
                "user" => &mut s.user,
                "stage" => &mut s.stage,
                "schema" => &mut s.schema,
                _ => {
                    return Err(format!(
                        "project, user, stage or schema after `#`, not `{key}`"
                    ))
                }
            };
            if slot.replace(value).is_some() {
                return Err(format!("`{key}` once, not twice"));
            }
        }
        Ok(s)
    }

    /// `project=…&user=…&stage=…&schema=…`, the fields set, in that order,
    /// each value percent-encoded where [`Selector::parse`] would read it
    /// otherwise: a project named `a&user=b` selects that project, never
    /// another user.
    pub fn fragment(&self) -> String {
        [
            ("project", &self.project),
            ("user", &self.user),
            ("stage", &self.stage),
            ("schema", &self.schema),
        ]
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={}", percent_encode(v))))
        .collect::<Vec<_>>()
        .join("&")
    }
}

/// Whether the file at `path` starts as a SQLite database does.
pub fn is_sqlite_file(path: &Path) -> bool {
    use std::io::Read;
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    // A FIFO or device is never opened here: reading it could block.
    if !meta.is_file() {
        return false;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == SQLITE_HEADER)
}

/// `url` as libpq takes it, if it is a Postgres URL (SQLAlchemy's
/// `postgresql+DRIVER://` read as `postgresql://`).
fn postgres_url(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let base = scheme.split('+').next()?;
    matches!(base, "postgres" | "postgresql").then(|| format!("postgresql://{rest}"))
}

/// `url` with the password of its user part replaced by `***`, and a
/// `password=` parameter's value too.
pub fn redact(url: &str) -> String {
    let mut out = url.to_owned();
    if let Some((scheme, rest)) = url.split_once("://") {
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if let Some(at) = authority.rfind('@') {
            let userinfo = &authority[..at];
            if let Some(colon) = userinfo.find(':') {
                out = format!("{scheme}://{}:***{}", &userinfo[..colon], &rest[at..]);
            }
        }
    }
    let lower = out.to_ascii_lowercase();
    if let Some(i) = lower.find("password=") {
        let start = i + "password=".len();
        let end = out[start..]
            .find(['&', '#'])
            .map_or(out.len(), |e| start + e);
        out.replace_range(start..end, "***");
    }
    out
}

/// `s` with `%`, `&`, `#`, `=` and control characters written as `%XX`,
/// which [`percent_decode`] reads back.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '&' | '#' | '=') || c.is_ascii_control() {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("two hex digits after each `%` in `{s}`"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("`{s}` to be UTF-8 once decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(s: &str) -> Location {
        Location::parse(s).unwrap().unwrap()
    }

    #[test]
    fn the_forms_of_a_location() {
        assert_eq!(loc("sqlite:pb.db").db, Db::Sqlite("pb.db".into()));
        assert_eq!(loc("sqlite:///pb.db").db, Db::Sqlite("pb.db".into()));
        assert_eq!(
            loc("sqlite:////tmp/pb.db").db,
            Db::Sqlite("/tmp/pb.db".into())
        );
        assert_eq!(
            loc("postgresql+psycopg2://u:p@h/db").db,
            Db::Postgres("postgresql://u:p@h/db".into())
        );
        let l = loc("postgres://h/db?sslmode=disable#project=fin%20ance&user=a");
        assert_eq!(
            l.db,
            Db::Postgres("postgresql://h/db?sslmode=disable".into())
        );
        assert_eq!(l.select.project.as_deref(), Some("fin ance"));
        assert_eq!(l.select.user.as_deref(), Some("a"));
        assert_eq!(Location::parse("no-such-file.md").unwrap(), None);
        assert_eq!(Location::parse("-").unwrap(), None);
    }

    #[test]
    fn a_bad_selector_is_an_error_that_hides_the_password() {
        for (bad, said) in [
            (
                "sqlite:x.db#colour=red",
                "expected project, user, stage or schema after `#`, not `colour`",
            ),
            (
                "sqlite:x.db#project",
                "expected KEY=VALUE after `#`, not `project`",
            ),
            ("sqlite:x.db#project=", "expected a value after `project=`"),
            (
                "sqlite:x.db#project=a&project=b",
                "expected `project` once, not twice",
            ),
            (
                "sqlite:x.db#project=%zz",
                "expected two hex digits after each `%` in `%zz`",
            ),
            (
                "sqlite:x.db#project=%ff",
                "expected `%ff` to be UTF-8 once decoded",
            ),
            ("sqlite:", "expected a file after `sqlite:`"),
        ] {
            let e = Location::parse(bad).unwrap_err().to_string();
            assert!(
                e.ends_with(said) || e.contains(&format!("{said} (")),
                "{bad}: {e}"
            );
        }
        let e = Location::parse("postgres://me:s3cret@h/db#nope=1").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }

    #[test]
    fn a_selector_written_out_reads_back_as_it_was() {
        let select = Selector {
            project: Some("a&user=b#c%d=é".into()),
            user: Some("ana".into()),
            ..Selector::default()
        };
        let fragment = select.fragment();
        assert_eq!(fragment, "project=a%26user%3Db%23c%25d%3Dé&user=ana");
        assert_eq!(Selector::parse(&fragment).unwrap(), select);
    }

    #[test]
    fn passwords_are_never_shown() {
        assert_eq!(
            redact("postgresql://me:s3cret@h:5432/db"),
            "postgresql://me:***@h:5432/db"
        );
        assert_eq!(
            redact("postgresql://h/db?password=s3cret&x=1"),
            "postgresql://h/db?password=***&x=1"
        );
        assert_eq!(redact("postgresql://me@h/db"), "postgresql://me@h/db");
        let l = loc("postgres://me:s3cret@h/db#project=x");
        assert_eq!(l.to_string(), "postgresql://me:***@h/db#project=x");
    }

    #[test]
    fn a_sqlite_file_is_known_by_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pb.data");
        let mut bytes = SQLITE_HEADER.to_vec();
        bytes.extend([0u8; 84]);
        std::fs::write(&db, bytes).unwrap();
        let text = dir.path().join("pb.md");
        std::fs::write(&text, "## S\n").unwrap();
        let arg = db.to_str().unwrap();
        assert_eq!(loc(arg).db, Db::Sqlite(db.clone()));
        assert_eq!(
            loc(&format!("{arg}#project=x")).select.project.as_deref(),
            Some("x")
        );
        assert_eq!(Location::parse(text.to_str().unwrap()).unwrap(), None);
        assert!(Location::parse(&format!("{}#project=x", text.display())).is_err());
    }
}
