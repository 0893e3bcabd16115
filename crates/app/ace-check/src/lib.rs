//! What `ace-validate` does with one input: pick its format, read it with
//! whatever it depends on (the playbook.yaml beside an AGENTS.md, the
//! playbook a delta or patch is for, the baseline it must not rewrite), run
//! every rule, and drop what the user suppressed or deselected. The binary
//! only parses arguments and renders.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use ace_fs::Source;
use ace_model::{rules, Diagnostic, Playbook, Severity};
use ace_registry::{CheckCtx, Format, ReadCtx};

pub mod budget;
pub mod run;
mod suppress;

pub use suppress::Suppressions;

pub use ace_lint::Options as LintOptions;

/// The lint options for `format`'s files: `base` less the rules that mean
/// nothing to them ([`ace_registry::PlaybookFormat::lint_profile`]).
pub fn lint_options(format: Format, base: &LintOptions) -> LintOptions {
    profile_options(format.imp().lint_profile(), base)
}

/// `base` with the rules `profile` does not hold turned off.
fn profile_options(profile: ace_registry::LintProfile, base: &LintOptions) -> LintOptions {
    LintOptions {
        id_shape: base.id_shape && profile.id_shape,
        prefixes: base.prefixes && profile.prefixes,
        deprecation: base.deprecation || profile.deprecation,
        guardrail: base.guardrail && profile.guardrail,
        ..base.clone()
    }
}

/// Every finding for one input: the reader's diagnostics, then the lint
/// rules, in source order. A syntax error is the only finding.
pub fn validate(format: Format, text: &str, opts: &LintOptions) -> Vec<Diagnostic> {
    match ace_registry::read(format, text) {
        Ok(parsed) => validate_parsed(format, parsed, opts),
        Err(d) => vec![d],
    }
}

/// The reader's diagnostics of an already read input plus the lint rules.
pub fn validate_parsed(
    format: Format,
    parsed: ace_registry::Parsed,
    opts: &LintOptions,
) -> Vec<Diagnostic> {
    let mut diags = parsed.diagnostics;
    diags.extend(ace_lint::lint(
        &parsed.playbook,
        &lint_options(format, opts),
    ));
    diags.sort_by_key(|d| (d.span.start, d.code));
    diags
}

/// Where the curator's playbook.yaml for an AGENTS.md comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Companion {
    /// `playbook.yaml` beside the AGENTS.md, when there is one.
    #[default]
    Beside,
    /// This file, for every AGENTS.md.
    File(PathBuf),
    /// None: check AGENTS.md alone.
    Never,
}

/// The playbook a delta or patch applies to (`--playbook`).
#[derive(Debug, Clone)]
pub struct Target {
    pub playbook: Playbook,
    pub sequence: Option<i64>,
}

/// What the current files are compared with (`--baseline`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// One earlier version of the (single) file being checked.
    File(PathBuf),
    /// A git revision, as given and as the commit ID git resolved it to:
    /// each file is compared with itself at that commit.
    Rev { name: String, id: String },
}

impl Baseline {
    /// A path that exists is a file; anything else must be a git revision
    /// that git knows, checked once here so that a typo is a usage error
    /// rather than "no history" for every file.
    pub fn parse(arg: &str) -> Result<Baseline, ace_model::Error> {
        let p = Path::new(arg);
        if p.is_file() {
            return Ok(Baseline::File(p.to_owned()));
        }
        // Resolved once to a commit ID: only that ID is passed to git
        // after, so a revision that looks like an option stays a name.
        let out = Command::new("git")
            .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{arg}^{{commit}}"))
            .output()
            .map_err(|e| {
                ace_model::Error::Usage(format!(
                    "--baseline {arg}: not a file, and git could not be run: {e}"
                ))
            })?;
        let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if out.status.success() && id.bytes().all(|b| b.is_ascii_hexdigit()) && !id.is_empty() {
            Ok(Baseline::Rev {
                name: arg.to_owned(),
                id,
            })
        } else {
            Err(ace_model::Error::Usage(format!(
                "--baseline {arg}: neither a file nor a git revision of the repository here"
            )))
        }
    }
}

/// Everything that applies to every file of one run.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The format of every input, instead of detecting it per file.
    pub from: Option<Format>,
    pub lint: ace_lint::Options,
    pub curator: ace_registry::CuratorGate,
    pub companion: Companion,
    pub target: Option<Target>,
    pub baseline: Option<Baseline>,
    pub filter: Filter,
    /// `[budget]` and `--max-tokens`/`--max-entries`: ACE085 and ACE086.
    pub budget: budget::Budget,
}

/// Which codes are reported, and at which severity.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// When not empty, only these codes.
    pub select: Vec<&'static str>,
    pub ignore: Vec<&'static str>,
    /// A new severity per code; `None` turns the rule off.
    pub severity: HashMap<&'static str, Option<Severity>>,
}

impl Filter {
    /// Looks a list of codes up in the rule registry; unknown codes are an
    /// error naming them, so a typo never silently selects nothing.
    pub fn codes<S: AsRef<str>>(list: &[S]) -> Result<Vec<&'static str>, ace_model::Error> {
        list.iter()
            .map(|c| c.as_ref().trim())
            .filter(|c| !c.is_empty())
            .map(|c| {
                rules::by_code(c)
                    .map(|r| r.code)
                    .ok_or_else(|| ace_model::Error::Usage(format!("unknown rule code `{c}`")))
            })
            .collect()
    }

    /// Whether findings of rule `code` can be reported at all: selected,
    /// not ignored, not turned off.
    pub fn keeps(&self, code: &str) -> bool {
        (self.select.is_empty() || self.select.contains(&code))
            && !self.ignore.contains(&code)
            && self.severity.get(code) != Some(&None)
    }

    pub fn apply(&self, diags: &mut Vec<Diagnostic>) {
        diags.retain_mut(|d| {
            if !self.keeps(d.code) {
                return false;
            }
            match self.severity.get(d.code) {
                Some(None) => false,
                Some(Some(s)) => {
                    d.severity = *s;
                    true
                }
                None => true,
            }
        });
    }
}

/// The findings of one run for one input, and for the files read with it.
#[derive(Debug, Default)]
pub struct Outcome {
    pub reports: Vec<(Source, Vec<Diagnostic>)>,
    /// Inputs that could not be read at all (`path: message`): exit 2.
    pub errors: Vec<ace_model::Error>,
}

/// The playbook.yaml read with the AGENTS.md at `path`, if any. The
/// binary uses it too, so that a companion found by walking a directory is
/// not checked a second time on its own.
pub fn companion_of(format: Format, path: Option<&Path>, companion: &Companion) -> Option<PathBuf> {
    format.companion()?;
    match companion {
        Companion::Never => None,
        Companion::File(p) => Some(p.clone()),
        Companion::Beside => path.and_then(|p| format.companion_beside(p)),
    }
}

/// Reads the playbook named by `--playbook`, in whatever format it is.
pub fn load_target(path: &Path) -> Result<Target, ace_model::Error> {
    let source = ace_fs::load(path)?;
    let format = ace_registry::detect(source.path.as_deref(), &source.text);
    let playbook = read_playbook(format, &source, "--playbook")?;
    Ok(Target {
        sequence: ace_registry::document_sequence(&playbook),
        playbook,
    })
}

fn read_playbook(
    format: Format,
    source: &Source,
    what: &str,
) -> Result<Playbook, ace_model::Error> {
    match ace_registry::read(format, &source.text) {
        Ok(parsed) => Ok(parsed.playbook),
        Err(d) => {
            let pos = ace_model::LineIndex::new(&source.text).line_col(&source.text, d.span.start);
            Err(ace_model::Error::Content {
                place: format!("{what} {}:{}:{}", source.name, pos.line, pos.col),
                message: d.message,
            })
        }
    }
}

/// The text of `source` in the baseline; `None` when the file is new there.
fn baseline_text(baseline: &Baseline, source: &Source) -> Result<Option<Source>, ace_model::Error> {
    match baseline {
        Baseline::File(p) => ace_fs::load(p)
            .map(Some)
            .map_err(|e| ace_model::Error::from(e).under("--baseline ")),
        Baseline::Rev { name: rev, id } => {
            let path = source
                .path
                .clone()
                .unwrap_or_else(|| PathBuf::from(&source.name));
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let file = path.file_name().unwrap_or_default().to_string_lossy();
            let out = Command::new("git")
                .arg("-C")
                .arg(dir)
                .env("LC_ALL", "C")
                .args(["cat-file", "--end-of-options", "blob"])
                .arg(format!("{id}:./{file}"))
                .output()
                .map_err(|e| ace_model::Error::io(Path::new(&format!("--baseline {rev}")), e))?;
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                // A file added since the revision has no history to keep.
                if err.contains("does not exist in")
                    || err.contains("exists on disk, but not in")
                    || err.contains("not in the working tree")
                {
                    return Ok(None);
                }
                return Err(ace_model::Error::Io {
                    path: format!("--baseline {rev}: {}", source.name),
                    message: err
                        .trim()
                        .lines()
                        .next()
                        .unwrap_or("git show failed")
                        .to_owned(),
                });
            }
            let text = String::from_utf8(out.stdout).map_err(|_| ace_model::Error::Content {
                place: format!("--baseline {rev}: {}", source.name),
                message: "not UTF-8 in that revision".into(),
            })?;
            Ok(Some(Source {
                name: format!("{rev}:{}", source.name),
                path: None,
                text: text.into(),
            }))
        }
    }
}

/// What a file of `format` can record of an entry's history, from what its
/// writer holds (the table `ace-convert --list-formats` prints).
fn history_form(format: Format, threshold: i64) -> ace_lint::history::Form {
    use ace_registry::capabilities::{entry_fields, Holds};
    let held = entry_fields(format, &["status", "supersedes"]);
    ace_lint::history::Form {
        status: held[0] == Some(Holds::Yes),
        links: held[1] == Some(Holds::Yes),
        threshold,
    }
}

/// ACE090 or ACE057 at each operation of the deltas in `source` that
/// would write a character hiding text or a credential
/// ([`ace_lint::unsafe_text`]): ace-apply refuses such a delta, and the
/// delta file's review is where to see it.
fn unsafe_in_deltas(source: &Source, settings: &Settings) -> Vec<Diagnostic> {
    let ctx = ace_registry::DeltaReadCtx {
        name: source.path.as_deref().and_then(Path::to_str),
        min_confidence: settings.curator.confidence,
        min_evidence: settings.curator.evidence_length,
    };
    let Ok((_, deltas)) = ace_registry::Registry::builtin().read_deltas(&source.text, None, &ctx)
    else {
        return Vec::new();
    };
    deltas
        .iter()
        .flat_map(|d| &d.ops)
        .filter_map(|op| {
            let (rule, message) = ace_lint::unsafe_text(&op.change)?;
            Some(
                Diagnostic::new(
                    rule,
                    op.span,
                    format!("the `{}` operation: {message}", op.change.name()),
                )
                .with_help("write the lesson without it; ace-apply refuses the delta"),
            )
        })
        .collect()
}

/// Every finding for one input. Findings in a companion playbook.yaml are
/// reported under its own name.
pub fn check(source: Source, settings: &Settings) -> Outcome {
    let mut outcome = Outcome::default();
    // Without --from, a file that no format or check claims is not
    // linted as a guess: `Cargo.toml` is no markdown playbook. A document
    // that a format's reader recognises as another kind (a skill delta)
    // is claimed by that read.
    let (format, claimed) = match settings.from {
        Some(f) => (f, true),
        None => {
            ace_registry::Registry::builtin().detect_artifact(source.path.as_deref(), &source.text)
        }
    };
    let not_ace = |source: &Source, outcome: &mut Outcome| {
        outcome.errors.push(ace_model::Error::Content {
            place: source.name.clone(),
            message: "not an ACE artifact (pass --from FORMAT to check it as one)".into(),
        });
    };
    let target = settings.target.as_ref();
    let suppressions = format.imp().lint_profile().suppression_comments;
    let finish = |source: Source, mut diags: Vec<Diagnostic>, outcome: &mut Outcome| {
        if suppressions {
            Suppressions::parse(&source.text).apply(&source.text, &mut diags);
        }
        settings.filter.apply(&mut diags);
        outcome.reports.push((source, diags));
    };
    let ctx = CheckCtx {
        playbook: target.map(|t| &t.playbook),
        sequence: target.and_then(|t| t.sequence),
        min_confidence: settings.curator.confidence,
        min_evidence: settings.curator.evidence_length,
    };
    if let Some(check) = ace_registry::Registry::builtin().claimed_check(format, &source.text) {
        let mut diags = check.check(&source.text, &ctx);
        diags.extend(unsafe_in_deltas(&source, settings));
        finish(source, diags, &mut outcome);
        return outcome;
    }
    let read = match format.read(&source.text, &ReadCtx::default()) {
        Ok(r) => r,
        // A conflicted file is refused as such, whatever its format.
        Err(d) if d.code == rules::MERGE_CONFLICT.code => {
            finish(source, vec![d], &mut outcome);
            return outcome;
        }
        Err(d) if !claimed && rules::not_an_artifact(d.code) => {
            outcome.errors.push(ace_model::Error::Content {
                place: source.name.clone(),
                message: format!("not an ACE artifact: {}", d.message),
            });
            return outcome;
        }
        Err(_) if !claimed => {
            not_ace(&source, &mut outcome);
            return outcome;
        }
        Err(d) => {
            finish(source, vec![d], &mut outcome);
            return outcome;
        }
    };
    if !claimed && read.other.is_none() {
        // A reader that knows the document's family says why it holds no
        // playbook (a vBRIEF document): that is the reason to give.
        match read
            .parsed
            .diagnostics
            .iter()
            .find(|d| rules::not_an_artifact(d.code))
        {
            Some(d) => outcome.errors.push(ace_model::Error::Content {
                place: source.name.clone(),
                message: format!("not an ACE artifact: {}", d.message),
            }),
            None => not_ace(&source, &mut outcome),
        }
        return outcome;
    }
    let mut parsed = read.parsed;
    if let Some(other) = read.other {
        let mut diags = if other.keeps_read_findings {
            parsed.diagnostics
        } else {
            Vec::new()
        };
        if let Some(check) = other.check {
            diags.extend(check.check(&source.text, &ctx));
            diags.extend(unsafe_in_deltas(&source, settings));
            if other.keeps_read_findings {
                diags.sort_by_key(|d| (d.span.start, d.code));
            }
        }
        finish(source, diags, &mut outcome);
        return outcome;
    }
    let mut companion_result = None;
    if let Some(path) = companion_of(format, source.path.as_deref(), &settings.companion) {
        match ace_fs::load(&path) {
            Ok(yaml) => {
                let diags = format
                    .attach_companion(&mut parsed, &yaml.text)
                    .unwrap_or_else(|d| vec![d]);
                companion_result = Some((yaml, diags));
            }
            Err(e) => outcome.errors.push(e.into()),
        }
    }
    let mut history = Vec::new();
    if let Some(baseline) = &settings.baseline {
        match baseline_text(baseline, &source) {
            Ok(None) => {}
            Ok(Some(old)) => {
                let old_format = settings.from.unwrap_or_else(|| {
                    ace_registry::detect(Some(Path::new(&source.name)), &old.text)
                });
                match read_playbook(old_format, &old, "--baseline") {
                    Ok(old_pb) => {
                        let snap = |pb| ace_lint::history::Snapshot {
                            playbook: pb,
                            sequence: ace_registry::document_sequence(pb),
                        };
                        history = ace_lint::history::history(
                            snap(&old_pb),
                            snap(&parsed.playbook),
                            history_form(format, settings.lint.threshold),
                        );
                    }
                    Err(e) => outcome.errors.push(e),
                }
            }
            Err(e) => outcome.errors.push(e),
        }
    }
    let over_budget = match settings.budget.is_set()
        && [rules::OVER_TOKEN_BUDGET.code, rules::OVER_ENTRY_BUDGET.code]
            .iter()
            .any(|c| settings.filter.keeps(c))
    {
        true => {
            let text = format.imp().playbook_text(&source.text);
            let usage = budget::usage(text, &parsed.playbook, &settings.budget);
            budget::findings(&settings.budget, &usage)
        }
        false => Vec::new(),
    };
    let mut diags = validate_parsed(format, parsed, &settings.lint);
    diags.extend(history);
    diags.extend(over_budget);
    diags.sort_by_key(|d| (d.span.start, d.code));
    finish(source, diags, &mut outcome);
    if let Some((yaml, diags)) = companion_result {
        finish(yaml, diags, &mut outcome);
    }
    outcome
}

/// Checks the playbook a database location selects: the reader's findings
/// (a value of the wrong type, at its table, key and column), the lint
/// rules its schema's conventions allow, and the budget.
pub fn check_store(location: &ace_registry::store::StoreLocation, settings: &Settings) -> Outcome {
    let mut outcome = Outcome::default();
    let read = match ace_registry::store::read(location) {
        Ok(r) => r,
        Err(ace_registry::convert::Stop::Usage(e)) => {
            outcome.errors.push(e);
            return outcome;
        }
        Err(other) => {
            outcome
                .errors
                .push(ace_model::Error::Usage(other.to_string()));
            return outcome;
        }
    };
    let over_budget = match settings.budget.is_set() {
        true => {
            // What an agent is given of the rows: the playbook format
            // spec's text, as ace_claude_mcp's `read_playbook` returns it.
            let shown = ace_registry::write(Format::MARKDOWN, &read.parsed.playbook).text;
            let usage = budget::usage(&shown, &read.parsed.playbook, &settings.budget);
            budget::findings(&settings.budget, &usage)
        }
        false => Vec::new(),
    };
    let mut diags = read.parsed.diagnostics;
    diags.extend(ace_lint::lint(
        &read.parsed.playbook,
        &profile_options(read.lint, &settings.lint),
    ));
    diags.extend(over_budget);
    diags.sort_by_key(|d| (d.span.start, d.code));
    settings.filter.apply(&mut diags);
    outcome.reports.push((read.source, diags));
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_selects_ignores_and_overrides() {
        let d =
            |rule: &ace_model::rules::Rule| Diagnostic::new(rule, ace_model::Span::new(0, 1), "m");
        let mut all = vec![
            d(&rules::ID_SHAPE),
            d(&rules::DUPLICATE_ID),
            d(&rules::CURATION_THRESHOLD),
        ];
        let f = Filter {
            select: vec![],
            ignore: vec!["ACE001"],
            severity: HashMap::from([("ACE006", Some(Severity::Error)), ("ACE002", None)]),
        };
        f.apply(&mut all);
        assert_eq!(all.len(), 1);
        assert_eq!((all[0].code, all[0].severity), ("ACE006", Severity::Error));
        assert!(Filter::codes(&["ace002", "ACE999"]).is_err());
    }
}
