//! The command line of `ace-apply`: its arguments, which the binary
//! parses and `cargo xtask` turns into completions and a man page.

use ace_registry::{DeltaDialect, Format};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

pub const PROG: &str = "ace-apply";

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Report {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum OutputFormat {
    /// The playbook, in its own format.
    Playbook,
    /// The ace_beads curator's output object: `{patchAgentsMd,
    /// playbookYaml, accepted, rejected}` (AGENTS.md playbooks only).
    Curator,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum CompatArg {
    /// The skill's SKILL.md merge algorithm: counters, new bullets, edits, merges
    /// (archived), deprecations (status).
    Spec,
    /// The skill's scripts/merge_deltas.py: new bullets, edits, merges
    /// (content appended, `merged` tag), deprecations (tag and note), counters.
    #[value(name = "skill-script")]
    Script,
}

/// The registry's delta dialects as the possible values, each with its
/// one-line description.
pub fn delta_format_parser() -> impl TypedValueParser<Value = &'static dyn DeltaDialect> {
    let values = ace_registry::Registry::builtin()
        .dialects()
        .iter()
        .map(|d| clap::builder::PossibleValue::new(d.name()).help(d.describe()));
    PossibleValuesParser::new(values).try_map(|name| {
        ace_registry::Registry::builtin()
            .dialect(&name)
            .ok_or_else(|| format!("unknown delta format `{name}`"))
    })
}

/// The dialects ace-tools writes, for `--emit-format`.
pub fn written_dialect_parser() -> impl TypedValueParser<Value = &'static dyn DeltaDialect> {
    let values = ace_registry::Registry::builtin()
        .written_dialects()
        .map(|d| clap::builder::PossibleValue::new(d.name()).help(d.describe()));
    PossibleValuesParser::new(values).try_map(|name| {
        ace_registry::Registry::builtin()
            .dialect(&name)
            .ok_or_else(|| format!("unknown delta format `{name}`"))
    })
}

/// Apply ACE deltas to a playbook, as the curator's deterministic merge.
///
/// Each delta is checked first and applied whole or not at all; a refused
/// delta is reported with the curator's reason code. The playbook keeps
/// its format and layout: only what the deltas change is rewritten.
#[derive(Parser, Debug)]
#[command(name = PROG, version = crate::VERSION, after_help = crate::EXIT_STATUS_HELP)]
pub struct Args {
    /// The playbook, in any format ace-convert reads (`-` for standard input).
    pub playbook: OsString,
    /// Delta files, applied in this order (none with --prune or --dedup
    /// alone).
    #[arg(value_name = "DELTA", required_unless_present_any = ["prune", "dedup"])]
    pub deltas: Vec<PathBuf>,
    /// Write the result to OUT (`-`: standard output, the default). With
    /// an AGENTS.md, a directory receives AGENTS.md and playbook.yaml.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<OsString>,
    /// Replace a file that is read-only or has other hard links, or write
    /// to a SQLite file marked read-only (refused otherwise: exit 2,
    /// nothing written).
    #[arg(long)]
    pub force: bool,
    /// Rewrite the playbook (and its playbook.yaml) itself.
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// With --in-place: how long to wait, in seconds, while another
    /// process updates the same playbook (each update holds a lock on the
    /// playbook and its playbook.yaml from reading to writing).
    #[arg(long, value_name = "SECONDS", default_value = crate::LOCK_WAIT, value_parser = crate::lock_wait)]
    pub lock_timeout: std::time::Duration,
    /// Write nothing; exit 1 if applying would change the playbook.
    #[arg(long, conflicts_with_all = ["diff", "in_place"])]
    pub check: bool,
    /// Print a unified diff of what applying would change; write nothing.
    #[arg(long, conflicts_with = "in_place")]
    pub diff: bool,
    /// How to report each delta's verdict on stderr: text, or
    /// `{accepted, rejected[{id, reason, message}]}` as the ace_beads curator gives it.
    #[arg(long, value_enum, default_value = "text")]
    pub report: Report,
    /// What to print: the playbook, or the curator's whole output object.
    #[arg(long, value_enum, default_value = "playbook")]
    pub output_format: OutputFormat,
    /// The deltas' dialect (detected from each file's content if omitted).
    #[arg(long, value_name = "DIALECT", value_parser = delta_format_parser())]
    pub delta_format: Option<&'static dyn DeltaDialect>,
    /// The playbook's format (detected from its name and content if omitted).
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub from: Option<Format>,
    /// The curator's playbook.yaml to read with an AGENTS.md (default: the
    /// one beside it).
    #[arg(long, value_name = "FILE")]
    pub sections: Option<PathBuf>,
    /// Which semantics skill deltas follow.
    #[arg(long, value_enum, default_value = "spec")]
    pub compat: CompatArg,
    /// Refuse any delta that changes or removes content (the append-only
    /// playbook ADR): only additions, counters and status change.
    #[arg(long)]
    pub append_only: bool,
    /// After the deltas, remove entries: those already deprecated and
    /// those with harmful > helpful + 3 (the playbook format's rule), then,
    /// while over --max-tokens or --max-entries (or ace.toml's [budget]),
    /// the lowest-scoring (docs/budget.md).
    #[arg(long)]
    pub prune: bool,
    /// With --prune: the most tokens the playbook may hold (its text as
    /// written, less its deprecated entries').
    #[arg(long, value_name = "N", requires = "prune")]
    pub max_tokens: Option<usize>,
    /// With --prune: the most active entries the playbook may hold.
    #[arg(long, value_name = "N", requires = "prune")]
    pub max_entries: Option<usize>,
    /// The encoding --max-tokens counts in [default: ace.toml's
    /// `budget.tokenizer`, else cl100k_base].
    #[arg(long, value_name = "NAME", requires = "prune", value_parser = crate::cli::validate::tokenizer_parser())]
    pub tokenizer: Option<ace_tokens::Encoding>,
    /// With --prune: the rule's N in harmful > helpful + N [default:
    /// ace.toml's `thresholds.curation`, else 3].
    #[arg(long, value_name = "N", requires = "prune", value_parser = crate::cli::non_negative)]
    pub threshold: Option<i64>,
    /// After the deltas (before --prune), merge each cluster of near-duplicate
    /// entries of a section into the best-scored one, adding up the counters.
    #[arg(long)]
    pub dedup: bool,
    /// With --dedup: the word similarity above which entries are alike
    /// [default: ace.toml's `thresholds.similarity`, else 0.8].
    #[arg(long, value_name = "X", requires = "dedup", value_parser = crate::cli::unit_interval)]
    pub similarity: Option<f64>,
    /// With --dedup: merge alike entries of different sections too.
    #[arg(long, requires = "dedup")]
    pub across_sections: bool,
    /// With --prune or --dedup: mark entries deprecated (merged ones
    /// archived, with `superseded_by`) instead of removing them, where the
    /// format holds a status. The budget then counts the active entries.
    #[arg(long)]
    pub deprecate: bool,
    /// With --prune or --dedup: write the changes they would make (after
    /// the deltas) as one delta to FILE, for review; write no playbook.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["in_place", "output", "check", "diff"])]
    pub emit_delta: Option<PathBuf>,
    /// The dialect --emit-delta writes [default: the playbook format's own].
    #[arg(long, value_name = "DIALECT", requires = "emit_delta", value_parser = written_dialect_parser())]
    pub emit_format: Option<&'static dyn DeltaDialect>,
    /// The time to stamp changes with (RFC 3339). Default:
    /// SOURCE_DATE_EPOCH, else the clock.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Write nothing if any delta is refused.
    #[arg(long)]
    pub strict: bool,
    /// Refuse (exit 2) to write outside these globs, relative to the
    /// current directory (the curator's `knowledge/**` `prompts/**`);
    /// replaces ace.toml's `[apply] write-scope`, whose globs are relative
    /// to the folder of ace.toml.
    #[arg(long, value_name = "GLOB", num_args = 1..)]
    pub write_scope: Vec<String>,
    /// The lowest confidence an AceDelta may have [default: ace.toml's
    /// `thresholds.confidence`, else 0.80].
    #[arg(long, value_name = "N")]
    pub min_confidence: Option<f64>,
    /// The fewest characters of evidence an AceDelta may give [default:
    /// ace.toml's `thresholds.evidence-length`, else 8].
    #[arg(long, value_name = "N")]
    pub min_evidence: Option<usize>,
    /// Use this configuration file instead of the nearest ace.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore every ace.toml.
    #[arg(long)]
    pub isolated: bool,
    /// Print no verdicts or losses, only errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// Name to use for standard input in messages.
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    pub stdin_filename: String,
}
