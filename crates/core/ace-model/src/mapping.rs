//! The default correspondence between sections (markdown playbooks, curator
//! files) and vAgenda entry kinds. Formats with kinds and no sections, and
//! formats with sections and no kinds, both go through this table, so the
//! two directions agree (docs/formats/vagenda.md, "Kinds and sections").

use serde::Deserialize;

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

/// One row per kind; the first three are the playbook format spec's sections.
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

/// Sections found in the wild that are not a kind's own section, and the
/// kind each is read as: the ACE paper's AppWorld and FiNER playbooks
/// (`shr`, `api`, `code`, ...) and the playbook format spec's other examples. Kinds become
/// sections only through [`TABLE`]; these are read, never written.
pub const KNOWN: [KindSection; 13] = [
    row(
        "strategy",
        "strategies_and_hard_rules",
        "STRATEGIES AND HARD RULES",
        "shr",
    ),
    row(
        "note",
        "apis_to_use_for_specific_information",
        "APIs TO USE FOR SPECIFIC INFORMATION",
        "api",
    ),
    row(
        "note",
        "useful_code_snippets_and_templates",
        "USEFUL CODE SNIPPETS AND TEMPLATES",
        "code",
    ),
    row(
        "warning",
        "common_mistakes_and_correct_strategies",
        "COMMON MISTAKES AND CORRECT STRATEGIES",
        "cms",
    ),
    row(
        "strategy",
        "problem_solving_heuristics_and_workflows",
        "PROBLEM-SOLVING HEURISTICS AND WORKFLOWS",
        "psw",
    ),
    row(
        "rule",
        "verification_checklist",
        "VERIFICATION CHECKLIST",
        "vc",
    ),
    row(
        "warning",
        "troubleshooting_and_pitfalls",
        "TROUBLESHOOTING AND PITFALLS:",
        "ts",
    ),
    row("note", "others", "OTHERS", "misc"),
    row(
        "note",
        "formulas_and_calculations",
        "FORMULAS & CALCULATIONS",
        "calc",
    ),
    row(
        "note",
        "code_snippets_and_templates",
        "CODE SNIPPETS & TEMPLATES",
        "code",
    ),
    row(
        "strategy",
        "problem_solving_heuristics",
        "PROBLEM-SOLVING HEURISTICS",
        "prb",
    ),
    row(
        "note",
        "context_clues_and_indicators",
        "CONTEXT CLUES & INDICATORS",
        "ctx",
    ),
    row("warning", "errors", "ERRORS", "err"),
];

const fn row(
    kind: &'static str,
    key: &'static str,
    title: &'static str,
    prefix: &'static str,
) -> KindSection {
    KindSection {
        kind,
        key,
        title,
        prefix,
    }
}

/// The table a conversion goes by: the user's rows (`--section-map`),
/// tried before the built-in ones. Readers and writers get it from their
/// context, so two conversions in one process may use different tables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionMap {
    user: Vec<KindSection>,
}

/// The built-in rows alone.
pub static BUILT_IN: SectionMap = SectionMap { user: Vec::new() };

/// One row of a `--section-map` file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserRow {
    kind: String,
    title: String,
    prefix: String,
    #[serde(default)]
    key: Option<String>,
}

impl SectionMap {
    /// Reads a `--section-map` file (a JSON array of `{kind, title, prefix,
    /// key?}`), whose rows are tried before the built-in ones. `Err` says what
    /// is wrong and where (`line:col`).
    pub fn from_json(text: &str) -> Result<SectionMap, crate::Error> {
        let parsed: Vec<UserRow> =
            serde_json::from_str(text).map_err(|e| crate::Error::Content {
                place: format!("{}:{}", e.line(), e.column()),
                message: format!(
                    "{e}; expected a JSON array of {{\"kind\", \"title\", \"prefix\", \"key\"?}}"
                ),
            })?;
        let row = |i: usize, message: String| crate::Error::Content {
            place: format!("row {}", i + 1),
            message,
        };
        let mut rows = Vec::with_capacity(parsed.len());
        for (i, r) in parsed.into_iter().enumerate() {
            if !KINDS.contains(&r.kind.as_str()) {
                return Err(row(
                    i,
                    format!(
                        "kind `{}` is not an entry kind; expected one of {}",
                        r.kind,
                        KINDS.join(", ")
                    ),
                ));
            }
            let prefix_ok = r
                .prefix
                .as_bytes()
                .first()
                .is_some_and(u8::is_ascii_alphabetic)
                && r.prefix
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !prefix_ok {
                return Err(row(
                    i,
                    format!(
                        "prefix `{}` must be letters, digits and `_`, starting with a letter",
                        r.prefix
                    ),
                ));
            }
            let key = r
                .key
                .unwrap_or_else(|| crate::normalize::section_key(&r.title));
            if key.is_empty() {
                return Err(row(
                    i,
                    "the title gives an empty section key; give `key`".into(),
                ));
            }
            // Rows hold `&'static str`s like the built-in table's; a map is read
            // once per run, so what it holds is kept for the life of the process.
            let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
            rows.push(KindSection {
                kind: KINDS.iter().find(|k| **k == r.kind).expect("checked"),
                key: leak(key),
                title: leak(r.title),
                prefix: leak(r.prefix),
            });
        }
        Ok(SectionMap { user: rows })
    }

    /// Every row in the order they are tried: the user's, the kinds' own
    /// sections, then the sections known from the wild.
    pub fn rows(&self) -> impl Iterator<Item = &KindSection> {
        self.user.iter().chain(TABLE.iter()).chain(KNOWN.iter())
    }

    /// The section of a kind; `None` for a kind vAgenda does not define.
    pub fn section_for_kind(&self, kind: &str) -> Option<&KindSection> {
        self.user
            .iter()
            .chain(TABLE.iter())
            .find(|r| r.kind == kind)
    }

    /// The row of a section, by key, prefix or title (case-insensitive).
    pub fn row_for_section(
        &self,
        key: &str,
        title: Option<&str>,
        prefix: Option<&str>,
    ) -> Option<&KindSection> {
        // Compared without allocating: this runs for every entry converted.
        self.rows().find(|r| {
            prefix.is_some_and(|p| p.eq_ignore_ascii_case(r.prefix))
                || key.eq_ignore_ascii_case(r.key)
                || title.is_some_and(|t| t.eq_ignore_ascii_case(r.title))
        })
    }

    /// The kind for a section: its row (see [`row_for_section`]), then words
    /// in the key and title; `note` when nothing matches, since a note claims
    /// the least about how advice should be used.
    pub fn kind_for_section(
        &self,
        key: &str,
        title: Option<&str>,
        prefix: Option<&str>,
    ) -> &'static str {
        if let Some(row) = self.row_for_section(key, title, prefix) {
            return row.kind;
        }
        let lower = |s: &str| s.to_ascii_lowercase();
        let words = lower(&format!("{key} {}", title.unwrap_or("")));
        let has = |w: &[&str]| w.iter().any(|w| words.contains(w));
        if has(&["mistake", "pitfall", "avoid", "warning", "error", "harm"]) {
            "warning"
        } else if has(&[
            "strateg",
            "insight",
            "tip",
            "practice",
            "pattern",
            "heuristic",
        ]) {
            "strategy"
        } else if has(&["rule", "policy", "guideline", "must", "checklist"]) {
            "rule"
        } else if has(&["learn", "lesson", "reflection"]) {
            "learning"
        } else {
            "note"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_maps_to_a_section_that_maps_back() {
        for kind in KINDS {
            let row = BUILT_IN.section_for_kind(kind).unwrap();
            assert_eq!(BUILT_IN.kind_for_section(row.key, None, None), kind);
            assert_eq!(BUILT_IN.kind_for_section("x", Some(row.title), None), kind);
            assert_eq!(BUILT_IN.kind_for_section("x", None, Some(row.prefix)), kind);
        }
    }

    #[test]
    fn every_row_key_is_its_titles_section_key() {
        for r in TABLE.iter().chain(KNOWN.iter()) {
            assert_eq!(r.key, crate::normalize::section_key(r.title), "{r:?}");
        }
    }

    #[test]
    fn paper_sections_are_known() {
        assert_eq!(BUILT_IN.kind_for_section("x", None, Some("ts")), "warning");
        assert_eq!(
            BUILT_IN.kind_for_section("verification_checklist", None, None),
            "rule"
        );
        assert_eq!(
            BUILT_IN
                .row_for_section("x", Some("apis to use for specific information"), None)
                .map(|r| r.prefix),
            Some("api")
        );
    }

    #[test]
    fn a_user_table_is_checked_and_says_where() {
        let e =
            SectionMap::from_json("[{\"kind\": \"opinion\", \"title\": \"X\", \"prefix\": \"x\"}]")
                .unwrap_err()
                .to_string();
        assert!(e.contains("not an entry kind"), "{e}");
        let e = SectionMap::from_json("[{\"kind\": \"note\",\n \"title\": 3}]")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("2:"), "{e}");
        let e =
            SectionMap::from_json("[{\"kind\": \"note\", \"title\": \"X\", \"prefix\": \"-x\"}]")
                .unwrap_err()
                .to_string();
        assert!(e.contains("prefix"), "{e}");
    }

    /// A user's rows come first, and only in the map that holds them.
    #[test]
    fn a_user_table_is_tried_first() {
        let map = SectionMap::from_json(
            "[{\"kind\": \"rule\", \"title\": \"House Rules\", \"prefix\": \"hr\"}]",
        )
        .unwrap();
        assert_eq!(
            map.section_for_kind("rule").map(|r| r.key),
            Some("house_rules")
        );
        assert_eq!(map.kind_for_section("x", None, Some("hr")), "rule");
        assert_ne!(
            BUILT_IN.section_for_kind("rule").map(|r| r.key),
            Some("house_rules")
        );
    }

    #[test]
    fn unknown_sections_go_by_their_words_then_default_to_note() {
        assert_eq!(
            BUILT_IN.kind_for_section("x", Some("Common pitfalls"), Some("pit")),
            "warning"
        );
        assert_eq!(
            BUILT_IN.kind_for_section("code", Some("CODE SNIPPETS"), Some("code")),
            "note"
        );
        assert_eq!(
            BUILT_IN.kind_for_section("shr", Some("STRATEGIES AND HARD RULES"), Some("shr")),
            "strategy"
        );
    }
}
