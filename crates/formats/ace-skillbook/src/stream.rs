//! The skills of a skillbook read as the parser meets them, on every core.
//!
//! The parser hands the values of the era's object (`skills`, or the
//! `bullets` of releases before 0.7) over as text; each is parsed and read
//! into a [`SkillRead`] where it is taken, and its span tree dropped there.
//! The tree keeps the object's keys (the skill IDs), so duplicate IDs are
//! reported by the parse as before and each read is given its ID in order
//! by [`crate::read::assemble`], which is the whole read's code.
//!
//! What the stream cannot settle alone makes [`read`] return `None`, and
//! the caller reads the whole tree: a first skill that is not an object
//! (the template of key orders comes from the first that is), an era
//! object taken twice or not the era's, a value that does not parse
//! alone. A test requires the same output both ways on every fixture and
//! corpus file and on generated skillbooks.

use ace_jsonspan::stream::{read_items, Plan, ReadItems, TakeItems};
use ace_jsonspan::{Document, Node, Taken};
use ace_model::{Diagnostic, Span};

use crate::skill::{era_of, key_order, read_skill, SkillRead, Skills};

/// The document, and the reads of its era object's skills if the stream
/// took them (the tree then holds their keys with `null` values; without
/// them the tree is whole). `None`: read the whole tree instead. A parse
/// error is the same either way.
pub(crate) fn read(
    text: &str,
    orders: bool,
) -> Result<Option<(Document, Option<Skills>)>, Diagnostic> {
    let plan = EraObject {
        taken: None,
        orders,
    };
    let take = Taker::default();
    let (doc, streamed) = read_items(text, true, plan, take, |sink| {
        ace_jsonspan::parse_with(text, sink)
    });
    let doc = match doc {
        Ok(doc) => doc,
        // A skill handed over as text, before the place of this error,
        // may not parse either, and its error is the one to report: the
        // whole read's parse finds the first.
        Err(_) if streamed.handed_text => return Ok(None),
        Err(e) => return Err(e),
    };
    let take = streamed.take;
    match streamed.arrays {
        0 => return Ok(Some((doc, None))),
        1 if !take.broken => {}
        _ => return Ok(None),
    }
    let era = era_of(&doc.root);
    let mut objects = doc
        .root
        .members()
        .unwrap_or_default()
        .iter()
        .filter(|m| m.key == era);
    let settled = streamed.plan.taken.as_deref() == Some(era)
        && match (objects.next(), objects.next()) {
            (Some(only), None) => only
                .value
                .members()
                .is_some_and(|skills| skills.len() == take.count),
            _ => false,
        };
    if !settled {
        return Ok(None);
    }
    let skills = Skills {
        reads: take.reads,
        template: take.template,
    };
    Ok(Some((doc, Some(skills))))
}

/// Takes the values of the first era object met; its first skill, parsed
/// here, gives the key order the others are compared with.
struct EraObject {
    /// The key of the first object taken.
    taken: Option<String>,
    /// Whether key orders are kept (for the layout).
    orders: bool,
}

impl<'t> Plan<'t> for EraObject {
    type Read = ReadSkills;
    type Take = Taker;

    fn wants(&mut self, _: &[&str]) -> bool {
        false
    }

    fn wants_members(&mut self, path: &[&str]) -> bool {
        let wanted = matches!(path, ["skills" | "bullets"]);
        if wanted && self.taken.is_none() {
            self.taken = Some(path[0].to_owned());
        }
        wanted
    }

    fn begin(
        &mut self,
        take: &mut Taker,
        first: &mut Taken,
        parse: Option<&mut (dyn FnMut(Span) -> Option<Node> + '_)>,
    ) -> ReadSkills {
        let template = first.resolve(parse).and_then(|n| key_order(n));
        take.broken |= template.is_none();
        take.template.clone_from(&template);
        ReadSkills {
            template,
            orders: self.orders,
        }
    }
}

struct ReadSkills {
    /// `None`: the first skill is not an object; nothing is read.
    template: Option<Vec<String>>,
    orders: bool,
}

#[derive(Default)]
struct Run {
    reads: Vec<SkillRead>,
    broken: bool,
}

impl ReadItems for ReadSkills {
    type Run = Run;

    fn run(&self, len: usize) -> Run {
        Run {
            reads: Vec::with_capacity(len),
            broken: false,
        }
    }

    fn item(&self, run: &mut Run, _: usize, node: Option<&mut Node>) -> bool {
        let (Some(node), Some(template)) = (node, self.template.as_deref()) else {
            run.broken = true;
            return false;
        };
        let mut read = read_skill(node, self.orders.then_some(template));
        // Duplicate keys inside a taken value are ours to report: the
        // parse did not see them.
        let mut repeated = Vec::new();
        ace_jsonspan::duplicate_keys(node, &mut repeated);
        if !repeated.is_empty() {
            read.odd().diags.append(&mut repeated);
        }
        run.reads.push(read);
        true
    }

    fn item_text(&self, run: &mut Run, _: usize, text: &str, span: Span) -> bool {
        let Some(template) = self.template.as_deref() else {
            return false;
        };
        // The key is here, in the cache: whether the `id` field is it is
        // settled here, not on the parser's thread.
        let key = key_before(text, span).and_then(|k| text.get(k.start + 1..k.end - 1));
        match crate::skill::read_skill_text(text, span, self.orders.then_some(template), key) {
            Some(read) => {
                run.reads.push(read);
                true
            }
            None => false,
        }
    }
}

/// The quoted key before a member's value at `value`, if it has no
/// escapes: the span the parse gives that member's key.
fn key_before(text: &str, value: Span) -> Option<Span> {
    let b = text.as_bytes();
    let ws = |i: usize| {
        b[..i]
            .iter()
            .rposition(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
            .map(|p| p + 1)
    };
    let colon = ws(value.start)?.checked_sub(1)?;
    if b[colon] != b':' {
        return None;
    }
    let end = ws(colon)?;
    if end < 2 || b[end - 1] != b'"' {
        return None;
    }
    let open = memchr::memrchr(b'"', &b[..end - 1])?;
    let escaped =
        memchr::memchr(b'\\', &b[open..end]).is_some() || (open > 0 && b[open - 1] == b'\\');
    (!escaped).then_some(Span::new(open, end))
}

#[derive(Default)]
struct Taker {
    /// The runs' reads in order, each kept as its run made it: moving
    /// them into one list was a copy of every read on the parser's thread.
    reads: Vec<Vec<SkillRead>>,
    /// How many reads the runs hold.
    count: usize,
    template: Option<Vec<String>>,
    broken: bool,
}

impl TakeItems<Run> for Taker {
    fn take(&mut self, run: Run) {
        self.broken |= run.broken;
        self.count += run.reads.len();
        self.reads.push(run.reads);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_jsonspan::testing::outcome;
    use ace_model::Severity;

    use crate::read::Want;

    /// The streamed read (or its fallback) gives what the whole read
    /// gives, for every severity asked, with the layout and without;
    /// returns whether the stream settled it alone. Without the layout,
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
            let streamed = crate::read::read_for(text, want);
            if !layout {
                let with = crate::read::read_for(text, Want::new(min, true));
                match (&streamed, with) {
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
            match (whole, streamed) {
                (Err(a), Err(b)) => assert_eq!(a, b, "{name}"),
                (Ok(a), Ok(b)) => {
                    assert_eq!(
                        b.playbook.layout_of(crate::LAYOUT_KEY),
                        a.playbook.layout_of(crate::LAYOUT_KEY),
                        "{name}"
                    );
                    assert_eq!(outcome(b), outcome(a), "{name}");
                }
                (a, b) => panic!("{name}: whole {a:?}, streamed {b:?}"),
            }
            settled = matches!(read(text, layout), Ok(Some((_, Some(_)))));
        }
        settled
    }

    #[test]
    fn streamed_skills_read_as_the_whole_tree_does_for_odd_shapes() {
        let a = r#"{"id": "a-00001", "section": "a", "content": "x", "helpful": 1}"#;
        let b = r#"{"content": "y", "id": "b-00002", "sources": ["s", "t"], "helpful": null}"#;
        let dup = r#"{"id": "a-00001", "content": "z", "content": "w", "harmful": "no"}"#;
        let cases = [
            format!(r#"{{"skills": {{"a-00001": {a}, "b-00002": {b}}}, "next_id": 1}}"#),
            format!(r#"{{"skills": {{"a-00001": {a}, "a-00001": {dup}}}}}"#),
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
                true, true, false, false, false, false, false, true, true, false, false, true,
                false, false, false
            ]
        );
    }

    /// A raw control character in one skill of a streamed skillbook is
    /// the parse error, at it, whether the skill is read on another
    /// thread or not: its text is no plain member, and the skill's parse
    /// refuses it.
    #[test]
    fn a_control_character_in_a_streamed_skill_is_the_error_at_it() {
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
        assert!(read(&text.replace('\t', " "), false)
            .expect("JSON")
            .is_some_and(|(_, skills)| skills.is_some()));
    }

    /// How many of the JSON files under `dir` the stream settled alone;
    /// each read gives what the whole read gives.
    fn streamed_as_whole(dir: &std::path::Path) -> usize {
        let files = ace_jsonspan::testing::json_files(dir);
        assert!(!files.is_empty(), "no JSON under {}", dir.display());
        files
            .iter()
            .filter_map(|f| Some((f, std::fs::read_to_string(f).ok()?)))
            .filter(|(f, text)| same_as_whole(&f.display().to_string(), text))
            .count()
    }

    #[test]
    fn streamed_skills_read_as_the_whole_tree_does_for_every_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures");
        assert!(streamed_as_whole(&root) >= 2);
    }

    #[test]
    #[ignore = "needs ACE_CORPUS"]
    fn streamed_skills_read_as_the_whole_tree_does_for_the_corpus() {
        let corpus = std::env::var_os("ACE_CORPUS").expect("this test needs ACE_CORPUS");
        // Every JSON file, read as a skillbook: the kayba ones and any
        // other shape.
        assert!(streamed_as_whole(std::path::Path::new(&corpus)) >= 5);
    }
}
