//! The command line of `ace-view`.

use ace_registry::Format;
use clap::Parser;
use std::path::PathBuf;

pub const PROG: &str = "ace-view";

/// Write one self-contained HTML page of a playbook: its tokens per
/// section, each entry's counters, findings and whether pruning would
/// remove it, its near-duplicates, and with --history its git history.
///
/// The page has its CSS and SVG inline and refers to nothing outside
/// itself; it reads with scripts off.
#[derive(Parser, Debug)]
#[command(name = PROG, version = crate::VERSION, after_help = crate::EXIT_STATUS_HELP)]
pub struct Args {
    /// The playbook, or `-` for standard input.
    #[arg(value_name = "PLAYBOOK")]
    pub input: std::ffi::OsString,
    /// The page's file, or `-` for standard output (the default).
    #[arg(short, long, value_name = "FILE.html")]
    pub output: Option<PathBuf>,
    /// Replace a file that is read-only or has other hard links (refused
    /// otherwise: exit 2, nothing written).
    #[arg(long)]
    pub force: bool,
    /// Draw the file's commits (git log --follow): entries and tokens per
    /// commit, and what each added, removed and changed.
    #[arg(long)]
    pub history: bool,
    /// Input format (detected from the file name and content if omitted).
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub from: Option<Format>,
    /// The curator's playbook.yaml to read with an AGENTS.md (default:
    /// playbook.yaml beside it, if there is one).
    #[arg(long, value_name = "FILE")]
    pub sections: Option<PathBuf>,
    /// The encoding tokens are counted in: cl100k_base [default: ace.toml's
    /// `budget.tokenizer`, else cl100k_base], o200k_base or chars4.
    #[arg(long, value_name = "NAME", value_parser = crate::cli::validate::tokenizer_parser())]
    pub tokenizer: Option<ace_tokens::Encoding>,
    /// The token budget pruning is shown against [default: ace.toml's
    /// `budget.max-tokens`].
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<usize>,
    /// The entry budget pruning is shown against [default: ace.toml's
    /// `budget.max-entries`].
    #[arg(long, value_name = "N")]
    pub max_entries: Option<usize>,
    /// Use this configuration file instead of the nearest ace.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Use no configuration file.
    #[arg(long)]
    pub isolated: bool,
    /// Name to use for standard input on the page.
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    pub stdin_filename: String,
}
