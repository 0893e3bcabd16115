//! `ace-diff`: its command-line flow, from the parsed arguments to the
//! exit status. What it does lives in the library crates.

//! `ace-diff OLD NEW`: what changed between two playbooks, entry by entry,
//! in any two readable formats. Exit status as diff(1): 0 the same, 1
//! different, 2 trouble. Also git's `textconv` (`--textconv FILE`) and
//! external diff (`GIT_EXTERNAL_DIFF`, seven arguments).

use std::ffi::OsStr;

use crate::{error, load_input, ExitStatus};
use ace_apply::render;
use ace_fs::Source;
use ace_model::Playbook;
use ace_registry::Format;

use crate::cli::diff::*;

/// A playbook read for comparing, or why it could not be.
fn read(name: &OsStr, args: &Args) -> Result<(Source, Format, Playbook), ExitStatus> {
    // A database's rows are compared as the canonical model, which holds
    // every field they do.
    if let Some(read) = crate::read_location(PROG, name) {
        return read.map(|(source, pb)| (source, Format::JSON, pb));
    }
    let source = load_input(name, &args.stdin_filename).map_err(|e| {
        error(PROG, e);
        ExitStatus::Refused
    })?;
    let registry = ace_registry::Registry::builtin();
    let format = args
        .from
        .unwrap_or_else(|| registry.detect(source.path.as_deref(), &source.text));
    let pb = crate::read_playbook(PROG, &source, format)?;
    Ok((source, format, pb))
}

/// The tool's run: what it does with `args`, and the status it exits with.
pub fn run(args: &Args) -> ExitStatus {
    if let Some(file) = &args.textconv {
        return match read(file, args) {
            Ok((_, _, pb)) => print(&render::textconv(&pb)),
            Err(code) => code,
        };
    }
    // git runs an external diff as `path old-file old-hex old-mode
    // new-file new-hex new-mode`, and takes any status but 0 as a failure.
    let (old, new, external) = match args.files.as_slice() {
        [old, new] => (old, new, None),
        [path, old, _, _, new, _, _] => (old, new, Some(path)),
        _ => {
            error(
                PROG,
                "expected OLD NEW (or git's seven external-diff arguments)",
            );
            return ExitStatus::Refused;
        }
    };
    let (old_src, old_fmt, old_pb) = match read(old, args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (new_src, new_fmt, new_pb) = match read(new, args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let d = render::difference(&old_pb, &new_pb, (old_fmt, new_fmt));
    let names = match external {
        Some(path) => {
            let path = path.to_string_lossy();
            (format!("a/{path}"), format!("b/{path}"))
        }
        None => (old_src.name.clone(), new_src.name.clone()),
    };
    let names = (names.0.as_str(), names.1.as_str());
    let code = match args.output_format {
        OutputFormat::Json => print(&format!(
            "{}\n",
            serde_json::to_string_pretty(&render::as_json(&d, names, (old_fmt, new_fmt)))
                .unwrap_or_default()
        )),
        OutputFormat::Delta(dialect) => {
            let now = match crate::now(None) {
                Ok(n) => n,
                Err(e) => {
                    error(PROG, e);
                    return ExitStatus::Refused;
                }
            };
            let note = format!("ace-diff {} {}", names.0, names.1);
            let (delta, lost) = render::as_delta(&d, dialect, &old_pb, old_fmt, &now, &note)
                .expect("ace-diff offers the dialects ace-tools writes");
            for l in &lost {
                crate::say!("{PROG}: warning: {l}");
            }
            print(&format!(
                "{}\n",
                serde_json::to_string_pretty(&delta).unwrap_or_default()
            ))
        }
        OutputFormat::Text => {
            let color = args.color.enabled();
            if d.is_empty() {
                ExitStatus::Ok
            } else {
                print(&render::as_text(&d, names, &new_pb, &old_pb, color))
            }
        }
    };
    if code != ExitStatus::Ok || external.is_some() {
        return code;
    }
    if d.is_empty() {
        ExitStatus::Ok
    } else {
        ExitStatus::Findings
    }
}

fn print(text: &str) -> ExitStatus {
    match crate::write_stdout([text]) {
        Ok(()) => ExitStatus::Ok,
        Err(e) => {
            error(PROG, format!("<stdout>: {e}"));
            ExitStatus::Refused
        }
    }
}
