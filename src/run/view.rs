//! `ace-view`: its command-line flow, from the parsed arguments to the
//! exit status. What it does lives in the library crates.

//! `ace-view PLAYBOOK [-o FILE.html] [--history]`: one self-contained HTML
//! page of a playbook (`ace_view`). Exit 0 with the page written, 1 when
//! the file does not read as a playbook, 2 for trouble (usage, I/O, git).

use crate::{error, load_input, print_diagnostics, ExitStatus};

use crate::cli::view::*;

/// The tool's run: what it does with `args`, and the status it exits with.
pub fn run(args: &Args) -> ExitStatus {
    let usage = |e: String| {
        error(PROG, e);
        ExitStatus::Refused
    };
    let opts = match ace_view::Options::of(
        args.config.as_deref(),
        args.isolated,
        args.max_tokens,
        args.max_entries,
        args.tokenizer,
    ) {
        Ok(o) => o,
        Err(e) => return usage(e.to_string()),
    };
    // A database's playbook is shown as the text an agent is given of it,
    // the playbook format spec's, named by its location.
    let (source, from) = match crate::read_location(PROG, &args.input) {
        Some(Ok((listing, pb))) => {
            let text = ace_registry::write(ace_registry::Format::MARKDOWN, &pb).text;
            let source = ace_fs::Source {
                name: listing.name,
                path: None,
                text: text.into(),
            };
            (source, Some(ace_registry::Format::MARKDOWN))
        }
        Some(Err(code)) => return code,
        None => match load_input(&args.input, &args.stdin_filename) {
            Ok(s) => (s, args.from),
            Err(e) => return usage(e.to_string()),
        },
    };
    let registry = ace_registry::Registry::builtin();
    let format = from.unwrap_or_else(|| registry.detect(source.path.as_deref(), &source.text));
    let ctx = ace_registry::ReadCtx::default();
    let input =
        match ace_registry::convert::read_input(&source, format, args.sections.as_deref(), &ctx) {
            Ok(i) => i,
            Err(ace_registry::convert::Stop::Findings {
                companion,
                diagnostics,
            }) => {
                let f = companion.as_ref().unwrap_or(&source);
                print_diagnostics(&f.name, &f.text, &diagnostics);
                return ExitStatus::Findings;
            }
            // A file that holds something else (a delta, an entry
            // fragment) does not read as a playbook either.
            Err(stop) => {
                error(PROG, stop.to_string());
                return ExitStatus::Findings;
            }
        };
    let mut view = ace_view::view(&source, format, input, &opts);
    if args.history {
        let Some(path) = source.path.as_deref() else {
            return usage("--history needs a file in git, not standard input".into());
        };
        match ace_view::history::commits(path, opts.encoding) {
            Ok(c) => view.history = Some(c),
            Err(e) => return usage(e),
        }
    }
    let page = view.html();
    let written = match &args.output {
        Some(out) if out.as_os_str() != "-" => ace_fs::write_atomic(
            out,
            page.as_bytes(),
            Some(&ace_fs::Held::default().forcing(args.force)),
        )
        .map_err(|e| format!("{}: {e}", out.display())),
        _ => ace_fs::write_stdout([page.as_str()]).map_err(|e| e.to_string()),
    };
    match written {
        Ok(()) => ExitStatus::Ok,
        Err(e) => usage(e),
    }
}
