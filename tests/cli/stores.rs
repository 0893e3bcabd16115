//! Playbooks in SQLite databases: made with the projects' schemas by the
//! `sqlite3` shell, migrated into and out of with ace-convert, and read
//! back row by row with `sqlite3` again.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use ace_store::schema::{CLAUDE_MCP, CLAUDE_MCP_V1};
use ace_store::Dialect;

use super::{convert, fixture, validate};

/// Runs `sql` on the database at `db` with the `sqlite3` shell (Debian's
/// `sqlite3` package, which `.ci/run` installs); its output.
fn sqlite3(db: &Path, sql: &str) -> String {
    let out = Process::new("sqlite3")
        .arg(db)
        .arg(sql)
        .output()
        .expect("the sqlite3 shell (Debian's sqlite3 package) runs these tests");
    assert!(
        out.status.success(),
        "sqlite3 {sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A database made by `sqlite3` from `ddl`.
fn made_with(dir: &Path, ddl: &str) -> PathBuf {
    let db = dir.join("playbook.db");
    sqlite3(&db, ddl);
    db
}

fn loc(db: &Path, fragment: &str) -> String {
    format!("sqlite:{}{fragment}", db.display())
}

/// What ace-tools itself writes for `file` rewritten in its own format.
fn rewritten(file: &Path) -> Vec<u8> {
    convert()
        .arg(file)
        .args(["--to", "markdown", "-q"])
        .output()
        .unwrap()
        .stdout
}

/// The entries of a canonical JSON read: ID, section title, content and
/// counters.
fn entries(json: &[u8]) -> Vec<(String, String, String, serde_json::Value, serde_json::Value)> {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap();
    let pb = &v["playbook"];
    let title = |key: &str| {
        pb["sections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .map(|s| s["title"].as_str().unwrap_or(key).to_owned())
            .unwrap_or_default()
    };
    pb["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["id"].as_str().unwrap().to_owned(),
                        title(e["section"].as_str().unwrap_or_default()),
                        e["content"].as_str().unwrap().to_owned(),
                        e["helpful"].clone(),
                        e["harmful"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Migrates `file` into a new ace_claude_mcp database and back; checks
/// the rows and the markdown that comes back.
fn round_trip(file: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    convert()
        .arg(file)
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    let want = entries(
        &convert()
            .arg(file)
            .args(["--to", "json", "-q"])
            .output()
            .unwrap()
            .stdout,
    );
    // Each entry is a row, as ace_claude_mcp's server reads it.
    let rows = sqlite3(
        &db,
        "SELECT entry_id || '|' || project_id || '|' || user_id || '|' || section || '|' || helpful_count || '|' || harmful_count FROM entries ORDER BY rowid",
    );
    let rows: Vec<&str> = rows.lines().collect();
    assert_eq!(rows.len(), want.len(), "{}", file.display());
    for (row, (id, section, _, helpful, harmful)) in rows.iter().zip(&want) {
        let counters = |v: &serde_json::Value| v.as_i64().unwrap_or(0).to_string();
        assert_eq!(
            *row,
            format!(
                "{id}|global|default|{section}|{}|{}",
                counters(helpful),
                counters(harmful)
            )
        );
    }
    let back = dir.path().join("back.md");
    convert()
        .args([&loc(&db, ""), "--to", "markdown", "-q", "-o"])
        .arg(&back)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&back).unwrap(),
        rewritten(file),
        "{}",
        file.display()
    );
    let read_back = convert()
        .args([&loc(&db, ""), "--to", "json", "-q"])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(entries(&read_back), want, "{}", file.display());
}

#[test]
fn a_markdown_playbook_migrates_into_ace_claude_mcp_and_back() {
    round_trip(&fixture("canonical.md"));
    round_trip(&fixture("no-counters.txt"));
    // An entry under no heading is stored with an empty section and read
    // back under none, not under a heading of no title.
    let dir = tempfile::tempdir().unwrap();
    let loose = dir.path().join("loose.md");
    std::fs::write(
        &loose,
        "[str-00001] helpful=1 harmful=0 :: Keep each change small enough to review.\n\n## STRATEGIES\n[str-00002] helpful=0 harmful=0 :: Read the API docs first.\n",
    )
    .unwrap();
    round_trip(&loose);
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_markdown_playbook_migrates_into_ace_claude_mcp_and_back() {
    let dir = ace_tests::corpus_dir("markdown-playbook");
    let files = ace_tests::corpus_files(&dir);
    assert!(!files.is_empty());
    for file in files {
        round_trip(&file);
    }
}

#[test]
fn the_first_generation_is_read_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP_V1.ddl)(Dialect::Sqlite));
    // The rows the first schema.sql seeded itself with.
    sqlite3(
        &db,
        "INSERT INTO projects (id, description) VALUES ('global', 'Universal patterns');
         INSERT INTO entries (id, project_id, section, content, helpful, harmful) VALUES
         ('str-00001', 'global', 'STRATEGIES & INSIGHTS', 'Break complex problems into smaller, manageable steps.', 0, 0),
         ('cal-00001', 'global', 'FORMULAS & CALCULATIONS', 'ROI = (Gain - Cost) / Cost * 100', 2, 1);",
    );
    convert()
        .args([&loc(&db, ""), "--to", "markdown", "-q"])
        .assert()
        .success()
        .stdout(
            "## STRATEGIES & INSIGHTS\n[str-00001] helpful=0 harmful=0 :: Break complex problems into smaller, manageable steps.\n\n## FORMULAS & CALCULATIONS\n[cal-00001] helpful=2 harmful=1 :: ROI = (Gain - Cost) / Cost * 100\n",
        );
    let finance = dir.path().join("finance.md");
    std::fs::write(
        &finance,
        "## STRATEGIES & INSIGHTS\n[str-00002] helpful=3 harmful=0 :: Reconcile before closing the month\n",
    )
    .unwrap();
    convert()
        .arg(&finance)
        .args(["-o", &loc(&db, "#project=finance"), "-q"])
        .assert()
        .success();
    // The global rows stay; the file's entries are finance's.
    assert_eq!(
        sqlite3(
            &db,
            "SELECT project_id, count(*) FROM entries GROUP BY project_id ORDER BY 1"
        ),
        "finance|1\nglobal|2\n"
    );
    assert_eq!(
        sqlite3(&db, "SELECT id FROM projects ORDER BY id"),
        "finance\nglobal\n"
    );
}

#[test]
fn a_project_reads_the_global_entries_first_in_each_section() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    let global = dir.path().join("global.md");
    std::fs::write(
        &global,
        "## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: global advice\n\n## DOMAIN KNOWLEDGE\n[dom-00001] helpful=0 harmful=0 :: global fact\n",
    )
    .unwrap();
    let finance = dir.path().join("finance.md");
    std::fs::write(
        &finance,
        "## STRATEGIES & INSIGHTS\n[str-00002] helpful=2 harmful=0 :: finance advice\n",
    )
    .unwrap();
    convert()
        .arg(&global)
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    convert()
        .arg(&finance)
        .args(["-o", &loc(&db, "#project=finance"), "-q"])
        .assert()
        .success();
    let json = convert()
        .args([&loc(&db, "#project=finance"), "--to", "json", "-q"])
        .output()
        .unwrap()
        .stdout;
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let got: Vec<(&str, Option<&str>)> = v["playbook"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_str().unwrap(), e["project_id"].as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("str-00001", None),
            ("str-00002", Some("finance")),
            ("dom-00001", None)
        ]
    );
    // Global alone is global's.
    convert()
        .args([&loc(&db, ""), "--to", "markdown", "-q"])
        .assert()
        .success()
        .stdout(
            std::str::from_utf8(&std::fs::read(&global).unwrap())
                .unwrap()
                .to_owned(),
        );
}

#[test]
fn an_id_another_project_holds_is_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    let before = sqlite3(&db, ".dump entries");
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(&db, "#project=finance"), "-q"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "table entries, key str-00001: the ID is project global's",
        ));
    assert_eq!(sqlite3(&db, ".dump entries"), before);
}

#[test]
fn a_value_of_the_wrong_type_is_a_finding_at_its_table_key_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    sqlite3(
        &db,
        "UPDATE entries SET helpful_count = 'lots' WHERE entry_id = 'cal-00001'",
    );
    convert()
        .args([&loc(&db, ""), "--to", "markdown"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains(
            "table entries, key cal-00001, column helpful_count: found \"lots\"; expected a whole number",
        ))
        .stderr(predicates::str::contains("ACE091"));
    // Applied to, it exits as a playbook file that does not read: 1,
    // nothing applied.
    let before = sqlite3(&db, ".dump entries");
    let out = Process::new(ace_apply_bin())
        .args([
            &loc(&db, ""),
            plus_one(dir.path(), 1, "str-00001").to_str().unwrap(),
        ])
        .arg("--in-place")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("column helpful_count"), "{err}");
    assert_eq!(sqlite3(&db, ".dump entries"), before);
}

#[test]
fn a_database_of_another_schema_is_refused_naming_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(
        dir.path(),
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);",
    );
    let before = std::fs::read(&db).unwrap();
    for args in [
        vec![loc(&db, ""), "--to".into(), "markdown".into()],
        vec![
            fixture("canonical.md").display().to_string(),
            "-o".into(),
            loc(&db, ""),
        ],
    ] {
        convert()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(
                "(notes) are of no schema ace-tools knows",
            ))
            .stderr(predicates::str::contains("ace_claude_mcp-v1"))
            .stderr(predicates::str::contains("ace-playbook"));
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_new_database_gets_the_schema_asked_for_and_strict_writes_nothing_on_a_loss() {
    let dir = tempfile::tempdir().unwrap();
    let tagged = dir.path().join("tagged.json");
    let json = convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "json", "-q"])
        .output()
        .unwrap()
        .stdout;
    let mut v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    v["playbook"]["entries"][0]["tags"] = serde_json::json!(["data"]);
    std::fs::write(&tagged, serde_json::to_vec(&v).unwrap()).unwrap();
    let db = dir.path().join("new.db");
    convert()
        .arg(&tagged)
        .args(["-o", &loc(&db, ""), "--strict"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "ace_claude_mcp schema has no column for an entry's tags",
        ));
    assert!(!db.exists(), "--strict made the database");
    let db = dir.path().join("ap.db");
    convert()
        .arg(&tagged)
        .args([
            "-o",
            &loc(&db, "#schema=ace-playbook&project=finance"),
            "--strict",
        ])
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .assert()
        .success();
    assert_eq!(
        sqlite3(&db, "SELECT id, domain_id, section, tags, stage, created_at FROM playbook_bullets ORDER BY rowid LIMIT 1"),
        "str-00001|finance|STRATEGIES & INSIGHTS|[\"data\"]|SHADOW|2026-01-01 00:00:00\n"
    );
    // Each bullet added has its journal row, as ace-playbook's curator
    // writes one.
    assert_eq!(
        sqlite3(&db, "SELECT operation, count(*), count(after_hash) FROM diff_journal_entries GROUP BY operation"),
        "ADD_NEW|4|4\n"
    );
    // Its hashes are ace-playbook's `compute_bullet_hash` of the row, here
    // computed by Python as that function does.
    let check = r#"
import hashlib, json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("SELECT b.id, b.domain_id, b.content, b.section, b.helpful_count, b.harmful_count, b.tags, j.after_hash FROM playbook_bullets b JOIN diff_journal_entries j ON j.bullet_id = b.id").fetchall()
for (id, domain, content, section, helpful, harmful, tags, after) in rows:
    state = {"id": id, "domain_id": domain, "content": content, "section": section,
             "helpful_count": helpful, "harmful_count": harmful, "tags": sorted(json.loads(tags))}
    assert hashlib.sha256(json.dumps(state, sort_keys=True).encode("utf-8")).hexdigest() == after, id
print(len(rows))
"#;
    let out = Process::new("python3")
        .args(["-c", check])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "4\n");
}

#[test]
fn a_migration_is_the_same_database_every_time() {
    let dump = || {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pb.db");
        convert()
            .arg(fixture("canonical.md"))
            .args(["-o", &loc(&db, ""), "-q"])
            .env("SOURCE_DATE_EPOCH", "1767225600")
            .assert()
            .success();
        sqlite3(&db, ".dump")
    };
    assert_eq!(dump(), dump());
}

#[test]
fn a_password_in_a_location_is_never_shown() {
    let out = convert()
        .args(["postgres://agent:s3cret@127.0.0.1:1/pb", "--to", "markdown"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert!(!err.contains("s3cret"), "{err}");
    assert!(err.contains("agent:***@127.0.0.1:1"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_text_file_is_not_opened_as_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    convert()
        .args([&format!("sqlite:{}", fifo.display()), "--to", "markdown"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a regular file"));
    convert()
        .args([
            &format!("sqlite:{}", fixture("canonical.md").display()),
            "--to",
            "markdown",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a SQLite database"));
}

#[test]
fn ace_validate_checks_a_database_beside_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    super::validate()
        .args([&loc(&db, ""), "--output-format", "concise"])
        .arg(fixture("canonical.md"))
        .assert()
        .success();
    sqlite3(
        &db,
        "UPDATE entries SET harmful_count = 9, helpful_count = 0 WHERE entry_id = 'str-00002';
         UPDATE entries SET content = X'00ff' WHERE entry_id = 'mis-00001';",
    );
    super::validate()
        .args([&loc(&db, ""), "--output-format", "concise"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "error[ACE091]: table entries, key mis-00001, column content: found a blob of 2 bytes; expected text",
        ))
        .stdout(predicates::str::contains("[ACE006]"));
}

/// The throwaway cluster `tests/postgres/start.sh` starts (`.ci/run` does),
/// from `ACE_POSTGRES_URL`; these tests fail without it.
fn postgres_url() -> String {
    std::env::var("ACE_POSTGRES_URL").expect(
        "ACE_POSTGRES_URL: start a throwaway cluster with tests/postgres/start.sh DIR and export what it prints",
    )
}

/// A new, empty database of that cluster, by `psql`; its URL.
fn postgres_db(name: &str) -> String {
    let admin = postgres_url();
    for sql in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!("CREATE DATABASE {name}"),
    ] {
        let out = Process::new("psql")
            .args([&admin, "-q", "-c", &sql])
            .output()
            .expect("psql (Debian's postgresql-client) runs the Postgres tests");
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    admin.replacen("/postgres?", &format!("/{name}?"), 1)
}

fn psql(url: &str, sql: &str) -> String {
    let out = Process::new("psql")
        .args([url, "-qAt", "-c", sql])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
#[ignore = "needs ACE_POSTGRES_URL"]
fn a_markdown_playbook_migrates_into_postgres_and_back() {
    let url = postgres_db("ace_migrate");
    for file in ["canonical.md", "no-counters.txt"] {
        let file = fixture(file);
        convert()
            .arg(&file)
            .args(["-o", &url, "-q"])
            .assert()
            .success();
        assert_eq!(
            convert()
                .args([&url, "--to", "markdown", "-q"])
                .output()
                .unwrap()
                .stdout,
            rewritten(&file),
            "{}",
            file.display()
        );
    }
    // The last file written is the playbook: the first one's rows are gone.
    assert_eq!(
        psql(
            &url,
            "SELECT count(*) FROM entries WHERE entry_id = 'cal-00001'"
        ),
        "0\n"
    );
    super::validate().arg(&url).assert().success();
}

#[test]
#[ignore = "needs ACE_POSTGRES_URL"]
fn ace_playbooks_schema_on_postgres_journals_each_write() {
    let url = postgres_db("ace_journal");
    let at = format!("{url}#schema=ace-playbook&project=support");
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &at, "-q", "--now", "2026-01-01T00:00:00Z"])
        .assert()
        .success();
    let dir = tempfile::tempdir().unwrap();
    let more = dir.path().join("more.md");
    let text = std::fs::read_to_string(fixture("canonical.md"))
        .unwrap()
        .replace("helpful=5 harmful=0", "helpful=5 harmful=2");
    std::fs::write(&more, text).unwrap();
    convert()
        .arg(&more)
        .args([
            "-o",
            &format!("{url}#project=support"),
            "-q",
            "--now",
            "2026-01-02T00:00:00Z",
        ])
        .assert()
        .success();
    assert_eq!(
        psql(
            &url,
            "SELECT operation, count(*), count(before_hash) FROM diff_journal_entries GROUP BY operation ORDER BY 1"
        ),
        "ADD_NEW|4|0\nINCREMENT_HARMFUL|1|1\n"
    );
    assert_eq!(
        psql(&url, "SELECT stage, harmful_count, CAST(last_used_at AS TEXT) FROM playbook_bullets WHERE id = 'str-00001'"),
        "SHADOW|2|2026-01-02 00:00:00\n"
    );
    // Its content is never rewritten: such a write is refused whole.
    let edited = dir.path().join("edited.md");
    std::fs::write(
        &edited,
        std::fs::read_to_string(&more)
            .unwrap()
            .replace("Always verify", "Never skip"),
    )
    .unwrap();
    convert()
        .arg(&edited)
        .args(["-o", &format!("{url}#project=support")])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("append-only"));
    assert_eq!(
        psql(&url, "SELECT count(*) FROM diff_journal_entries"),
        "5\n"
    );
}

#[test]
#[ignore = "needs ACE_POSTGRES_URL"]
fn a_refused_password_or_a_closed_port_is_one_line_without_the_password() {
    let tcp =
        std::env::var("ACE_POSTGRES_TCP").expect("ACE_POSTGRES_TCP, from tests/postgres/start.sh");
    for (url, why) in [
        (
            format!("postgresql://ace_pw:wrong-s3cret@{tcp}/postgres"),
            "password authentication failed for user \"ace_pw\"",
        ),
        (
            "postgresql://ace_pw:wrong-s3cret@127.0.0.1:1/postgres".to_owned(),
            "Connection refused",
        ),
    ] {
        let out = convert()
            .args([&url, "--to", "markdown"])
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.contains("s3cret"), "{err}");
        assert!(err.contains(why), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// A skill delta, which carries its own ID, that counts `id` helpful once.
fn plus_one(dir: &Path, n: usize, id: &str) -> PathBuf {
    let path = dir.join(format!("delta-{n:03}.json"));
    std::fs::write(
        &path,
        format!(
            r#"{{"delta_id": "delta-2026-01-01-{n:03}", "counters": [{{"id": "{id}", "helpful_delta": 1}}]}}"#
        ),
    )
    .unwrap();
    path
}

fn ace_apply_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("ace-apply")
}

/// Twenty processes apply one delta each to one entry of `location`, all
/// at once, then each again: every delta counts once, the repeats are
/// refused as already applied.
fn twenty_agents(location: &str, count: impl Fn() -> i64) {
    let dir = tempfile::tempdir().unwrap();
    let before = count();
    let deltas: Vec<PathBuf> = (1..=20)
        .map(|n| plus_one(dir.path(), n, "str-00002"))
        .collect();
    let run = |deltas: &[PathBuf]| -> Vec<(i32, String)> {
        let children: Vec<_> = deltas
            .iter()
            .map(|d| {
                Process::new(ace_apply_bin())
                    .args([
                        location,
                        d.to_str().unwrap(),
                        "--in-place",
                        "--report",
                        "json",
                    ])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|c| {
                let out = c.wait_with_output().unwrap();
                (
                    out.status.code().unwrap_or(-1),
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
            })
            .collect()
    };
    for (code, err) in run(&deltas) {
        assert_eq!(code, 0, "{err}");
    }
    assert_eq!(count(), before + 20);
    for (code, err) in run(&deltas) {
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("already-applied"), "{err}");
    }
    assert_eq!(count(), before + 20);
}

#[test]
fn twenty_agents_count_once_each_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    twenty_agents(&loc(&db, ""), || {
        sqlite3(
            &db,
            "SELECT helpful_count FROM entries WHERE entry_id = 'str-00002'",
        )
        .trim()
        .parse()
        .unwrap()
    });
}

#[test]
#[ignore = "needs ACE_POSTGRES_URL"]
fn twenty_agents_count_once_each_in_postgres() {
    let url = postgres_db("ace_agents");
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &url, "-q"])
        .assert()
        .success();
    twenty_agents(&url, || {
        psql(
            &url,
            "SELECT helpful_count FROM entries WHERE entry_id = 'str-00002'",
        )
        .trim()
        .parse()
        .unwrap()
    });
}

/// A playbook of `n` entries in the spec's markdown.
fn big_playbook(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from("## STRATEGIES & INSIGHTS\n");
    for i in 1..=n {
        text.push_str(&format!(
            "[str-{i:05}] helpful=0 harmful=0 :: advice number {i}\n"
        ));
    }
    let path = dir.join("big.md");
    std::fs::write(&path, text).unwrap();
    path
}

/// An apply killed at any moment leaves the database as it was or as the
/// apply leaves it, never between: `kill -9` at twenty points of a delta
/// that counts every one of 20,000 entries.
fn killed_mid_apply(location: &str, sum: impl Fn() -> i64) {
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000;
    let mut counters = Vec::with_capacity(n);
    for i in 1..=n {
        counters.push(format!(r#"{{"id": "str-{i:05}", "helpful_delta": 1}}"#));
    }
    let mut applied = 0;
    for k in 0..20u64 {
        let delta = dir.path().join(format!("all-{k}.json"));
        std::fs::write(
            &delta,
            format!(
                r#"{{"delta_id": "delta-2026-02-01-{k:03}", "counters": [{}]}}"#,
                counters.join(",")
            ),
        )
        .unwrap();
        let mut child = Process::new(ace_apply_bin())
            .args([location, delta.to_str().unwrap(), "--in-place", "-q"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20 * k));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let total = sum();
        if status.success() {
            applied += 1;
        }
        // Whole applies only: the sum is a multiple of the entries.
        assert_eq!(total % n as i64, 0, "a partial apply: sum {total}");
        assert!(
            total / n as i64 >= applied,
            "an apply that exited 0 is missing"
        );
    }
}

#[test]
fn a_killed_apply_leaves_sqlite_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("big.db");
    convert()
        .arg(big_playbook(dir.path(), 20_000))
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    killed_mid_apply(&loc(&db, ""), || {
        sqlite3(&db, "SELECT sum(helpful_count) FROM entries")
            .trim()
            .parse()
            .unwrap()
    });
}

#[test]
#[ignore = "needs ACE_POSTGRES_URL"]
fn a_killed_apply_leaves_postgres_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let url = postgres_db("ace_killed");
    convert()
        .arg(big_playbook(dir.path(), 20_000))
        .args(["-o", &url, "-q"])
        .assert()
        .success();
    killed_mid_apply(&url, || {
        psql(&url, "SELECT sum(helpful_count) FROM entries")
            .trim()
            .parse()
            .unwrap()
    });
}

#[test]
fn ace_diff_and_ace_view_read_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    let at = loc(&db, "");
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &at, "-q"])
        .assert()
        .success();
    Process::new(assert_cmd::cargo::cargo_bin("ace-diff"))
        .args([&at])
        .arg(fixture("canonical.md"))
        .status()
        .map(|s| assert_eq!(s.code(), Some(0)))
        .unwrap();
    Process::new(ace_apply_bin())
        .args([
            &at,
            plus_one(dir.path(), 1, "cal-00001").to_str().unwrap(),
            "--in-place",
            "-q",
        ])
        .status()
        .map(|s| assert!(s.success()))
        .unwrap();
    let out = Process::new(assert_cmd::cargo::cargo_bin("ace-diff"))
        .arg(fixture("canonical.md"))
        .arg(&at)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("+++ {at}")), "{text}");
    assert!(
        text.contains("~ [cal-00001]\n    helpful: 8 -> 9"),
        "{text}"
    );
    let page = Process::new(assert_cmd::cargo::cargo_bin("ace-view"))
        .arg(&at)
        .output()
        .unwrap();
    assert!(page.status.success());
    let html = String::from_utf8(page.stdout).unwrap();
    assert!(
        html.contains("NPV = Σ(Cash Flow / (1+r)^t)"),
        "the page shows the entries"
    );
    assert!(html.contains(&at), "the page is named by its location");
}

#[test]
fn a_merged_views_project_markers_are_read_written_and_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let merged = dir.path().join("merged.md");
    let text = "## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: Check the input before anything else\n[str-00003] helpful=2 harmful=0 [finance] :: Reconcile the ledger before the close\n";
    std::fs::write(&merged, text).unwrap();
    // Read as the entry's project, with no finding about the marker.
    super::validate()
        .arg(&merged)
        .args(["--output-format", "concise", "--select", "ACE014"])
        .assert()
        .success();
    let json = convert()
        .arg(&merged)
        .args(["--to", "json", "-q"])
        .output()
        .unwrap()
        .stdout;
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["playbook"]["entries"][1]["project_id"], "finance");
    assert_eq!(
        v["playbook"]["entries"][1]["content"],
        "Reconcile the ledger before the close"
    );
    // Written back as it was.
    assert_eq!(rewritten(&merged), text.as_bytes());
    // Migrated, each entry goes to its project, as migrate_to_d1.py sends
    // it; read as finance, the view comes back.
    let db = dir.path().join("ace.db");
    convert()
        .arg(&merged)
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    assert_eq!(
        sqlite3(
            &db,
            "SELECT entry_id, project_id FROM entries ORDER BY entry_id"
        ),
        "str-00001|global\nstr-00003|finance\n"
    );
    convert()
        .args([&loc(&db, "#project=finance"), "--to", "markdown", "-q"])
        .assert()
        .success()
        .stdout(text);
    // A new finance entry is numbered past global's and finance's, and
    // past any other project's.
    sqlite3(
        &db,
        "INSERT INTO entries (entry_id, project_id, user_id, section, content) VALUES ('str-00004', 'ops', 'default', 'STRATEGIES & INSIGHTS', 'ops advice')",
    );
    let add = dir.path().join("add.json");
    std::fs::write(
        &add,
        r#"{"operation_type": "ADD", "section": "STRATEGIES & INSIGHTS", "content": "Close the month only after the bank feed"}"#,
    )
    .unwrap();
    Process::new(ace_apply_bin())
        .args([
            &loc(&db, "#project=finance"),
            add.to_str().unwrap(),
            "--in-place",
            "-q",
        ])
        .status()
        .map(|s| assert!(s.success()))
        .unwrap();
    assert_eq!(
        sqlite3(
            &db,
            "SELECT project_id FROM entries WHERE entry_id = 'str-00005'"
        ),
        "finance\n"
    );
}

#[test]
fn entries_without_times_stay_without_them_after_an_apply() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ace.db");
    let at = loc(&db, "");
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &at, "-q", "--now", "2026-01-01T00:00:00Z"])
        .assert()
        .success();
    Process::new(ace_apply_bin())
        .args([&at, plus_one(dir.path(), 1, "cal-00001").to_str().unwrap()])
        .args(["--in-place", "-q", "--now", "2026-02-01T00:00:00Z"])
        .status()
        .map(|s| assert!(s.success()))
        .unwrap();
    let json = convert()
        .args([&at, "--to", "json", "-q"])
        .output()
        .unwrap()
        .stdout;
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let times: Vec<(&str, Option<&str>)> = v["playbook"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_str().unwrap(), e["updated_at"].as_str()))
        .collect();
    // Only the entry the apply changed has a time: the apply's.
    assert_eq!(
        times,
        [
            ("str-00001", None),
            ("str-00002", None),
            ("cal-00001", Some("2026-02-01T00:00:00Z")),
            ("mis-00001", None)
        ]
    );
}

#[cfg(unix)]
/// A canonical playbook migrated into a new SQLite file at `db`, and a
/// delta raising `str-00002`'s helpful counter beside it.
fn playbook_and_delta(dir: &Path, db: &Path) -> PathBuf {
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(db, ""), "-q"])
        .assert()
        .success();
    plus_one(dir, 1, "str-00002")
}

fn ace_apply() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("ace-apply").unwrap()
}

fn view() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("ace-view").unwrap()
}

#[cfg(unix)]
fn helpful(db: &Path) -> String {
    sqlite3(
        db,
        "SELECT helpful_count FROM entries WHERE entry_id = 'str-00002'",
    )
}

#[cfg(unix)]
#[test]
fn the_write_scope_bounds_a_sqlite_file_through_its_links() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.db");
    let delta = playbook_and_delta(dir.path(), &outside);
    std::fs::create_dir(dir.path().join("inside")).unwrap();
    std::os::unix::fs::symlink("../outside.db", dir.path().join("inside/link.db")).unwrap();
    let before = std::fs::read(&outside).unwrap();
    ace_apply()
        .current_dir(dir.path())
        .args([
            "sqlite:inside/link.db",
            delta.to_str().unwrap(),
            "--in-place",
        ])
        .args(["--write-scope", "inside/*.db"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("outside the write scope"));
    assert_eq!(std::fs::read(&outside).unwrap(), before);
    // The same file named inside the scope is written.
    std::fs::rename(&outside, dir.path().join("inside/real.db")).unwrap();
    ace_apply()
        .current_dir(dir.path())
        .args([
            "sqlite:inside/real.db",
            delta.to_str().unwrap(),
            "--in-place",
        ])
        .args(["--write-scope", "inside/*.db"])
        .assert()
        .success();
    assert_eq!(helpful(&dir.path().join("inside/real.db")).trim(), "1");
}

#[cfg(unix)]
#[test]
fn a_read_only_sqlite_file_is_written_only_with_force() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ro.db");
    let delta = playbook_and_delta(dir.path(), &db);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&db).unwrap();
    let location = loc(&db, "");
    ace_apply()
        .args([&location, delta.to_str().unwrap(), "--in-place"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "read-only; nothing written (--force writes to it)",
        ));
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &location])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("read-only"));
    // Checking writes nothing, so the mark does not stop it.
    ace_apply()
        .args([&location, delta.to_str().unwrap(), "--check"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("would change it"));
    assert_eq!(std::fs::read(&db).unwrap(), before);
    ace_apply()
        .args([&location, delta.to_str().unwrap(), "--in-place", "--force"])
        .assert()
        .success();
    assert_eq!(helpful(&db).trim(), "1");
    let mode = std::fs::metadata(&db).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444, "the mark stays");
}

#[test]
fn a_control_character_in_a_location_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b\u{1b}[2Jad.db");
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    sqlite3(
        &db,
        "UPDATE entries SET helpful_count = 'x' WHERE entry_id = 'str-00002'",
    );
    for out in [
        validate().arg(loc(&db, "")).output().unwrap(),
        view()
            .arg(format!("sqlite:{}-missing", db.display()))
            .output()
            .unwrap(),
    ] {
        let text = [out.stdout, out.stderr].concat();
        let text = String::from_utf8(text).unwrap();
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.contains("b[U+001B][2Jad.db"), "{text}");
    }
}

/// ace_claude_mcp's folder as its server leaves it: the global playbook it
/// seeds, a project of its own, and a project whose file is there but
/// which `projects.json` does not list.
fn ace_folder(dir: &Path) -> PathBuf {
    let ace = dir.join(".ace");
    std::fs::create_dir_all(ace.join("playbooks")).unwrap();
    std::fs::write(
        ace.join("playbooks/global.md"),
        "## STRATEGIES & INSIGHTS\n\
         [str-00001] helpful=0 harmful=0 :: Break complex problems into smaller, manageable steps.\n\
         [str-00002] helpful=0 harmful=0 :: Validate assumptions before proceeding with solutions.\n\
         \n\
         ## FORMULAS & CALCULATIONS\n\
         [cal-00001] helpful=0 harmful=0 :: ROI = (Gain - Cost) / Cost * 100\n",
    )
    .unwrap();
    std::fs::write(
        ace.join("playbooks/finance.md"),
        "# Project: finance\n\n\n## STRATEGIES & INSIGHTS\n\
         [str-00003] helpful=2 harmful=0 :: Reconcile the ledger before the monthly close.\n",
    )
    .unwrap();
    std::fs::write(
        ace.join("playbooks/ops.md"),
        "# Project: ops\n\n\n## STRATEGIES & INSIGHTS\n\
         [str-00007] helpful=0 harmful=0 :: Page the on-call engineer before restarting prod.\n",
    )
    .unwrap();
    std::fs::write(
        ace.join("projects.json"),
        "{\n  \"global\": {\n    \"description\": \"Universal patterns and insights\"\n  },\n  \"finance\": {\n    \"description\": \"Money\"\n  }\n}",
    )
    .unwrap();
    ace
}

fn folder_loc(ace: &Path, project: &str) -> String {
    format!("{}#project={project}", ace.display())
}

#[test]
fn a_project_of_the_one_file_per_project_folder_reads_as_its_server_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let ace = ace_folder(dir.path());
    // What ace_core.read_playbook("finance") returns for these files.
    let view = "## STRATEGIES & INSIGHTS\n\
        [str-00001] helpful=0 harmful=0 :: Break complex problems into smaller, manageable steps.\n\
        [str-00002] helpful=0 harmful=0 :: Validate assumptions before proceeding with solutions.\n\
        [str-00003] helpful=2 harmful=0 [finance] :: Reconcile the ledger before the monthly close.\n\
        \n\
        ## FORMULAS & CALCULATIONS\n\
        [cal-00001] helpful=0 harmful=0 :: ROI = (Gain - Cost) / Cost * 100\n";
    convert()
        .args([&folder_loc(&ace, "finance"), "--to", "markdown", "-q"])
        .assert()
        .success()
        .stdout(view);
    validate()
        .arg(folder_loc(&ace, "finance"))
        .args(["--select", "ACE014,ACE091"])
        .assert()
        .success();
    // A bare folder is still a folder of files to check.
    validate().arg(&ace).assert().success();
    // A FIFO in the folder is never opened.
    #[cfg(unix)]
    {
        let fifo = ace.join("playbooks/fifo.md");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        convert()
            .args([&folder_loc(&ace, "fifo"), "--to", "markdown"])
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("not a regular file"));
    }
    // A project name is a file name in the folder, never a path.
    convert()
        .args([&folder_loc(&ace, "../x"), "--to", "markdown"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("a file name"));
}

#[test]
fn an_apply_to_a_project_of_the_folder_writes_each_file_its_own_entries() {
    let dir = tempfile::tempdir().unwrap();
    let ace = ace_folder(dir.path());
    let ops = std::fs::read(ace.join("playbooks/ops.md")).unwrap();
    let add = dir.path().join("add.json");
    std::fs::write(
        &add,
        r#"{"operation_type": "ADD", "section": "STRATEGIES & INSIGHTS", "content": "Close the month only after the bank feed arrives"}"#,
    )
    .unwrap();
    let counters = dir.path().join("counters.json");
    std::fs::write(
        &counters,
        r#"{"counters": [{"id": "str-00001", "helpful_delta": 1}, {"id": "str-00003", "helpful_delta": 1}]}"#,
    )
    .unwrap();
    ace_apply()
        .args([&folder_loc(&ace, "finance"), add.to_str().unwrap()])
        .args([counters.to_str().unwrap(), "--in-place", "-q"])
        .assert()
        .success();
    // The new entry is finance's, numbered past global's and finance's
    // IDs as `_get_next_id` numbers over the listed projects; each
    // counter is raised in its own project's file.
    assert_eq!(
        std::fs::read_to_string(ace.join("playbooks/finance.md")).unwrap(),
        "# Project: finance\n\n## STRATEGIES & INSIGHTS\n\
         [str-00003] helpful=3 harmful=0 :: Reconcile the ledger before the monthly close.\n\
         [str-00004] helpful=0 harmful=0 :: Close the month only after the bank feed arrives\n"
    );
    let global = std::fs::read_to_string(ace.join("playbooks/global.md")).unwrap();
    assert!(
        global.contains("[str-00001] helpful=1 harmful=0 :: Break"),
        "{global}"
    );
    assert!(!global.contains("str-00004"), "{global}");
    assert_eq!(std::fs::read(ace.join("playbooks/ops.md")).unwrap(), ops);
    // A project not listed yet gets its file and its line in
    // projects.json, as `create_project` makes them.
    ace_apply()
        .args([&folder_loc(&ace, "legal"), add.to_str().unwrap()])
        .args(["--in-place", "-q"])
        .assert()
        .success();
    let legal = std::fs::read_to_string(ace.join("playbooks/legal.md")).unwrap();
    assert!(legal.starts_with("# Project: legal\n"), "{legal}");
    assert!(
        legal.contains("[str-00005] helpful=0 harmful=0 :: Close"),
        "{legal}"
    );
    let projects: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ace.join("projects.json")).unwrap()).unwrap();
    assert_eq!(projects["legal"]["description"], "");
    assert_eq!(projects["finance"]["description"], "Money");
}

#[test]
fn the_folder_migrates_into_sqlite_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let ace = ace_folder(dir.path());
    let db = dir.path().join("ace.db");
    convert()
        .args([&folder_loc(&ace, "finance"), "-o", &loc(&db, ""), "-q"])
        .assert()
        .success();
    assert_eq!(
        sqlite3(
            &db,
            "SELECT entry_id, project_id, helpful_count FROM entries ORDER BY entry_id"
        ),
        "cal-00001|global|0\nstr-00001|global|0\nstr-00002|global|0\nstr-00003|finance|2\n"
    );
    // Back into a new folder, the shared project selected: each entry to
    // its project's file.
    let back = dir.path().join("back");
    std::fs::create_dir(&back).unwrap();
    convert()
        .args([
            &loc(&db, "#project=finance"),
            "-o",
            &folder_loc(&back, "global"),
            "-q",
        ])
        .assert()
        .success();
    for project in ["global", "finance"] {
        let path = format!("playbooks/{project}.md");
        let old = std::fs::read_to_string(ace.join(&path)).unwrap();
        let new = std::fs::read_to_string(back.join(&path)).unwrap();
        let lines = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| l.starts_with('['))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(lines(&new), lines(&old), "{project}");
    }
    convert()
        .args([&folder_loc(&back, "finance"), "--to", "markdown", "-q"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "[str-00003] helpful=2 harmful=0 [finance] :: Reconcile",
        ));
}

#[test]
fn concurrent_applies_to_the_folder_each_count() {
    let dir = tempfile::tempdir().unwrap();
    let ace = ace_folder(dir.path());
    let location = folder_loc(&ace, "finance");
    let children: Vec<_> = (1..=10)
        .map(|n| {
            let d = plus_one(dir.path(), n, "str-00003");
            Process::new(ace_apply_bin())
                .args([&location, d.to_str().unwrap(), "--in-place", "-q"])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let finance = std::fs::read_to_string(ace.join("playbooks/finance.md")).unwrap();
    assert!(
        finance.contains("[str-00003] helpful=12 harmful=0"),
        "{finance}"
    );
}

/// The venv of tests/ace_playbook/install.sh: SQLAlchemy, Alembic and
/// psycopg2 from PyPI, which run ace-playbook's migration and models.
fn ace_playbook_venv() -> PathBuf {
    let venv = PathBuf::from(std::env::var("ACE_PLAYBOOK_VENV").expect(
        "ACE_PLAYBOOK_VENV: make it with tests/ace_playbook/install.sh DIR and export DIR",
    ));
    assert!(
        venv.join("bin/alembic").exists(),
        "ACE_PLAYBOOK_VENV={} has no alembic: run tests/ace_playbook/install.sh on it",
        venv.display()
    );
    venv
}

/// Runs `program` of the venv in tests/ace_playbook with the database at
/// SQLAlchemy URL `url`; its standard output.
fn in_ace_playbook(venv: &Path, url: &str, args: &[&str]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ace_playbook");
    let out = Process::new(venv.join("bin").join(args[0]))
        .args(&args[1..])
        .current_dir(&dir)
        .env("ACE_PLAYBOOK_DB", url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// ace-playbook's own migration makes the database and its own models add
/// bullets; ace-tools reads every one, applies a counter and a new bullet,
/// and the models load what it wrote, with a journal row per write whose
/// hashes are the models' `compute_bullet_hash`.
fn ace_playbook_round_trip(url: &str, location: &str) {
    let venv = ace_playbook_venv();
    in_ace_playbook(
        &venv,
        url,
        &["alembic", "-c", "alembic.ini", "upgrade", "head"],
    );
    in_ace_playbook(&venv, url, &["python", "rows.py", "seed"]);
    let dump = |venv: &Path| -> serde_json::Value {
        serde_json::from_str(&in_ace_playbook(venv, url, &["python", "rows.py", "dump"])).unwrap()
    };
    let seeded = dump(&venv);
    let bullets = seeded["bullets"].as_array().unwrap();
    assert_eq!(bullets.len(), 3);
    let json = convert()
        .args([location, "--to", "json", "-q"])
        .output()
        .unwrap();
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let read: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let entries = read["playbook"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    for b in bullets {
        let e = entries.iter().find(|e| e["id"] == b["id"]).unwrap();
        assert_eq!(e["content"], b["content"]);
        assert_eq!(e["helpful"], b["helpful_count"]);
        assert_eq!(e["harmful"], b["harmful_count"]);
        assert_eq!(
            e.get("tags").cloned().unwrap_or(serde_json::json!([])),
            b["tags"]
        );
    }
    let first = bullets.iter().find(|b| b["section"] == "Helpful").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("counter.json");
    std::fs::write(
        &counter,
        format!(
            r#"{{"delta_id": "delta-2026-03-02-001", "counters": [{{"id": {}, "helpful_delta": 1}}]}}"#,
            first["id"]
        ),
    )
    .unwrap();
    let add = dir.path().join("add.json");
    std::fs::write(
        &add,
        r#"{"operation_type": "ADD", "section": "Helpful", "content": "Check the carrier tracking page before you escalate a lost parcel"}"#,
    )
    .unwrap();
    Process::new(ace_apply_bin())
        .args([location, counter.to_str().unwrap(), add.to_str().unwrap()])
        .args(["--in-place", "-q"])
        .status()
        .map(|s| assert!(s.success()))
        .unwrap();
    let after = dump(&venv);
    let bullets = after["bullets"].as_array().unwrap();
    assert_eq!(bullets.len(), 4);
    let raised = bullets.iter().find(|b| b["id"] == first["id"]).unwrap();
    assert_eq!(raised["helpful_count"], 5);
    assert_eq!(raised["tags"], first["tags"]);
    assert_eq!(raised["embedding"], 384, "the embedding is kept");
    let new = bullets
        .iter()
        .find(|b| {
            b["content"] == "Check the carrier tracking page before you escalate a lost parcel"
        })
        .unwrap();
    let id = new["id"].as_str().unwrap();
    assert!(
        id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    assert_eq!(new["stage"], "SHADOW");
    assert_eq!(new["domain_id"], "support");
    let journal = after["journal"].as_array().unwrap();
    assert_eq!(journal.len(), 2, "{journal:?}");
    let inc = journal
        .iter()
        .find(|j| j["bullet_id"] == first["id"])
        .unwrap();
    assert_eq!(inc["operation"], "INCREMENT_HELPFUL");
    assert_eq!(inc["before_hash"], first["hash"]);
    assert_eq!(inc["after_hash"], raised["hash"]);
    let added = journal
        .iter()
        .find(|j| j["bullet_id"] == new["id"])
        .unwrap();
    assert_eq!(added["operation"], "ADD_NEW");
    assert_eq!(added["before_hash"], serde_json::Value::Null);
    assert_eq!(added["after_hash"], new["hash"]);
}

#[test]
#[ignore = "needs ACE_PLAYBOOK_VENV"]
fn ace_playbooks_own_migration_and_models_read_what_ace_tools_writes_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ace_playbook.db");
    // SQLAlchemy's URL, four slashes for an absolute path: the location
    // ace-playbook's DATABASE_URL holds is one ace-tools takes as it is.
    let url = format!("sqlite:///{}", db.display());
    ace_playbook_round_trip(&url, &url);
}

#[test]
#[ignore = "needs ACE_PLAYBOOK_VENV and ACE_POSTGRES_URL"]
fn ace_playbooks_own_migration_and_models_read_what_ace_tools_writes_in_postgres() {
    let url = postgres_db("ace_playbook_models");
    let sqlalchemy = url.replacen("postgresql://", "postgresql+psycopg2://", 1);
    ace_playbook_round_trip(&sqlalchemy, &sqlalchemy);
}

/// A project or user that a database or folder holds nothing of is most
/// likely a misspelt name: the tools that only read refuse it, naming what
/// is there, rather than check or convert an empty playbook with exit 0;
/// an apply makes it.
#[test]
fn a_project_the_location_does_not_hold_is_refused_by_a_read_and_made_by_an_apply() {
    let dir = tempfile::tempdir().unwrap();
    let db = made_with(dir.path(), &(CLAUDE_MCP.ddl)(Dialect::Sqlite));
    convert()
        .arg(fixture("canonical.md"))
        .args(["-o", &loc(&db, "#project=appworld"), "-q"])
        .assert()
        .success();
    let ace = ace_folder(dir.path());
    let other = dir.path().join("other.md");
    std::fs::write(&other, "## STRATEGIES & INSIGHTS\n").unwrap();
    let absent = [
        (
            loc(&db, "#project=apworld"),
            "no project `apworld` is there; it holds project `appworld`",
        ),
        (
            loc(&db, "#user=bob"),
            "no user `bob` is there; it holds user `default`",
        ),
        (
            folder_loc(&ace, "fin"),
            "no project `fin` is there; it holds projects `finance`, `global`, `ops`",
        ),
    ];
    for (location, said) in &absent {
        let other = other.to_str().unwrap();
        for (tool, args) in [
            ("ace-convert", vec![location.as_str(), "--to", "markdown"]),
            ("ace-validate", vec![location.as_str()]),
            ("ace-diff", vec![location.as_str(), other]),
            ("ace-view", vec![location.as_str(), "-o", "-"]),
        ] {
            assert_cmd::Command::cargo_bin(tool)
                .unwrap()
                .args(&args)
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicates::str::contains(*said));
        }
    }
    // Named and there: read.
    for location in [
        loc(&db, "#project=appworld"),
        loc(&db, "#user=default"),
        folder_loc(&ace, "finance"),
    ] {
        validate().arg(&location).assert().success();
    }
    // The shared project is always there, rows or none.
    validate()
        .arg(loc(&db, "#project=global"))
        .assert()
        .success();
    // An apply to a project not made yet makes it, as ace_claude_mcp's
    // add_entry does; then it reads.
    let delta = dir.path().join("add.json");
    std::fs::write(
        &delta,
        r#"{"operations": [{"op": "appendEntry", "entry": {"id": "str-00009", "kind": "strategy", "text": "Name the project.", "helpfulCount": 0, "harmfulCount": 0}}]}"#,
    )
    .unwrap();
    for location in [loc(&db, "#project=new"), folder_loc(&ace, "new")] {
        ace_apply()
            .args([
                location.as_str(),
                delta.to_str().unwrap(),
                "--in-place",
                "-q",
            ])
            .assert()
            .success();
        validate().arg(&location).assert().success();
    }
}
