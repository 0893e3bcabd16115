//! The command line of `ace-validate`: its arguments, which the binary
//! parses and `cargo xtask` turns into completions and a man page.

use crate::Color;
use ace_registry::Format;
use clap::{Parser, ValueEnum};
use std::path::PathBuf;

pub const PROG: &str = "ace-validate";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// `github` when GITHUB_ACTIONS=true, else `full`.
    Auto,
    /// `path:line:col: severity[CODE]: message`, a code frame, help and a
    /// summary line.
    Full,
    /// One line per finding, then the summary line.
    Concise,
    /// One JSON array of every finding, with positions and byte offsets.
    Json,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
}

/// Check ACE playbooks, deltas and patches against the rules of their specs.
///
/// Exit status: 0 when no error-level finding, 1 when there is one, 2 on a
/// usage or I/O error (including a directory or glob that matches no file).
#[derive(Parser, Debug)]
#[command(name = PROG, version = crate::VERSION, after_help = crate::EXIT_STATUS_HELP)]
pub struct Args {
    /// Files, directories (walked for ACE files) or globs to check; `-`
    /// reads standard input.
    pub paths: Vec<std::ffi::OsString>,
    /// Input format for every file (detected per file if omitted). A file
    /// that no format claims is then not checked: exit 2.
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub from: Option<Format>,
    /// How findings are printed.
    #[arg(long, value_enum, default_value = "auto")]
    pub output_format: Output,
    /// Print the findings only: no summary line.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print how often each code was found instead of the findings (as a
    /// JSON array with `--output-format json`).
    #[arg(long)]
    pub statistics: bool,
    /// Print each file's tokens (its text as written) and its sections'
    /// (entries and the tokens of their text) instead of the findings; as
    /// a JSON array with `--output-format json`.
    #[arg(long)]
    pub tokens: bool,
    /// The encoding `--tokens` and the budget count with: cl100k_base (the
    /// ACE paper's) [default: ace.toml's `budget.tokenizer`, else
    /// cl100k_base], o200k_base, or chars4 (a quarter of the characters).
    #[arg(long, value_name = "NAME", value_parser = tokenizer_parser())]
    pub tokenizer: Option<ace_tokens::Encoding>,
    /// Report a playbook holding more tokens than N (ACE085): its text as
    /// written, less its deprecated entries' [default: ace.toml's
    /// `budget.max-tokens`].
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<usize>,
    /// Report a playbook holding more active entries than N (ACE086)
    /// [default: ace.toml's `budget.max-entries`].
    #[arg(long, value_name = "N")]
    pub max_entries: Option<usize>,
    /// List the files a run would check, one per line, and check none.
    #[arg(long)]
    pub show_files: bool,
    /// Colour in human output; `auto` honours NO_COLOR and FORCE_COLOR.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Only report these codes (comma-separated, e.g. ACE002,ACE006);
    /// replaces `select` in ace.toml.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Option<Vec<String>>,
    /// Never report these codes; added to `ignore` in ace.toml.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Curation threshold: report entries with harmful > helpful + N
    /// (`thresholds.curation` in ace.toml; default 3).
    #[arg(long, value_name = "N", value_parser = crate::cli::non_negative)]
    pub threshold: Option<i64>,
    /// The curator's playbook.yaml to check with each AGENTS.md (default:
    /// playbook.yaml beside it, if there is one).
    #[arg(long, value_name = "FILE")]
    pub sections: Option<PathBuf>,
    /// Check an AGENTS.md alone, without the playbook.yaml beside it.
    #[arg(long, conflicts_with = "sections")]
    pub no_sections: bool,
    /// The playbook that deltas and patches apply to: the IDs, hashes and
    /// sequence they name are checked against it (any format ace-tools reads).
    #[arg(long, value_name = "FILE")]
    pub playbook: Option<PathBuf>,
    /// An earlier version to enforce append-only history against: a file,
    /// or a git revision (each file is compared with itself there).
    #[arg(long, value_name = "FILE|REV")]
    pub baseline: Option<String>,
    /// Use this configuration file instead of the nearest ace.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore every ace.toml.
    #[arg(long)]
    pub isolated: bool,
    /// Apply ace.toml's `exclude` to files named on the command line too
    /// (what pre-commit needs, since it names every staged file).
    #[arg(long)]
    pub force_exclude: bool,
    /// Leave out files named on the command line that are no ACE files
    /// (by name and content, as a directory walk decides) instead of
    /// refusing them: what the pre-commit hook passes, which names every
    /// staged file of a syntax a format is written in.
    #[arg(long)]
    pub only_ace: bool,
    /// Exit 0 even when errors are found.
    #[arg(long)]
    pub exit_zero: bool,
    /// Name to use for standard input in messages (and for format detection).
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    pub stdin_filename: String,
}

/// `--tokenizer`: one of the encodings' names, listed in `--help`.
pub fn tokenizer_parser() -> impl clap::builder::TypedValueParser<Value = ace_tokens::Encoding> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(ace_tokens::Encoding::NAMES)
        .try_map(|name| name.parse::<ace_tokens::Encoding>())
}
