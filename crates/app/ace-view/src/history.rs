//! A playbook's history in git: each commit that changed the file (its
//! renames followed), the entries and tokens of the file then, and what
//! the commit added, removed and changed (ace-diff's difference).
//!
//! git is run as a program: the user's own git, with their configuration,
//! reads the repository, and ace-tools links no git implementation. The
//! repository is not trusted: commit messages and file names reach git
//! only as data. The log is read NUL-separated and parsed strictly, only
//! hexadecimal object IDs are passed back to git (after
//! `--end-of-options`), pathspecs are literal, and nothing is asked of git
//! that runs a program the repository's configuration names (signature
//! checks, external diffs, text conversion).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use ace_registry::Registry;

/// One commit of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub id: String,
    /// The first parent's ID; `None` for a root commit.
    pub parent: Option<String>,
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
    /// IDs the commit added, removed and changed, against the file in its
    /// first parent (a commit that made the file adds every entry).
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
    /// Why the file did not read, when it did not.
    pub problem: Option<String>,
}

/// Runs git in `dir` with `args`, as safe for an untrusted repository as
/// git's own options make it: literal pathspecs, no signature check and
/// no file-system monitor, whatever the configuration says.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "--literal-pathspecs",
            "--no-pager",
            "-c",
            "log.showSignature=false",
            "-c",
            "core.fsmonitor=false",
        ])
        .args(args)
        .env_remove("GIT_EXTERNAL_DIFF")
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        // git's `fatal:` and `hint:` lines, said on the one line of the
        // error.
        let said: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        return Err(format!(
            "git {}: {}",
            args.first().copied().unwrap_or(""),
            said.join("; ")
        ));
    }
    Ok(out.stdout)
}

/// Whether `s` is a full object ID (SHA-1 or SHA-256), the only thing
/// from git's output that is passed back to it as an argument.
fn is_object_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The commits `git log -z --format=%H%x00%P%x00%h%x00%cI%x00%s --name-only`
/// printed: per commit, five NUL-ended fields, then the file's path
/// after a line break, NUL-ended. git ends a message at a NUL byte, so no
/// message can add a field; anything else out of shape is an error.
fn parse_log(log: &[u8]) -> Result<Vec<Commit>, String> {
    let bad = |what: &str| format!("git log printed {what}; expected a commit record");
    let mut fields = log.split(|&b| b == 0);
    let mut commits = Vec::new();
    while let Some(id) = fields.next() {
        if id.is_empty() {
            // What follows the last NUL.
            if fields.next().is_none() {
                break;
            }
            return Err(bad("an empty field"));
        }
        let id = std::str::from_utf8(id)
            .ok()
            .filter(|id| is_object_id(id))
            .ok_or_else(|| bad("an object ID that is not hexadecimal"))?;
        let mut next = || fields.next().ok_or_else(|| bad("a cut-off record"));
        let parents = std::str::from_utf8(next()?).map_err(|_| bad("parents out of shape"))?;
        if !parents.split(' ').all(|p| p.is_empty() || is_object_id(p)) {
            return Err(bad("a parent that is not an object ID"));
        }
        let parent = parents
            .split(' ')
            .find(|p| !p.is_empty())
            .map(str::to_owned);
        let short = String::from_utf8_lossy(next()?).into_owned();
        let date = String::from_utf8_lossy(next()?).into_owned();
        let subject = String::from_utf8_lossy(next()?).into_owned();
        let path = next()?
            .strip_prefix(b"\n")
            .ok_or_else(|| bad("a record without the file's path"))?;
        let path = String::from_utf8(path.to_vec()).map_err(|_| bad("a path that is not UTF-8"))?;
        if !short.bytes().all(|b| b.is_ascii_hexdigit()) || path.is_empty() {
            return Err(bad("a record out of shape"));
        }
        commits.push(Commit {
            id: id.to_owned(),
            parent,
            short,
            date,
            subject,
            path,
            entries: None,
            tokens: None,
            added: Vec::new(),
            removed: Vec::new(),
            changed: Vec::new(),
            problem: None,
        });
    }
    Ok(commits)
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
    let root = git(dir, &["rev-parse", "--show-toplevel"])?;
    let root = String::from_utf8(root)
        .map_err(|_| format!("{}: the repository's path is not UTF-8", file.display()))?;
    let root = root.strip_suffix('\n').unwrap_or(&root).to_owned();
    let log = git(
        dir,
        &[
            "log",
            "--follow",
            "-z",
            "--no-show-signature",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--encoding=UTF-8",
            "--format=%H%x00%P%x00%h%x00%cI%x00%s",
            "--name-only",
            // A merge is listed when it changed the file from its first
            // parent: what it brought to that line.
            "--diff-merges=first-parent",
            "--end-of-options",
            "--",
            name,
        ],
    )?;
    let mut commits = parse_log(&log)?;
    if commits.is_empty() {
        return Err(format!("{}: no commit of this file in git", file.display()));
    }
    commits.reverse();
    let registry = Registry::builtin();
    // The file at a commit: its text read as a playbook, with its tokens.
    let read_at = |id: &str, path: &str| -> Result<(ace_model::Playbook, usize), String> {
        // The ID was checked to be hexadecimal, so the argument cannot be
        // read as an option, and `ID:path` names the blob whatever the
        // path holds.
        let spec = format!("{id}:{path}");
        let bytes = git(
            Path::new(&root),
            &["cat-file", "--end-of-options", "blob", &spec],
        )?;
        let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned())?;
        let format = registry.detect(Some(Path::new(path)), &text);
        let pb = ace_registry::read(format, &text)
            .map_err(|d| d.message)?
            .playbook;
        Ok((pb, encoding.count(format.imp().playbook_text(&text))))
    };
    // Only the versions a later commit compares with are kept: a long
    // history is not held whole.
    let parents: HashSet<&str> = commits.iter().filter_map(|c| c.parent.as_deref()).collect();
    let parents: HashSet<String> = parents.into_iter().map(str::to_owned).collect();
    let mut read: HashMap<String, ace_model::Playbook> = HashMap::new();
    let mut paths: Vec<String> = Vec::new();
    for c in &mut commits {
        match read_at(&c.id, &c.path) {
            Ok((pb, tokens)) => {
                c.entries = Some(
                    pb.entries
                        .iter()
                        .filter(|e| !ace_check::budget::retired(e))
                        .count(),
                );
                c.tokens = Some(tokens);
                // The file in the first parent: a commit of the log when
                // it changed the file, else read there (a side branch's
                // commit, or a merge's parent), under any name it had.
                let base = c.parent.as_ref().and_then(|p| {
                    read.get(p).cloned().or_else(|| {
                        std::iter::once(&c.path)
                            .chain(paths.iter().rev())
                            .find_map(|path| read_at(p, path).ok().map(|(pb, _)| pb))
                    })
                });
                let d = ace_apply::diff::diff(&base.unwrap_or_default(), &pb);
                for e in &d.entries {
                    let id = e.entry().id.clone();
                    match e {
                        ace_apply::diff::EntryDiff::Added(_) => c.added.push(id),
                        ace_apply::diff::EntryDiff::Removed(_) => c.removed.push(id),
                        ace_apply::diff::EntryDiff::Changed { .. } => c.changed.push(id),
                    }
                }
                if parents.contains(&c.id) {
                    read.insert(c.id.clone(), pb);
                }
            }
            Err(e) => c.problem = Some(e),
        }
        if !paths.contains(&c.path) {
            paths.push(c.path.clone());
        }
    }
    Ok(commits)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn the_log_is_read_strictly() {
        let good = format!("{ID}\x00{ID} {ID}\x000123456\x002026-01-01T00:00:00Z\x00a \x1e--output=x\x00\ncaf\"\u{e9}\tx.md\x00{ID}\x00\x000123456\x00d\x00root\x00\np.md\x00");
        let commits = parse_log(good.as_bytes()).unwrap();
        assert_eq!(commits.len(), 2);
        assert_eq!(commits[0].parent.as_deref(), Some(ID));
        assert_eq!(commits[1].parent, None);
        assert_eq!(commits[0].subject, "a \u{1e}--output=x");
        assert_eq!(commits[0].path, "caf\"\u{e9}\tx.md");
        for bad in [
            "--output=x\x00\x00abc\x00d\x00s\x00\np.md\x00".to_owned(),
            format!("{ID}\x00\x000123456\x00d\x00s\x00"),
            format!("{ID}\x00\x000123456\x00d\x00s\x00p.md\x00"),
            format!("{ID}\x00\x00zz\x00d\x00s\x00\np.md\x00"),
            format!("{ID}\x00--output=x\x000123456\x00d\x00s\x00\np.md\x00"),
        ] {
            assert!(parse_log(bad.as_bytes()).is_err(), "{bad:?}");
        }
        assert!(parse_log(b"").unwrap().is_empty());
    }
}
