//! What a line-based playbook grammar gives, and what its reader gives,
//! in one shape to compare: the title, the section headings and the
//! entries, each with its byte range.

use ace_model::Span;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    /// The text starts with U+FEFF, which is skipped.
    pub bom: bool,
    pub title: Option<String>,
    pub sections: Vec<Heading>,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    pub level: usize,
    pub title: String,
    /// The heading's line, without its line ending.
    pub span: Span,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    /// The index of its section in [`Outline::sections`].
    pub section: Option<usize>,
    pub content: String,
    pub helpful: Option<i64>,
    pub harmful: Option<i64>,
    pub neutral: Option<i64>,
    /// The project a `[project]` marker names.
    pub project: Option<String>,
    /// From the entry's first line to the end of its last, without the
    /// line ending.
    pub span: Span,
}

/// The first place two outlines differ, in words.
pub fn first_difference(reader: &Outline, grammar: &Outline) -> Option<String> {
    if reader.bom != grammar.bom {
        return Some(format!(
            "BOM: reader {}, grammar {}",
            reader.bom, grammar.bom
        ));
    }
    if reader.title != grammar.title {
        return Some(format!(
            "title: reader {:?}, grammar {:?}",
            reader.title, grammar.title
        ));
    }
    first_differing("section", &reader.sections, &grammar.sections)
        .or_else(|| first_differing("entry", &reader.entries, &grammar.entries))
}

/// The first item where two lists differ, or their lengths, in words.
pub fn first_differing<T: PartialEq + std::fmt::Debug>(
    what: &str,
    reader: &[T],
    grammar: &[T],
) -> Option<String> {
    if let Some((i, (a, b))) = reader
        .iter()
        .zip(grammar)
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        return Some(format!("{what} {i}: reader {a:?}, grammar {b:?}"));
    }
    (reader.len() != grammar.len()).then(|| {
        format!(
            "{what} count: reader {}, grammar {}",
            reader.len(),
            grammar.len()
        )
    })
}
