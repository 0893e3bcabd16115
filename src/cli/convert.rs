//! The command line of `ace-convert`: its arguments, which the binary
//! parses and `cargo xtask` turns into completions and a man page.

use ace_registry::Format;
use clap::{Parser, ValueEnum};
use std::path::PathBuf;

pub const PROG: &str = "ace-convert";

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Report {
    Text,
    Json,
}

/// Convert an ACE playbook between formats, through the canonical model.
///
/// What the target format cannot hold is reported on stderr; nothing is
/// dropped silently. Output is written to a temporary file and renamed.
#[derive(Parser, Debug)]
#[command(
    name = PROG,
    version = crate::VERSION,
    override_usage = "ace-convert [OPTIONS] <INPUT>\n       ace-convert --list-formats"
)]
pub struct Args {
    /// Input file, or `-` for standard input (required unless
    /// --list-formats).
    #[arg(required_unless_present = "list_formats", value_name = "INPUT")]
    pub input: Option<String>,
    /// Output file, or `-` for standard output (the default). With
    /// `--to agents-md`, a directory (existing, or ending in `/`) receives
    /// both AGENTS.md and playbook.yaml.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<String>,
    /// The curator's playbook.yaml to read with an AGENTS.md input (default:
    /// playbook.yaml beside the input, if there is one).
    #[arg(long, value_name = "FILE")]
    pub sections: Option<PathBuf>,
    /// Input format (detected from the file name and content if omitted).
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub from: Option<Format>,
    /// Output format (from the output file's extension, or the input format with --in-place).
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub to: Option<Format>,
    /// Fail with exit 1, writing nothing, if anything would be lost.
    #[arg(long)]
    pub strict: bool,
    /// Rewrite the input file itself.
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// With --in-place: how long to wait, in seconds, while another
    /// process updates the same file (each update holds a lock on the
    /// file, and its playbook.yaml, from reading to writing).
    #[arg(long, value_name = "SECONDS", default_value = crate::LOCK_WAIT, value_parser = crate::lock_wait)]
    pub lock_timeout: std::time::Duration,
    /// The time for what the target requires and the source has no time
    /// for (RFC 3339): vAgenda's `created`/`updated`, the date of new skill
    /// IDs. Default: SOURCE_DATE_EPOCH, else the source's latest timestamp,
    /// else the clock.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// How to report losses on stderr.
    #[arg(long, value_enum, default_value = "text")]
    pub report: Report,
    /// Do not report losses (they still fail --strict).
    #[arg(short, long)]
    pub quiet: bool,
    /// Name to use for standard input in messages.
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    pub stdin_filename: String,
    /// Write the IDs the target could not hold, and the IDs they became,
    /// to FILE as a JSON array of `{"old", "new"}` (empty when none changed).
    #[arg(long, value_name = "FILE")]
    pub id_map: Option<PathBuf>,
    /// Sections, prefixes and vAgenda kinds to use before the default table
    /// (docs/formats/mapping.md): a JSON array of `{kind, title, prefix, key?}`.
    #[arg(long, value_name = "FILE")]
    pub section_map: Option<PathBuf>,
    /// List the formats and what each can hold, then exit.
    #[arg(long)]
    pub list_formats: bool,
    /// The writers' options that were given: one flag each, made from the
    /// registry ([`crate::with_writer_flags`]).
    #[arg(skip)]
    pub options: Vec<(&'static str, String)>,
}
