//! ace_claude_mcp's folder of playbooks (`~/.ace`): one markdown playbook
//! per project in `playbooks/{project}.md`, and `projects.json` naming
//! the projects. A project is read as that project's server reads it
//! (`ace_core.read_playbook`): the `global` file's entries first in each
//! section, then the project's, each marked with it. Writes go back to
//! the file of each entry's project, under the lock of every file written.

use std::path::{Path, PathBuf};

use ace_fs::{Held, Source};
use ace_model::{Error, Playbook, Severity};
use ace_store::{
    Change, Location, Project, Reflection, WriteOptions, Written, LEDGER, RESERVED_KEY,
};

use crate::convert::{self, Stop};
use crate::located::{Reading, StoreInput};
use crate::{Format, ReadCtx, WriteCtx};

/// The project whose entries every project reads beside its own.
const SHARED: &str = "global";

/// What ace_claude_mcp's `_load_projects` gives when `projects.json` is
/// not there yet, and so what a new one starts from.
const SHARED_DESCRIPTION: &str = "Universal patterns and insights";

/// The folder and the project a location selects.
struct Folder<'a> {
    dir: &'a Path,
    project: String,
    shown: String,
}

impl<'a> Folder<'a> {
    fn of(location: &'a Location) -> Result<Folder<'a>, Error> {
        let ace_store::Db::Folder(dir) = &location.db else {
            return Err(Error::Usage(format!(
                "{location}: not a folder of playbooks"
            )));
        };
        let s = &location.select;
        let (unsupported, what) = match (&s.user, &s.stage, &s.schema) {
            (Some(_), _, _) => (true, "user="),
            (_, Some(_), _) => (true, "stage="),
            (_, _, Some(_)) => (true, "schema="),
            _ => (false, ""),
        };
        if unsupported {
            return Err(Error::Usage(format!(
                "{location}: a folder of playbooks has projects only; drop `{what}`"
            )));
        }
        let project = s.project.clone().unwrap_or_else(|| SHARED.to_owned());
        if !is_file_name(&project) {
            return Err(Error::value(
                "project",
                &project,
                "a name that is a file name (letters, digits, `-`, `_`, `.`, not starting with `.`)",
            ));
        }
        Ok(Folder {
            dir,
            project,
            shown: location.shown(),
        })
    }

    fn file(&self, project: &str) -> PathBuf {
        self.dir.join("playbooks").join(format!("{project}.md"))
    }

    fn projects_file(&self) -> PathBuf {
        self.dir.join("projects.json")
    }

    /// The project files there are, by project, sorted.
    fn listed(&self) -> Result<Vec<String>, Error> {
        let dir = self.dir.join("playbooks");
        let mut out = Vec::new();
        match std::fs::read_dir(&dir) {
            Ok(entries) => {
                for e in entries {
                    let e = e.map_err(|e| Error::io(&dir, e))?;
                    let name = e.file_name();
                    let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".md")) else {
                        continue;
                    };
                    if is_file_name(stem) {
                        out.push(stem.to_owned());
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&dir, e)),
        }
        for p in self.projects()?.0.keys() {
            if is_file_name(p) && !out.contains(p) {
                out.push(p.clone());
            }
        }
        out.sort();
        Ok(out)
    }

    /// `projects.json` as read, and whether it is there.
    fn projects(&self) -> Result<(serde_json::Map<String, serde_json::Value>, bool), Error> {
        let path = self.projects_file();
        match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str(&text) {
                Ok(serde_json::Value::Object(map)) => Ok((map, true)),
                Ok(_) => Err(Error::Content {
                    place: path.display().to_string(),
                    message: "expected an object of projects".into(),
                }),
                Err(e) => Err(Error::Content {
                    place: format!("{}:{}:{}", path.display(), e.line(), e.column()),
                    message: e.to_string(),
                }),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut map = serde_json::Map::new();
                map.insert(
                    SHARED.into(),
                    serde_json::json!({ "description": SHARED_DESCRIPTION }),
                );
                Ok((map, false))
            }
            Err(e) => Err(Error::io(&path, e)),
        }
    }

    /// The playbook of `project`'s file, `None` when there is no file.
    fn read_file(&self, project: &str) -> Result<Option<Playbook>, Stop> {
        let path = self.file(project);
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e).into()),
            // A FIFO or a device in the folder is never opened: reading it
            // could block, and it is no project's playbook.
            Ok(m) if !m.is_file() => return Err(Error::io(&path, "not a regular file").into()),
            Ok(_) => {}
        }
        let source = ace_fs::load(&path)?;
        let ctx = ReadCtx::min(Severity::Error);
        convert::read_input(&source, Format::MARKDOWN, None, &ctx)
            .map(|input| Some(input.parsed.playbook))
            .map_err(|stop| match stop {
                // The file at fault is named, not the folder.
                Stop::Findings {
                    companion: None,
                    diagnostics,
                } => Stop::Findings {
                    companion: Some(source),
                    diagnostics,
                },
                other => other,
            })
    }

    /// The selected project's view: the shared file's entries, then the
    /// project's marked with it, in each section.
    fn merged(&self) -> Result<Playbook, Stop> {
        let shared = self.read_file(SHARED)?.unwrap_or_default();
        if self.project == SHARED {
            return Ok(shared);
        }
        let own = self.read_file(&self.project)?.unwrap_or_default();
        let mut out = Playbook {
            sections: shared.sections,
            entries: shared.entries,
            ..Playbook::default()
        };
        let mut has: std::collections::HashSet<String> =
            out.sections.iter().map(|o| o.key.clone()).collect();
        for s in own.sections {
            if has.insert(s.key.clone()) {
                out.sections.push(s);
            }
        }
        out.entries.extend(own.entries.into_iter().map(|mut e| {
            e.project_id = Some(self.project.clone());
            e
        }));
        // As the server's merged view: a section with no entry in either
        // file is not shown.
        let used: std::collections::HashSet<&str> = out
            .entries
            .iter()
            .filter_map(|e| e.section.as_deref())
            .collect();
        let keep: Vec<bool> = out
            .sections
            .iter()
            .map(|s| used.contains(s.key.as_str()))
            .collect();
        let mut keep = keep.into_iter();
        out.sections.retain(|_| keep.next().unwrap_or(true));
        Ok(out)
    }

    /// The view as text, and read back from that text: what findings
    /// point into.
    fn read(&self) -> Result<StoreInput, Stop> {
        let merged = self.merged()?;
        let text = crate::write_with(Format::MARKDOWN, &merged, &WriteCtx::default()).text;
        let source = Source {
            name: self.shown.clone(),
            path: None,
            text: text.into(),
        };
        let ctx = ReadCtx::min(Severity::Info);
        let input = convert::read_input(&source, Format::MARKDOWN, None, &ctx)?;
        let mut parsed = input.parsed;
        if self.project == SHARED {
            parsed.playbook.layout = merged.layout;
        }
        Ok(StoreInput {
            source,
            parsed,
            lint: Format::MARKDOWN.imp().lint_profile(),
        })
    }

    /// Locks the files a write of the selection may change.
    fn lock(&self, wait: std::time::Duration, force: bool) -> Result<Held, Error> {
        let paths = [
            self.projects_file(),
            self.file(SHARED),
            self.file(&self.project),
        ];
        Held::lock(&paths, wait)
            .map(|h| h.forcing(force))
            .map_err(|e| Error::Refused(format!("{}: {e}", self.shown)))
    }

    /// Writes `pb` back to the project files: each entry to its marked
    /// project's file. An unmarked one goes to the selected project's,
    /// unless `pb` is the view read here (`with_shared`) and the shared
    /// file holds it. Each file written holds exactly its project's
    /// entries of `pb`; the shared file is left alone unless `with_shared`.
    fn write(&self, pb: &Playbook, opts: &WriteOptions, held: &Held) -> Result<Written, Error> {
        let shared: std::collections::HashSet<String> =
            match opts.with_shared && self.project != SHARED {
                true => self
                    .read_file(SHARED)
                    .map_err(|s| self.unreadable(SHARED, s))?
                    .map(|pb| pb.entries.into_iter().map(|e| e.id).collect())
                    .unwrap_or_default(),
                false => Default::default(),
            };
        let project_of = |e: &ace_model::Entry| -> String {
            match e.project_id.as_deref() {
                Some(p) => p.to_owned(),
                None if shared.contains(&e.id) => SHARED.to_owned(),
                None => self.project.clone(),
            }
        };
        let mut targets: Vec<String> = vec![self.project.clone()];
        if opts.with_shared && self.project != SHARED {
            targets.insert(0, SHARED.to_owned());
        }
        for e in &pb.entries {
            let p = project_of(e);
            if !targets.contains(&p) {
                if !is_file_name(&p) {
                    return Err(Error::value(
                        "project",
                        &p,
                        format!("a project that is a file name (entry `{}`)", e.id),
                    ));
                }
                targets.push(p);
            }
        }
        let mut written = Written::default();
        let ctx = WriteCtx::default().with_now(Some(opts.now.clone()));
        let mut files: Vec<(PathBuf, String)> = Vec::new();
        for project in &targets {
            let path = self.file(project);
            let base = self
                .read_file(project)
                .map_err(|s| self.unreadable(project, s))?;
            let existed = base.is_some();
            let mut sub = base.unwrap_or_else(|| new_file(project));
            let before: std::collections::HashMap<String, (Option<i64>, Option<i64>, String)> = sub
                .entries
                .iter()
                .map(|e| (e.id.clone(), (e.helpful, e.harmful, e.content.clone())))
                .collect();
            sub.entries = pb
                .entries
                .iter()
                .filter(|e| project_of(e) == *project)
                .cloned()
                .map(|mut e| {
                    e.project_id = None;
                    e
                })
                .collect();
            let used: std::collections::HashSet<String> = sub
                .entries
                .iter()
                .filter_map(|e| e.section.clone())
                .collect();
            let mut has: std::collections::HashSet<String> =
                sub.sections.iter().map(|o| o.key.clone()).collect();
            for s in &pb.sections {
                if used.contains(&s.key) && has.insert(s.key.clone()) {
                    sub.sections.push(s.clone());
                }
            }
            for e in &sub.entries {
                match before.get(&e.id) {
                    None => written.inserted += 1,
                    Some(b) if *b != (e.helpful, e.harmful, e.content.clone()) => {
                        written.updated += 1
                    }
                    Some(_) => {}
                }
            }
            written.removed += before
                .keys()
                .filter(|id| !sub.entries.iter().any(|e| &e.id == *id))
                .count();
            let text = crate::write_with(Format::MARKDOWN, &sub, &ctx).text;
            let same = existed && std::fs::read(&path).is_ok_and(|old| old == text.as_bytes());
            if !same {
                files.push((path, text));
            }
        }
        let (mut projects, there) = self.projects()?;
        let mut listed_new = !there && targets.iter().any(|t| t != SHARED);
        for t in &targets {
            if !projects.contains_key(t) {
                projects.insert(t.clone(), serde_json::json!({ "description": "" }));
                listed_new = true;
            }
        }
        if listed_new {
            files.push((self.projects_file(), projects_text(projects)));
        }
        held.unchanged()
            .map_err(|e| Error::Refused(format!("{e}")))?;
        if !files.is_empty() {
            let dir = self.dir.join("playbooks");
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        }
        for (path, text) in files {
            ace_fs::write_atomic(&path, text.as_bytes(), Some(held))
                .map_err(|e| Error::io(&path, e))?;
        }
        Ok(written)
    }

    /// A project file that does not read, as the error of a write.
    fn unreadable(&self, project: &str, stop: Stop) -> Error {
        match stop {
            Stop::Usage(e) => e,
            other => Error::Refused(format!(
                "{}: {other}; nothing written",
                self.file(project).display()
            )),
        }
    }

    /// The IDs of the other projects' files: a new entry takes none of
    /// them, as `_get_next_id` numbers across every project.
    fn reserved(&self) -> Result<Vec<String>, Stop> {
        let mut out = Vec::new();
        for p in self.listed()? {
            if p == SHARED || p == self.project {
                continue;
            }
            if let Some(pb) = self.read_file(&p)? {
                out.extend(pb.entries.into_iter().map(|e| e.id));
            }
        }
        Ok(out)
    }
}

impl Folder<'_> {
    /// `projects.json`'s projects, in its order, as `list_projects` lists
    /// them.
    fn project_list(&self) -> Result<Vec<Project>, Error> {
        Ok(self
            .projects()?
            .0
            .into_iter()
            .map(|(id, meta)| Project {
                id,
                description: meta
                    .get("description")
                    .and_then(|d| d.as_str())
                    .map(str::to_owned),
            })
            .collect())
    }

    /// `id` added to `projects.json`, and its file made, as
    /// ace_claude_mcp's `create_project` does; `false` when it is listed
    /// already.
    fn create_project(
        &self,
        id: &str,
        description: Option<&str>,
        wait: std::time::Duration,
        force: bool,
    ) -> Result<bool, Error> {
        if !is_file_name(id) {
            return Err(Error::value(
                "project_id",
                id,
                "a name that is a file name (letters, digits, `-`, `_`, `.`, not starting with `.`)",
            ));
        }
        let file = self.file(id);
        let held = Held::lock(&[self.projects_file(), file.clone()], wait)
            .map(|h| h.forcing(force))
            .map_err(|e| Error::Refused(format!("{}: {e}", self.shown)))?;
        let (mut projects, _) = self.projects()?;
        if projects.contains_key(id) {
            return Ok(false);
        }
        projects.insert(
            id.to_owned(),
            serde_json::json!({ "description": description.unwrap_or("") }),
        );
        let text = projects_text(projects);
        held.unchanged()
            .map_err(|e| Error::Refused(format!("{e}")))?;
        let dir = self.dir.join("playbooks");
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        if std::fs::symlink_metadata(&file).is_err() {
            let new = crate::write_with(Format::MARKDOWN, &new_file(id), &WriteCtx::default()).text;
            ace_fs::write_atomic(&file, new.as_bytes(), Some(&held))
                .map_err(|e| Error::io(&file, e))?;
        }
        let path = self.projects_file();
        ace_fs::write_atomic(&path, text.as_bytes(), Some(&held))
            .map_err(|e| Error::io(&path, e))?;
        Ok(true)
    }

    /// `r` appended to `reflections/{project}.jsonl` as ace_claude_mcp's
    /// `log_reflection` writes it, stamped `now`; the file written.
    fn reflect(
        &self,
        r: &Reflection,
        now: &str,
        wait: std::time::Duration,
        force: bool,
    ) -> Result<PathBuf, Error> {
        if !is_file_name(&r.project) {
            return Err(Error::value(
                "project_id",
                &r.project,
                "a name that is a file name (letters, digits, `-`, `_`, `.`, not starting with `.`)",
            ));
        }
        let dir = self.dir.join("reflections");
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let path = dir.join(format!("{}.jsonl", r.project));
        ace_fs::append_locked(&path, r.json_line(now, false).as_bytes(), wait, force)
            .map_err(|e| Error::Refused(format!("{}: {e}", self.shown)))?;
        Ok(path)
    }
}

/// `projects.json` as `_save_projects` writes it: `json.dumps(indent=2)`,
/// no final newline.
fn projects_text(projects: serde_json::Map<String, serde_json::Value>) -> String {
    let mut text = String::new();
    ace_pyjson::dump(&serde_json::Value::Object(projects), 2, true, &mut text);
    text
}

/// A project file ace_claude_mcp's `_ensure_playbook` would make.
fn new_file(project: &str) -> Playbook {
    Playbook {
        title: (project != SHARED).then(|| format!("Project: {project}")),
        ..Playbook::default()
    }
}

/// A project name that names a file in `playbooks/` and nothing else.
fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The selected project's view ([`Folder::read`]).
pub(crate) fn read(location: &Location) -> Result<StoreInput, Stop> {
    Folder::of(location)?.read()
}

/// The project the location names when the folder holds nothing of it
/// (no file, no line in `projects.json`), with what it does hold; the
/// shared project is always there.
pub(crate) fn absent(location: &Location) -> Result<Option<String>, Error> {
    let folder = Folder::of(location)?;
    if folder.project == SHARED {
        return Ok(None);
    }
    let listed = folder.listed()?;
    Ok((!listed.contains(&folder.project)).then(|| {
        format!(
            "no project `{}` is there{}",
            folder.project,
            ace_store::held("project", &listed)
        )
    }))
}

/// `pb` written to the folder ([`Folder::write`]), the files locked.
pub(crate) fn write(
    location: &Location,
    pb: &Playbook,
    opts: &WriteOptions,
    force: bool,
) -> Result<Written, Error> {
    let folder = Folder::of(location)?;
    let held = folder.lock(opts.wait, force)?;
    folder.write(pb, opts, &held)
}

/// The view read under the lock of the files it is written back to, and
/// what `change` makes of it written back.
pub(crate) fn update<T>(
    location: &Location,
    force: bool,
    write: bool,
    opts: &WriteOptions,
    change: impl FnOnce(Reading) -> Result<Change<T>, Error>,
) -> Result<(Option<Written>, T), Error> {
    let folder = Folder::of(location)?;
    let held = match write {
        true => Some(folder.lock(opts.wait, force)?),
        false => None,
    };
    let stop = |s: Stop| match s {
        Stop::Usage(e) => e,
        other => Error::Refused(format!("{}: {other}; nothing applied", folder.shown)),
    };
    let input = folder.read().map_err(stop)?;
    let mut playbook = input.parsed.playbook;
    playbook.extra.insert(
        RESERVED_KEY.to_owned(),
        folder.reserved().map_err(stop)?.into(),
    );
    let mut curation = Format::MARKDOWN.imp().curation(&playbook);
    curation.ledger = Some(&LEDGER);
    let reading = Reading {
        playbook,
        listing: input.source.text.to_string(),
        diagnostics: input.parsed.diagnostics,
        curation,
    };
    let Change { playbook, value } = change(reading)?;
    let (Some(mut pb), Some(held)) = (playbook, held) else {
        return Ok((None, value));
    };
    pb.extra.remove(RESERVED_KEY);
    pb.extra.remove(ace_store::APPLIED_KEY);
    let opts = WriteOptions {
        with_shared: true,
        ..opts.clone()
    };
    let written = folder.write(&pb, &opts, &held)?;
    Ok((Some(written), value))
}

/// The projects `projects.json` lists ([`Folder::project_list`]).
pub(crate) fn projects(location: &Location) -> Result<Vec<Project>, Error> {
    Folder::of(location)?.project_list()
}

/// [`Folder::create_project`].
pub(crate) fn create_project(
    location: &Location,
    id: &str,
    description: Option<&str>,
    wait: std::time::Duration,
    force: bool,
) -> Result<bool, Error> {
    Folder::of(location)?.create_project(id, description, wait, force)
}

/// [`Folder::reflect`].
pub(crate) fn reflect(
    location: &Location,
    r: &Reflection,
    now: &str,
    wait: std::time::Duration,
    force: bool,
) -> Result<PathBuf, Error> {
    Folder::of(location)?.reflect(r, now, wait, force)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_name_never_leaves_the_folder() {
        for bad in ["", "..", "../x", "a/b", ".hidden", "a\\b", "x\u{1b}"] {
            assert!(!is_file_name(bad), "{bad:?}");
        }
        for good in ["global", "finance", "team-a_1", "v1.2"] {
            assert!(is_file_name(good), "{good:?}");
        }
    }
}
