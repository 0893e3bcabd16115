//! The command line of `ace-diff`: its arguments, which the binary
//! parses and `cargo xtask` turns into completions and a man page.

use crate::Color;
use ace_registry::{DeltaDialect, Format};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Parser;

pub const PROG: &str = "ace-diff";

/// What to print: the difference as text or JSON, or as a delta of a
/// dialect ace-tools writes.
#[derive(Clone, Copy, Debug)]
pub enum OutputFormat {
    Text,
    Json,
    Delta(&'static dyn DeltaDialect),
}

/// `text`, `json` and every dialect the registry writes, each with its
/// description.
pub fn output_format_parser() -> impl TypedValueParser<Value = OutputFormat> {
    let registry = ace_registry::Registry::builtin();
    let values = [PossibleValue::new("text"), PossibleValue::new("json")]
        .into_iter()
        .chain(registry.written_dialects().map(|d| {
            PossibleValue::new(d.name()).help(format!(
                "The difference as {}, for `ace-apply OLD`",
                d.what()
            ))
        }));
    PossibleValuesParser::new(values).map(|name| match name.as_str() {
        "text" => OutputFormat::Text,
        "json" => OutputFormat::Json,
        other => OutputFormat::Delta(
            ace_registry::Registry::builtin()
                .dialect(other)
                .expect("a possible value names a dialect"),
        ),
    })
}

#[derive(Parser, Debug)]
#[command(
    name = PROG,
    version = crate::VERSION,
    about = "What changed between two playbooks, entry by entry",
    after_help = concat!(
        "As git's external diff (GIT_EXTERNAL_DIFF=ace-diff), it takes git's seven arguments and always exits 0.\n\n",
        crate::exit_status_help!()
    )
)]
pub struct Args {
    /// OLD NEW, or git's seven external-diff arguments.
    #[arg(value_name = "FILE", num_args = 0..)]
    pub files: Vec<std::ffi::OsString>,
    /// Print FILE as one line per entry, for git's `diff.<driver>.textconv`.
    #[arg(long, value_name = "FILE", conflicts_with = "files")]
    pub textconv: Option<std::ffi::OsString>,
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = output_format_parser())]
    pub output_format: OutputFormat,
    /// The format of both files, when detection should not decide.
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub from: Option<Format>,
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    #[arg(long, default_value = "-", hide = true)]
    pub stdin_filename: String,
}
