//! The command line of `ace-mcp`.

use clap::Parser;
use std::path::PathBuf;

pub const PROG: &str = "ace-mcp";

/// Serve one playbook to agents over MCP, on standard input and output:
/// the ten tools of ace_claude_mcp's server (read_playbook, get_section,
/// add_entry, update_counters, remove_entry, log_reflection,
/// curate_playbook, search_playbook, list_projects, create_project) and
/// ace-tools' own (apply_delta, validate).
///
/// Every write goes through ace-apply's in-place path: the playbook's
/// lock, the curator's checks, the exactly-once ledger. A client starts it
/// as `ace-mcp PLAYBOOK` (docs/mcp.md shows Claude Code, Cursor and Codex).
#[derive(Parser, Debug)]
#[command(name = PROG, version = crate::VERSION, after_help = crate::EXIT_STATUS_HELP)]
pub struct Args {
    /// The playbook: a file of any format, a database location
    /// (`sqlite:ace.db#project=appworld`, a `postgresql://` URL) or
    /// ace_claude_mcp's folder (`~/.ace#project=global`).
    #[arg(value_name = "LOCATION")]
    pub location: String,
    /// How long a write waits, in seconds, while another process updates
    /// the same playbook.
    #[arg(long, value_name = "SECONDS", default_value = crate::LOCK_WAIT, value_parser = crate::lock_wait)]
    pub lock_timeout: std::time::Duration,
    /// Use this configuration file instead of the nearest ace.toml.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Write to a playbook marked read-only (or a file with other hard
    /// links), as `ace-apply --force` does; without it, such a write is
    /// the tool's error.
    #[arg(long)]
    pub force: bool,
}
