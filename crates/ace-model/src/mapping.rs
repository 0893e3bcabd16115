//! The default correspondence between sections (markdown playbooks, curator
//! files) and vAgenda entry kinds. Formats with kinds and no sections, and
//! formats with sections and no kinds, both go through this table, so the
//! two directions agree (docs/formats/vagenda.md, "Kinds and sections").

/// vAgenda's entry kinds, in the order of the ACE extension's schema.
pub const KINDS: [&str; 5] = ["strategy", "learning", "rule", "warning", "note"];

/// The section a kind becomes in a format that has sections, and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindSection {
    pub kind: &'static str,
    pub key: &'static str,
    pub title: &'static str,
    pub prefix: &'static str,
}

/// One row per kind; the first three are seed 000's sections.
pub const TABLE: [KindSection; 5] = [
    KindSection {
        kind: "strategy",
        key: "strategies_and_insights",
        title: "STRATEGIES & INSIGHTS",
        prefix: "str",
    },
    KindSection {
        kind: "warning",
        key: "common_mistakes_to_avoid",
        title: "COMMON MISTAKES TO AVOID",
        prefix: "mis",
    },
    KindSection {
        kind: "note",
        key: "domain_knowledge",
        title: "DOMAIN KNOWLEDGE",
        prefix: "dom",
    },
    KindSection {
        kind: "rule",
        key: "rules",
        title: "RULES",
        prefix: "rul",
    },
    KindSection {
        kind: "learning",
        key: "learnings",
        title: "LEARNINGS",
        prefix: "lrn",
    },
];

/// The section of a kind; `None` for a kind vAgenda does not define.
pub fn section_for_kind(kind: &str) -> Option<&'static KindSection> {
    TABLE.iter().find(|r| r.kind == kind)
}

/// The kind for a section, by its prefix, key or title (case-insensitive),
/// then by words in the title; `note` when nothing matches, since a note
/// claims the least about how advice should be used.
pub fn kind_for_section(key: &str, title: Option<&str>, prefix: Option<&str>) -> &'static str {
    let lower = |s: &str| s.to_ascii_lowercase();
    if let Some(row) = TABLE.iter().find(|r| {
        prefix.is_some_and(|p| lower(p) == r.prefix)
            || lower(key) == r.key
            || title.is_some_and(|t| lower(t) == lower(r.title))
    }) {
        return row.kind;
    }
    let words = lower(&format!("{key} {}", title.unwrap_or("")));
    let has = |w: &[&str]| w.iter().any(|w| words.contains(w));
    if has(&["mistake", "pitfall", "avoid", "warning", "error", "harm"]) {
        "warning"
    } else if has(&["strateg", "insight", "tip", "practice", "pattern"]) {
        "strategy"
    } else if has(&["rule", "policy", "guideline", "must"]) {
        "rule"
    } else if has(&["learn", "lesson", "reflection"]) {
        "learning"
    } else {
        "note"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_maps_to_a_section_that_maps_back() {
        for kind in KINDS {
            let row = section_for_kind(kind).unwrap();
            assert_eq!(kind_for_section(row.key, None, None), kind);
            assert_eq!(kind_for_section("x", Some(row.title), None), kind);
            assert_eq!(kind_for_section("x", None, Some(row.prefix)), kind);
        }
    }

    #[test]
    fn unknown_sections_go_by_their_words_then_default_to_note() {
        assert_eq!(
            kind_for_section("x", Some("Common pitfalls"), Some("pit")),
            "warning"
        );
        assert_eq!(
            kind_for_section("code", Some("CODE SNIPPETS"), Some("code")),
            "note"
        );
        assert_eq!(
            kind_for_section("shr", Some("STRATEGIES AND HARD RULES"), Some("shr")),
            "strategy"
        );
    }
}
