//! A playbook's history in git: each commit that changed the file (its
//! renames followed), the entries and tokens of the file then, and what
//! the commit added, removed and changed (ace-diff's difference).
//!
//! git is run as a program (`git log --follow`, `git show`): the user's
//! own git, with their configuration, reads the repository, and ace-tools
//! links no git implementation.

use std::path::Path;
use std::process::Command;

use ace_registry::Registry;

/// One commit of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub id: String,
    pub short: String,
    /// Committer date, ISO 8601.
    pub date: String,
    pub subject: String,
    /// The file's path then, from the repository's root.
    pub path: String,
    /// Active entries, and tokens of the playbook's text, at this commit;
    /// `None` when the file did not read as a playbook then.
    pub entries: Option<usize>,
    pub tokens: Option<usize>,
    /// IDs the commit added, removed and changed, against the commit
    /// before it (the first commit adds every entry).
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
    /// Why the file did not read, when it did not.
    pub problem: Option<String>,
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.first().copied().unwrap_or(""),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// The commits of `file`, oldest first, each read in `encoding`.
pub fn commits(file: &Path, encoding: ace_tokens::Encoding) -> Result<Vec<Commit>, String> {
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: not a file name git can follow", file.display()))?;
    let root = String::from_utf8_lossy(&git(dir, &["rev-parse", "--show-toplevel"])?)
        .trim()
        .to_owned();
    let log = git(
        dir,
        &[
            "log",
            "--follow",
            "--format=%x1e%H%x1f%h%x1f%cI%x1f%s",
            "--name-only",
            "--",
            name,
        ],
    )?;
    let log = String::from_utf8_lossy(&log);
    let mut commits: Vec<Commit> = Vec::new();
    for record in log.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
        let mut lines = record.lines();
        let head: Vec<&str> = lines.next().unwrap_or("").split('\u{1f}').collect();
        let path = lines
            .find(|l| !l.trim().is_empty())
            .unwrap_or(name)
            .to_owned();
        if head.len() < 4 {
            continue;
        }
        commits.push(Commit {
            id: head[0].to_owned(),
            short: head[1].to_owned(),
            date: head[2].to_owned(),
            subject: head[3].to_owned(),
            path,
            entries: None,
            tokens: None,
            added: Vec::new(),
            removed: Vec::new(),
            changed: Vec::new(),
            problem: None,
        });
    }
    if commits.is_empty() {
        return Err(format!("{}: no commit of this file in git", file.display()));
    }
    commits.reverse();
    let registry = Registry::builtin();
    let mut before: Option<ace_model::Playbook> = None;
    for c in &mut commits {
        let spec = format!("{}:{}", c.id, c.path);
        let read = git(Path::new(&root), &["show", &spec])
            .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8 text".to_owned()))
            .and_then(|text| {
                let path = Path::new(&c.path);
                let format = registry.detect(Some(path), &text);
                let pb = ace_registry::read(format, &text)
                    .map_err(|d| d.message)?
                    .playbook;
                let tokens = encoding.count(format.imp().playbook_text(&text));
                Ok((pb, tokens))
            });
        match read {
            Ok((pb, tokens)) => {
                c.entries = Some(
                    pb.entries
                        .iter()
                        .filter(|e| !ace_check::budget::retired(e))
                        .count(),
                );
                c.tokens = Some(tokens);
                let empty = ace_model::Playbook::default();
                let d = ace_apply::diff::diff(before.as_ref().unwrap_or(&empty), &pb);
                for e in &d.entries {
                    let id = e.entry().id.clone();
                    match e {
                        ace_apply::diff::EntryDiff::Added(_) => c.added.push(id),
                        ace_apply::diff::EntryDiff::Removed(_) => c.removed.push(id),
                        ace_apply::diff::EntryDiff::Changed { .. } => c.changed.push(id),
                    }
                }
                before = Some(pb);
            }
            Err(e) => c.problem = Some(e),
        }
    }
    Ok(commits)
}
