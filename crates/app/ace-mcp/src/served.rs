//! The tools, synchronously: each reads the playbook location it serves,
//! or applies one delta to it through ace-apply's in-place path (its
//! locks, its curator, its exactly-once ledger), and answers in the words
//! of ace_claude_mcp's server where it has a tool of the name.

use std::path::Path;
use std::time::Duration;

use ace_apply::place::{self, InPlace, Placed};
use ace_apply::prune::{Among, PruneOptions};
use ace_apply::{Curate, DeltaSource, Ready, Request};
use ace_model::controls::visible;
use ace_model::{Playbook, Severity};
use ace_registry::convert::{self, Stop};
use ace_registry::store::{self, Db, Project, Reflection};
use ace_registry::{Format, Registry, WriteCtx};

use crate::similar;

/// A tool's failure: the message the client is given as the tool's
/// error result.
pub type Failure = String;

/// The project every other reads beside its own (the playbook format
/// spec's `global`).
pub const SHARED: &str = "global";

/// The playbook location a server serves, and how it writes.
#[derive(Debug, Clone)]
pub struct Served {
    pub location: String,
    pub wait: Duration,
    /// ace.toml to use (`--config`); `None` looks for one from the
    /// current directory, as the tools do.
    pub config: Option<std::path::PathBuf>,
    /// Replace a read-only playbook (`--force`).
    pub force: bool,
}

/// A location read: the playbook, and the format of the file it is in
/// (`None` for a database or a folder of projects).
struct Read {
    playbook: Playbook,
    format: Option<Format>,
}

impl Served {
    /// The store location of the served one, with `project` selected
    /// where the tool names one.
    fn store(
        &self,
        project: Option<&str>,
    ) -> Result<Option<ace_registry::store::StoreLocation>, Failure> {
        let mut parsed =
            ace_registry::store::location(&self.location).map_err(|e| e.to_string())?;
        // ace_claude_mcp's folder named as its server knows it, without a
        // selector: its global project.
        let dir = Path::new(&self.location);
        if parsed.is_none()
            && dir.is_dir()
            && (dir.join("playbooks").is_dir() || dir.join("projects.json").is_file())
        {
            parsed = ace_registry::store::location(format!("{}#project={SHARED}", self.location))
                .map_err(|e| e.to_string())?;
        }
        let Some(mut loc) = parsed else {
            return Ok(None);
        };
        if let Some(p) = project {
            loc.select.project = Some(p.to_owned());
        }
        Ok(Some(loc))
    }

    /// The location string a write of `project` goes to.
    fn target(&self, project: Option<&str>) -> Result<String, Failure> {
        Ok(match self.store(project)? {
            Some(loc) => shown_with_secret(&self.location, &loc),
            None => self.location.clone(),
        })
    }

    /// The served file's whole playbook, every project's entries, and
    /// its format.
    fn read_file(&self) -> Result<(Playbook, Format), Failure> {
        let source = ace_fs::load(Path::new(&self.location)).map_err(|e| e.to_string())?;
        let format = Registry::builtin().detect(source.path.as_deref(), &source.text);
        let ctx = ace_registry::ReadCtx::min(Severity::Error);
        let input =
            convert::read_input(&source, format, None, &ctx).map_err(|s| stop_message(&s))?;
        Ok((input.parsed.playbook, format))
    }

    fn read(&self, project: Option<&str>) -> Result<Read, Failure> {
        if let Some(loc) = self.store(project)? {
            let input = ace_registry::store::view(&loc).map_err(|s| stop_message(&s))?;
            return Ok(Read {
                playbook: input.parsed.playbook,
                format: None,
            });
        }
        let (mut playbook, format) = self.read_file()?;
        // One file holds every project its lines are marked with: a
        // project's view is the unmarked entries and its own.
        let want = project.unwrap_or(SHARED);
        playbook.entries.retain(|e| match e.project_id.as_deref() {
            None => true,
            Some(p) => p == want,
        });
        Ok(Read {
            playbook,
            format: Some(format),
        })
    }

    /// The playbook as an agent reads it: markdown, each section's
    /// entries under its heading, another project's marked `[project]`.
    /// With `max_tokens`, the best entries that fit, as `ace-convert
    /// --into --max-tokens` chooses them.
    pub fn read_playbook(
        &self,
        project: Option<&str>,
        max_tokens: Option<usize>,
    ) -> Result<String, Failure> {
        let read = self.read(project)?;
        let markdown = |pb: &Playbook| -> String {
            let mut shown = pb.clone();
            if read.format != Some(Format::MARKDOWN) {
                shown.layout = Default::default();
            }
            ace_registry::write_with(Format::MARKDOWN, &shown, &WriteCtx::default()).text
        };
        let Some(max) = max_tokens else {
            return Ok(markdown(&read.playbook));
        };
        let budget = ace_apply::into::budget(max, None);
        let (kept, _) = ace_apply::prune::fit(&read.playbook, &budget, |cand| {
            budget.encoding.count(&markdown(cand))
        });
        Ok(markdown(&kept))
    }

    /// The lines of one section of [`Served::read_playbook`]'s text, its
    /// heading first, as ace_claude_mcp's `get_section` returns them.
    pub fn get_section(&self, section: &str, project: Option<&str>) -> Result<String, Failure> {
        let read = self.read(project)?;
        let titles: Vec<String> = read
            .playbook
            .sections
            .iter()
            .map(|s| s.display_title().to_owned())
            .collect();
        if !titles.iter().any(|t| t == section) {
            return Err(format!(
                "no section {section:?}; the playbook's sections are: {}",
                titles.join(", ")
            ));
        }
        let text = self.read_playbook(project, None)?;
        let heading = format!("## {section}");
        let lines: Vec<&str> = text.split('\n').collect();
        let Some(start) = lines.iter().position(|l| l.trim() == heading) else {
            return Ok(String::new());
        };
        let end = lines[start + 1..]
            .iter()
            .position(|l| l.trim().starts_with("## "))
            .map_or(lines.len(), |n| start + 1 + n);
        Ok(lines[start..end].join("\n"))
    }

    /// The entry lines whose content holds any of the query's words, as
    /// ace_claude_mcp's `search_playbook` finds them.
    pub fn search_playbook(&self, query: &str, project: Option<&str>) -> Result<String, Failure> {
        let words: Vec<String> = query
            .to_lowercase()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let read = self.read(project)?;
        let text = self.read_playbook(project, None)?;
        let hits: Vec<&str> = text
            .lines()
            .filter(|line| {
                read.playbook.entries.iter().any(|e| {
                    line.starts_with(&format!("[{}]", e.id))
                        && words
                            .iter()
                            .any(|w| e.content.to_lowercase().contains(w.as_str()))
                })
            })
            .collect();
        if hits.is_empty() {
            return Ok(format!("No entries found matching '{query}'"));
        }
        Ok(format!(
            "Found {} matching entries:\n{}",
            hits.len(),
            hits.join("\n")
        ))
    }

    /// Applies one delta (any dialect ace-apply reads) to the location in
    /// place: ace-apply's report as JSON, or why nothing was applied.
    pub fn apply_delta(&self, delta: &str, project: Option<&str>) -> Result<Placed, Failure> {
        let source = [DeltaSource {
            name: "<delta>",
            file_name: None,
            text: delta,
        }];
        self.place(&self.target(project)?, &source, &self.ready()?)
    }

    /// `delta`, about entry `id`, applied to the project that has the
    /// entry: the location's, else (in a folder or database) the first
    /// other project that does, as ace_claude_mcp's server looks through
    /// every project's playbook for an ID.
    fn apply_to_owner(&self, delta: &str, id: &str) -> Result<Placed, Failure> {
        let placed = self.apply_delta(delta, None)?;
        let Some(loc) = self.store(None)?.filter(|_| unknown_id(&placed)) else {
            return Ok(placed);
        };
        let mine = loc.select.project.clone();
        let mine = mine.as_deref().unwrap_or(SHARED);
        for p in store::projects(&loc).map_err(|e| e.to_string())? {
            if p.id == mine {
                continue;
            }
            let holds = self
                .read(Some(&p.id))?
                .playbook
                .entries
                .iter()
                .any(|e| e.id == id);
            if holds {
                return self.apply_delta(delta, Some(&p.id));
            }
        }
        Ok(placed)
    }

    /// ace-apply's options as ace.toml sets them.
    fn ready(&self) -> Result<Ready, Failure> {
        Request {
            config: match &self.config {
                Some(p) => ace_apply::Config::File(p.clone()),
                None => ace_apply::Config::Find,
            },
            ..Request::default()
        }
        .ready()
        .map_err(|e| e.to_string())
    }

    /// `deltas` applied to `target` in place, then what `ready` curates.
    fn place(
        &self,
        target: &str,
        deltas: &[DeltaSource<'_>],
        ready: &Ready,
    ) -> Result<Placed, Failure> {
        let how = InPlace {
            wait: self.wait,
            force: self.force,
            strict: false,
        };
        let placed = place::apply(target, deltas, ready, how).map_err(|s| stop_message(&s))?;
        if let Some(why) = &placed.unreadable {
            return Err(format!("{why}; nothing applied"));
        }
        Ok(placed)
    }

    /// Refuses a write to `path` outside ace.toml's write scope.
    fn in_scope(&self, ready: &Ready, path: &Path) -> Result<(), Failure> {
        match &ready.scope {
            Some(scope) => scope.check(path).map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    /// The project a tool call is about: the one it names, else the
    /// location's, else the shared one.
    fn project_of(&self, project: Option<&str>) -> Result<String, Failure> {
        Ok(match project {
            Some(p) => p.to_owned(),
            None => self
                .store(None)?
                .and_then(|l| l.select.project)
                .unwrap_or_else(|| SHARED.to_owned()),
        })
    }

    /// ace_claude_mcp's `list_projects`: `- ID: description`, a line each.
    /// A folder or database lists its own; a file's are the projects its
    /// entries are marked with, after the shared one.
    pub fn list_projects(&self) -> Result<String, Failure> {
        let projects: Vec<Project> = match self.store(None)? {
            Some(loc) => store::projects(&loc).map_err(|e| e.to_string())?,
            None => self
                .file_projects()?
                .into_iter()
                .map(|id| Project {
                    id,
                    description: None,
                })
                .collect(),
        };
        if projects.is_empty() {
            return Ok("No projects found.".to_owned());
        }
        Ok(projects
            .iter()
            .map(|p| match p.description.as_deref() {
                Some(d) if !d.is_empty() => format!("- {}: {d}", p.id),
                _ => format!("- {}", p.id),
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }

    /// The shared project, then each project a file's entries are marked
    /// with, in the order they first appear.
    fn file_projects(&self) -> Result<Vec<String>, Failure> {
        let (playbook, _) = self.read_file()?;
        let mut out = vec![SHARED.to_owned()];
        for e in &playbook.entries {
            if let Some(p) = &e.project_id {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        Ok(out)
    }

    /// ace_claude_mcp's `create_project`, where the location keeps a list
    /// of projects (a folder, a database); a file's projects are its
    /// entries' marks, so there one exists once it has an entry.
    pub fn create_project(&self, id: &str, description: Option<&str>) -> Result<String, Failure> {
        let Some(loc) = self.store(None)? else {
            if self.file_projects()?.iter().any(|p| p == id) {
                return Ok(format!("Project '{id}' already exists."));
            }
            return Err(format!(
                "{} is one playbook file, which keeps no list of projects: a project's entries are \
                 the ones marked [{id}], and add_entry with project_id \"{id}\" adds its first",
                visible(&self.location)
            ));
        };
        let ready = self.ready()?;
        if let Db::Folder(dir) = &loc.db {
            self.in_scope(&ready, &dir.join("projects.json"))?;
            self.in_scope(&ready, &dir.join("playbooks").join(format!("{id}.md")))?;
        }
        let now = ace_model::time::now(None).map_err(|e| e.to_string())?;
        let made = store::create_project(&loc, id, description, &now, self.wait, self.force)
            .map_err(|e| e.to_string())?;
        Ok(match (made, description) {
            (false, _) => format!("Project '{id}' already exists."),
            (true, Some(d)) if !d.is_empty() => format!("Created project '{id}': {d}"),
            (true, _) => format!("Created project '{id}'"),
        })
    }

    /// ace_claude_mcp's `log_reflection`: a folder's
    /// `reflections/{project}.jsonl`, a database's table of reflections,
    /// and beside a file, `FILE.reflections.jsonl`.
    pub fn log_reflection(
        &self,
        task_summary: &str,
        outcome: &str,
        learnings: &[String],
        project: Option<&str>,
    ) -> Result<String, Failure> {
        let ready = self.ready()?;
        let project = self.project_of(project)?;
        let now = ace_model::time::now(None).map_err(|e| e.to_string())?;
        let r = Reflection {
            project: project.clone(),
            task_summary: task_summary.to_owned(),
            outcome: outcome.to_owned(),
            learnings: learnings.to_vec(),
        };
        match self.store(None)? {
            Some(loc) => {
                if let Db::Folder(dir) = &loc.db {
                    let file = dir.join("reflections").join(format!("{project}.jsonl"));
                    self.in_scope(&ready, &file)?;
                }
                store::reflect(&loc, &r, &now, self.wait, self.force).map_err(|e| e.to_string())?;
            }
            None => {
                let path = reflections_beside(Path::new(&self.location))?;
                self.in_scope(&ready, &path)?;
                let line = r.json_line(&now, project != SHARED);
                ace_fs::append_locked(&path, line.as_bytes(), self.wait, self.force)
                    .map_err(|e| e.to_string())?;
            }
        }
        let head: String = task_summary.chars().take(50).collect();
        Ok(format!(
            "Logged reflection with {} learning(s) for task: {head}...",
            learnings.len()
        ))
    }

    /// ace_claude_mcp's `curate_playbook`: each entry of the project (of
    /// every project, when none is named) with `harmful > helpful +
    /// threshold` removed (deprecated where the format keeps a status),
    /// as `ace-apply --prune` removes them, under the lock; then the
    /// pairs of entries left whose texts are more than 80% alike.
    pub fn curate_playbook(
        &self,
        project: Option<&str>,
        threshold: i64,
    ) -> Result<String, Failure> {
        let mut ready = self.ready()?;
        let scopes: Vec<(String, Among)> = match (self.store(None)?, project) {
            (None, None) => vec![(self.location.clone(), Among::All)],
            (None, Some(p)) => vec![(self.location.clone(), among(p, Some(SHARED)))],
            (Some(loc), named) => {
                let shared = match &loc.db {
                    Db::Folder(_) => Some(SHARED),
                    _ => store::open(&loc, store::Access::Read)
                        .map_err(|e| e.to_string())?
                        .schema
                        .and_then(|s| s.shared_project),
                };
                let projects = match named {
                    Some(p) => vec![p.to_owned()],
                    None => store::projects(&loc)
                        .map_err(|e| e.to_string())?
                        .into_iter()
                        .map(|p| p.id)
                        .collect(),
                };
                let mut out = Vec::new();
                for p in projects {
                    out.push((self.target(Some(&p))?, among(&p, shared)));
                }
                out
            }
        };
        let mut removed: Vec<String> = Vec::new();
        let mut kept: Vec<(String, Vec<char>)> = Vec::new();
        for (target, among) in scopes {
            ready.curate = Curate {
                dedup: None,
                prune: Some(PruneOptions {
                    budget: Default::default(),
                    threshold,
                    deprecate: true,
                    among: among.clone(),
                }),
            };
            let placed = self.place(&target, &[], &ready)?;
            let active = |e: &&ace_model::Entry| among.holds(e) && !ace_check::budget::retired(e);
            let after: std::collections::HashSet<&str> = placed
                .after
                .entries
                .iter()
                .filter(active)
                .map(|e| e.id.as_str())
                .collect();
            removed.extend(
                placed
                    .before
                    .entries
                    .iter()
                    .filter(active)
                    .filter(|e| !after.contains(e.id.as_str()))
                    .map(|e| e.id.clone()),
            );
            kept.extend(
                placed
                    .after
                    .entries
                    .iter()
                    .filter(active)
                    .map(|e| (e.id.clone(), e.content.to_lowercase().chars().collect())),
            );
        }
        let mut alike: Vec<(usize, usize, f64)> = Vec::new();
        for (i, (_, a)) in kept.iter().enumerate() {
            for (j, (_, b)) in kept.iter().enumerate().skip(i + 1) {
                // Each bound is at least the ratio: a pair either rules
                // out is not more than 80% alike.
                if similar::bound_by_length(a.len(), b.len()) <= 0.8
                    || similar::bound_by_counts(a, b) <= 0.8
                {
                    continue;
                }
                let r = similar::ratio(a, b);
                if r > 0.8 {
                    alike.push((i, j, r));
                }
            }
        }
        let mut out = Vec::new();
        match removed.is_empty() {
            true => out.push("No harmful entries to remove.".to_owned()),
            false => out.push(format!(
                "Removed {} harmful entries: [{}]",
                removed.len(),
                removed
                    .iter()
                    .map(|id| python_repr(id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        match alike.is_empty() {
            true => out.push("No duplicate entries found.".to_owned()),
            false => {
                let shown: Vec<String> = alike
                    .iter()
                    .take(5)
                    .map(|(i, j, r)| {
                        format!("{} ~ {} ({})", kept[*i].0, kept[*j].0, similar::percent(*r))
                    })
                    .collect();
                out.push(format!("Potential duplicates found: {}", shown.join("; ")));
                if alike.len() > 5 {
                    out.push(format!("  ...and {} more", alike.len() - 5));
                }
            }
        }
        Ok(out.join("\n"))
    }

    /// ace_claude_mcp's `update_counters`: each counter moved by its
    /// delta, never below 0.
    pub fn update_counters(&self, id: &str, helpful: i64, harmful: i64) -> Result<String, Failure> {
        let delta = serde_json::json!({
            "counters": [{"id": id, "helpful_delta": helpful, "harmful_delta": harmful}]
        });
        let placed = self.apply_to_owner(&delta.to_string(), id)?;
        refused(&placed, id)?;
        let counts = |pb: &Playbook| {
            pb.entries
                .iter()
                .find(|e| e.id == id)
                .map(|e| (e.helpful.unwrap_or(0), e.harmful.unwrap_or(0)))
        };
        let (Some((h0, x0)), Some((h1, x1))) = (counts(&placed.before), counts(&placed.after))
        else {
            return Err(format!("Entry '{id}' not found in playbook."));
        };
        Ok(format!(
            "Updated [{id}]: helpful={h0}->{h1}, harmful={x0}->{x1}"
        ))
    }

    /// ace_claude_mcp's `add_entry`: the entry added to `section` of
    /// `project`, its ID the playbook's next.
    pub fn add_entry(
        &self,
        section: &str,
        content: &str,
        project: Option<&str>,
    ) -> Result<String, Failure> {
        // An entry of no text is ACE021 in every format, and an agent that
        // sends one has lost its lesson on the way: said, not filed.
        if content.trim().is_empty() {
            return Err("`content` is empty; expected the entry's text (nothing added)".to_owned());
        }
        let mut delta = serde_json::json!({
            "operation_type": "ADD", "section": section, "content": content.trim()
        });
        // A file holds a project's entries marked with it; a folder or a
        // database is written to the project selected.
        let is_file = self.store(None)?.is_none();
        if let (true, Some(p)) = (is_file, project) {
            if p != SHARED {
                delta["project_id"] = p.into();
            }
        }
        let placed = self.apply_delta(&delta.to_string(), project)?;
        refused(&placed, "")?;
        let before: std::collections::HashSet<&str> = placed
            .before
            .entries
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        let new = placed
            .after
            .entries
            .iter()
            .find(|e| !before.contains(e.id.as_str()))
            .ok_or_else(|| "the delta added no entry".to_owned())?;
        let project = match project {
            Some(p) => p.to_owned(),
            None => self
                .store(None)?
                .and_then(|l| l.select.project)
                .unwrap_or_else(|| SHARED.to_owned()),
        };
        // The section the entry went to, by its title: a name the
        // playbook lacks may have been filed under OTHERS (the paper's
        // curator), so the name given is not always where it is.
        let went = new
            .section
            .as_deref()
            .and_then(|key| placed.after.sections.iter().find(|s| s.key == key))
            .map_or(section, |s| s.display_title());
        let mut answer = format!("Added entry [{}] to '{went}' (project: {project})", new.id);
        for (lost, target) in &placed.losses {
            for l in lost
                .iter()
                .filter(|l| l.entry_id.as_deref() == Some(&new.id))
            {
                answer.push_str(&format!(
                    "\n{target} does not keep {}: {}",
                    l.field, l.reason
                ));
            }
        }
        Ok(answer)
    }

    /// ace_claude_mcp's `remove_entry`.
    pub fn remove_entry(&self, id: &str) -> Result<String, Failure> {
        // AcePatch's retirement: removed where the format keeps no status
        // (markdown), deprecated where it keeps one, as those formats'
        // curators retire entries.
        let delta = serde_json::json!({"op": "deprecateEntry", "entryId": id});
        let placed = self.apply_to_owner(&delta.to_string(), id)?;
        refused(&placed, id)?;
        Ok(format!("Removed entry [{id}]"))
    }

    /// The playbook as the MCP resource ace-mcp lists: a file as it is
    /// stored, under its `file://` URI; a folder's or database's project
    /// as [`Served::read_playbook`] gives it, under the location's name.
    pub fn resource(&self) -> Result<Stored, Failure> {
        if let Some(loc) = self.store(None)? {
            let uri = match &loc.db {
                Db::Folder(dir) => {
                    let dir = std::path::absolute(dir).map_err(|e| e.to_string())?;
                    let project = loc.select.project.as_deref().unwrap_or(SHARED);
                    format!("{}#project={project}", file_uri(&dir))
                }
                _ => loc.shown(),
            };
            return Ok(Stored {
                uri,
                mime: "text/markdown",
                text: self.read_playbook(None, None)?,
            });
        }
        let path = Path::new(&self.location);
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: {e}", visible(&self.location)))?;
        let full = std::path::absolute(path).map_err(|e| e.to_string())?;
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let mime = match ext.to_ascii_lowercase().as_str() {
            "json" => "application/json",
            "md" | "markdown" => "text/markdown",
            "yaml" | "yml" => "application/yaml",
            _ => "text/plain",
        };
        Ok(Stored {
            uri: file_uri(&full),
            mime,
            text,
        })
    }

    /// The findings of ace-validate on the location, as
    /// `ace-validate --output-format json` prints them.
    pub fn validate(&self) -> Result<String, Failure> {
        use ace_check::run as steps;
        let loaded =
            steps::configuration(self.config.as_deref(), false).map_err(|e| e.to_string())?;
        let settings =
            steps::settings(&loaded, &steps::Overrides::default()).map_err(|e| e.to_string())?;
        let mut results = Vec::new();
        let mut errors = Vec::new();
        match self.store(None)? {
            Some(loc) => {
                let checked = ace_check::check_store(&loc, &settings);
                errors.extend(checked.errors);
                results.extend(checked.reports);
            }
            None => {
                let inputs = steps::inputs(
                    std::slice::from_ref(&self.location),
                    &loaded,
                    false,
                    false,
                    &settings,
                )
                .map_err(|e| e.to_string())?;
                for checked in steps::check_all(&inputs, "-", &settings) {
                    errors.extend(checked.errors);
                    results.extend(checked.reports);
                }
            }
        }
        if let Some(e) = errors.first() {
            return Err(e.to_string());
        }
        let reports: Vec<ace_report::FileReport> = results
            .iter()
            .map(|(s, d)| ace_report::FileReport {
                name: &s.name,
                text: &s.text,
                diagnostics: d,
            })
            .collect();
        let mut out = Vec::new();
        ace_report::render(ace_report::OutputFormat::Json, &reports, false, &mut out)
            .map_err(|e| e.to_string())?;
        String::from_utf8(out).map_err(|e| e.to_string())
    }
}

/// The entries of project `p` in a view where `shared` (if any) is read
/// beside each project: the shared project's are unmarked.
fn among(p: &str, shared: Option<&str>) -> Among {
    match shared {
        Some(sh) if sh == p => Among::Unmarked {
            shared: sh.to_owned(),
        },
        Some(_) => Among::Project(p.to_owned()),
        None => Among::All,
    }
}

/// Where a file's reflections are logged: `FILE.reflections.jsonl`
/// beside it.
fn reflections_beside(file: &Path) -> Result<std::path::PathBuf, Failure> {
    let name = file
        .file_name()
        .ok_or_else(|| format!("{}: not a file", visible(&file.display().to_string())))?;
    let mut name = name.to_os_string();
    name.push(".reflections.jsonl");
    Ok(file.with_file_name(name))
}

/// A string as Python's `repr` shows it in a list, for the messages
/// ace_claude_mcp's server prints.
fn python_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The playbook as an MCP resource ([`Served::resource`]).
pub struct Stored {
    pub uri: String,
    pub mime: &'static str,
    pub text: String,
}

/// `path` (absolute) as a `file://` URI: bytes other than unreserved ones
/// and `/` percent-encoded.
fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Whether a delta was refused for naming an entry the playbook lacks.
fn unknown_id(placed: &Placed) -> bool {
    placed.report["rejected"]
        .as_array()
        .is_some_and(|r| r.iter().any(|v| v["reason"] == "unknown-id"))
}

/// A refused delta as the tool's failure, with the engine's reason; an
/// unknown `id` in ace_claude_mcp's words.
fn refused(placed: &Placed, id: &str) -> Result<(), Failure> {
    if placed.refused == 0 {
        return Ok(());
    }
    if unknown_id(placed) && !id.is_empty() {
        return Err(format!("Entry '{id}' not found in playbook."));
    }
    let reasons: Vec<String> = placed.report["rejected"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|v| {
                    format!(
                        "{}: {}",
                        v["reason"].as_str().unwrap_or("refused"),
                        v["message"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Err(format!("refused, nothing written: {}", reasons.join("; ")))
}

/// A refusal to read or write, in one line.
fn stop_message(stop: &Stop) -> Failure {
    match stop {
        Stop::Findings {
            companion,
            diagnostics,
        } => {
            let name = companion
                .as_ref()
                .map_or("the playbook", |s| s.name.as_str());
            let first = diagnostics
                .first()
                .map_or(String::new(), |d| format!("{}: {}", d.code, d.message));
            format!("{name} has errors; nothing done: {first}")
        }
        other => other.to_string(),
    }
}

/// The location to write with the project selected, its password kept:
/// the shown form hides it, and a connection needs it.
fn shown_with_secret(original: &str, loc: &ace_registry::store::StoreLocation) -> String {
    let base = original.rsplit_once('#').map_or(original, |(b, _)| b);
    let fragment = loc.select.fragment();
    match fragment.is_empty() {
        true => base.to_owned(),
        false => format!("{base}#{fragment}"),
    }
}
