//! The tools, synchronously: each reads the playbook location it serves,
//! or applies one delta to it through ace-apply's in-place path (its
//! locks, its curator, its exactly-once ledger), and answers in the words
//! of ace_claude_mcp's server where it has a tool of the name.

use std::path::Path;
use std::time::Duration;

use ace_apply::place::{self, InPlace, Placed};
use ace_apply::{DeltaSource, Request};
use ace_model::{Playbook, Severity};
use ace_registry::convert::{self, Stop};
use ace_registry::{Format, Registry, WriteCtx};

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
        let Some(mut loc) =
            ace_registry::store::location(&self.location).map_err(|e| e.to_string())?
        else {
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

    fn read(&self, project: Option<&str>) -> Result<Read, Failure> {
        if let Some(loc) = self.store(project)? {
            let input = ace_registry::store::read(&loc).map_err(|s| stop_message(&s))?;
            return Ok(Read {
                playbook: input.parsed.playbook,
                format: None,
            });
        }
        let source = ace_fs::load(Path::new(&self.location)).map_err(|e| e.to_string())?;
        let format = Registry::builtin().detect(source.path.as_deref(), &source.text);
        let ctx = ace_registry::ReadCtx::min(Severity::Error);
        let input =
            convert::read_input(&source, format, None, &ctx).map_err(|s| stop_message(&s))?;
        let mut playbook = input.parsed.playbook;
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
        let ready = Request {
            config: match &self.config {
                Some(p) => ace_apply::Config::File(p.clone()),
                None => ace_apply::Config::Find,
            },
            ..Request::default()
        }
        .ready()
        .map_err(|e| e.to_string())?;
        let target = self.target(project)?;
        let source = [DeltaSource {
            name: "<delta>",
            file_name: None,
            text: delta,
        }];
        let how = InPlace {
            wait: self.wait,
            force: false,
            strict: false,
        };
        let placed = place::apply(&target, &source, &ready, how).map_err(|s| stop_message(&s))?;
        if let Some(why) = &placed.unreadable {
            return Err(format!("{why}; nothing applied"));
        }
        Ok(placed)
    }

    /// ace_claude_mcp's `update_counters`: each counter moved by its
    /// delta, never below 0.
    pub fn update_counters(&self, id: &str, helpful: i64, harmful: i64) -> Result<String, Failure> {
        let delta = serde_json::json!({
            "counters": [{"id": id, "helpful_delta": helpful, "harmful_delta": harmful}]
        });
        let placed = self.apply_delta(&delta.to_string(), None)?;
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
        let delta = serde_json::json!({
            "operation_type": "ADD", "section": section, "content": content.trim()
        });
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
        Ok(format!(
            "Added entry [{}] to '{section}' (project: {project})",
            new.id
        ))
    }

    /// ace_claude_mcp's `remove_entry`.
    pub fn remove_entry(&self, id: &str) -> Result<String, Failure> {
        // AcePatch's retirement: removed where the format keeps no status
        // (markdown), deprecated where it keeps one, as those formats'
        // curators retire entries.
        let delta = serde_json::json!({"op": "deprecateEntry", "entryId": id});
        let placed = self.apply_delta(&delta.to_string(), None)?;
        refused(&placed, id)?;
        Ok(format!("Removed entry [{id}]"))
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

/// A refused delta as the tool's failure, with the engine's reason; an
/// unknown `id` in ace_claude_mcp's words.
fn refused(placed: &Placed, id: &str) -> Result<(), Failure> {
    if placed.refused == 0 {
        return Ok(());
    }
    let unknown = placed.report["rejected"]
        .as_array()
        .is_some_and(|r| r.iter().any(|v| v["reason"] == "unknown-id"));
    if unknown && !id.is_empty() {
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
