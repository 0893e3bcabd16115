//! Rules that judge a playbook's content rather than its syntax, so they apply
//! to every format: IDs, counters, curation, prefixes and duplicates.

use std::collections::HashMap;

use ace_model::{ids, rules, Diagnostic, Entry, Playbook, Span};

pub mod history;
mod quality;

pub use quality::{similar_pairs, unsafe_text, Pair, Similarity, EVIDENCE_TYPES};

#[derive(Debug, Clone)]
pub struct Options {
    /// The playbook format spec's curation rule prunes when `harmful > helpful + threshold`.
    pub threshold: i64,
    /// Check the playbook format spec's ID shape (`xxx-NNNNN`).
    pub id_shape: bool,
    /// Check that IDs use their section's prefix (the playbook format spec).
    pub prefixes: bool,
    /// Report the curator spec's deprecation rule, `harmful > helpful`.
    pub deprecation: bool,
    /// The playbook format spec's anti-patterns: vague content, secrets, one-off specifics.
    pub quality: bool,
    /// ACE056: content with fewer words is too vague.
    pub vague_words: usize,
    /// ACE061: word similarity above which two entries are likely duplicates.
    pub similarity: f64,
    /// ACE061: tag overlap above which two entries are compared.
    pub tag_overlap: f64,
    /// ACE072: confidence at or above which self-reported entries are reported.
    pub self_report_confidence: f64,
    /// ACE061 is searched for (false where its findings would all be
    /// left out: the search is the costliest rule).
    pub likely_duplicates: bool,
    /// ACE062, the append-only ADR's GuardrailMonitor quarantine.
    pub guardrail: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: 3,
            id_shape: true,
            prefixes: true,
            deprecation: false,
            quality: true,
            vague_words: 4,
            similarity: 0.8,
            tag_overlap: 0.7,
            self_report_confidence: 0.8,
            likely_duplicates: true,
            guardrail: true,
        }
    }
}

/// The playbook format spec's section for each of its prefixes, by section key.
const SEED_PREFIXES: [(&str, &str); 4] = [
    ("str", "strategies_and_insights"),
    ("cal", "formulas_and_calculations"),
    ("mis", "common_mistakes_to_avoid"),
    ("dom", "domain_knowledge"),
];

pub(crate) fn span(e: &Entry) -> Span {
    e.origin.0.unwrap_or_default()
}

pub fn lint(pb: &Playbook, opts: &Options) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    ids_and_counters(pb, opts, &mut out);
    if opts.prefixes {
        prefixes(pb, &mut out);
    }
    duplicate_content(pb, &mut out);
    for e in &pb.entries {
        if opts.quality {
            quality::vague(e, opts, &mut out);
            quality::secrets(e, &mut out);
            quality::one_off(e, &mut out);
        }
        quality::hidden_text(e, &mut out);
        quality::tags(e, &mut out);
        quality::evidence(e, &mut out);
        if opts.guardrail {
            quality::quarantine(e, &mut out);
        }
        quality::self_report(e, opts, &mut out);
    }
    if opts.likely_duplicates {
        quality::likely_duplicates(pb, opts, &mut out);
    }
    out.sort_by_key(|d| (d.span.start, d.code));
    out
}

fn ids_and_counters(pb: &Playbook, opts: &Options, out: &mut Vec<Diagnostic>) {
    let mut first: HashMap<&str, &Entry> = HashMap::with_capacity(pb.entries.len());
    for e in &pb.entries {
        if opts.id_shape && !ids::is_numbered(&e.id) {
            out.push(Diagnostic::new(
                &rules::ID_SHAPE,
                span(e),
                format!(
                    "ID `{}` is not `prefix-NNNNN`: the spec's tools number new IDs by the digits after the last `-`",
                    e.id
                ),
            ));
        }
        if let Some(prev) = first.get(e.id.as_str()) {
            out.push(
                Diagnostic::new(
                    &rules::DUPLICATE_ID,
                    span(e),
                    format!("duplicate ID `{}`", e.id),
                )
                .with_related(span(prev), "first used here"),
            );
        } else {
            first.insert(&e.id, e);
        }
        for (name, value) in [
            ("helpful", e.helpful),
            ("harmful", e.harmful),
            ("neutral", e.neutral),
        ] {
            if let Some(v) = value.filter(|v| *v < 0) {
                out.push(Diagnostic::new(
                    &rules::NEGATIVE_COUNTER,
                    span(e),
                    format!("`{name}` is {v}; counters are never negative"),
                ));
            }
        }
        if let (Some(helpful), Some(harmful)) = (e.helpful, e.harmful) {
            if harmful > helpful.saturating_add(opts.threshold) {
                out.push(
                    Diagnostic::new(
                        &rules::CURATION_THRESHOLD,
                        span(e),
                        format!(
                            "harmful={harmful} exceeds helpful={helpful} + {}: pruning candidate",
                            opts.threshold
                        ),
                    )
                    .with_help("rewrite the entry or remove it"),
                );
            }
        }
        if let (true, Some(helpful), Some(harmful)) = (opts.deprecation, e.helpful, e.harmful) {
            let retired = matches!(
                e.status,
                Some(ace_model::Status::Deprecated | ace_model::Status::Archived)
            );
            if harmful > helpful && !retired {
                out.push(
                    Diagnostic::new(
                        &rules::DEPRECATION_DUE,
                        span(e),
                        format!("harmful={harmful} exceeds helpful={helpful}: the ace_beads curator spec deprecates this bullet"),
                    )
                    .with_help("rewrite the bullet, or move it to AGENTS.archive.md"),
                );
            }
        }
        if e.content.trim().is_empty() {
            out.push(Diagnostic::new(
                &rules::EMPTY_CONTENT,
                span(e),
                format!("entry `{}` has no content", e.id),
            ));
        }
    }
}

fn prefixes(pb: &Playbook, out: &mut Vec<Diagnostic>) {
    // Per section: how many entries use each prefix.
    let mut per_section: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
    for e in &pb.entries {
        if let (Some(s), Some(p)) = (e.section.as_deref(), ids::parse_prefixed(&e.id)) {
            *per_section
                .entry(s)
                .or_default()
                .entry(p.prefix)
                .or_default() += 1;
        }
    }
    let sections = pb.sections_by_key();
    for e in &pb.entries {
        let (Some(section), Some(p)) = (e.section.as_deref(), ids::parse_prefixed(&e.id)) else {
            continue;
        };
        let seed_home = SEED_PREFIXES
            .iter()
            .find(|(sp, _)| *sp == p.prefix)
            .map(|(_, s)| *s);
        let section_is_seed = SEED_PREFIXES.iter().any(|(_, s)| *s == section);
        let title = sections
            .get(section)
            .map(|s| s.display_title())
            .unwrap_or(section);
        if let Some(home) = seed_home.filter(|h| section_is_seed && *h != section) {
            out.push(Diagnostic::new(
                &rules::PREFIX_SECTION,
                span(e),
                format!(
                    "prefix `{}` belongs to section `{home}`, but `{}` is under `{title}`",
                    p.prefix, e.id
                ),
            ));
            continue;
        }
        let counts = &per_section[section];
        if counts.len() > 1 {
            let main = majority(counts).unwrap_or(p.prefix);
            if main != p.prefix {
                out.push(Diagnostic::new(
                    &rules::PREFIX_SECTION,
                    span(e),
                    format!(
                        "section `{title}` mostly uses prefix `{main}`, but `{}` uses `{}`",
                        e.id, p.prefix
                    ),
                ));
            }
        }
    }
}

/// The most used prefix; ties go to the alphabetically first, so output is stable.
fn majority<'a>(counts: &HashMap<&'a str, usize>) -> Option<&'a str> {
    counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(p, _)| *p)
}

fn duplicate_content(pb: &Playbook, out: &mut Vec<Diagnostic>) {
    // First entry per curator-spec key, and per normalised content alone: the
    // curator's hash misses the same advice filed under two sections.
    let mut seen: HashMap<String, &Entry> = HashMap::with_capacity(pb.entries.len());
    let mut anywhere: HashMap<String, &Entry> = HashMap::with_capacity(pb.entries.len());
    for e in &pb.entries {
        if e.content.trim().is_empty() {
            continue;
        }
        let normalized = ace_model::normalize::normalize(&e.content);
        let key = ace_model::normalize::key_of_normalized(
            e.section.as_deref().unwrap_or(""),
            &normalized,
        );
        let (prev, message) = if let Some(prev) = seen.get(&key) {
            (
                *prev,
                format!(
                    "`{}` has the same normalised content as `{}`",
                    e.id, prev.id
                ),
            )
        } else if let Some(prev) = anywhere.get(&normalized) {
            let other = prev.section.as_deref().unwrap_or("(none)");
            (
                *prev,
                format!(
                    "`{}` has the same normalised content as `{}` in section `{other}`",
                    e.id, prev.id
                ),
            )
        } else {
            seen.insert(key, e);
            anywhere.insert(normalized, e);
            continue;
        };
        seen.entry(key).or_insert(e);
        out.push(
            Diagnostic::new(&rules::DUPLICATE_CONTENT, span(e), message)
                .with_related(span(prev), "first entry with this content"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_model::Section;

    fn entry(id: &str, section: &str, content: &str, helpful: i64, harmful: i64) -> Entry {
        let mut e = Entry::new(id, content);
        e.section = Some(section.into());
        e.helpful = Some(helpful);
        e.harmful = Some(harmful);
        e
    }

    /// The structural rules only: the content-quality rules and the append-only ADR's
    /// quarantine note have their own tests below.
    fn structural(d: &Diagnostic) -> bool {
        !matches!(d.code, "ACE056" | "ACE057" | "ACE058" | "ACE062")
    }

    fn codes(pb: &Playbook) -> Vec<(&'static str, String)> {
        lint(pb, &Options::default())
            .into_iter()
            .filter(structural)
            .map(|d| (d.code, d.message))
            .collect()
    }

    #[test]
    fn clean_playbook_has_no_findings() {
        let mut pb = Playbook::default();
        pb.sections.push(Section::new("strategies_and_insights"));
        pb.entries.push(entry(
            "str-00001",
            "strategies_and_insights",
            "Verify types",
            5,
            0,
        ));
        pb.entries.push(entry(
            "str-00002",
            "strategies_and_insights",
            "Split problems",
            0,
            3,
        ));
        assert!(codes(&pb).is_empty(), "{:?}", codes(&pb));
    }

    #[test]
    fn each_rule_fires() {
        let mut pb = Playbook::default();
        let s = "strategies_and_insights";
        pb.entries = vec![
            entry("str-00001", s, "Verify types", 1, 0),
            entry("str-00001", s, "other", 1, 0),
            entry("str-00003", s, "  VERIFY   types ", 0, 0),
            entry("str-00004", s, "neg", -1, 0),
            entry("str-00005", s, "bad advice", 1, 5),
            entry("mis-00006", s, "wrong home", 0, 0),
            entry("s7", s, "odd shape", 0, 0),
            entry("str-00008", s, " ", 0, 0),
        ];
        let got: Vec<&str> = codes(&pb).iter().map(|(c, _)| *c).collect();
        for code in [
            "ACE002", "ACE008", "ACE005", "ACE006", "ACE007", "ACE001", "ACE021",
        ] {
            assert!(got.contains(&code), "{code} missing from {got:?}");
        }
        // harmful = helpful + 3 is not yet over the threshold
        pb.entries = vec![entry("str-00001", s, "x", 1, 4)];
        assert!(codes(&pb).is_empty());
        let strict = Options {
            threshold: 0,
            ..Options::default()
        };
        assert_eq!(lint(&pb, &strict)[0].code, "ACE006");
    }

    #[test]
    fn content_quality_and_quarantine() {
        let s = "strategies_and_insights";
        let found = |content: &str, helpful, harmful| -> Vec<&'static str> {
            let pb = Playbook {
                entries: vec![entry("str-00001", s, content, helpful, harmful)],
                ..Playbook::default()
            };
            lint(&pb, &Options::default())
                .into_iter()
                .map(|d| d.code)
                .collect()
        };
        let good = "Reproduce the failure with a test before changing the code";
        assert!(found(good, 2, 0).is_empty());
        assert_eq!(found("Be careful!", 1, 0), ["ACE056"]);
        assert_eq!(found("Check your work", 1, 0), ["ACE056"]);
        assert_eq!(found("Verify types first", 1, 0), ["ACE056"]);
        assert_eq!(
            found("The API key was abc123 for the staging service", 1, 0),
            ["ACE057"]
        );
        assert_eq!(
            found(
                "Use token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for pushes",
                1,
                0
            ),
            ["ACE057"]
        );
        assert!(found("Refresh the auth token when it is expired", 1, 0).is_empty());
        assert_eq!(
            found(
                "Rerun job 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f when it flakes",
                1,
                0
            ),
            ["ACE058"]
        );
        assert_eq!(
            found("Logs live in /home/alice/run/logs on the build box", 1, 0),
            ["ACE058"]
        );
        assert_eq!(found(good, 1, 1), ["ACE062"]);
        assert!(found(good, 0, 0).is_empty(), "no signal, no quarantine");
    }

    #[test]
    fn tags_evidence_self_report_and_likely_duplicates() {
        let mut a = entry(
            "a",
            "s",
            "Retry git push with exponential backoff on network errors",
            1,
            0,
        );
        a.tags = Some(vec!["git.push".into(), "retry".into(), "network".into()]);
        let mut b = a.clone();
        b.id = "b".into();
        b.content = "Retry a git push with exponential backoff on network errors".into();
        let mut c = entry(
            "c",
            "s",
            "Validate JSON files against their schema before committing",
            1,
            0,
        );
        c.tags = Some(vec!["Git Push".into(), "json".into()]);
        c.evidence = Some(vec![ace_model::Evidence::Ref(ace_model::EvidenceRef {
            kind: Some("hunch".into()),
            ..Default::default()
        })]);
        c.confidence = Some(ace_model::Confidence::Score(
            serde_json::Number::from_f64(0.9).unwrap(),
        ));
        c.extra.insert("feedbackType", "selfReport".into());
        let pb = Playbook {
            entries: vec![a, b, c],
            ..Playbook::default()
        };
        let opts = Options {
            id_shape: false,
            ..Options::default()
        };
        let found: Vec<_> = lint(&pb, &opts).into_iter().map(|d| d.code).collect();
        assert_eq!(found, ["ACE059", "ACE060", "ACE061", "ACE072"]);
        let loose = Options {
            similarity: 0.95,
            ..opts
        };
        assert!(!lint(&pb, &loose).iter().any(|d| d.code == "ACE061"));
    }

    #[test]
    fn minority_prefix_in_a_section() {
        let pb = Playbook {
            entries: vec![
                entry("shr-00001", "rules", "a", 0, 0),
                entry("shr-00002", "rules", "b", 0, 0),
                entry("api-00003", "rules", "c", 0, 0),
            ],
            ..Playbook::default()
        };
        let found = codes(&pb);
        assert_eq!(found.len(), 1);
        assert!(found[0].1.contains("`api-00003`"));
    }

    #[test]
    fn curator_profile_reports_deprecation_but_not_the_markdown_specs_shapes() {
        let curator = Options {
            id_shape: false,
            prefixes: false,
            deprecation: true,
            ..Options::default()
        };
        let mut retired = entry("test-harmful-2", "b", "old advice", 0, 2);
        retired.status = Some(ace_model::Status::Deprecated);
        let pb = Playbook {
            entries: vec![
                entry("88f22305", "b", "fine", 1, 1),
                entry("test-harmful-1", "b", "bad advice", 1, 3),
                retired,
            ],
            ..Playbook::default()
        };
        let found: Vec<_> = lint(&pb, &curator)
            .into_iter()
            .filter(structural)
            .map(|d| d.code)
            .collect();
        assert_eq!(found, ["ACE029"]);
        assert!(codes(&pb).iter().all(|(c, _)| *c != "ACE029"));
    }
}
