//! An apply as its caller asks for it: ace-apply's flags and
//! `ace_tools.apply`'s arguments, one typed request, made ready the same
//! way for both ([`Request::ready`]).

use std::path::PathBuf;

use ace_registry::{DeltaDialect, Registry};

use crate::merge::Caller;
use crate::{Compat, Curate, CurateArgs, Options, ReadOptions, RunOptions};

/// Where the configuration (`ace.toml`) comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Config {
    /// The nearest `ace.toml` above the working directory, as ruff finds
    /// its configuration: the command line's default.
    Find,
    /// This file.
    File(PathBuf),
    /// None (`--isolated`; the Python module unless it is given one).
    #[default]
    Nothing,
}

/// What one apply is asked to do.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Who asked: messages name its flags or arguments.
    pub caller: Caller,
    pub config: Config,
    /// The time stamped on what changes (RFC 3339); else
    /// `SOURCE_DATE_EPOCH`, else the clock.
    pub now: Option<String>,
    /// The curator's gate, over ace.toml's thresholds.
    pub min_confidence: Option<f64>,
    pub min_evidence: Option<usize>,
    /// The delta files' dialect, when it is not to be detected.
    pub delta_format: Option<&'static dyn DeltaDialect>,
    pub compat: Compat,
    pub append_only: bool,
    /// Globs a write must fall within, over ace.toml's `[apply]
    /// write-scope`.
    pub write_scope: Vec<String>,
    /// `--dedup` and `--prune`'s options.
    pub curate: CurateArgs,
}

/// A request made ready: its configuration read, its time fixed.
pub struct Ready {
    pub run: RunOptions<'static>,
    pub curate: Curate,
    /// Where writes may go, if anything bounds them.
    pub scope: Option<ace_config::WriteScope>,
    pub loaded: ace_config::Loaded,
}

impl Request {
    /// The options the pipeline takes, or why the request cannot be run,
    /// in one line naming the caller's flag or argument.
    pub fn ready(&self) -> Result<Ready, ace_model::Error> {
        let python = self.caller == Caller::Python;
        let loaded = match &self.config {
            Config::Find => ace_check::run::configuration(None, false)?,
            Config::File(p) => ace_check::run::configuration(Some(p), false)?,
            Config::Nothing => ace_config::Loaded::default(),
        };
        let now = ace_model::time::now(self.now.as_deref()).map_err(|e| match python {
            true => e.named("now"),
            false => e,
        })?;
        if let Some(s) = self.curate.similarity.filter(|s| !(0.0..=1.0).contains(s)) {
            let name = if python {
                "similarity="
            } else {
                "--similarity "
            };
            return Err(ace_model::Error::Usage(format!(
                "{name}{s}: expected a number from 0 to 1"
            )));
        }
        let curate =
            Curate::of(&self.curate, &loaded.config).map_err(|e| match (&e, &loaded.path) {
                (ace_model::Error::Content { place, .. }, Some(p))
                    if place.starts_with("[budget]") =>
                {
                    e.under(&format!("{}: ", p.display()))
                }
                _ => e,
            })?;
        let scope = ace_config::WriteScope::of(&self.write_scope, &loaded)?;
        let run = RunOptions {
            registry: Registry::builtin(),
            dialect: self.delta_format,
            read: ReadOptions::of(&loaded, self.min_confidence, self.min_evidence),
            apply: Options {
                compat: self.compat,
                append_only: self.append_only,
                now,
                verbatim: false,
            },
        };
        Ok(Ready {
            run,
            curate,
            scope,
            loaded,
        })
    }
}
