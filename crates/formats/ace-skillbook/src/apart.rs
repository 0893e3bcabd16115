//! The skills of a large skillbook read apart from the tree, on every
//! core.
//!
//! The parser leaves the values of the era's object (`skills`, or the
//! `bullets` of releases before 0.7) as their text
//! ([`ace_jsonspan::split`]); each is read straight from it where its
//! members are plain, else parsed and read as a tree, by the same
//! [`read_taken_skill`] code. The tree keeps the object's keys (the skill IDs),
//! so duplicate IDs are reported by the parse as before, and each run of
//! skills is given its IDs ([`crate::skill::Run`]) on the core that read it.
//!
//! What the reads apart cannot settle alone makes [`read`] give the whole
//! tree and no reads: a first skill that is not an object (the template of
//! key orders comes from the first that is), an era object taken twice or
//! not the era's, a value that does not parse alone. A test requires the
//! same output both ways on every fixture and corpus file.

use ace_jsonspan::split::{parse_apart, Split};
use ace_jsonspan::{Document, ItemSink, Taken};
use ace_model::Diagnostic;

use crate::member::MEMBER_DEPTH;
use crate::skill::{era_of, key_order, read_skill_text, read_taken_skill, Run, Skills};

/// Both eras' objects of skills.
const ERAS: Split = Split {
    arrays: &[],
    members: &[&["skills"], &["bullets"]],
};

/// The document, and the reads of its era object's skills if they were
/// read apart (the tree then holds their keys with `null` values; without
/// them the tree is whole). `orders`: keep each skill's key order.
pub(crate) fn read(text: &str, orders: bool) -> Result<(Document, Option<Skills>), Diagnostic> {
    let parse = |sink: Option<&mut dyn ItemSink>| match sink {
        Some(sink) => ace_jsonspan::parse_with(text, sink),
        None => ace_jsonspan::parse(text),
    };
    let mut apart = parse_apart(ERAS, parse)?;
    let skills = match apart.taken.as_mut_slice() {
        [only] => read_apart(text, &apart.doc, &mut only.items, &only.path, orders),
        _ => None,
    };
    match (skills, apart.taken.is_empty()) {
        (Some(skills), _) => Ok((apart.doc, Some(skills))),
        (None, true) => Ok((apart.doc, None)),
        (None, false) => match apart.whole(text) {
            Some(doc) => Ok((doc, None)),
            None => Ok((parse(None)?, None)),
        },
    }
}

/// The reads of `items`, the values of the object at `path`, if it is the
/// era's only object and every item reads alone.
fn read_apart(
    text: &str,
    doc: &Document,
    items: &mut [Taken],
    path: &[String],
    orders: bool,
) -> Option<Skills> {
    let era = era_of(&doc.root);
    if path != [era] {
        return None;
    }
    let mut objects = doc.root.members()?.iter().filter(|m| m.key == era);
    let keys = match (objects.next(), objects.next()) {
        (Some(only), None) => only.value.members()?,
        _ => return None,
    };
    if keys.len() != items.len() {
        return None;
    }
    let template = match items.first()? {
        Taken::Node(node) => key_order(node),
        Taken::Text(span) => {
            let node = ace_jsonspan::parse_at_depth(text, span.start..span.end, MEMBER_DEPTH)?;
            key_order(&node)
        }
    }?;
    let kept = orders.then_some(template.as_slice());
    let v2 = doc.root.get("schema_version").is_some();
    let runs = ace_exec::par::map_runs_mut(items, |first, run| {
        let mut settled = Run::new(v2, orders);
        settled.entries.reserve(run.len());
        let mut scratch = Vec::with_capacity(16);
        for (item, m) in run.iter_mut().zip(&keys[first..]) {
            let read = match item {
                Taken::Text(span) => {
                    read_skill_text(text, *span, kept, Some(m.key.as_str()), &mut scratch)?
                }
                Taken::Node(node) => read_taken_skill(node, kept),
            };
            settled.settle(m, read);
        }
        Some(settled)
    });
    Some(Skills {
        runs: runs.into_iter().collect::<Option<_>>()?,
        template: Some(template),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_jsonspan::testing::outcome;
    use ace_model::Severity;

    use crate::read::Want;

    /// The read apart (or its fallback) gives what the whole read
    /// gives, for every severity asked, with the layout and without;
    /// returns whether the skills were read apart. Without the layout,
    /// the playbook and findings are those of the read with it.
    fn same_as_whole(name: &str, text: &str) -> bool {
        let mut settled = false;
        for (min, layout) in [
            (Severity::Info, true),
            (Severity::Error, true),
            (Severity::Error, false),
            (Severity::Warning, false),
        ] {
            let want = Want::new(min, layout);
            let whole = crate::read::read_tree(text, want);
            let apart = crate::read::read_for(text, want);
            if !layout {
                let with = crate::read::read_for(text, Want::new(min, true));
                match (&apart, with) {
                    (Ok(data), Ok(with)) => {
                        assert!(
                            data.playbook.layout_of(crate::LAYOUT_KEY).is_none(),
                            "{name}"
                        );
                        assert_eq!(outcome(data.clone()), outcome(with), "{name}");
                    }
                    (Err(a), Err(b)) => assert_eq!(*a, b, "{name}"),
                    (a, b) => panic!("{name}: data {a:?}, with layout {b:?}"),
                }
            }
            match (whole, apart) {
                (Err(a), Err(b)) => assert_eq!(a, b, "{name}"),
                (Ok(a), Ok(b)) => {
                    assert_eq!(
                        b.playbook.layout_of(crate::LAYOUT_KEY),
                        a.playbook.layout_of(crate::LAYOUT_KEY),
                        "{name}"
                    );
                    assert_eq!(outcome(b), outcome(a), "{name}");
                }
                (a, b) => panic!("{name}: whole {a:?}, apart {b:?}"),
            }
            settled = matches!(read(text, layout), Ok((_, Some(_))));
        }
        settled
    }

    #[test]
    fn skills_read_apart_read_as_the_whole_tree_does_for_odd_shapes() {
        let a = r#"{"id": "a-00001", "section": "a", "content": "x", "helpful": 1}"#;
        let b = r#"{"content": "y", "id": "b-00002", "sources": ["s", "t"], "helpful": null}"#;
        let dup = r#"{"id": "a-00001", "content": "z", "content": "w", "harmful": "no"}"#;
        let cases = [
            format!(r#"{{"skills": {{"a-00001": {a}, "b-00002": {b}}}, "next_id": 1}}"#),
            format!(r#"{{"skills": {{"a-00001": {a}, "a-00001": {dup}}}}}"#),
            format!(r#"{{"skills": {{"c-00003": {dup}, "b-00002": {b}, "a-00001": {a}}}}}"#),
            format!(r#"{{"skills": {{"x": 3, "a-00001": {a}}}}}"#),
            format!(r#"{{"skills": {{"x": [1, 2], "a-00001": {a}}}}}"#),
            format!(r#"{{"skills": {{"a-00001": {a}}}, "skills": {{"b-00002": {b}}}}}"#),
            format!(r#"{{"skills": {{"a-00001": {a}}}, "skills": 4}}"#),
            format!(r#"{{"bullets": {{"a-00001": {a}}}, "skills": {{"b-00002": {b}}}}}"#),
            format!(r#"{{"bullets": {{"a-00001": {a}, "b-00002": {b}}}, "next_id": 9}}"#),
            format!(r#"{{"sections": {{"a": ["a-00001"]}}, "skills": {{"a-00001": {a}}}}}"#),
            format!(r#"{{"skills": {{"a-00001": {a}, "b-00002": {{"id": 1,}}}}}}"#),
            format!(r#"{{"skills": {{"a-00001": {a}, "b-00002": {b}}}"#),
            r#"{"skills": {}}"#.to_owned(),
            r#"{"skills": []}"#.to_owned(),
            r#"{"other": {"skills": {"a": {}}}}"#.to_owned(),
            r#"[{"skills": {"a": {}}}]"#.to_owned(),
        ];
        let settled: Vec<bool> = cases
            .iter()
            .enumerate()
            .map(|(i, c)| same_as_whole(&format!("case {i}"), c))
            .collect();
        assert_eq!(
            settled,
            [
                true, true, true, false, false, false, false, false, true, true, false, false,
                false, false, false, false
            ]
        );
    }

    /// A skill that is no object gives no entry, and the skills after it
    /// theirs, in their places.
    #[test]
    fn a_skill_that_is_no_object_leaves_the_others_in_place() {
        let a = r#"{"id": "a-00001", "section": "a", "content": "x y", "helpful": 1}"#;
        let b = r#"{"id": "b-00002", "section": "a", "content": "z"}"#;
        let text = format!(r#"{{"skills": {{"x": 3, "a-00001": {a}, "y": [1], "b-00002": {b}}}}}"#);
        for layout in [false, true] {
            let out = crate::read::read_for(&text, Want::new(Severity::Info, layout)).unwrap();
            let read: Vec<(&str, &str)> = out
                .playbook
                .entries
                .iter()
                .map(|e| (e.id.as_str(), e.content.as_str()))
                .collect();
            assert_eq!(read, [("a-00001", "x y"), ("b-00002", "z")]);
        }
    }

    /// A raw control character in one skill of a large skillbook is
    /// the parse error, at it, whether the skill is read on another
    /// thread or not: its text is no plain member, and the skill's parse
    /// refuses it.
    #[test]
    fn a_control_character_in_a_skill_read_apart_is_the_error_at_it() {
        let skill = |i: usize| {
            format!(
                r#""context-{i:05}": {{"id": "context-{i:05}", "section": "context", "keywords": ["a"], "issue": "issue {i}", "insight": "do this {i}", "occurrences": [], "active": true, "used_count": 0, "helpful_count": 0, "harmful_count": 0, "neutral_count": 0, "created_at": "t", "updated_at": "t"}}"#
            )
        };
        let mut skills: Vec<String> = (1..=20_000).map(skill).collect();
        skills[12_000] = skills[12_000].replace("issue 12001", "issue\t12001");
        let text = format!(
            r#"{{"schema_version": "2", "skills": {{{}}}, "next_id": 20001}}"#,
            skills.join(", ")
        );
        let at = text.find('\t').expect("a tab");
        for layout in [false, true] {
            let e = crate::read::read_for(&text, Want::new(Severity::Error, layout))
                .expect_err("no JSON");
            assert_eq!(e.span.start, at, "{}", e.message);
            assert!(e.message.contains("U+0009"), "{}", e.message);
        }
        let (_, skills) = read(&text.replace('\t', " "), false).expect("JSON");
        assert!(skills.is_some());
    }

    /// How many of the JSON files under `dir` were read apart;
    /// each read gives what the whole read gives.
    fn apart_as_whole(dir: &std::path::Path) -> usize {
        let files = ace_jsonspan::testing::json_files(dir);
        assert!(!files.is_empty(), "no JSON under {}", dir.display());
        files
            .iter()
            .filter_map(|f| Some((f, std::fs::read_to_string(f).ok()?)))
            .filter(|(f, text)| same_as_whole(&f.display().to_string(), text))
            .count()
    }

    #[test]
    fn skills_read_apart_read_as_the_whole_tree_does_for_every_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures");
        assert!(apart_as_whole(&root) >= 2);
    }

    #[test]
    #[ignore = "needs ACE_CORPUS"]
    fn skills_read_apart_read_as_the_whole_tree_does_for_the_corpus() {
        let corpus = std::env::var_os("ACE_CORPUS").expect("this test needs ACE_CORPUS");
        // Every JSON file, read as a skillbook: the kayba ones and any
        // other shape.
        assert!(apart_as_whole(std::path::Path::new(&corpus)) >= 5);
    }
}
