//! The command line of `ace-merge`: its arguments, which the binary
//! parses and `cargo xtask` turns into completions and a man page.

use ace_registry::Format;
use clap::Parser;
use std::path::PathBuf;

pub const PROG: &str = "ace-merge";

#[derive(Parser, Debug)]
#[command(
    name = PROG,
    version = crate::VERSION,
    about = "Three-way merge of playbooks by the ACE merge rules (git merge driver: ace-merge %O %A %B --path %P)"
)]
pub struct Args {
    pub base: String,
    pub ours: String,
    pub theirs: String,
    /// The file's path in the repository (git's %P): names it in messages
    /// and tells its format when the three files are git's temporary ones.
    #[arg(long, value_name = "P")]
    pub path: Option<String>,
    /// Where the result goes; OURS itself by default, as git expects.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Also write the conflicts as JSON here.
    #[arg(long, value_name = "FILE")]
    pub conflicts: Option<PathBuf>,
    #[arg(long, value_name = "FMT", value_parser = crate::format_parser())]
    pub from: Option<Format>,
    /// Conflict markers' length (git's %L).
    #[arg(long, value_name = "N", default_value_t = 7)]
    pub marker_size: usize,
    /// The name on OURS' conflict marker (git's %X, from git 2.44).
    #[arg(long, value_name = "LABEL", default_value = "ours")]
    pub ours_label: String,
    /// The name on THEIRS' conflict marker (git's %Y).
    #[arg(long, value_name = "LABEL", default_value = "theirs")]
    pub theirs_label: String,
    /// The time for changed entries' `updated_at` (RFC 3339); else
    /// SOURCE_DATE_EPOCH, else the clock.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
}
