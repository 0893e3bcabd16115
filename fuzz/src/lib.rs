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
        split_parse_is_the_whole_parse(text, |sink| match sink {
            Some(sink) => ace_tron::parse_with(text, &ace_tron::Options::default(), sink),
            None => ace_tron::parse(text, &ace_tron::Options::default()),
        });
    } else if format == Format::VAGENDA_JSON || format == Format::SKILL_JSON {
        split_parse_is_the_whole_parse(text, |sink| match sink {
            Some(sink) => ace_jsonspan::parse_with(text, sink),
            None => ace_jsonspan::parse(text),
        });
    }
}

/// A document whose playbook containers are parsed apart, on other
/// threads, gives exactly the tree and diagnostics (or the error) of a
/// parse in one piece.
pub fn split_parse_is_the_whole_parse(
    text: &str,
    parse: impl Fn(
        Option<&mut dyn ace_jsonspan::ItemSink>,
    ) -> Result<ace_jsonspan::Document, ace_model::Diagnostic>,
) {
    let split = ace_jsonspan::split::Split {
        arrays: &[
            &[],
            &["bullets"],
            &["entries"],
            &["*", "entries"],
            &["*", "*", "entries"],
        ],
        members: &[&["skills"], &["bullets"]],
    };
    let whole = parse(None).map(|doc| format!("{:?} {:?}", doc.root, doc.diagnostics));
    let split = ace_jsonspan::split::parse_split(text, split, &parse)
        .map(|doc| format!("{:?} {:?}", doc.root, doc.diagnostics));
    assert_eq!(split, whole);
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
