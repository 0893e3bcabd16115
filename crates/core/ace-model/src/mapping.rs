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
    pub fn from_json(text: &str) -> Result<SectionMap, String> {
        let parsed: Vec<UserRow> = serde_json::from_str(text).map_err(|e| {
            format!(
                "{}:{}: {}; expected a JSON array of {{\"kind\", \"title\", \"prefix\", \"key\"?}}",
                e.line(),
                e.column(),
                e
            )
        })?;
        let mut rows = Vec::with_capacity(parsed.len());
        for (i, r) in parsed.into_iter().enumerate() {
            if !KINDS.contains(&r.kind.as_str()) {
                return Err(format!(
                    "row {}: kind `{}` is not a vAgenda kind; expected one of {}",
                    i + 1,
                    r.kind,
                    KINDS.join(", ")
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
                return Err(format!(
                    "row {}: prefix `{}` must be letters, digits and `_`, starting with a letter",
                    i + 1,
                    r.prefix
                ));
            }
            let key = r
                .key
                .unwrap_or_else(|| crate::normalize::section_key(&r.title));
            if key.is_empty() {
                return Err(format!(
                    "row {}: the title gives an empty section key; give `key`",
                    i + 1
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

/// What every conversion between two formats promises; the first part of
/// docs/formats/mapping.md. tests/migration.rs checks it on every corpus
/// playbook, and tests/properties.rs on generated ones.
const CONTRACT: &str = "## The conversion contract\n\n\
A conversion reads the source into the canonical model and writes the target from it; no \
format knows another. What it promises depends on whether the target is the source's own \
format.\n\n\
**Same format (X -> X).** The reader keeps the file's layout beside the model (key orders, \
indentation, escapes, prose around bullets, the rest of a vAgenda document), and only that \
format's writer uses it. An unchanged skill playbook, skillbook or vAgenda document comes back \
byte for byte; AGENTS.md keeps every byte that is not a bullet. A change touches only what \
changed.\n\n\
**Another format (X -> Y)**, as pandoc does it: a clean file of Y, and a report of what Y could \
not carry.\n\n\
1. **Valid output.** The output passes Y's published schema and `ace-validate` finds no error \
in it. A skill playbook follows `--skill-generation` (default 2, the current generation) and \
passes that generation's `bullet.schema.json`; a vAgenda document passes the core and \
extension schemas of its `--vagenda-version` (default: the source's own version when it is \
vAgenda, else 0.2). CI checks every corpus playbook converted to each with check-jsonschema.\n\
2. **No bookkeeping.** The output holds no other format's layout or bookkeeping (no \
`skill_json`, `agents_md` or `vagenda` keys, no vAgenda document inside a skill playbook) and \
no `null` written for a field that has no value (except where the target's own tools write one: a skillbook's optional skill fields).\n\
3. **Data Y has no field for** goes into Y's extension point under one documented name where Y \
has one: vAgenda's `metadata.aceTools` on the entry (its `extra` for fields of other \
formats), the playbook and the container; playbook.yaml and the canonical JSON hold the whole \
model. The markdown playbook, AGENTS.md, the skill's playbook.json and the skillbook have no \
extension point: what they cannot hold is reported as ACE101 and left out. Nothing is dropped \
without a report.\n\
4. **Values Y requires and X lacks** are derived and reported: a skill `title` from the \
content's first sentence, `tags` from the section and kind, and `bullet-YYYY-MM-DD-NNN` IDs \
(ACE107, ACE106 with `--id-map`); a vAgenda `kind` from the section and a title for the \
playbook; a time without a zone read as UTC and written with `Z` (ACE107); vAgenda's \
`created` and `updated`, and the date of new skill IDs, from `--now` or `SOURCE_DATE_EPOCH`, \
else the input's latest timestamp, else the clock (ACE104; never 1970 unless asked for: a 1970 \
date inside a new ID would be taken for the entry's own by the next conversion); a v2 \
skillbook's `issue` and `keywords` (the content and the section's name, as kayba fills them), \
and an older skillbook's section `general` for an entry with none (ACE107). A value written in another form (a \
confidence level as a number, a status outside Y's set) is ACE105. A section's title or \
prefix that is its key is what a format without them gives back (every writer heads a \
section without a title with its key; a skillbook's IDs are `{key}-N`), and is no loss.\n\
5. **X -> Y -> X** gives back every field Y reported no loss for. Derived values (ACE107) are \
not losses and `--strict` lets them pass. What only X's layout keeps (AGENTS.md's prose and \
comments, the vAgenda document around the playbook: items, narratives, change log) is \
reported as lost (ACE101, field `layout`) by every writer that does not use that layout, so \
`--strict` refuses the trip; `tests/migration.rs` checks every trip of the corpus matrix.\n\
6. **No exact cross-format trips.** There is no option that smuggles X's layout through Y: \
exactness belongs to same-format rewrites.\n\n\
**An input with an error is not converted**: ace-convert prints the findings, exits 1 and \
creates or touches no output file, with or without `--strict`. A file that fails only its \
format's schema (ACE035, ACE048, ACE049) was read and is converted, with the findings \
printed.\n\n\
**The format of an input** is `--from` when given; else the root of a JSON document decides \
when it declares its format (`vAgendaInfo`, `vContextInfo`, the canonical tag, a skillbook's \
`skills` object, v2's among them, or its pre-0.7 `bullets` object beside `sections` or `next_id`); else the \
name (`playbook.json` and `*.playbook.json` are skill-json; `AGENTS.md`, `AGENT.md` and \
`AGENTS.archive.md` agents-md; `*.tron` TRON; `*.vagenda.json`, `*.vcontext.json` vAgenda; \
a `.json` name with `skillbook` in it the skillbook); else the top-level shape (a stray key \
does not change it, and is reported as ACE077). When nothing tells, the message lists every \
format with a one-line description.\n";

/// docs/formats/mapping.md, generated from the tables above so that the
/// two cannot drift (`cargo xtask docs`).
pub fn markdown_doc() -> String {
    let mut out = String::from(
        "# Conversions: the contract, sections, prefixes and vAgenda kinds\n\n\
         <!-- Generated by `cargo xtask docs` from crates/core/ace-model/src/mapping.rs; do not edit. -->\n\n",
    );
    out.push_str(CONTRACT);
    out.push_str(
        "\n## Sections and kinds\n\n\
         The markdown playbook, AGENTS.md and playbook.yaml group entries in sections; vAgenda gives \
         each entry a kind; the skill's playbook.json has neither. A conversion between them goes \
         through the tables below.\n\n\
         ## A kind becomes a section\n\n\
         Writing a vAgenda entry to a format with sections puts it in its kind's section, with \
         that section's ID prefix for new IDs (the ACE playbook format spec: the highest number of the prefix plus one):\n\n\
         | kind | section key | title | prefix |\n|---|---|---|---|\n",
    );
    for r in TABLE {
        out.push_str(&format!(
            "| `{}` | `{}` | {} | `{}` |\n",
            r.kind, r.key, r.title, r.prefix
        ));
    }
    out.push_str(
        "\n## A section becomes a kind\n\n\
         Writing to vAgenda, a section is looked up by prefix, key or title (case-insensitive) \
         in the rows above and then in these, the sections of the ACE paper's AppWorld and FiNER \
         playbooks and the ACE playbook format spec's examples:\n\n\
         | section key | title | prefix | kind |\n|---|---|---|---|\n",
    );
    for r in KNOWN {
        out.push_str(&format!(
            "| `{}` | {} | `{}` | `{}` |\n",
            r.key, r.title, r.prefix, r.kind
        ));
    }
    out.push_str(
        "\n## Unknown sections\n\n\
         A section in no row gets its kind from words in its key and title, in this order: \
         `mistake`, `pitfall`, `avoid`, `warning`, `error`, `harm` make a `warning`; `strateg`, \
         `insight`, `tip`, `practice`, `pattern`, `heuristic` a `strategy`; `rule`, `policy`, \
         `guideline`, `must`, `checklist` a `rule`; `learn`, `lesson`, `reflection` a `learning`; \
         anything else is a `note`, the kind that claims least. The section itself is kept in \
         the entry's `metadata.aceTools`, so converting back gives the original section.\n\n\
         A new ID for an entry of an unknown section takes the section's own prefix, or the \
         first three letters of its key, or the prefix of its kind's section; `oth` when there \
         is none of these.\n\n\
         ## Your own table: `--section-map FILE`\n\n\
         `ace-convert --section-map FILE` reads a JSON array of rows that are tried before all \
         of the above, for both directions:\n\n\
         ```json\n\
         [\n  {\"kind\": \"strategy\", \"title\": \"STRATEGIES AND HARD RULES\", \"prefix\": \"shr\"},\n  \
         {\"kind\": \"warning\", \"title\": \"Gotchas\", \"prefix\": \"got\", \"key\": \"gotchas\"}\n]\n\
         ```\n\n\
         `kind` is one of vAgenda's five kinds; `key` defaults to the title's section key \
         (lower case, `&` as `and`, other runs of punctuation as `_`). The first row of a kind \
         is the section that kind is written to.\n",
    );
    out
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
                .unwrap_err();
        assert!(e.contains("not a vAgenda kind"), "{e}");
        let e = SectionMap::from_json("[{\"kind\": \"note\",\n \"title\": 3}]").unwrap_err();
        assert!(e.starts_with("2:"), "{e}");
        let e =
            SectionMap::from_json("[{\"kind\": \"note\", \"title\": \"X\", \"prefix\": \"-x\"}]")
                .unwrap_err();
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
