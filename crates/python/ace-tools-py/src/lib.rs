//! `_ace_tools`: the native half of the `ace_tools` Python package. Each
//! function takes and gives text (the playbook, the canonical JSON, the
//! JSON of findings), so that what Python sees is byte for byte what the
//! command-line tools print; the package's `__init__.py` turns JSON into
//! dicts and losses into warnings. Reading, checking and writing run with
//! the GIL released.

// The module's own Rust allocations (every read builds millions of small
// strings and maps) go to mimalloc, as in the command-line tools; Python's
// objects stay with Python's allocator. Nothing allocated on one side is
// freed on the other: text crosses as copies.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;

use ace_fs::Source;
use ace_model::Diagnostic;
use ace_registry::{Format, Registry};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

pyo3::create_exception!(
    _ace_tools,
    AceError,
    PyValueError,
    "Input that cannot be read, converted or applied; `findings` lists why, with the fields of `ace-validate --output-format json`."
);

/// Why a call stops: a message, and the findings behind it as
/// `ace-validate --output-format json` prints them.
struct Stop {
    message: String,
    findings: String,
}

impl Stop {
    fn plain(message: impl Into<String>) -> Stop {
        Stop {
            message: message.into(),
            findings: "[]".into(),
        }
    }

    fn findings(source: &Source, diagnostics: &[Diagnostic], message: String) -> Stop {
        Stop {
            message,
            findings: findings_json(&source.name, &source.text, diagnostics),
        }
    }

    fn raise(self, py: Python<'_>) -> PyErr {
        let err = AceError::new_err(self.message);
        let findings = py
            .import("json")
            .and_then(|json| json.call_method1("loads", (self.findings,)));
        match findings {
            Ok(list) => match err.value(py).setattr("findings", list) {
                Ok(()) => err,
                Err(e) => e,
            },
            Err(e) => e,
        }
    }
}

/// `diagnostics` of the file `name` as `ace-validate --output-format json`
/// prints them.
fn findings_json(name: &str, text: &str, diagnostics: &[Diagnostic]) -> String {
    let report = [ace_report::FileReport {
        name,
        text,
        diagnostics,
    }];
    let mut out = Vec::new();
    let opts = ace_report::Options {
        color: false,
        summary: false,
        ..ace_report::Options::default()
    };
    match ace_report::render_with(ace_report::OutputFormat::Json, &report, opts, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| "[]".into()),
        Err(_) => "[]".into(),
    }
}

fn source(text: String, filename: Option<String>) -> Source {
    Source {
        name: filename.clone().unwrap_or_else(|| "<string>".into()),
        path: filename.map(PathBuf::from),
        text: text.into(),
    }
}

fn format_named(name: &str) -> Result<Format, Stop> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Registry::builtin()
            .formats()
            .iter()
            .map(|f| f.name())
            .collect();
        Stop::plain(format!(
            "unknown format `{name}`; expected one of {}",
            names.join(", ")
        ))
    })
}

/// The format to read `source` as: the one named, else the one its name
/// or content shows.
fn format_of(source: &Source, named: Option<&str>) -> Result<Format, Stop> {
    match named {
        Some(n) => format_named(n),
        None => Ok(Registry::builtin().detect(source.path.as_deref(), &source.text)),
    }
}

/// The playbook `source` holds, as ace-convert reads it: an error-level
/// finding stops it. `layout`: keep the layout a rewrite in `format`
/// keeps the file's shape by.
fn read_playbook(
    source: &Source,
    format: Format,
    layout: bool,
) -> Result<ace_model::Playbook, Stop> {
    let read = if layout {
        ace_registry::convert::read_playbook(source, format)
    } else {
        ace_registry::convert::read_data(source, format)
    };
    read.map_err(|stop| stopped(source, format, stop))
}

/// Why `source` does not read as a `format` playbook, as an [`AceError`].
fn stopped(source: &Source, format: Format, stop: ace_registry::convert::Stop) -> Stop {
    match stop {
        ace_registry::convert::Stop::Findings {
            companion,
            diagnostics,
        } => {
            let f = companion.as_ref().unwrap_or(source);
            let message = format!(
                "{}: does not read as a {} playbook: {}",
                f.name,
                format.name(),
                diagnostics
                    .first()
                    .map_or(String::new(), |d| format!("{} {}", d.code, d.message))
            );
            Stop::findings(f, &diagnostics, message)
        }
        stop => Stop::plain(stop.to_string()),
    }
}

fn write_ctx() -> Result<ace_registry::WriteCtx, Stop> {
    let now = ace_model::time::source_date_epoch().map_err(Stop::plain)?;
    Ok(ace_registry::WriteCtx::default()
        .with_now(now)
        .with_clock(Some(ace_model::time::clock())))
}

/// `losses` as ace-convert prints them, one line per group.
fn loss_lines(losses: &[ace_model::LossEntry], target: &str) -> Vec<String> {
    let mut out = Vec::new();
    let _ = ace_report::render_losses_text(losses, target, &mut out);
    String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `text` converted to `to`, and what the target could not hold (one line
/// per group, as ace-convert prints them).
#[pyfunction]
#[pyo3(signature = (text, to, from_format=None, filename=None))]
fn convert(
    py: Python<'_>,
    text: String,
    to: &str,
    from_format: Option<&str>,
    filename: Option<String>,
) -> PyResult<(String, Vec<String>)> {
    py.detach(|| -> Result<(String, Vec<String>), Stop> {
        let source = source(text, filename);
        let to = format_named(to)?;
        let from = format_of(&source, from_format)?;
        // The file's layout only for a rewrite in its own format.
        let pb = read_playbook(&source, from, from == to)?;
        let written = ace_registry::write_with(to, &pb, &write_ctx()?);
        Ok((written.text, loss_lines(&written.losses, to.name())))
    })
    .map_err(|s| s.raise(py))
}

/// The canonical JSON of the playbook in `text`: what `--to json` writes,
/// without its indentation, for `json.loads`. (Building the dict here
/// instead was slower: serde_json keeps numbers as lexemes in this
/// workspace, which a serializer into Python objects must re-read, and
/// `json.loads` shares repeated keys.)
#[pyfunction]
#[pyo3(signature = (text, format=None, filename=None))]
fn read_json(
    py: Python<'_>,
    text: String,
    format: Option<&str>,
    filename: Option<String>,
) -> PyResult<String> {
    py.detach(|| -> Result<String, Stop> {
        let source = source(text, filename);
        let from = format_of(&source, format)?;
        let pb = read_playbook(&source, from, false)?;
        Ok(ace_registry::canonical_json(&pb))
    })
    .map_err(|s| s.raise(py))
}

/// The canonical JSON `model` written as `to`, and what `to` could not
/// hold.
#[pyfunction]
fn write(py: Python<'_>, model: String, to: &str) -> PyResult<(String, Vec<String>)> {
    py.detach(|| -> Result<(String, Vec<String>), Stop> {
        let source = source(model, Some("<model>".into()));
        let pb = read_playbook(&source, Format::JSON, false)?;
        let to = format_named(to)?;
        let written = ace_registry::write_with(to, &pb, &write_ctx()?);
        Ok((written.text, loss_lines(&written.losses, to.name())))
    })
    .map_err(|s| s.raise(py))
}

/// The findings of `ace-validate` on `text`, as its `--output-format json`
/// prints them. `config` is an `ace.toml` to use; without one, none is
/// looked for.
#[pyfunction]
#[pyo3(signature = (text, format=None, filename=None, config=None))]
fn validate(
    py: Python<'_>,
    text: String,
    format: Option<&str>,
    filename: Option<String>,
    config: Option<PathBuf>,
) -> PyResult<String> {
    py.detach(|| -> Result<String, Stop> {
        let source = source(text, filename);
        let loaded = ace_check::run::configuration(config.as_deref(), config.is_none())
            .map_err(Stop::plain)?;
        let overrides = ace_check::run::Overrides {
            from: format.map(format_named).transpose()?,
            // A text has no file beside it.
            companion: ace_check::Companion::Never,
            ..Default::default()
        };
        let settings = ace_check::run::settings(&loaded, &overrides).map_err(Stop::plain)?;
        let outcome = ace_check::check(source, &settings);
        if let Some(e) = outcome.errors.first() {
            return Err(Stop::plain(e.clone()));
        }
        let reports: Vec<ace_report::FileReport> = outcome
            .reports
            .iter()
            .map(|(s, d)| ace_report::FileReport {
                name: &s.name,
                text: &s.text,
                diagnostics: d,
            })
            .collect();
        let mut out = Vec::new();
        let opts = ace_report::Options {
            color: false,
            summary: false,
            ..ace_report::Options::default()
        };
        ace_report::render_with(ace_report::OutputFormat::Json, &reports, opts, &mut out)
            .map_err(|e| Stop::plain(e.to_string()))?;
        String::from_utf8(out).map_err(|e| Stop::plain(e.to_string()))
    })
    .map_err(|s| s.raise(py))
}

/// How `apply` is asked to apply, beyond the texts: the CLI's options.
struct ApplyArgs {
    format: Option<String>,
    now: Option<String>,
    filename: Option<String>,
    companion: Option<String>,
    config: Option<PathBuf>,
    min_confidence: Option<f64>,
    min_evidence: Option<usize>,
    delta_format: Option<String>,
    compat: Option<String>,
    append_only: bool,
    write_scope: Option<Vec<String>>,
    strict: bool,
    /// `--dedup` and `--prune`'s options, `prune` among them.
    curate: ace_apply::CurateArgs,
}

fn encoding_of(name: &str) -> Result<ace_tokens::Encoding, Stop> {
    name.parse().map_err(|_| {
        Stop::plain(format!(
            "encoding={name:?}: expected one of {}",
            ace_tokens::Encoding::NAMES.join(", ")
        ))
    })
}

/// The managed block `ace-convert --into` writes for `text`: the text
/// between the markers, in `style`, within `max_tokens` when given.
#[pyfunction]
#[pyo3(signature = (text, style=None, format=None, filename=None, max_tokens=None, encoding=None))]
fn render(
    py: Python<'_>,
    text: String,
    style: Option<String>,
    format: Option<String>,
    filename: Option<String>,
    max_tokens: Option<usize>,
    encoding: Option<String>,
) -> PyResult<String> {
    py.detach(|| -> Result<String, Stop> {
        let style = match style.as_deref() {
            None => ace_registry::block::Style::Prompt,
            Some(s) => ace_registry::block::Style::from_name(s).ok_or_else(|| {
                Stop::plain(format!(
                    "style={s:?}: expected one of prompt, agents, kayba, content"
                ))
            })?,
        };
        let enc = encoding.as_deref().map(encoding_of).transpose()?;
        let source = source(text, filename);
        let format = format_of(&source, format.as_deref())?;
        let pb = read_playbook(&source, format, false)?;
        let budget = max_tokens.map(|n| ace_apply::into::budget(n, enc));
        let r = ace_apply::into::render(&pb, style, &write_ctx()?, "", budget.as_ref());
        match r.over_budget() {
            Some(why) => Err(Stop::plain(why)),
            None => Ok(r.content),
        }
    })
    .map_err(|s| s.raise(py))
}

/// `ace-view`'s page of `text`: one self-contained HTML document.
#[pyfunction]
#[pyo3(signature = (text, format=None, filename=None, encoding=None, config=None))]
fn view(
    py: Python<'_>,
    text: String,
    format: Option<String>,
    filename: Option<String>,
    encoding: Option<String>,
    config: Option<PathBuf>,
) -> PyResult<String> {
    py.detach(|| -> Result<String, Stop> {
        let enc = encoding.as_deref().map(encoding_of).transpose()?;
        let source = source(text, filename);
        let format = format_of(&source, format.as_deref())?;
        let opts = ace_view::Options::of(config.as_deref(), config.is_none(), None, None, enc)
            .map_err(Stop::plain)?;
        let ctx = ace_registry::ReadCtx::default();
        let input = ace_registry::convert::read_input_with(&source, format, None, &ctx)
            .map_err(|stop| stopped(&source, format, stop))?;
        let v = ace_view::view(&source, format, input, &opts);
        Ok(v.html())
    })
    .map_err(|s| s.raise(py))
}

/// How many tokens `text` is, and its sections' entries, as `ace-validate
/// --tokens --output-format json` lists a file: `{encoding, tokens,
/// sections: [{key, title, entries, tokens}]}` as JSON.
#[pyfunction]
#[pyo3(signature = (text, format=None, encoding=None, filename=None))]
fn count_tokens(
    py: Python<'_>,
    text: String,
    format: Option<String>,
    encoding: Option<String>,
    filename: Option<String>,
) -> PyResult<String> {
    py.detach(|| {
        let enc = encoding
            .as_deref()
            .map(encoding_of)
            .transpose()?
            .unwrap_or_default();
        let source = source(text, filename);
        let format = format_of(&source, format.as_deref())?;
        let pb = ace_registry::convert::read_playbook(&source, format).ok();
        let mut v =
            ace_check::budget::count(format.imp().playbook_text(&source.text), pb.as_ref(), enc)
                .to_json("");
        if let Some(o) = v.as_object_mut() {
            o.remove("path");
        }
        Ok(v.to_string())
    })
    .map_err(|s: Stop| s.raise(py))
}

/// `deltas` applied to the playbook in `text` by ace-apply's pipeline:
/// the new text (the input's own bytes where nothing changed), the new
/// companion text when `companion` (an AGENTS.md's playbook.yaml) was
/// given, and the report `{accepted, rejected}` as JSON.
#[pyfunction]
#[pyo3(signature = (text, deltas, *, format=None, now=None, filename=None, companion=None,
    config=None, min_confidence=None, min_evidence=None, delta_format=None, compat=None,
    append_only=false, prune=false, write_scope=None, strict=false, dedup=false,
    similarity=None, across_sections=false, deprecate=false, max_tokens=None, max_entries=None,
    encoding=None, threshold=None))]
#[allow(clippy::too_many_arguments)]
fn apply(
    py: Python<'_>,
    text: String,
    deltas: Vec<String>,
    format: Option<String>,
    now: Option<String>,
    filename: Option<String>,
    companion: Option<String>,
    config: Option<PathBuf>,
    min_confidence: Option<f64>,
    min_evidence: Option<usize>,
    delta_format: Option<String>,
    compat: Option<String>,
    append_only: bool,
    prune: bool,
    write_scope: Option<Vec<String>>,
    strict: bool,
    dedup: bool,
    similarity: Option<f64>,
    across_sections: bool,
    deprecate: bool,
    max_tokens: Option<usize>,
    max_entries: Option<usize>,
    encoding: Option<String>,
    threshold: Option<i64>,
) -> PyResult<(String, Option<String>, String)> {
    let args = ApplyArgs {
        format,
        now,
        filename,
        companion,
        config,
        min_confidence,
        min_evidence,
        delta_format,
        compat,
        append_only,
        write_scope,
        strict,
        curate: ace_apply::CurateArgs {
            dedup,
            prune,
            similarity,
            across_sections,
            deprecate,
            max_tokens,
            max_entries,
            tokenizer: encoding
                .as_deref()
                .map(encoding_of)
                .transpose()
                .map_err(|s| s.raise(py))?,
            threshold,
        },
    };
    py.detach(|| apply_texts(text, &deltas, args))
        .map_err(|s| s.raise(py))
}

/// The names the deltas' findings and report give them: `#1`, `#2`...,
/// their places in the list.
fn delta_names(deltas: &[String]) -> Vec<String> {
    (1..=deltas.len()).map(|i| format!("#{i}")).collect()
}

/// The delta texts, each under its name, as the pipeline reads them.
fn delta_sources<'a>(deltas: &'a [String], names: &'a [String]) -> Vec<ace_apply::DeltaSource<'a>> {
    deltas
        .iter()
        .zip(names)
        .map(|(text, name)| ace_apply::DeltaSource {
            name,
            file_name: None,
            text,
        })
        .collect()
}

/// The apply `args` ask for, as `ace-apply`'s flags would.
fn ready_of(args: &ApplyArgs) -> Result<ace_apply::Ready, Stop> {
    let registry = Registry::builtin();
    let delta_format = match args.delta_format.as_deref() {
        None => None,
        Some(name) => Some(registry.dialect(name).ok_or_else(|| {
            let names: Vec<&str> = registry.dialects().iter().map(|d| d.name()).collect();
            Stop::plain(format!(
                "unknown delta format `{name}`; expected one of {}",
                names.join(", ")
            ))
        })?),
    };
    let compat = match args.compat.as_deref() {
        None | Some("spec") => ace_apply::Compat::Spec,
        Some("skill-script") => ace_apply::Compat::Script,
        Some(other) => {
            return Err(Stop::plain(format!(
                "compat={other:?}: expected \"spec\" or \"skill-script\""
            )))
        }
    };
    let request = ace_apply::Request {
        caller: ace_apply::merge::Caller::Python,
        config: match &args.config {
            Some(path) => ace_apply::Config::File(path.clone()),
            None => ace_apply::Config::Nothing,
        },
        now: args.now.clone(),
        min_confidence: args.min_confidence,
        min_evidence: args.min_evidence,
        delta_format,
        compat,
        append_only: args.append_only,
        write_scope: args.write_scope.clone().unwrap_or_default(),
        curate: args.curate.clone(),
    };
    request.ready().map_err(Stop::plain)
}

fn apply_texts(
    text: String,
    deltas: &[String],
    args: ApplyArgs,
) -> Result<(String, Option<String>, String), Stop> {
    let source = source(text, args.filename.clone());
    let format = format_of(&source, args.format.as_deref())?;
    let ready = ready_of(&args)?;
    if let Some(scope) = &ready.scope {
        let Some(path) = source.path.as_deref() else {
            return Err(Stop::plain(
                "a write scope is checked against `filename`, the path the text is written to; pass it",
            ));
        };
        scope.check(path).map_err(Stop::plain)?;
        if let (Some(c), Some(_)) = (format.companion(), &args.companion) {
            let dir = path.parent().unwrap_or(std::path::Path::new(""));
            scope
                .check(&dir.join(c.file_names()[0]))
                .map_err(Stop::plain)?;
        }
    }
    let companion = args.companion.map(|t| {
        let name = format
            .companion()
            .map_or("<companion>", |c| c.file_names()[0]);
        self::source(t, Some(name.to_owned()))
    });
    if companion.is_some() && format.companion().is_none() {
        return Err(Stop::plain(format!(
            "companion=: only an AGENTS.md is read with a playbook.yaml; the text is {format}"
        )));
    }
    let ctx = ace_registry::ReadCtx::min(ace_model::Severity::Error);
    let input = ace_registry::convert::read_input_with(&source, format, companion, &ctx)
        .map_err(|stop| stopped(&source, format, stop))?;
    let names = delta_names(deltas);
    let sources = delta_sources(deltas, &names);
    let subject = ace_apply::Subject {
        format,
        text: &source.text,
        companion: input.companion.as_ref().map(|c| &*c.text),
        playbook: input.parsed.playbook,
    };
    let applied = ace_apply::run_curated(subject, &sources, &ready.run, &ready.curate);
    let report = applied.report_json();
    if args.strict && applied.refused() > 0 {
        let reasons: Vec<String> = report["rejected"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                format!(
                    "{} ({}): {}",
                    r["id"].as_str().unwrap_or_default(),
                    r["reason"].as_str().unwrap_or_default(),
                    r["message"].as_str().unwrap_or_default()
                )
            })
            .collect();
        return Err(Stop::plain(format!(
            "strict: {} delta(s) refused; nothing applied: {}",
            applied.refused(),
            reasons.join("; ")
        )));
    }
    let texts = applied.texts();
    let companion = input.companion.as_ref().and(texts.companion);
    Ok((texts.main, companion, report.to_string()))
}

/// A database location of `ace_tools`' `location=` arguments.
fn store_location(location: &str) -> Result<ace_registry::store::StoreLocation, Stop> {
    match ace_registry::store::location(location) {
        Ok(Some(l)) => Ok(l),
        Ok(None) => Err(Stop::plain(format!(
            "location={location:?}: expected sqlite:PATH, a SQLite file, a postgresql:// URL \
             or ace_claude_mcp's folder with a project (DIR#project=NAME)"
        ))),
        Err(e) => Err(Stop::plain(e.to_string())),
    }
}

/// The playbook at a database location as the canonical model's JSON; an
/// error when a row has an error-level finding.
#[pyfunction]
fn read_location(py: Python<'_>, location: String) -> PyResult<String> {
    py.detach(|| -> Result<String, Stop> {
        let loc = store_location(&location)?;
        let read = ace_registry::store::read(&loc).map_err(|s| Stop::plain(s.to_string()))?;
        if let Some(d) = read
            .parsed
            .diagnostics
            .iter()
            .find(|d| d.severity == ace_model::Severity::Error)
        {
            return Err(Stop::plain(format!("{loc}: {}: {}", d.code, d.message)));
        }
        Ok(ace_registry::canonical_json(&read.parsed.playbook))
    })
    .map_err(|s| s.raise(py))
}

/// The canonical model `model` written into the database at `location`,
/// in one transaction; what its schema cannot hold, as loss lines.
#[pyfunction]
#[pyo3(signature = (model, location, now=None, strict=false))]
fn write_location(
    py: Python<'_>,
    model: String,
    location: String,
    now: Option<String>,
    strict: bool,
) -> PyResult<Vec<String>> {
    py.detach(|| -> Result<Vec<String>, Stop> {
        let loc = store_location(&location)?;
        let source = source(model, Some("<model>".into()));
        let pb = read_playbook(&source, Format::JSON, false)?;
        let (losses, target) =
            ace_registry::store::losses(&loc, &pb).map_err(|e| Stop::plain(e.to_string()))?;
        let lines = loss_lines(&losses, &target);
        if strict && losses.iter().any(|l| l.loses()) {
            return Err(Stop::plain(format!(
                "strict: {} would be lost writing to {target}; nothing written: {}",
                lines.len(),
                lines.join("; ")
            )));
        }
        let opts = ace_registry::store::WriteOptions {
            now: ace_model::time::now(now.as_deref()).map_err(|e| Stop::plain(e.to_string()))?,
            wait: std::time::Duration::from_secs(60),
            ..Default::default()
        };
        ace_registry::store::write(&loc, &pb, &opts, false)
            .map_err(|e| Stop::plain(e.to_string()))?;
        Ok(lines)
    })
    .map_err(|s| s.raise(py))
}

/// `deltas` applied to the playbook at a database location, in one
/// transaction (see `ace-apply --in-place`): the report as JSON.
#[pyfunction]
#[pyo3(signature = (location, deltas, now=None, config=None, min_confidence=None,
    min_evidence=None, delta_format=None, compat=None, append_only=false, strict=false,
    lock_timeout=60.0))]
#[allow(clippy::too_many_arguments)]
fn apply_location(
    py: Python<'_>,
    location: String,
    deltas: Vec<String>,
    now: Option<String>,
    config: Option<PathBuf>,
    min_confidence: Option<f64>,
    min_evidence: Option<usize>,
    delta_format: Option<String>,
    compat: Option<String>,
    append_only: bool,
    strict: bool,
    lock_timeout: f64,
) -> PyResult<String> {
    let args = ApplyArgs {
        format: None,
        now,
        filename: None,
        companion: None,
        config,
        min_confidence,
        min_evidence,
        delta_format,
        compat,
        append_only,
        write_scope: None,
        strict,
        curate: ace_apply::CurateArgs::default(),
    };
    py.detach(|| -> Result<String, Stop> {
        let loc = store_location(&location)?;
        let ready = ready_of(&args)?;
        let names = delta_names(&deltas);
        let sources = delta_sources(&deltas, &names);
        let wait = std::time::Duration::try_from_secs_f64(lock_timeout)
            .map_err(|_| Stop::plain(format!("lock_timeout={lock_timeout}: expected seconds")))?;
        let how = ace_apply::rows::RowsOptions {
            wait,
            write: true,
            strict,
            force: false,
        };
        let done = match ace_apply::rows::apply(&loc, &sources, &ready, how)
            .map_err(|e| Stop::plain(e.to_string()))?
        {
            Ok(done) => done,
            Err(unread) => {
                let d = &unread.diagnostics[0];
                return Err(Stop::plain(format!(
                    "{loc}: {}: {}; nothing applied",
                    d.code, d.message
                )));
            }
        };
        let applied = &done.applied;
        if let Some(why) = applied.files.iter().find_map(|f| f.unreadable.as_deref()) {
            return Err(Stop::plain(format!("{why}; nothing applied or written")));
        }
        let report = applied.report_json();
        if strict && applied.refused() > 0 {
            return Err(Stop::plain(format!(
                "strict: {} delta(s) refused; nothing written: {report}",
                applied.refused()
            )));
        }
        Ok(report.to_string())
    })
    .map_err(|s| s.raise(py))
}

/// `runs` (texts of playbooks that each started from `base`) merged into
/// one by ace-merge's rules: the merged text and the report `{conflicts,
/// renumbered, refused}` as JSON.
#[pyfunction]
#[pyo3(signature = (base, runs, format=None, now=None, filename=None, allow_empty=false))]
fn merge(
    py: Python<'_>,
    base: String,
    runs: Vec<String>,
    format: Option<String>,
    now: Option<String>,
    filename: Option<String>,
    allow_empty: bool,
) -> PyResult<(String, String)> {
    py.detach(|| merge_texts(base, runs, format, now, filename, allow_empty))
        .map_err(|s| s.raise(py))
}

fn merge_texts(
    base: String,
    runs: Vec<String>,
    format: Option<String>,
    now: Option<String>,
    filename: Option<String>,
    allow_empty: bool,
) -> Result<(String, String), Stop> {
    let base = source(base, filename);
    let format = format_of(&base, format.as_deref())?;
    let base_pb = ace_registry::convert::read_playbook(&base, format)
        .map_err(|stop| stopped(&base, format, stop))?;
    let names: Vec<String> = (1..=runs.len()).map(|i| format!("#{i}")).collect();
    let runs: Vec<ace_model::Playbook> = runs
        .into_iter()
        .zip(&names)
        .map(|(text, name)| {
            let run = source(text, Some(name.clone()));
            ace_apply::merge::read_side(&run, format, (&base.text, &base_pb), allow_empty).map_err(
                |unfit| Stop::plain(unfit.message(name, format, ace_apply::merge::Caller::Python)),
            )
        })
        .collect::<Result<_, _>>()?;
    let now = ace_model::time::now_of(now.as_deref(), &runs).map_err(Stop::plain)?;
    let refs: Vec<&ace_model::Playbook> = runs.iter().collect();
    let merged = ace_apply::merge::merge_runs(format, &base.text, &base_pb, &refs, &now);
    let refused: Vec<serde_json::Value> = merged
        .refused
        .iter()
        .map(|(i, m)| serde_json::json!({"run": names[*i], "message": m}))
        .collect();
    let report = serde_json::json!({
        "conflicts": merged.conflicts_json(format, &base.name, &names),
        "renumbered": merged.id_map_json(&names),
        "refused": refused,
    });
    Ok((merged.text, report.to_string()))
}

/// The names of the formats, as `to=` and `format=` take them.
#[pyfunction]
fn formats(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let names: Vec<&str> = Registry::builtin()
        .formats()
        .iter()
        .map(|f| f.name())
        .collect();
    PyList::new(py, names)
}

/// The names of the delta dialects, as `delta_format=` takes them.
#[pyfunction]
fn dialects(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let names: Vec<&str> = Registry::builtin()
        .dialects()
        .iter()
        .map(|d| d.name())
        .collect();
    PyList::new(py, names)
}

/// The nearest `ace.toml` in `start` or a folder above it, as ace-apply
/// and ace-validate look for it.
#[pyfunction]
fn find_config(start: PathBuf) -> Option<PathBuf> {
    ace_config::find(&start)
}

#[pymodule]
fn _ace_tools(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("AceError", m.py().get_type::<AceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(read_json, m)?)?;
    m.add_function(wrap_pyfunction!(write, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(apply, m)?)?;
    m.add_function(wrap_pyfunction!(read_location, m)?)?;
    m.add_function(wrap_pyfunction!(write_location, m)?)?;
    m.add_function(wrap_pyfunction!(apply_location, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(view, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(dialects, m)?)?;
    m.add_function(wrap_pyfunction!(find_config, m)?)?;
    Ok(())
}
