//! What every fuzz target checks. Kept in one place so that a crash found
//! by libFuzzer can be replayed by the regression tests in `tests/` with
//! the same calls.

use ace_registry::Format;

/// Every format a playbook can be read from and written to; the round
/// trip's first byte indexes it (`cargo xtask fuzz-seed` relies on that).
pub fn formats() -> &'static [Format] {
    Format::all()
}

/// Reading and linting any text must not panic: a syntax error is a
/// diagnostic, never a crash.
pub fn read_and_lint(format: Format, data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // What ace-convert asks of a file before converting it.
    let _ = ace_registry::other_document(format, text);
    let _ = ace_check::validate(format, text, &ace_lint::Options::default());
    if format == Format::VAGENDA_TRON {
        split_read_is_the_whole_read(text, ace_vagenda::Syntax::Tron);
    } else if format == Format::VAGENDA_JSON {
        split_read_is_the_whole_read(text, ace_vagenda::Syntax::Json);
    } else if format == Format::SKILL_JSON {
        streamed_read_is_the_whole_read(text, true);
        streamed_read_is_the_whole_read(text, false);
    }
}

/// A skill playbook read as it is parsed (bullets handed over as text and
/// read in runs) gives what reading the whole span tree gives: the same
/// playbook, the same diagnostics (in another order: the streamed read
/// settles some at the end), and the same error for a broken file.
pub fn streamed_read_is_the_whole_read(text: &str, schema: bool) {
    let min = match schema {
        true => ace_model::Severity::Info,
        false => ace_model::Severity::Error,
    };
    let outcome = |read: Result<ace_model::ReadOutput, ace_model::Diagnostic>| {
        read.map(|out| {
            let mut diags = out.diagnostics;
            diags.sort_by(|a, b| {
                (a.span.start, a.code, &a.message).cmp(&(b.span.start, b.code, &b.message))
            });
            let spans: Vec<_> = out.playbook.entries.iter().map(|e| e.origin.0).collect();
            format!("{:?}", (out.playbook, diags, spans))
        })
    };
    let streamed = outcome(ace_skill::read_with(text, min));
    let whole = outcome(ace_skill::read_whole(text, schema));
    assert_eq!(
        streamed.map_err(|e| format!("{e:?}")),
        whole.map_err(|e| format!("{e:?}"))
    );
}

/// A vAgenda read whose entries are parsed apart from the document, on
/// other threads, gives exactly what parsing every entry in place gives:
/// the same playbook, diagnostics, and the same error for a broken
/// document.
pub fn split_read_is_the_whole_read(text: &str, syntax: ace_vagenda::Syntax) {
    let split = ace_vagenda::read(text, syntax);
    let whole = ace_vagenda::read_in_one_piece(text, syntax);
    assert_eq!(format!("{split:?}"), format!("{whole:?}"));
}

/// The first byte picks the source format, the rest is its text. Whatever
/// reads is written to every format; each writer's output must read back
/// in that format, and writing what was read back must give the same text
/// (a writer's output is a fixed point).
pub fn round_trip(data: &[u8]) {
    round_trip_in(formats(), data);
}

/// [`round_trip`] over `formats`, the first byte indexing them.
pub fn round_trip_in(formats: &[Format], data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let from = formats[usize::from(pick) % formats.len()];
    let Ok(parsed) = ace_registry::read(from, text) else {
        return;
    };
    for &to in formats {
        let first = ace_registry::write(to, &parsed.playbook);
        let again = match ace_registry::read(to, &first.text) {
            Ok(p) => p,
            Err(e) => panic!(
                "{from} -> {to}: the output does not read back: {}\n{}",
                e.message, first.text
            ),
        };
        let second = ace_registry::write(to, &again.playbook);
        assert_eq!(
            first.text, second.text,
            "{from} -> {to}: writing what was read back changed the text"
        );
    }
}

/// The grammars `grammar_diff` holds to their readers. The first byte of
/// an input picks one, unless `ACE_FUZZ_GRAMMAR` names one: then the whole
/// input is its text (one grammar per run, for runs of a set length each).
pub const GRAMMARS: [&str; 3] = ["tron", "markdown", "agents-md"];

/// A grammar of `grammars/` and the hand-written reader it specifies give
/// the same verdict and the same result (`ace_grammars::diff`).
pub fn grammar_diff(data: &[u8]) {
    static PINNED: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let pinned = PINNED.get_or_init(|| std::env::var("ACE_FUZZ_GRAMMAR").ok());
    let (grammar, bytes) = match pinned {
        Some(g) => (g.as_str(), data),
        None => match data.split_first() {
            Some((&pick, rest)) => (GRAMMARS[usize::from(pick) % GRAMMARS.len()], rest),
            None => return,
        },
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let found = match grammar {
        "tron" => ace_grammars::diff::tron(text),
        "markdown" => ace_grammars::diff::markdown(text),
        "agents-md" => ace_grammars::diff::agents(text),
        other => panic!("ACE_FUZZ_GRAMMAR={other}: expected one of {GRAMMARS:?}"),
    };
    if let Some(d) = found {
        panic!("{grammar}: {d}");
    }
}
