//! The command line of `ace-convert`: its arguments, which the binary
//! parses and `cargo xtask` turns into completions and a man page.

use ace_registry::block::Style;
use ace_registry::Format;
use clap::{Parser, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

pub const PROG: &str = "ace-convert";

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Report {
    Text,
    Json,
}

/// `--to`: a format, or (with --into) a managed block's style.
#[derive(Clone, Copy, Debug)]
pub enum To {
    Format(Format),
    Style(Style),
}

/// `--to`'s values: the registry's formats, then the block styles.
pub fn to_parser() -> impl clap::builder::TypedValueParser<Value = To> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let formats = ace_registry::Registry::builtin()
        .formats()
        .iter()
        .map(|f| PossibleValue::new(f.name()).help(f.describe()));
    let styles = Style::ALL
        .iter()
        .map(|s| PossibleValue::new(s.name()).help(format!("with --into: the {} style", s.name())));
    PossibleValuesParser::new(formats.chain(styles)).try_map(|name| {
        match (Format::from_name(&name), Style::from_name(&name)) {
            (Some(f), _) => Ok(To::Format(f)),
            (None, Some(s)) => Ok(To::Style(s)),
            (None, None) => Err(format!("unknown format `{name}`")),
        }
    })
}

impl Args {
    /// The target format `--to` names: a style names none, and is usable
    /// with --into only.
    pub fn to_format(&self) -> Result<Option<Format>, String> {
        match self.to {
            None => Ok(None),
            Some(To::Format(f)) => Ok(Some(f)),
            Some(To::Style(s)) => Err(format!(
                "--to {0}: `{0}` is a managed block's style; write it with --into FILE, or --to managed-block --style {0}",
                s.name()
            )),
        }
    }

    /// The block's style `--to` or `--style` names, if either does.
    pub fn style(&self) -> Result<Option<Style>, String> {
        let given = self
            .options
            .iter()
            .find(|(name, _)| *name == ace_registry::block::STYLE.name)
            .and_then(|(_, v)| Style::from_name(v));
        match self.to {
            None => Ok(given),
            Some(To::Style(s)) => Ok(Some(s)),
            Some(To::Format(f)) => Style::from_name(f.name()).map(Some).ok_or_else(|| {
                format!(
                    "--into writes a managed block in a style, one of prompt, agents, kayba, content (or markdown, agents-md, kayba-md); not {}",
                    f.name()
                )
            }),
        }
    }
}

/// Convert an ACE playbook between formats, through the canonical model.
///
/// What the target format cannot hold is reported on stderr; nothing is
/// dropped silently. Output is written to a temporary file and renamed.
#[derive(Parser, Debug)]
#[command(
    name = PROG,
    version = crate::VERSION,
    after_help = crate::EXIT_STATUS_HELP,
    override_usage = "ace-convert [OPTIONS] <INPUT>\n       ace-convert --list-formats"
)]
pub struct Args {
    /// Input file, or `-` for standard input (required unless
    /// --list-formats).
    #[arg(required_unless_present = "list_formats", value_name = "INPUT")]
    pub input: Option<OsString>,
    /// Output file, or `-` for standard output (the default). With
    /// `--to agents-md`, a directory (existing, or ending in `/`) receives
    /// both AGENTS.md and playbook.yaml.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<OsString>,
    /// The curator's playbook.yaml to read with an AGENTS.md input (default:
    /// playbook.yaml beside the input, if there is one).
    #[arg(long, value_name = "FILE")]
    pub sections: Option<PathBuf>,
    /// Input format (detected from the file name and content if omitted).
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub from: Option<Format>,
    /// Output format (from the output file's extension, or the input
    /// format with --in-place); with --into, the block's style: prompt
    /// (the default for a new block), agents, kayba or content.
    #[arg(long, value_name = "FMT", value_parser = to_parser())]
    pub to: Option<To>,
    /// Write the playbook into FILE's managed block, between kayba's
    /// `<!-- ACE:START - Do not edit manually -->` and `<!-- ACE:END -->`
    /// lines (added at the end when FILE has none), keeping every other
    /// byte of FILE: CLAUDE.md, AGENTS.md, GEMINI.md, a Cursor `.mdc` rule.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["output", "in_place"])]
    pub into: Option<PathBuf>,
    /// With --into: the most tokens the block may hold. The best entries
    /// that fit are written (the pruning order of docs/budget.md); the rest
    /// are listed on stderr.
    #[arg(long, value_name = "N", requires = "into")]
    pub max_tokens: Option<usize>,
    /// With --max-tokens: the encoding that counts, cl100k_base (the
    /// default), o200k_base or chars4.
    #[arg(long, value_name = "NAME", requires = "max_tokens", value_parser = crate::cli::validate::tokenizer_parser())]
    pub tokenizer: Option<ace_tokens::Encoding>,
    /// Fail with exit 1, writing nothing, if anything would be lost.
    #[arg(long)]
    pub strict: bool,
    /// Replace a file that is read-only or has other hard links, or write
    /// to a SQLite file marked read-only (refused otherwise: exit 2,
    /// nothing written).
    #[arg(long)]
    pub force: bool,
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

impl Args {
    /// The command line's arguments, with a flag for each option a
    /// writer offers ([`crate::with_writer_flags`]).
    pub fn parse_with_writer_flags() -> Args {
        use clap::{CommandFactory, FromArgMatches};
        let registry = ace_registry::Registry::builtin();
        let matches =
            super::parsed(crate::with_writer_flags(Args::command(), registry).try_get_matches());
        let mut args = super::parsed(Args::from_arg_matches(&matches));
        args.options = crate::writer_options_given(&matches, registry);
        args
    }
}
