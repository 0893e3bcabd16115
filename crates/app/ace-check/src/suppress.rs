//! Inline suppression comments in the markdown formats (markdown playbooks
//! and AGENTS.md), in markdownlint's style:
//!
//! - `<!-- ace-validate: disable-next-line ACE012 -->` for the line after it;
//! - `<!-- ace-validate: disable ACE006 -->` ... `<!-- ace-validate: enable -->`
//!   for a block (an `enable` with codes ends only those codes);
//! - `<!-- ace-validate: disable-file ACE001 -->` anywhere, for the file.
//!
//! Without codes a comment covers every code. Comments inside code fences
//! are text, not directives.

use std::collections::HashSet;

use ace_model::{Diagnostic, LineIndex};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Codes {
    All,
    Some(HashSet<String>),
}

impl Codes {
    fn covers(&self, code: &str) -> bool {
        match self {
            Codes::All => true,
            Codes::Some(set) => set.contains(code),
        }
    }
}

/// The suppressions of one file, by 1-based line.
#[derive(Debug, Default)]
pub struct Suppressions {
    file: Vec<Codes>,
    next_line: Vec<(usize, Codes)>,
    /// `(first line, last line, codes)`, inclusive.
    blocks: Vec<(usize, usize, Codes)>,
}

const PREFIX: &str = "ace-validate:";

fn directive(line: &str) -> Option<(&str, Codes)> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    let rest = inner.strip_prefix(PREFIX)?.trim();
    let (verb, codes) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let set: HashSet<String> = codes
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|c| !c.is_empty())
        .map(str::to_ascii_uppercase)
        .collect();
    let codes = if set.is_empty() {
        Codes::All
    } else {
        Codes::Some(set)
    };
    Some((verb, codes))
}

impl Suppressions {
    pub fn parse(text: &str) -> Suppressions {
        let mut s = Suppressions::default();
        let mut open: Vec<(usize, Codes)> = Vec::new();
        let mut fence: Option<(u8, usize)> = None;
        let mut last = 0;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            last = n;
            if let Some((ch, run)) = fence {
                if ace_mdtext::is_fence_close(line, ch, run) {
                    fence = None;
                }
                continue;
            }
            if let Some(f) = ace_mdtext::fence_open(line) {
                fence = Some(f);
                continue;
            }
            let Some((verb, codes)) = directive(line) else {
                continue;
            };
            match verb {
                "disable-next-line" => s.next_line.push((n + 1, codes)),
                "disable-file" => s.file.push(codes),
                "disable" => open.push((n, codes)),
                "enable" => {
                    let mut still = Vec::new();
                    for (start, c) in open.drain(..) {
                        let ends = match (&codes, &c) {
                            (Codes::All, _) => true,
                            (Codes::Some(_), Codes::All) => false,
                            (Codes::Some(off), Codes::Some(on)) => {
                                let rest: HashSet<String> = on.difference(off).cloned().collect();
                                if rest.len() < on.len() {
                                    let ended: HashSet<String> =
                                        on.intersection(off).cloned().collect();
                                    s.blocks.push((start, n, Codes::Some(ended)));
                                    if !rest.is_empty() {
                                        still.push((start, Codes::Some(rest)));
                                    }
                                    continue;
                                }
                                false
                            }
                        };
                        if ends {
                            s.blocks.push((start, n, c));
                        } else {
                            still.push((start, c));
                        }
                    }
                    open = still;
                }
                _ => {}
            }
        }
        for (start, c) in open {
            s.blocks.push((start, last.max(start), c));
        }
        s
    }

    pub fn is_empty(&self) -> bool {
        self.file.is_empty() && self.next_line.is_empty() && self.blocks.is_empty()
    }

    fn covers(&self, line: usize, code: &str) -> bool {
        self.file.iter().any(|c| c.covers(code))
            || self
                .next_line
                .iter()
                .any(|(l, c)| *l == line && c.covers(code))
            || self
                .blocks
                .iter()
                .any(|(a, b, c)| (*a..=*b).contains(&line) && c.covers(code))
    }

    /// Drops the diagnostics a comment suppresses.
    pub fn apply(&self, text: &str, diags: &mut Vec<Diagnostic>) {
        if self.is_empty() {
            return;
        }
        let index = LineIndex::new(text);
        diags.retain(|d| !self.covers(index.line_col(text, d.span.start).line, d.code));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_line_blocks_and_file() {
        let text = "<!-- ace-validate: disable-next-line ACE012 -->\nA\n\
                    <!-- ace-validate: disable ACE006, ACE001 -->\nB\n<!-- ace-validate: enable ACE006 -->\nC\n\
                    ```\n<!-- ace-validate: disable-file -->\n```\n<!-- ace-validate: disable-file ace020 -->\n";
        let s = Suppressions::parse(text);
        assert!(s.covers(2, "ACE012"));
        assert!(!s.covers(2, "ACE006"));
        assert!(!s.covers(3 + 1, "ACE012"));
        assert!(s.covers(4, "ACE006") && s.covers(4, "ACE001"));
        assert!(!s.covers(6, "ACE006"), "enabled again");
        assert!(s.covers(6, "ACE001"), "still disabled to the end");
        assert!(s.covers(1, "ACE020"), "file-level");
        assert!(!s.covers(1, "ACE002"), "the fenced directive is text");
    }
}
