//! An `ace-validate` run as named steps: the configuration, the settings
//! it and the flags give, the files to check, and checking them all. The
//! binary parses arguments and renders; what it decides is here.

use std::path::{Path, PathBuf};

pub use ace_config::Input;
use ace_config::{Level, Loaded, Selector};
use ace_fs::Source;
use ace_model::{Diagnostic, Severity};
use ace_registry::Format;

use crate::{load_target, Baseline, Companion, Filter, Settings};

/// What the command line sets over `ace.toml`.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub from: Option<Format>,
    /// `--select`: replaces ace.toml's `select`.
    pub select: Option<Vec<String>>,
    /// `--ignore`: added to ace.toml's `ignore`.
    pub ignore: Vec<String>,
    pub threshold: Option<i64>,
    pub companion: Companion,
    /// `--playbook`: the playbook deltas and patches apply to.
    pub playbook: Option<PathBuf>,
    /// `--baseline`: a file or a git revision.
    pub baseline: Option<String>,
    /// `--max-tokens`, `--max-entries`, `--tokenizer`: over `[budget]`.
    pub max_tokens: Option<usize>,
    pub max_entries: Option<usize>,
    pub tokenizer: Option<ace_tokens::Encoding>,
}

/// The configuration in force: none with `isolated`, else `config`, else
/// the nearest `ace.toml` in the working directory or above.
pub fn configuration(config: Option<&Path>, isolated: bool) -> Result<Loaded, ace_model::Error> {
    if isolated {
        return Ok(Loaded::default());
    }
    let path = match config {
        Some(p) => Some(p.to_owned()),
        None => std::env::current_dir()
            .ok()
            .and_then(|d| ace_config::find(&d)),
    };
    match path {
        Some(p) => ace_config::load(&p),
        None => Ok(Loaded {
            root: PathBuf::from("."),
            ..Loaded::default()
        }),
    }
}

/// The settings of a run: ace.toml's thresholds and rule selection with
/// the command line's over them. An unknown rule code, an unreadable
/// `--playbook` or an unknown `--baseline` revision is the error.
pub fn settings(loaded: &Loaded, over: &Overrides) -> Result<Settings, ace_model::Error> {
    let c = &loaded.config;
    let t = &c.thresholds;
    let mut lint = ace_lint::Options::default();
    lint.threshold = over.threshold.or(t.curation).unwrap_or(lint.threshold);
    lint.vague_words = t.vague_words.unwrap_or(lint.vague_words);
    lint.similarity = t.similarity.unwrap_or(lint.similarity);
    lint.tag_overlap = t.tag_overlap.unwrap_or(lint.tag_overlap);
    lint.self_report_confidence = t
        .self_report_confidence
        .unwrap_or(lint.self_report_confidence);
    let mut curator = ace_registry::CuratorGate::default();
    curator.confidence = t.confidence.unwrap_or(curator.confidence);
    curator.evidence_length = t.evidence_length.unwrap_or(curator.evidence_length);
    let at = |e: ace_model::Error| match &loaded.path {
        Some(p) => ace_model::Error::Content {
            place: p.display().to_string(),
            message: e.to_string(),
        },
        None => e,
    };
    let select = match &over.select {
        Some(s) => Filter::codes(s)?,
        None => Filter::codes(&c.select).map_err(at)?,
    };
    let mut ignore = Filter::codes(&c.ignore).map_err(at)?;
    ignore.extend(Filter::codes(&over.ignore)?);
    let mut severity = std::collections::HashMap::new();
    for (code, level) in &c.severity {
        let code = Filter::codes(&[code]).map_err(at)?[0];
        let sev = match level {
            Level::Error => Some(Severity::Error),
            Level::Warning => Some(Severity::Warning),
            Level::Info => Some(Severity::Info),
            Level::Off => None,
        };
        severity.insert(code, sev);
    }
    let target = over.playbook.as_deref().map(load_target).transpose()?;
    let baseline = over.baseline.as_deref().map(Baseline::parse).transpose()?;
    let filter = Filter {
        select,
        ignore,
        severity,
    };
    // The near-duplicate search is the costliest rule: not run for
    // findings that would all be left out.
    lint.likely_duplicates = filter.keeps(ace_model::rules::LIKELY_DUPLICATE.code);
    let budget =
        crate::budget::Budget::of(&c.budget, over.max_tokens, over.max_entries, over.tokenizer)
            .map_err(at)?;
    Ok(Settings {
        budget,
        from: over.from,
        lint,
        curator,
        companion: over.companion.clone(),
        target,
        baseline,
        filter,
    })
}

/// The files the arguments name, walked and filtered by ace.toml, less
/// the companions read with another input: a playbook.yaml read with its
/// AGENTS.md is reported with it, and checking it again on its own (a
/// directory walk finds both) would report its findings twice.
/// With `only_ace`, a file named on the command line that is no ACE
/// file (by name and content, as a directory walk decides) is left out
/// rather than refused: the pre-commit hook names every staged file whose
/// syntax a format is written in.
pub fn inputs(
    paths: &[impl AsRef<std::ffi::OsStr>],
    loaded: &Loaded,
    force_exclude: bool,
    only_ace: bool,
    settings: &Settings,
) -> Result<Vec<Input>, ace_model::Error> {
    let selector = Selector::new(loaded)?;
    let mut inputs = ace_config::select(paths, &selector, force_exclude, &ace_registry::recognise)
        .map_err(|e| ace_model::Error::Usage(e.to_string()))?;
    if only_ace && settings.from.is_none() {
        inputs.retain(|i| match i {
            Input::File(p) => !p.is_file() || ace_registry::recognise(p),
            Input::Stdin => true,
        });
    }
    let companions: Vec<PathBuf> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => ace_registry::format_of_name(p)
                .and_then(|f| crate::companion_of(f, Some(p), &settings.companion)),
            Input::Stdin => None,
        })
        .collect();
    Ok(inputs
        .into_iter()
        .filter(|i| !matches!(i, Input::File(p) if companions.contains(p)))
        .collect())
}

/// What checking one input gave: its reports, and the I/O or usage errors
/// to print (held back so that they come out in argument order).
pub struct Checked {
    pub errors: Vec<ace_model::Error>,
    pub reports: Vec<(Source, Vec<Diagnostic>)>,
}

/// The text of `input`; standard input named `stdin_filename` when one
/// was given.
pub(crate) fn load(input: &Input, stdin_filename: &str) -> Result<Source, ace_model::Error> {
    let mut source = match input {
        Input::Stdin => ace_fs::load_stdin(stdin_filename),
        Input::File(p) => ace_fs::load(p),
    }?;
    if *input == Input::Stdin && stdin_filename != "<stdin>" {
        // The name stands in for the path: format detection and
        // `--baseline REV` use it.
        source.path = Some(PathBuf::from(stdin_filename));
    }
    Ok(source)
}

fn check_one(input: &Input, stdin_filename: &str, settings: &Settings) -> Checked {
    let source = match load(input, stdin_filename) {
        Ok(s) => s,
        Err(e) => {
            return Checked {
                errors: vec![e],
                reports: Vec::new(),
            }
        }
    };
    let outcome = crate::check(source, settings);
    Checked {
        errors: outcome.errors,
        reports: outcome.reports,
    }
}

/// Checks every input, on as many threads as there are cores: pre-commit
/// passes hundreds of files in one call, and each is independent. Results
/// come back in input order, so the output does not depend on scheduling.
pub fn check_all(inputs: &[Input], stdin_filename: &str, settings: &Settings) -> Vec<Checked> {
    let mut checked = Vec::with_capacity(inputs.len());
    ace_exec::par::map_each(
        inputs.len(),
        |i| check_one(&inputs[i], stdin_filename, settings),
        |c| checked.push(c),
    );
    checked
}

/// Each input's name and its count, or why it could not be read: the
/// files as they are, read as their format (for the sections) but not
/// checked.
pub fn count_all(
    inputs: &[Input],
    stdin_filename: &str,
    from: Option<ace_registry::Format>,
    enc: ace_tokens::Encoding,
) -> Vec<Result<(String, crate::budget::TokenCount), ace_model::Error>> {
    let registry = ace_registry::Registry::builtin();
    // The encoder is made (0.4 s and more) while the files are read.
    std::thread::scope(|scope| {
        scope.spawn(|| enc.count(""));
        counts_of(inputs, stdin_filename, from, enc, registry)
    })
}

fn counts_of(
    inputs: &[Input],
    stdin_filename: &str,
    from: Option<ace_registry::Format>,
    enc: ace_tokens::Encoding,
    registry: &ace_registry::Registry,
) -> Vec<Result<(String, crate::budget::TokenCount), ace_model::Error>> {
    inputs
        .iter()
        .map(|input| {
            let source = load(input, stdin_filename)?;
            let format =
                from.unwrap_or_else(|| registry.detect(source.path.as_deref(), &source.text));
            let pb = ace_registry::convert::read_playbook(&source, format).ok();
            let c =
                crate::budget::count(format.imp().playbook_text(&source.text), pb.as_ref(), enc);
            Ok((source.name, c))
        })
        .collect()
}
