//! A conversion as named steps: the table of sections, the target format,
//! reading the input with its companion, where the output goes, and
//! writing it. `ace-convert` parses its arguments and prints; what it
//! decides is here, for any program that converts.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ace_exec::Out;
use ace_model::mapping::SectionMap;
use ace_model::{Diagnostic, LossEntry, Playbook, WriteReport};

use ace_fs::{load, AtomicFile, Source};

use crate::{Format, Parsed, Read, ReadCtx, Registry, WriteCtx, WriteOption};

/// Why a conversion stops.
#[derive(Debug)]
pub enum Stop {
    /// A usage or I/O error: exit 2.
    Usage(ace_model::Error),
    /// The input, or its companion, cannot be read: exit 1, with what the
    /// reader found.
    Findings {
        /// The companion, when it is the file at fault; else the input.
        companion: Option<Source>,
        diagnostics: Vec<Diagnostic>,
    },
    /// `strict` and something would be lost: exit 1, nothing written.
    Lossy { lost: usize, target: String },
}

impl From<ace_model::Error> for Stop {
    fn from(e: ace_model::Error) -> Self {
        Stop::Usage(e)
    }
}

impl From<ace_fs::LoadError> for Stop {
    fn from(e: ace_fs::LoadError) -> Self {
        Stop::Usage(e.into())
    }
}

/// A usage error said in one line.
fn usage(message: String) -> Stop {
    Stop::Usage(ace_model::Error::Usage(message))
}

/// In one line: the message, or the first finding as `CODE: message`.
impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Usage(e) => e.fmt(f),
            Stop::Findings { diagnostics, .. } => match diagnostics.first() {
                Some(d) => write!(f, "{}: {}", d.code, d.message),
                None => Ok(()),
            },
            Stop::Lossy { lost, target } => write!(f, "{lost} piece(s) lost reading {target}"),
        }
    }
}

/// The playbook `source` holds read as `format`, for its data: what
/// [`read_input`] reads with no companion named and only errors wanted
/// (comparing, merging, reading from Python).
pub fn read_playbook(source: &Source, format: Format) -> Result<Playbook, Stop> {
    let ctx = ReadCtx::min(ace_model::Severity::Error);
    read_input(source, format, None, &ctx).map(|input| input.parsed.playbook)
}

/// [`read_playbook`] without the layout a rewrite in `format` would keep:
/// for a caller that writes another format, or no file at all.
pub fn read_data(source: &Source, format: Format) -> Result<Playbook, Stop> {
    let ctx = ReadCtx::min(ace_model::Severity::Error).data_only();
    read_input(source, format, None, &ctx).map(|input| input.parsed.playbook)
}

/// The `--section-map` file's rows before the built-in ones; none, the
/// built-in table.
/// Every option some writer of `registry` offers, once, with the names
/// of the formats that offer it, in registry order: what a command line
/// makes flags of.
pub fn writer_options(registry: &Registry) -> Vec<(WriteOption, Vec<&'static str>)> {
    let mut options: Vec<(WriteOption, Vec<&'static str>)> = Vec::new();
    for format in registry.formats() {
        for option in format.imp().write_options() {
            match options.iter_mut().find(|(o, _)| o.name == option.name) {
                Some((_, names)) => names.push(format.name()),
                None => options.push((*option, vec![format.name()])),
            }
        }
    }
    options
}

/// Writes the IDs that changed, and what they became, to `path` as a JSON
/// array of `{"old", "new"}` (empty when none changed).
pub fn write_id_map(
    path: &Path,
    changes: &[ace_model::ids::IdChange],
    held: &ace_fs::Held,
) -> Result<(), ace_model::Error> {
    let mut text =
        serde_json::to_string_pretty(changes).map_err(|e| ace_model::Error::io(path, e))?;
    text.push('\n');
    ace_fs::write_atomic(path, text.as_bytes(), Some(held))
        .map_err(|e| ace_model::Error::io(path, e))
}

pub fn section_map(path: Option<&Path>) -> Result<Arc<SectionMap>, Stop> {
    let Some(path) = path else {
        return Ok(Arc::default());
    };
    let text = ace_fs::load(path)?.text;
    SectionMap::from_json(&text)
        .map(Arc::new)
        .map_err(|e| Stop::Usage(e.under(&format!("{}:", path.display()))))
}

/// The format to write: `to`, else the input's own with `in_place`, else
/// the one the output file's name says.
pub fn target_format(
    from: Format,
    to: Option<Format>,
    output: Option<&OsStr>,
    in_place: bool,
) -> Result<Format, Stop> {
    match (to, output, in_place) {
        (Some(to), _, _) => Ok(to),
        (None, _, true) => Ok(from),
        (None, Some(out), false) if out != "-" => {
            crate::format_of_name(Path::new(out)).ok_or_else(|| {
                let names: Vec<&str> = Format::all().iter().map(|f| f.name()).collect();
                usage(format!(
                    "cannot tell the output format from `{}`; pass --to FORMAT, one of: {}",
                    Path::new(out).display(),
                    names.join(", ")
                ))
            })
        }
        _ => Err(usage(
            "no output format; pass --to FORMAT (for example --to json)".into(),
        )),
    }
}

/// A playbook read from the input, with its companion when it has one.
pub struct Input {
    pub parsed: Parsed,
    /// The companion file read with it (AGENTS.md's playbook.yaml).
    pub companion: Option<Source>,
    /// What the companion's reader found, about the companion.
    pub companion_findings: Vec<Diagnostic>,
    /// The input's root keys as its reader found them ([`Read::top`]).
    pub top: Option<crate::TopKeys>,
}

/// The input's format, whether its name or content told it, and what the
/// read as that format gave ([`read_detected`]).
pub struct DetectedInput<T> {
    pub from: Format,
    pub told: bool,
    /// What the caller decided for that format (the target, say).
    pub with: T,
    pub read: Result<Input, Stop>,
}

/// Reads `source` as `given`, else as the format detected: a large JSON
/// file as its head says ([`Registry::detect_head`]), confirmed from the
/// root keys its read found ([`Registry::confirm`]) and read again when
/// they say another format, so that the result is always that of
/// detecting the whole file. `read` reads the input as a format, with
/// what the caller decides for that format beside the read.
pub fn read_detected<T>(
    registry: &Registry,
    source: &Source,
    given: Option<Format>,
    mut read: impl FnMut(Format) -> Result<(T, Result<Input, Stop>), Stop>,
) -> Result<DetectedInput<T>, Stop> {
    let path = source.path.as_deref();
    let detected = match given {
        Some(format) => crate::Detected {
            format,
            told: true,
            settled: true,
        },
        None => registry.detect_head(path, &source.text),
    };
    let (mut from, mut told) = (detected.format, detected.told);
    let mut settled = detected.settled;
    loop {
        let (with, input) = read(from)?;
        if !settled {
            settled = true;
            let top = input.as_ref().ok().and_then(|i| i.top.as_deref());
            let (format, format_told) = registry.confirm(path, &source.text, top);
            if format != from {
                (from, told) = (format, format_told);
                continue;
            }
        }
        return Ok(DetectedInput {
            from,
            told,
            with,
            read: input,
        });
    }
}

/// Reads `source` as `from`, and its companion: `sections` when given,
/// else the one beside the input. A file that holds something else than a
/// playbook (a delta, a patch) is refused, and so is one in which either
/// reader found an error other than a schema finding: [`Stop::Findings`]
/// with the errors. Schema errors stay in the findings read.
pub fn read_input(
    source: &Source,
    from: Format,
    sections: Option<&Path>,
    ctx: &ReadCtx,
) -> Result<Input, Stop> {
    // The companion is looked for once the input has read without error.
    let companion = || {
        let path = match sections {
            Some(p) => Some(p.to_owned()),
            None => source
                .path
                .as_deref()
                .and_then(|p| from.companion_beside(p)),
        };
        match path {
            Some(path) if from.companion().is_none() => Err(usage(format!(
                "--sections {}: only an AGENTS.md input reads a playbook.yaml",
                path.display()
            ))),
            Some(path) => load(&path).map(Some).map_err(Stop::from),
            None => Ok(None),
        }
    };
    read_with(source, from, ctx, companion)
}

/// [`read_input`] with the companion's text given (or none), not looked
/// for: for texts that are not files (the Python module's).
pub fn read_input_with(
    source: &Source,
    from: Format,
    companion: Option<Source>,
    ctx: &ReadCtx,
) -> Result<Input, Stop> {
    read_with(source, from, ctx, || Ok(companion))
}

fn read_with(
    source: &Source,
    from: Format,
    ctx: &ReadCtx,
    companion: impl FnOnce() -> Result<Option<Source>, Stop>,
) -> Result<Input, Stop> {
    let (mut parsed, top) = match from.read(&source.text, ctx) {
        Ok(Read {
            other: Some(other), ..
        }) => {
            return Err(usage(format!(
                "{}: this is a {}, not a playbook: ace-validate checks it, and ace-apply applies {} to a playbook (ace-apply PLAYBOOK FILE)",
                source.name, other.what, other.applying,
            )))
        }
        Ok(read) => (read.parsed, read.top),
        Err(d) => {
            return Err(Stop::Findings {
                companion: None,
                diagnostics: vec![d],
            })
        }
    };
    // A reader keeps what it cannot interpret, but a file with an error in
    // it is not the file its author meant: converting it would write a
    // target that looks fine and is not (an empty AGENTS.md from a JSON
    // that is no playbook).
    if parsed.diagnostics.iter().any(is_error) {
        return Err(errors_in(None, parsed.diagnostics));
    }
    let Some(companion) = companion()? else {
        return Ok(Input {
            parsed,
            companion: None,
            companion_findings: Vec::new(),
            top,
        });
    };
    match from.attach_companion(&mut parsed, &companion.text) {
        Ok(findings) if findings.iter().any(is_error) => Err(errors_in(Some(companion), findings)),
        Ok(_) if parsed.diagnostics.iter().any(is_error) => {
            Err(errors_in(None, parsed.diagnostics))
        }
        Ok(findings) => Ok(Input {
            parsed,
            companion: Some(companion),
            companion_findings: findings,
            top,
        }),
        Err(d) => Err(Stop::Findings {
            companion: Some(companion),
            diagnostics: vec![d],
        }),
    }
}

/// An error that means the file was not read as its format: a schema
/// finding is not one ([`ace_model::rules::is_conformance`]).
fn is_error(d: &Diagnostic) -> bool {
    d.severity == ace_model::Severity::Error && !ace_model::rules::is_conformance(d.code)
}

/// The stop for the errors among `findings`, about `companion` or else
/// the input.
fn errors_in(companion: Option<Source>, findings: Vec<Diagnostic>) -> Stop {
    Stop::Findings {
        companion,
        diagnostics: findings.into_iter().filter(is_error).collect(),
    }
}

/// Where the output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
    /// A format with a companion written as both files: into `dir` (made
    /// if missing), or over the input and its companion.
    Pair {
        dir: Option<PathBuf>,
        main: PathBuf,
        companion: PathBuf,
    },
}

/// Where `-o OUTPUT` or `--in-place` sends a conversion to `to`: a
/// directory (existing, or ending in `/`) takes a format with a companion
/// as both files, and so does `--in-place` on an input read with one. The
/// input is never overwritten without `in_place`.
pub fn destination(
    to: Format,
    output: Option<&OsStr>,
    in_place: bool,
    input: &Source,
    companion: Option<&Source>,
) -> Result<Destination, Stop> {
    let refuse_input = |path: &Path| {
        if !in_place && input.path.as_deref().is_some_and(|p| same_file(p, path)) {
            return Err(usage(format!(
                "{}: refusing to overwrite the input; use --in-place",
                path.display()
            )));
        }
        Ok(())
    };
    if let Some(c) = to.companion() {
        let dir = output
            .filter(|out| out.as_encoded_bytes().ends_with(b"/") || Path::new(out).is_dir())
            .map(PathBuf::from);
        let pair = match (&dir, in_place, &input.path, companion) {
            (Some(dir), _, _, _) => Some((dir.join(c.main_file()), dir.join(c.file_names()[0]))),
            (None, true, Some(p), Some(y)) => Some((p.clone(), y.path.clone().unwrap_or_default())),
            _ => None,
        };
        if let Some((main, companion)) = pair {
            refuse_input(&main)?;
            refuse_input(&companion)?;
            return Ok(Destination::Pair {
                dir,
                main,
                companion,
            });
        }
    }
    if in_place {
        return match &input.path {
            Some(p) => Ok(Destination::File(p.clone())),
            None => Err(usage(
                "--in-place needs an input file, not standard input".into(),
            )),
        };
    }
    match output {
        Some(out) if out == "-" => Ok(Destination::Stdout),
        None => Ok(Destination::Stdout),
        Some(out) => {
            let out = PathBuf::from(out);
            refuse_input(&out)?;
            Ok(Destination::File(out))
        }
    }
}

/// An I/O error on `path`, as a usage error naming it.
fn io(path: &Path) -> impl Fn(std::io::Error) -> Stop + '_ {
    move |e| Stop::Usage(ace_model::Error::io(path, e))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes `pb` as `to` to `dest`. The text goes out as it is printed, so
/// no copy of the whole output is held; a file is renamed into place only
/// once the losses are known. `report` gets the losses and the target's
/// name once: under `strict`, before anything is written (from a dry run
/// where the output cannot be held back), and any loss stops the write.
/// Files of `held` (locked for an update in place) are renamed over only
/// if they are as they were read.
pub fn write_output(
    pb: &Playbook,
    to: Format,
    ctx: &WriteCtx,
    dest: &Destination,
    strict: bool,
    held: Option<&ace_fs::Held>,
    report: &mut dyn FnMut(&[LossEntry], &str),
) -> Result<WriteReport, Stop> {
    let target = match (dest, to.companion()) {
        (Destination::Pair { .. }, Some(c)) => format!("{to} + {}", c.name()),
        _ => to.name().to_owned(),
    };
    let mut check = |losses: &[LossEntry]| {
        report(losses, &target);
        let lost = losses.iter().filter(|l| l.loses()).count();
        match strict && lost > 0 {
            true => Err(Stop::Lossy {
                lost,
                target: target.clone(),
            }),
            false => Ok(()),
        }
    };
    // A dry run finds the losses first wherever the output cannot wait
    // for them: standard output, and a pair, which must not even leave
    // its directory behind.
    if strict && !matches!(dest, Destination::File(_)) {
        let mut sink = std::io::sink();
        let (_, dry) = to.write_with_companion(pb, ctx, &mut Out::to(&mut sink));
        check(&dry.losses)?;
    }
    match dest {
        Destination::Stdout => {
            let mut stdout = std::io::stdout().lock();
            let mut out = Out::to(&mut stdout);
            let written = to.write(pb, ctx, &mut out);
            let sent = out.finish();
            if !strict {
                check(&written.losses)?;
            }
            ace_fs::reader_left_is_ok(sent).map_err(io(Path::new("<stdout>")))?;
            Ok(written)
        }
        Destination::File(path) => {
            let mut file = AtomicFile::create(path).map_err(io(path))?.expecting(held);
            let mut out = Out::to(&mut file);
            let written = to.write(pb, ctx, &mut out);
            let sent = out.finish();
            check(&written.losses)?;
            sent.and_then(|_| file.commit()).map_err(io(path))?;
            Ok(written)
        }
        Destination::Pair {
            dir,
            main,
            companion,
        } => {
            if let Some(dir) = dir {
                std::fs::create_dir_all(dir).map_err(io(dir))?;
            }
            let mut main_file = AtomicFile::create(main).map_err(io(main))?.expecting(held);
            let mut companion_file = AtomicFile::create(companion)
                .map_err(io(companion))?
                .expecting(held);
            let mut out = Out::to(&mut main_file);
            let (text, written) = to.write_with_companion(pb, ctx, &mut out);
            let sent = out.finish();
            if !strict {
                check(&written.losses)?;
            }
            if let Some(h) = held {
                h.unchanged()
                    .map_err(|e| Stop::Usage(ace_model::Error::Refused(e.to_string())))?;
            }
            sent.and_then(|_| main_file.commit()).map_err(io(main))?;
            companion_file
                .write_all(text.unwrap_or_default().as_bytes())
                .and_then(|()| companion_file.commit())
                .map_err(io(companion))?;
            Ok(written)
        }
    }
}
