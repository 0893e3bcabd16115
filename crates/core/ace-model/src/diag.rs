//! Diagnostics shared by every reader, writer and rule.

use serde::Serialize;

use crate::rules::Rule;
pub use crate::severity::Severity;

/// A byte range into the original source, BOM included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end);
        Span { start, end }
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// One finding: which rule, how bad, what, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// A hint on how to fix it, shown under the code frame.
    pub help: Option<String>,
    /// Other places that explain this one ("first defined here").
    pub related: Vec<Related>,
}

/// A secondary location of a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

/// The message alone: where a diagnostic is shown with its position and
/// code, the report renders it (`ace-report`).
impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Diagnostic {
    /// A diagnostic of `rule` at its default severity.
    pub fn new(rule: &Rule, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code: rule.code,
            severity: rule.severity,
            message: message.into(),
            span,
            help: None,
            related: Vec::new(),
        }
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// 1-based line and column; the column counts Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineCol {
    pub line: usize,
    pub col: usize,
}

/// Maps byte offsets to lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset at which each line starts.
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        starts.push(0);
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// Position of `offset` (clamped to the text) in `text`, which must be the
    /// text this index was built from.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start);
        LineCol {
            line: line + 1,
            col: col + 1,
        }
    }

    /// The text of 1-based line `line`, without its line ending.
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let Some(&start) = self.starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = self.starts.get(line).map(|e| e - 1).unwrap_or(self.len);
        let s = text.get(start..end).unwrap_or("");
        s.strip_suffix('\r').unwrap_or(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "ab\nΣx\r\nlast";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, col: 1 });
        assert_eq!(idx.line_col(text, 3), LineCol { line: 2, col: 1 });
        // 'x' follows the two-byte Σ
        assert_eq!(idx.line_col(text, 5), LineCol { line: 2, col: 2 });
        assert_eq!(idx.line_col(text, text.len()), LineCol { line: 3, col: 5 });
        assert_eq!(idx.line_text(text, 2), "Σx");
        assert_eq!(idx.line_text(text, 3), "last");
        assert_eq!(idx.line_text(text, 9), "");
    }

    #[test]
    fn offsets_past_the_end_are_clamped() {
        let text = "a\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 99), LineCol { line: 2, col: 1 });
    }
}
