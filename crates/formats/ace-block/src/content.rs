//! The block's `content` style: each section's title as a `##` heading and
//! each entry's text as a `- ` bullet, nothing else (no IDs, no counters),
//! for agents that should see the advice only. Lines after an entry's
//! first are indented by two spaces, as markdown continues a list item.
//!
//! Read back, entries are numbered in order within each section's prefix
//! (`str-00001`, ...): the style holds no IDs, so these name positions,
//! not the source's entries.

use std::collections::{HashMap, HashSet};

use ace_model::mapping::SectionMap;
use ace_model::{Entry, Playbook, ReadOutput, Section, Span};

/// The entries of `pb` under their sections' headings: the sections in
/// the playbook's order, then those only entries name, in the order they
/// first appear; entries of no section first.
pub fn render(pb: &Playbook) -> String {
    let mut order: Vec<Option<&str>> = vec![None];
    let mut listed: HashSet<Option<&str>> = HashSet::from([None]);
    let named = pb.sections.iter().map(|s| Some(s.key.as_str()));
    for s in named.chain(pb.entries.iter().map(|e| e.section.as_deref())) {
        if listed.insert(s) {
            order.push(s);
        }
    }
    let sections = pb.sections_by_key();
    let mut by: HashMap<Option<&str>, Vec<&Entry>> = HashMap::new();
    for e in &pb.entries {
        by.entry(e.section.as_deref()).or_default().push(e);
    }
    let mut out = String::new();
    for key in order {
        let Some(entries) = by.get(&key) else {
            continue;
        };
        if let Some(key) = key {
            let title = sections
                .get(key)
                .and_then(|s| s.title.as_deref())
                .unwrap_or(key);
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("## ");
            out.push_str(&title.replace('\n', " "));
            out.push_str("\n\n");
        }
        for e in entries {
            bullet(&e.content, &mut out);
        }
    }
    out
}

fn bullet(content: &str, out: &mut String) {
    let mut lines = content.trim_end().lines();
    out.push_str("- ");
    out.push_str(lines.next().unwrap_or(""));
    out.push('\n');
    for l in lines {
        if !l.trim().is_empty() {
            out.push_str("  ");
            out.push_str(l);
        }
        out.push('\n');
    }
}

/// Whether `text` is a `content` block: `- ` bullets, their indented
/// continuation lines and `## ` headings, at least one bullet, nothing
/// else.
pub fn is_content(text: &str) -> bool {
    let mut bullets = 0;
    for line in text.lines() {
        if line.starts_with("- ") {
            bullets += 1;
        } else if !(line.trim().is_empty() || line.starts_with("## ") || line.starts_with("  ")) {
            return false;
        }
    }
    bullets > 0
}

/// The entries of a `content` block. Spans are `text`'s.
pub fn read(text: &str, sections: &SectionMap) -> ReadOutput {
    let mut pb = Playbook::default();
    let mut section: Option<String> = None;
    let mut numbers: HashMap<String, usize> = HashMap::new();
    // Each section's place in `pb.sections`.
    let mut declared: HashMap<String, usize> = HashMap::new();
    // Blank lines seen since the last text: kept inside an item only if an
    // indented line continues it.
    let mut blanks = 0;
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let span = Span::new(at, at + raw.len());
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            blanks += 1;
            continue;
        }
        if let Some(title) = line.strip_prefix("## ") {
            let title = title.trim();
            let key = sections
                .row_for_section(title, Some(title), None)
                .map(|r| r.key.to_owned())
                .unwrap_or_else(|| ace_model::normalize::section_key(title));
            if !declared.contains_key(&key) {
                declared.insert(key.clone(), pb.sections.len());
                let mut s = Section::new(key.clone());
                s.title = Some(title.to_owned());
                s.origin = span.into();
                pb.sections.push(s);
            }
            section = Some(key);
        } else if let Some(first) = line.strip_prefix("- ") {
            let mut e = Entry::new(String::new(), first.trim_end());
            e.section = section.clone();
            let declared = section.as_ref().and_then(|k| declared.get(k));
            let prefix =
                ace_model::ids::prefix_for(declared.map(|&i| &pb.sections[i]), &e, sections);
            let n = numbers.entry(prefix.clone()).or_default();
            *n += 1;
            e.id = format!("{prefix}-{n:05}");
            e.origin = span.into();
            pb.entries.push(e);
        } else if let (Some(rest), Some(e)) = (line.strip_prefix("  "), pb.entries.last_mut()) {
            for _ in 0..blanks {
                e.content.push('\n');
            }
            e.content.push('\n');
            e.content.push_str(rest.trim_end());
            if let Some(o) = e.origin.0.as_mut() {
                o.end = span.end;
            }
        }
        blanks = 0;
    }
    ReadOutput {
        playbook: pb,
        diagnostics: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_reads_back_with_sections_and_multi_line_entries() {
        let mut pb = Playbook::default();
        let mut s = Section::new("strategies_and_insights");
        s.title = Some("STRATEGIES & INSIGHTS".into());
        pb.sections.push(s);
        let mut a = Entry::new("str-00007", "Check the logs.\n\nThen the runbook.");
        a.section = Some("strategies_and_insights".into());
        a.helpful = Some(3);
        let mut b = Entry::new("x", "Loose advice.");
        b.section = None;
        pb.entries = vec![a, b];
        let text = render(&pb);
        assert_eq!(
            text,
            "- Loose advice.\n\n## STRATEGIES & INSIGHTS\n\n- Check the logs.\n\n  Then the runbook.\n"
        );
        let back = read(&text, &SectionMap::default()).playbook;
        let got: Vec<(&str, Option<&str>, &str)> = back
            .entries
            .iter()
            .map(|e| (e.id.as_str(), e.section.as_deref(), e.content.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("oth-00001", None, "Loose advice."),
                (
                    "str-00001",
                    Some("strategies_and_insights"),
                    "Check the logs.\n\nThen the runbook."
                ),
            ]
        );
        assert_eq!(render(&back), text);
        assert!(is_content(&text));
        assert!(!is_content("Some prose.\n- a list in it\n"));
    }
}
