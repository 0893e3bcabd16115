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
    after_help = crate::EXIT_STATUS_HELP,
    about = "Merge playbooks by the ACE merge rules: three-way as git's merge driver (ace-merge %O %A %B --path=%P), or any number of runs from one base (ace-merge --base BASE RUN...)",
    override_usage = "ace-merge [OPTIONS] BASE OURS THEIRS\n       ace-merge [OPTIONS] --base BASE RUN..."
)]
pub struct Args {
    /// BASE OURS THEIRS; with --base, the runs that started from it, in
    /// order (the earlier run's value is kept in a conflict).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
    /// The playbook every run started from: merge the runs given into one
    /// (counters BASE plus every run's change, every new entry once).
    #[arg(long, value_name = "BASE")]
    pub base: Option<String>,
    /// The file's path in the repository (git's %P): names it in messages
    /// and tells its format when the three files are git's temporary ones.
    #[arg(long, value_name = "P")]
    pub path: Option<PathBuf>,
    /// Where the result goes; OURS itself by default, as git expects, and
    /// standard output (`-`) with --base.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Replace a file that is read-only or has other hard links (refused
    /// otherwise: exit 2, nothing written).
    #[arg(long)]
    pub force: bool,
    /// Also write the conflicts as JSON here.
    #[arg(long, value_name = "FILE")]
    pub conflicts: Option<PathBuf>,
    /// Write the new entries given new IDs as JSON here: `[{run, old,
    /// new}]`, with `"joined": true` for one an earlier run (OURS) had
    /// added, whose ID it took.
    #[arg(long, value_name = "FILE")]
    pub id_map: Option<PathBuf>,
    /// Merge a side or run that holds none of BASE's entries. Without it
    /// such a file (an empty or cut-off run, a crashed agent's) is
    /// refused, exit 2, and nothing is written.
    #[arg(long)]
    pub allow_empty: bool,
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
    /// SOURCE_DATE_EPOCH, else (with --base) the latest time in the runs,
    /// else the clock.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
}
