//! What the seven binaries share: their arguments (`cli`), input loading
//! and locking, the exit model ([`ExitStatus`]), how findings and errors
//! are printed, and the pre-commit hooks they are run by. What they do
//! lives in the library crates.

pub mod cli;
pub mod run;

/// The version `--version` prints: the package's, and the commit and date
/// of the checkout it was built from (build.rs).
pub const VERSION: &str = env!("ACE_TOOLS_VERSION");

use std::path::Path;

use ace_fs::{LoadError, Source};
use ace_registry::{Format, Registry};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Arg, ArgMatches, Command};

/// How every tool exits: the same status for the same outcome, as ruff
/// and markdownlint-cli2 use them (README's table, [`EXIT_STATUS_HELP`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// The work was done: converted, applied, merged, written, or checked
    /// with no error-level finding.
    Ok = 0,
    /// Findings: an input that does not read as a playbook, an
    /// error-level finding, a delta refused, a merge conflict, a loss under
    /// `--strict`, a change `--check` would make, a difference `ace-diff`
    /// shows.
    Findings = 1,
    /// Nothing was done: a usage error, a file that cannot be read or
    /// written, or a refusal before anything is written.
    Refused = 2,
}

impl ExitStatus {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// The exit statuses, as every tool's `--help` ends with them and the
/// README's table gives them.
#[macro_export]
macro_rules! exit_status_help {
    () => {
        "Exit status:
  0  the work was done, with no error-level finding
  1  findings: an input that does not read as a playbook, an error-level finding, a refused delta, a merge conflict, a loss under --strict, a change --check would make, a difference ace-diff shows
  2  nothing was done: a usage error, a file that cannot be read or written, or a refusal before anything is written"
    };
}

pub const EXIT_STATUS_HELP: &str = exit_status_help!();

/// `cmd` with a flag for each option some writer of `registry` offers
/// (`--NAME VALUE`, its help naming the formats that offer it), so that a
/// format's options need no change to the CLI. Values are matched ignoring
/// case and given as the writer names them.
pub fn with_writer_flags(cmd: Command, registry: &Registry) -> Command {
    let flags = ace_registry::convert::writer_options(registry)
        .into_iter()
        .map(|(option, formats)| {
            Arg::new(option.name)
                .long(option.name)
                .value_name("VALUE")
                .value_parser(PossibleValuesParser::new(option.values).map(move |typed| {
                    let named = option
                        .values
                        .iter()
                        .find(|v| v.eq_ignore_ascii_case(&typed));
                    named.map_or(typed, |v| (*v).to_owned())
                }))
                .ignore_case(true)
                .help(format!("With --to {}: {}", formats.join("|"), option.help))
        });
    cmd.args(flags)
}

/// The writers' options given to a command made by [`with_writer_flags`].
pub fn writer_options_given(
    matches: &ArgMatches,
    registry: &Registry,
) -> Vec<(&'static str, String)> {
    ace_registry::convert::writer_options(registry)
        .into_iter()
        .filter_map(|(option, _)| {
            let value = matches.get_one::<String>(option.name)?;
            Some((option.name, value.clone()))
        })
        .collect()
}

/// clap value parser for format names: the registry's formats as the
/// possible values, each with its one-line description, so that `--help`
/// lists them and a wrong name is answered with the list.
pub fn format_parser() -> impl TypedValueParser<Value = Format> {
    let values = Registry::builtin()
        .formats()
        .iter()
        .map(|f| PossibleValue::new(f.name()).help(f.describe()));
    PossibleValuesParser::new(values)
        .try_map(|name| Format::from_name(&name).ok_or_else(|| format!("unknown format `{name}`")))
}

/// `-` reads standard input, anything else a file.
pub fn load_input(arg: impl AsRef<std::ffi::OsStr>, stdin_name: &str) -> Result<Source, LoadError> {
    let arg = arg.as_ref();
    if arg == "-" {
        ace_fs::load_stdin(stdin_name)
    } else {
        ace_fs::load(Path::new(arg))
    }
}

/// How long an update in place waits, by default, for another process
/// to finish with the same playbook.
pub const LOCK_WAIT: &str = "60";

/// `--lock-timeout`'s value: seconds, fractions allowed.
pub fn lock_wait(seconds: &str) -> Result<std::time::Duration, String> {
    seconds
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("`{seconds}`: expected a number of seconds"))
}

/// Sets up the process before anything is written. A file-size limit
/// (`ulimit -f`) then makes a write fail with EFBIG, which is reported and
/// leaves the target untouched, instead of killing the process with
/// SIGXFSZ halfway through.
pub fn prepare_process() {
    #[cfg(unix)]
    // SAFETY: ignoring a signal installs no handler: no code of ours runs
    // in signal context. It happens before any thread is started.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Lets go of what a run made without freeing it, the process ending
/// next: freeing a 10,000-entry playbook's strings one by one was a tenth
/// of `ace-convert --to json` on it, and the kernel takes the memory back
/// at once. For the tools' runs only; a library caller frees as usual.
pub fn leave_to_exit<T>(value: T) -> std::mem::ManuallyDrop<T> {
    std::mem::ManuallyDrop::new(value)
}

/// Ends the process with status `code`, once what it made is out: the
/// caller's files were closed as it returned, and standard output and
/// error are flushed here. The allocator's exit handler is left out: it
/// walks and gives back every page the process holds, which after a
/// large playbook took longer than writing it (35 ms of a 100,000-skill
/// conversion), while the kernel takes them back at once.
pub fn exit(status: ExitStatus) -> ! {
    let code = status.code();
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process; nothing of it runs after.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

/// Prints `diags` about the file `name` holding `text` on stderr, one
/// concise line each, as ruff does.
pub fn print_diagnostics(name: &str, text: &str, diags: &[ace_model::Diagnostic]) {
    let report = [ace_report::FileReport {
        name,
        text,
        diagnostics: diags,
    }];
    let mut err = std::io::stderr().lock();
    let _ = ace_report::render(ace_report::OutputFormat::Concise, &report, false, &mut err);
}

/// Prints `prog: error: message` on stderr.
pub fn error(prog: &str, message: impl std::fmt::Display) {
    crate::say!("{prog}: error: {message}");
}

/// Prints one line on stderr, as `eprintln!` does, with the control
/// characters and line breaks a file name, a location or a row may carry
/// shown as `[U+XXXX]` ([`ace_model::controls::line`]): an untrusted
/// repository's file name never runs an escape sequence in the user's
/// terminal, nor starts a line of a CI log.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}", ace_model::controls::line(&format!($($arg)*)))
    };
}

/// `--color`, as ace-validate and ace-diff take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// Colour when standard output is a terminal.
    Auto,
    Always,
    Never,
}

impl Color {
    /// Whether to colour standard output: `auto` follows `NO_COLOR`, then
    /// `FORCE_COLOR` (each when set and not empty), then the terminal.
    pub fn enabled(self) -> bool {
        use std::io::IsTerminal;
        let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto if set("NO_COLOR") => false,
            Color::Auto if set("FORCE_COLOR") => true,
            Color::Auto => std::io::stdout().is_terminal(),
        }
    }
}

pub use ace_fs::write_stdout;

pub use ace_model::time::{now, rfc3339, source_date_epoch};

/// Says on stderr why a run stopped, and gives the status it exits with:
/// a usage or I/O error in one line; the findings that stop reading, at
/// their lines in `file` (or the companion at fault), then `after`; a
/// loss under `--strict` as `lossy(lost, target)` says it.
pub fn print_stop(
    prog: &str,
    stop: ace_registry::convert::Stop,
    file: Option<&Source>,
    after: Option<&str>,
    lossy: impl FnOnce(usize, &str) -> String,
) -> ExitStatus {
    use ace_registry::convert::Stop;
    let status = stop_status(&stop);
    match stop {
        Stop::Usage(message) => error(prog, message),
        Stop::Findings {
            companion,
            diagnostics,
        } => {
            if let Some(f) = companion.as_ref().or(file) {
                print_diagnostics(&f.name, &f.text, &diagnostics);
            }
            if let Some(line) = after {
                error(prog, line);
            }
        }
        Stop::Lossy { lost, target } => error(prog, lossy(lost, &target)),
    }
    status
}

/// The status a tool stops with when reading or converting stopped.
pub fn stop_status(stop: &ace_registry::convert::Stop) -> ExitStatus {
    match stop {
        ace_registry::convert::Stop::Usage(_) => ExitStatus::Refused,
        _ => ExitStatus::Findings,
    }
}

/// The playbook `source` holds, read as `format` for comparing or merging
/// (`ace-diff`, `ace-merge`); a file that cannot be read has its findings
/// printed and gives the exit status to stop with.
pub fn read_playbook(
    prog: &str,
    source: &Source,
    format: Format,
) -> Result<ace_model::Playbook, ExitStatus> {
    match ace_registry::convert::read_playbook(source, format) {
        Ok(pb) => Ok(pb),
        Err(ace_registry::convert::Stop::Findings {
            companion,
            diagnostics,
        }) => {
            let f = companion.as_ref().unwrap_or(source);
            print_diagnostics(&f.name, &f.text, &diagnostics);
            error(prog, format!("{}: the playbook has errors", source.name));
            Err(ExitStatus::Findings)
        }
        Err(stop) => {
            error(prog, &stop);
            Err(stop_status(&stop))
        }
    }
}

/// The playbook at `arg` when it names a database location (`None` when
/// it names a file), read for showing or comparing (`ace-diff`,
/// `ace-view`): the source names the location; a row the reader finds
/// wrong has its findings printed and gives the status to stop with.
pub fn read_location(
    prog: &str,
    arg: impl AsRef<std::ffi::OsStr>,
) -> Option<Result<(Source, ace_model::Playbook), ExitStatus>> {
    let location = match ace_registry::store::location(arg) {
        Ok(Some(l)) => l,
        Ok(None) => return None,
        Err(e) => {
            error(prog, e);
            return Some(Err(ExitStatus::Refused));
        }
    };
    Some(match ace_registry::store::read(&location) {
        Ok(read) if ace_registry::store::has_errors(&read.parsed) => {
            let errors: Vec<_> = read
                .parsed
                .diagnostics
                .iter()
                .filter(|d| d.severity == ace_model::Severity::Error)
                .cloned()
                .collect();
            print_diagnostics(&read.source.name, &read.source.text, &errors);
            error(prog, format!("{location}: the playbook has errors"));
            Err(ExitStatus::Findings)
        }
        Ok(read) => Ok((read.source, read.parsed.playbook)),
        Err(stop) => {
            error(prog, &stop);
            Err(stop_status(&stop))
        }
    })
}

/// The hooks of `.pre-commit-hooks.yaml`:/// The hooks of `.pre-commit-hooks.yaml`: the one that runs the
/// ace-validate on PATH (installed from the wheel, no Rust) and the one that
/// builds it from this repository with cargo; with `mirror`, the one hook
/// of `packaging/pre-commit-mirror`, which pip-installs the wheel. Each
/// passes every staged file whose name [`Registry::hook_files`] matches.
/// `cargo xtask docs` writes both files.
pub fn precommit_hooks(mirror: bool) -> String {
    let files = Registry::builtin().hook_files();
    let hook = |id: &str, name: &str, language: &str, runs: &str| {
        format!(
            "- id: {id}\n  name: {name}\n  description: Check ACE playbooks, skillbooks, \
             context-file blocks, deltas and update batches{runs}.\n  entry: ace-validate\n  \
             args: [--force-exclude, --only-ace, --]\n  language: {language}\n  files: '{files}'\n  \
             require_serial: true\n"
        )
    };
    let head = "# Generated by `cargo xtask docs` from the format registry; do not edit.\n\
                # The hooks pass every staged file of a syntax a format is written in;\n\
                # ace-validate leaves out those that are no ACE file (--only-ace).\n\
                # `--` ends the options: pre-commit appends the file names, and\n\
                # a file named `--config=x.md` must stay a file name.\n";
    if mirror {
        return format!(
            "# ace-validate from the ace-tools wheel on PyPI: pre-commit pip-installs it\n\
             # into the hook's environment in seconds, with no Rust toolchain.\n{head}{}",
            hook("ace-validate", "ace-validate", "python", "")
        );
    }
    format!(
        "# pre-commit hooks for ace-validate (https://pre-commit.com).\n\
         # `ace-validate-system` runs the ace-validate on PATH (the ace-tools wheel:\n\
         # no Rust); `ace-validate` builds it from this repository with cargo.\n{head}{}{}",
        hook(
            "ace-validate-system",
            "ace-validate (system)",
            "system",
            " with the ace-validate found on PATH"
        ),
        hook("ace-validate", "ace-validate", "rust", ""),
    )
}
