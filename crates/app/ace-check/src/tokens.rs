//! `ace-validate --tokens`: how many tokens a file is, as written, and how
//! many its sections' entries hold.

use ace_model::Playbook;
use ace_tokens::Encoding;

/// One section's share: its entries and the tokens of their text (title
/// and content), what the section adds to an agent's context besides the
/// file's own structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionTokens {
    /// The section's key; empty for entries in no section.
    pub key: String,
    pub title: Option<String>,
    pub entries: usize,
    pub tokens: usize,
}

/// A file's tokens: of its whole text as written, and per section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenCount {
    pub encoding: Encoding,
    pub tokens: usize,
    /// Empty when the file is not a playbook (a delta, a patch).
    pub sections: Vec<SectionTokens>,
}

/// The tokens of an entry's text: its title and its content, each as
/// it would stand on its own.
pub fn entry_tokens(e: &ace_model::Entry, enc: Encoding) -> usize {
    enc.count(&e.content) + e.title.as_deref().map_or(0, |t| enc.count(t))
}

/// The tokens of `text`, and of each section of `playbook` (read from it),
/// in the playbook's order of sections, then the sections only entries
/// name, then the entries in none.
pub fn count(text: &str, playbook: Option<&Playbook>, enc: Encoding) -> TokenCount {
    // The whole text on one thread while the entries are counted on this
    // one: each is about as long as the other.
    let (tokens, sections) = std::thread::scope(|scope| {
        let whole = scope.spawn(|| enc.count(text));
        let sections = sections_of(playbook, enc);
        (whole.join().unwrap_or_else(|_| enc.count(text)), sections)
    });
    TokenCount {
        encoding: enc,
        tokens,
        sections,
    }
}

fn sections_of(playbook: Option<&Playbook>, enc: Encoding) -> Vec<SectionTokens> {
    let Some(pb) = playbook else {
        return Vec::new();
    };
    crate::budget::sections(pb, Some(enc), false)
        .into_iter()
        .map(|s| SectionTokens {
            key: s.key,
            title: s.title,
            entries: s.entries,
            tokens: s.tokens.unwrap_or(0),
        })
        .collect()
}

/// Each input's name and its count, or why it could not be read: the
/// files as they are, read as their format (for the sections) but not
/// checked.
pub fn count_all(
    inputs: &[crate::run::Input],
    stdin_filename: &str,
    from: Option<ace_registry::Format>,
    enc: Encoding,
) -> Vec<Result<(String, TokenCount), String>> {
    let registry = ace_registry::Registry::builtin();
    // The encoder is made (0.4 s and more) while the files are read.
    std::thread::scope(|scope| {
        scope.spawn(|| enc.count(""));
        counts_of(inputs, stdin_filename, from, enc, registry)
    })
}

fn counts_of(
    inputs: &[crate::run::Input],
    stdin_filename: &str,
    from: Option<ace_registry::Format>,
    enc: Encoding,
    registry: &ace_registry::Registry,
) -> Vec<Result<(String, TokenCount), String>> {
    inputs
        .iter()
        .map(|input| {
            let source = crate::run::load(input, stdin_filename)?;
            let format =
                from.unwrap_or_else(|| registry.detect(source.path.as_deref(), &source.text));
            let pb = ace_registry::convert::read_playbook(&source, format).ok();
            let c = count(format.imp().playbook_text(&source.text), pb.as_ref(), enc);
            Ok((source.name, c))
        })
        .collect()
}

impl TokenCount {
    /// As `--tokens --output-format json` lists it: `{path, encoding,
    /// tokens, sections: [{key, title, entries, tokens}]}`.
    pub fn to_json(&self, path: &str) -> serde_json::Value {
        let sections: Vec<serde_json::Value> = self
            .sections
            .iter()
            .map(|s| {
                serde_json::json!({"key": s.key, "title": s.title, "entries": s.entries, "tokens": s.tokens})
            })
            .collect();
        serde_json::json!({
            "path": path,
            "encoding": self.encoding.name(),
            "tokens": self.tokens,
            "sections": sections,
        })
    }

    /// As `--tokens` prints it: the file's line, then a line per section.
    pub fn to_text(&self, path: &str) -> String {
        use std::fmt::Write as _;
        let entries = |n: usize| match n {
            1 => "1 entry".to_owned(),
            n => format!("{n} entries"),
        };
        let all: usize = self.sections.iter().map(|s| s.entries).sum();
        let mut out = format!("{path}: {} tokens ({})", self.tokens, self.encoding);
        if !self.sections.is_empty() {
            let _ = write!(out, ", {}", entries(all));
        }
        out.push('\n');
        for s in &self.sections {
            let name = match (&s.title, s.key.as_str()) {
                (Some(t), _) => t.as_str(),
                (None, "") => "(no section)",
                (None, k) => k,
            };
            let _ = writeln!(out, "  {name}: {}, {} tokens", entries(s.entries), s.tokens);
        }
        out
    }
}
