//! How large a playbook is against its budget (`[budget]` in `ace.toml`,
//! `--max-tokens`, `--max-entries`): what `ace-validate` reports as ACE085
//! and ACE086, and what `ace-apply --prune` measures until the playbook
//! fits.
//!
//! The tokens counted are what an agent is given: the file's text as
//! written, exactly, less the text of entries with a status other than
//! active (deprecated, archived, quarantined, kayba's `active: false`),
//! which agents' loaders leave out (kayba's `as_prompt` lists active
//! skills only; the skill spec's loader skips deprecated bullets).
//! A section's tokens are its active entries' titles and contents, as
//! `ace-validate --tokens` counts them ([`count`]).

use ace_model::{rules, Diagnostic, Entry, Playbook, Span, Status};
use ace_tokens::Encoding;

/// The most a playbook or a section may hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    pub max_tokens: Option<usize>,
    pub max_entries: Option<usize>,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        self.max_tokens.is_none() && self.max_entries.is_none()
    }
}

/// A playbook's budget: the whole playbook's limits and its sections'.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budget {
    pub encoding: Encoding,
    pub whole: Limits,
    /// Limits by section key or title, as `ace.toml` names them.
    pub sections: Vec<(String, Limits)>,
}

impl Budget {
    /// `ace.toml`'s `[budget]` with the command line's flags over it.
    pub fn of(
        config: &ace_config::Budget,
        max_tokens: Option<usize>,
        max_entries: Option<usize>,
        tokenizer: Option<Encoding>,
    ) -> Result<Budget, ace_model::Error> {
        let encoding = match (tokenizer, &config.tokenizer) {
            (Some(e), _) => e,
            (None, Some(name)) => name.parse().map_err(|_| ace_model::Error::Content {
                place: "[budget] tokenizer".into(),
                message: format!(
                    "unknown encoding `{name}` (expected one of {})",
                    Encoding::NAMES.join(", ")
                ),
            })?,
            (None, None) => Encoding::default(),
        };
        Ok(Budget {
            encoding,
            whole: Limits {
                max_tokens: max_tokens.or(config.max_tokens),
                max_entries: max_entries.or(config.max_entries),
            },
            sections: config
                .sections
                .iter()
                .map(|(name, l)| {
                    let limits = Limits {
                        max_tokens: l.max_tokens,
                        max_entries: l.max_entries,
                    };
                    (name.clone(), limits)
                })
                .filter(|(_, l)| !l.is_empty())
                .collect(),
        })
    }

    /// Whether any limit is set.
    pub fn is_set(&self) -> bool {
        !self.whole.is_empty() || !self.sections.is_empty()
    }

    /// The limits of section `key` (titled `title`), if the budget has any.
    pub fn of_section(&self, key: &str, title: Option<&str>) -> Option<Limits> {
        let loose = |s: &str| ace_model::normalize::section_key(s);
        self.sections
            .iter()
            .find(|(name, _)| {
                let n = loose(name);
                n == loose(key) || title.is_some_and(|t| n == loose(t))
            })
            .map(|(_, l)| *l)
    }

    /// Whether section tokens are needed: a section has a token limit, or
    /// the whole playbook has one (its finding names the largest sections).
    fn needs_section_tokens(&self) -> bool {
        self.whole.max_tokens.is_some() || self.sections.iter().any(|(_, l)| l.max_tokens.is_some())
    }
}

/// Whether `e` is left out of what an agent is given: its status is one
/// other than active (deprecated, archived, quarantined, or kayba's
/// soft removal, `active: false`).
pub fn retired(e: &Entry) -> bool {
    e.status.as_ref().is_some_and(|s| *s != Status::Active)
}

/// One section's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionUsage {
    pub key: String,
    pub title: Option<String>,
    /// Where the section starts in the file, when it is written there.
    pub span: Option<Span>,
    pub entries: usize,
    /// Counted only when the budget has a token limit.
    pub tokens: Option<usize>,
}

impl SectionUsage {
    fn name(&self) -> &str {
        match self.title.as_deref() {
            Some(t) if !t.is_empty() => t,
            _ if self.key.is_empty() => "(no section)",
            _ => &self.key,
        }
    }
}

/// A playbook's size, as its budget counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    pub encoding: Encoding,
    /// Counted only when the budget has a token limit.
    pub tokens: Option<usize>,
    pub entries: usize,
    pub sections: Vec<SectionUsage>,
}

/// The size of `pb`, read from `text`, as `budget` counts it: tokens only
/// where it has a token limit.
pub fn usage(text: &str, pb: &Playbook, budget: &Budget) -> Usage {
    let enc = budget.encoding;

    let section_tokens = budget.needs_section_tokens();
    let (tokens, sections) = std::thread::scope(|scope| {
        let whole = budget
            .whole
            .max_tokens
            .map(|_| scope.spawn(|| active_tokens(text, pb, enc)));
        let sections = sections_of(pb, section_tokens.then_some(enc));
        let tokens = whole.map(|h| h.join().unwrap_or_else(|_| active_tokens(text, pb, enc)));
        (tokens, sections)
    });
    Usage {
        encoding: enc,
        tokens,
        entries: pb.entries.iter().filter(|e| !retired(e)).count(),
        sections,
    }
}

/// The active entries of `pb` alone, when that is all that is asked.
pub fn entries_only(pb: &Playbook, budget: &Budget) -> Usage {
    Usage {
        encoding: budget.encoding,
        tokens: None,
        entries: pb.entries.iter().filter(|e| !retired(e)).count(),
        sections: Vec::new(),
    }
}

/// The file's tokens less its retired entries' text as written.
pub fn active_tokens(text: &str, pb: &Playbook, enc: Encoding) -> usize {
    let whole = enc.count(text);
    let retired: usize = pb
        .entries
        .iter()
        .filter(|e| retired(e))
        .filter_map(|e| e.origin.0.and_then(|s| text.get(s.start..s.end)))
        .map(|t| enc.count(t))
        .sum();
    whole.saturating_sub(retired)
}

fn sections_of(pb: &Playbook, enc: Option<Encoding>) -> Vec<SectionUsage> {
    sections(pb, enc, true)
}

/// Each section's entries (only the active ones with `active_only`) and,
/// with `enc`, the tokens of their titles and contents: the playbook's
/// sections in order, then those only entries name, then the entries in
/// no section (key `""`), where the files put them.
pub(crate) fn sections(
    pb: &Playbook,
    enc: Option<Encoding>,
    active_only: bool,
) -> Vec<SectionUsage> {
    let mut sections: Vec<SectionUsage> = pb
        .sections
        .iter()
        .map(|s| SectionUsage {
            key: s.key.clone(),
            title: s.title.clone(),
            span: s.origin.0,
            entries: 0,
            tokens: enc.map(|_| 0),
        })
        .collect();
    let mut at: std::collections::HashMap<&str, usize> = pb
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (s.key.as_str(), i))
        .collect();
    for e in pb.entries.iter().filter(|e| !active_only || !retired(e)) {
        let key = e.section.as_deref().unwrap_or_default();
        let i = *at.entry(key).or_insert_with(|| {
            sections.push(SectionUsage {
                key: key.to_owned(),
                title: None,
                span: None,
                entries: 0,
                tokens: enc.map(|_| 0),
            });
            sections.len() - 1
        });
        let s = &mut sections[i];
        s.entries += 1;
        if let (Some(t), Some(enc)) = (s.tokens.as_mut(), enc) {
            *t += entry_tokens(e, enc);
        }
    }
    if let Some(i) = sections.iter().position(|s| s.key.is_empty()) {
        let none = sections.remove(i);
        sections.push(none);
    }
    sections
}

/// "1 entry", "2 entries".
fn entries(n: usize) -> String {
    match n {
        1 => "1 entry".into(),
        n => format!("{n} entries"),
    }
}

/// ACE085 and ACE086: where `usage` is over `budget`.
pub fn findings(budget: &Budget, usage: &Usage) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let enc = budget.encoding.name();
    // The sections that hold the most, for a finding on the whole.
    let largest = |by: &dyn Fn(&SectionUsage) -> usize, unit: &dyn Fn(usize) -> String| {
        let mut s: Vec<&SectionUsage> = usage.sections.iter().filter(|s| by(s) > 0).collect();
        s.sort_by(|a, b| by(b).cmp(&by(a)).then(a.key.cmp(&b.key)));
        s.iter()
            .take(3)
            .map(|s| format!("`{}` {}", s.name(), unit(by(s))))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let (Some(max), Some(tokens)) = (budget.whole.max_tokens, usage.tokens) {
        if tokens > max {
            let most = largest(&|s| s.tokens.unwrap_or(0), &|n| format!("{n} tokens"));
            out.push(
                Diagnostic::new(
                    &rules::OVER_TOKEN_BUDGET,
                    Span::new(0, 0),
                    format!(
                        "{tokens} tokens ({enc}), over the budget of {max} by {}{}",
                        tokens - max,
                        if most.is_empty() {
                            String::new()
                        } else {
                            format!("; the largest sections: {most}")
                        }
                    ),
                )
                .with_help("`ace-apply PLAYBOOK --prune --in-place` removes the lowest-scoring entries until it fits"),
            );
        }
    }
    if let Some(max) = budget.whole.max_entries {
        if usage.entries > max {
            let most = largest(&|s| s.entries, &entries);
            out.push(
                Diagnostic::new(
                    &rules::OVER_ENTRY_BUDGET,
                    Span::new(0, 0),
                    format!(
                        "{} active, over the budget of {max} by {}{}",
                        entries(usage.entries),
                        usage.entries - max,
                        if most.is_empty() {
                            String::new()
                        } else {
                            format!("; the largest sections: {most}")
                        }
                    ),
                )
                .with_help("`ace-apply PLAYBOOK --prune --in-place` removes the lowest-scoring entries until it fits"),
            );
        }
    }
    for s in &usage.sections {
        let Some(limits) = budget.of_section(&s.key, s.title.as_deref()) else {
            continue;
        };
        let span = s.span.unwrap_or_default();
        if let (Some(max), Some(tokens)) = (limits.max_tokens, s.tokens) {
            if tokens > max {
                out.push(Diagnostic::new(
                    &rules::OVER_TOKEN_BUDGET,
                    span,
                    format!(
                        "section `{}`: its entries hold {tokens} tokens ({enc}), over its budget of {max} by {}",
                        s.name(),
                        tokens - max
                    ),
                ));
            }
        }
        if let Some(max) = limits.max_entries {
            if s.entries > max {
                out.push(Diagnostic::new(
                    &rules::OVER_ENTRY_BUDGET,
                    span,
                    format!(
                        "section `{}`: {} active, over its budget of {max} by {}",
                        s.name(),
                        entries(s.entries),
                        s.entries - max
                    ),
                ));
            }
        }
    }
    out
}

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
        let sections = token_sections(playbook, enc);
        (whole.join().unwrap_or_else(|_| enc.count(text)), sections)
    });
    TokenCount {
        encoding: enc,
        tokens,
        sections,
    }
}

fn token_sections(playbook: Option<&Playbook>, enc: Encoding) -> Vec<SectionTokens> {
    let Some(pb) = playbook else {
        return Vec::new();
    };
    sections(pb, Some(enc), false)
        .into_iter()
        .map(|s| SectionTokens {
            key: s.key,
            title: s.title,
            entries: s.entries,
            tokens: s.tokens.unwrap_or(0),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn playbook(n: usize, deprecated: usize) -> (String, Playbook) {
        let mut text = String::from("## STRATEGIES\n");
        let mut pb = Playbook::default();
        let mut s = ace_model::Section::new("strategies");
        s.title = Some("STRATEGIES".into());
        pb.sections.push(s);
        for i in 0..n {
            let line = format!("[str-{i:05}] helpful=0 harmful=0 :: use the retry helper {i}\n");
            let mut e = Entry::new(format!("str-{i:05}"), format!("use the retry helper {i}"));
            e.section = Some("strategies".into());
            e.origin = Span::new(text.len(), text.len() + line.len() - 1).into();
            if i < deprecated {
                e.status = Some(Status::Deprecated);
            }
            text.push_str(&line);
            pb.entries.push(e);
        }
        (text, pb)
    }

    fn budget(max_tokens: Option<usize>, max_entries: Option<usize>) -> Budget {
        Budget {
            whole: Limits {
                max_tokens,
                max_entries,
            },
            ..Budget::default()
        }
    }

    #[test]
    fn a_playbook_within_its_budget_has_no_finding_and_one_over_it_has() {
        let (text, pb) = playbook(10, 0);
        let tokens = Encoding::Cl100k.count(&text);
        let at = |b: &Budget| findings(b, &usage(&text, &pb, b));
        assert!(at(&budget(Some(tokens), Some(10))).is_empty());
        let over = at(&budget(Some(tokens - 5), Some(7)));
        assert_eq!(over.len(), 2, "{over:?}");
        assert_eq!(over[0].code, "ACE085");
        assert!(
            over[0].message.contains("over the budget of"),
            "{}",
            over[0].message
        );
        assert!(over[0].message.contains("by 5"), "{}", over[0].message);
        assert!(
            over[0].message.contains("`STRATEGIES`"),
            "{}",
            over[0].message
        );
        assert_eq!(over[1].code, "ACE086");
        assert!(over[1]
            .message
            .starts_with("10 entries active, over the budget of 7 by 3"));
    }

    #[test]
    fn retired_entries_are_not_counted() {
        let (text, pb) = playbook(10, 4);
        let u = usage(&text, &pb, &budget(Some(1), Some(1)));
        assert_eq!(u.entries, 6);
        let lines: usize = text
            .lines()
            .skip(1)
            .take(4)
            .map(|l| Encoding::Cl100k.count(l))
            .sum();
        assert_eq!(u.tokens, Some(Encoding::Cl100k.count(&text) - lines));
    }

    #[test]
    fn a_section_over_its_limits_is_reported_at_the_section() {
        let (text, mut pb) = playbook(5, 0);
        pb.sections[0].origin = Span::new(0, 13).into();
        let b = Budget {
            sections: vec![(
                "strategies".into(),
                Limits {
                    max_tokens: Some(3),
                    max_entries: Some(2),
                },
            )],
            ..Budget::default()
        };
        let f = findings(&b, &usage(&text, &pb, &b));
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|d| d.span == Span::new(0, 13)));
        assert!(f[1]
            .message
            .contains("5 entries active, over its budget of 2 by 3"));
    }
}
