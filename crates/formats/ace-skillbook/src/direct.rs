//! A skill read straight from its text, without a span tree: the shape
//! kayba saves (every release's keys, each with the type it writes, no
//! finding to report). Building each skill's tree and copying its strings
//! out again was most of a large skillbook's read.
//!
//! [`read_skill`] gives what [`crate::skill::read_skill`] gives of the
//! parsed skill, or `None` when the skill is anything else: a key kayba
//! does not write, a value of another type, an escape, a finding of any
//! kind, or text the parser would reject. The caller then parses it and
//! reads the tree, so every such case keeps its one reference reading.
//! Tests hold the two to the same result on generated skills, fixtures
//! and the corpus.

use ace_jsonspan::Node;
use ace_model::{Entry, Evidence, Extra, Span, Status};
use serde_json::Value;

use crate::skill::{finish, first_scalar_list, own_order, SkillRead, INACTIVE};

/// How deep a skill's member values stand in the document (the root
/// object, the era object, the skill), for the parser's nesting limit.
const MEMBER_DEPTH: usize = 3;

/// How many keys [`key_index`] knows.
const KEYS: usize = 22;

/// The bits of [`key_index`] of a v2 skill's keys ([`crate::V2_KEYS`]).
const V2_BITS: u32 = 1 << 0
    | 1 << 1
    | 1 << 8
    | 1 << 9
    | 1 << 13
    | 1 << 14
    | 1 << 15
    | 1 << 16
    | 1 << 17
    | 1 << 18
    | 1 << 19
    | 1 << 20
    | 1 << 21;

/// A bit each for the keys of a skill in every era (kayba's
/// [`crate::SKILL_KEYS`] and [`crate::V2_KEYS`]): a `match` the compiler
/// makes into a few comparisons, where a search of a list compared each
/// key with every one before it.
fn key_index(key: &str) -> Option<u32> {
    Some(match key {
        "id" => 0,
        "section" => 1,
        "content" => 2,
        "justification" => 3,
        "evidence" => 4,
        "helpful" => 5,
        "harmful" => 6,
        "neutral" => 7,
        "created_at" => 8,
        "updated_at" => 9,
        "embedding" => 10,
        "status" => 11,
        "sources" => 12,
        "keywords" => 13,
        "issue" => 14,
        "insight" => 15,
        "occurrences" => 16,
        "active" => 17,
        "used_count" => 18,
        "helpful_count" => 19,
        "harmful_count" => 20,
        "neutral_count" => 21,
        _ => return None,
    })
}

/// The skill whose value is the text at `span` of `text`, read as
/// [`crate::skill::read_skill`] reads its node (`template`: the key order
/// to keep its own against); `None` when that takes the node. `key`: the
/// skill's key as written, when it is known to need no unescaping; an
/// `id` field equal to it is made the entry's ID here.
pub(crate) fn read_skill(
    text: &str,
    span: Span,
    template: Option<&[String]>,
    key: Option<&str>,
) -> Option<SkillRead> {
    // A backslash outside a string is no JSON, and the cursor stops at
    // one in a string: no escape is read here.
    text.get(span.start..span.end)?;
    let mut c = Cursor {
        text,
        b: text.as_bytes(),
        pos: span.start,
        end: span.end,
    };
    if c.peek()? != b'{' {
        return None;
    }
    c.pos += 1;
    c.ws()?;
    // Each key is one of the 22 `key_index` knows, at most once (`seen`):
    // they fit on the stack, where a list was an allocation a skill.
    let mut keys = [""; KEYS];
    let mut n = 0;
    let mut seen = 0u32;
    let mut e = Entry::new(String::new(), "");
    let mut s = Skill::default();
    if c.peek()? == b'}' {
        c.pos += 1;
    } else {
        loop {
            let (key, _) = c.string()?;
            let bit = 1u32 << key_index(key)?;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            keys[n] = key;
            n += 1;
            c.ws()?;
            if c.peek()? != b':' {
                return None;
            }
            c.pos += 1;
            c.ws()?;
            s.member(key, &mut c, &mut e)?;
            c.ws()?;
            match c.peek()? {
                b',' => {
                    c.pos += 1;
                    c.ws()?;
                }
                b'}' => {
                    c.pos += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    if c.pos != span.end {
        return None;
    }
    if s.v2 && !kayba_keeps(&s, seen, &e) {
        return None;
    }
    s.put_extras(&mut e);
    let mut read = SkillRead::new(s.list);
    read.content_at = s.content_at.or(s.insight_at).or(s.issue_at);
    read.v2 = s.v2;
    match s.id_field {
        Some((Some(id), _)) if key == Some(id.as_str()) => e.id = id,
        None => {}
        id_field => read.odd().id_field = id_field,
    }
    if let Some(order) = template.and_then(|t| own_order(t, keys[..n].iter().copied())) {
        read.odd().order = Some(order);
    }
    let opens = Span::new(span.start, span.start + 1);
    finish(&mut read, e, (s.issue, s.insight), s.has_content, opens);
    Some(read)
}

/// What the members of a skill leave besides the entry.
#[derive(Default)]
struct Skill {
    id_field: Option<(Option<String>, Span)>,
    content_at: Option<Span>,
    issue_at: Option<Span>,
    insight_at: Option<Span>,
    issue: Option<String>,
    insight: Option<String>,
    has_content: bool,
    v2: bool,
    /// Whether it has an `embedding` key (`null`, the one value read
    /// here).
    embedding: bool,
    list: Option<Span>,
    /// The members kept in the entry's `extra`, in their order, put there
    /// once all are known so that it is allocated at its size.
    extras: [Option<(&'static str, Value)>; 4],
}

impl Skill {
    /// Reads the value of `key` at the cursor into `e` or `self`, as the
    /// node reader does; `None` for a value it would report or that is
    /// not of the shape read here.
    fn member<'t>(&mut self, key: &'t str, c: &mut Cursor<'t>, e: &mut Entry) -> Option<()> {
        if c.peek()? == b'n' {
            c.literal(b"null")?;
            // Absent in the model, the key order writes the null back.
            // `null` elsewhere is a finding in v2 (`used_count`,
            // `occurrences`) or rare: the node reader settles it.
            match key {
                "insight" => self.v2 = true,
                "embedding" => self.embedding = true,
                _ => return None,
            }
            return Some(());
        }
        match key {
            "id" => {
                let (v, at) = c.string()?;
                self.id_field = Some((Some(v.to_owned()), at));
            }
            "section" => e.section = Some(c.string()?.0.to_owned()),
            "content" => {
                let (v, at) = c.string()?;
                e.content = v.to_owned();
                self.has_content = true;
                self.content_at = Some(at);
            }
            "helpful" | "helpful_count" => e.helpful = Some(c.integer()?.1),
            "harmful" | "harmful_count" => e.harmful = Some(c.integer()?.1),
            "neutral" | "neutral_count" => e.neutral = Some(c.integer()?.1),
            "issue" => {
                self.v2 = true;
                let (v, at) = c.string()?;
                self.issue = Some(v.to_owned());
                self.issue_at = Some(at);
            }
            "insight" => {
                self.v2 = true;
                let (v, at) = c.string()?;
                self.insight = Some(v.to_owned());
                self.insight_at = Some(at);
            }
            "keywords" => {
                self.v2 = true;
                let (words, at) = c.words()?;
                if !words.is_empty() && self.list.is_none() {
                    self.list = Some(at);
                }
                e.tags = Some(words);
            }
            "active" => {
                let active = if c.peek()? == b't' {
                    c.literal(b"true")?;
                    true
                } else {
                    c.literal(b"false")?;
                    false
                };
                e.status = Some(if active {
                    Status::Active
                } else {
                    Status::Other(INACTIVE.to_owned())
                });
            }
            "created_at" => e.created_at = Some(c.string()?.0.to_owned()),
            "updated_at" => e.updated_at = Some(c.string()?.0.to_owned()),
            "status" => e.status = Some(Status::from(c.string()?.0.to_owned())),
            "evidence" => e.evidence = Some(vec![Evidence::Text(c.string()?.0.to_owned())]),
            "justification" => {
                let v = Value::String(c.string()?.0.to_owned());
                self.keep("justification", v);
            }
            "used_count" => {
                let lexeme = c.integer()?.0;
                self.keep("used_count", Value::Number(ace_jsonspan::number(lexeme)));
            }
            "occurrences" | "sources" => {
                let key = if key == "sources" {
                    "sources"
                } else {
                    "occurrences"
                };
                // Most skills have none: `[]` needs no parse.
                if c.empty_list() {
                    self.keep(key, Value::Array(Vec::new()));
                    return Some(());
                }
                let node = c.list()?;
                if self.list.is_none() {
                    self.list = first_scalar_list(&node).map(|l| l.span);
                }
                self.keep(key, node.to_value());
            }
            _ => return None,
        }
        Some(())
    }
}

impl Skill {
    /// Keeps member `key` for the entry's `extra`; each key comes once
    /// (the caller refuses a repeated one), so the four fit.
    fn keep(&mut self, key: &'static str, v: Value) {
        if let Some(slot) = self.extras.iter_mut().find(|x| x.is_none()) {
            *slot = Some((key, v));
        }
    }

    /// Puts the kept members into `e`'s `extra`, made with room for them
    /// and for the `issue` that [`finish`] adds to a skill with an insight.
    fn put_extras(&mut self, e: &mut Entry) {
        let issue = usize::from(self.issue.is_some() && self.insight.is_some());
        let n = self.extras.iter().flatten().count() + issue;
        if n > 0 {
            let mut extra = Extra::with_capacity(n);
            for (k, v) in self.extras.iter_mut().filter_map(Option::take) {
                extra.insert(k, v);
            }
            e.extra = extra;
        }
    }
}

/// Whether kayba 0.13 loads v2 skill `s` (the bits of its keys `keys`,
/// read into `e`) as it is: what [`crate::lint::check_skill`] finds
/// nothing in.
fn kayba_keeps(s: &Skill, keys: u32, e: &Entry) -> bool {
    // `occurrences` is a list here: anything else was left to the node
    // reader.
    if s.embedding || keys & !V2_BITS != 0 {
        return false;
    }
    let section = e.section.as_deref();
    if section.is_some_and(|x| x != "context" && x != "harness") {
        return false;
    }
    if let Some(words) = &e.tags {
        if words.is_empty() {
            return false;
        }
        if !words.iter().all(|w| is_normal_keyword(w)) || has_repeat(words) {
            return false;
        }
    }
    if s.issue
        .as_deref()
        .is_some_and(|x| x.trim().is_empty() || x.trim() != x)
    {
        return false;
    }
    let insight = s.insight.as_deref().map(str::trim);
    if insight.is_some_and(str::is_empty) {
        return false;
    }
    !(section == Some("context") && insight.is_none())
}

/// Whether kayba's keyword normalisation gives `w` back unchanged.
fn is_normal_keyword(w: &str) -> bool {
    let plain = !w.is_empty()
        && w.bytes().all(|b| {
            b.is_ascii() && !b.is_ascii_uppercase() && !b.is_ascii_whitespace() && b != 0x0b
        });
    plain || crate::lint::keyword(w).as_deref() == Some(w)
}

/// A strict reader of one skill's text. Everything it takes, the parser
/// would take the same way; anything else stops it (`None`).
struct Cursor<'t> {
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    end: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.b[self.pos])
    }

    /// JSON's white space; the parser's other kinds are left to it.
    fn ws(&mut self) -> Option<()> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                0x0b | 0x0c | 0x80.. | b'/' => return None,
                _ => break,
            }
        }
        Some(())
    }

    /// After a scalar: the byte that may follow it, which ends it.
    fn ends_here(&self) -> Option<()> {
        matches!(
            self.peek(),
            Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']')
        )
        .then_some(())
    }

    /// A string without escapes (the skill has none) and its span.
    fn string(&mut self) -> Option<(&'t str, Span)> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos;
        // An escape or a control character is the node reader's: it
        // decodes the one and refuses the other.
        let len = ace_exec::scan::json_escape(&self.b[start + 1..self.end])?;
        if self.b[start + 1 + len] != b'"' {
            return None;
        }
        self.pos = start + 1 + len + 1;
        Some((
            &self.text[start + 1..start + 1 + len],
            Span::new(start, self.pos),
        ))
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.b[self.pos..self.end].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        self.ends_here()
    }

    /// An integer as the parser writes its lexeme, and its value.
    fn integer(&mut self) -> Option<(&'t str, i64)> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let n = self.pos - digits;
        if n == 0 || (n > 1 && self.b[digits] == b'0') {
            return None;
        }
        self.ends_here()?;
        let lexeme = &self.text[start..self.pos];
        Some((lexeme, lexeme.parse().ok()?))
    }

    /// A list of strings and its span.
    fn words(&mut self) -> Option<(Vec<String>, Span)> {
        if self.peek()? != b'[' {
            return None;
        }
        let start = self.pos;
        self.pos += 1;
        self.ws()?;
        let mut words = Vec::new();
        if self.peek()? == b']' {
            self.pos += 1;
        } else {
            loop {
                words.push(self.string()?.0.to_owned());
                self.ws()?;
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        self.ws()?;
                    }
                    b']' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        Some((words, Span::new(start, self.pos)))
    }

    /// Takes `[]` (no white space inside, as kayba writes it) if it is
    /// at the cursor and a scalar's end follows.
    fn empty_list(&mut self) -> bool {
        let at = self.pos;
        if self.b[at..self.end].starts_with(b"[]") {
            self.pos += 2;
            if self.ends_here().is_some() {
                return true;
            }
            self.pos = at;
        }
        false
    }

    /// A list of any values, parsed as the whole read parses it; one with
    /// a repeated key inside is the node reader's to report.
    fn list(&mut self) -> Option<Node> {
        if self.peek()? != b'[' {
            return None;
        }
        let end = ace_jsonspan::bracketed_end(&self.b[..self.end], self.pos, false)?;
        let node = ace_jsonspan::parse_at_depth(self.text, self.pos..end, MEMBER_DEPTH)?;
        let mut repeated = Vec::new();
        ace_jsonspan::duplicate_keys(&node, &mut repeated);
        if !repeated.is_empty() {
            return None;
        }
        self.pos = end;
        Some(node)
    }
}

/// Whether a word of `words` is there twice: by comparing pairs for the
/// few keywords a skill has, through a set for a list of any length.
fn has_repeat(words: &[String]) -> bool {
    if words.len() <= 16 {
        return words
            .iter()
            .enumerate()
            .any(|(i, w)| words[..i].contains(w));
    }
    let mut seen = std::collections::HashSet::with_capacity(words.len());
    !words.iter().all(|w| seen.insert(w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_of_every_era_has_its_own_bit() {
        let mut all: Vec<&str> = crate::SKILL_KEYS.to_vec();
        all.extend(
            crate::V2_KEYS
                .iter()
                .filter(|k| !crate::SKILL_KEYS.contains(k)),
        );
        let mut bits = 0u32;
        for k in &all {
            let bit = 1u32 << key_index(k).unwrap_or_else(|| panic!("{k}"));
            assert_eq!(bits & bit, 0, "{k}");
            bits |= bit;
        }
        assert_eq!(bits.count_ones() as usize, KEYS);
        // The key list on the stack has a place for each bit.
        assert_eq!(bits, (1 << KEYS) - 1);
        let v2 = crate::V2_KEYS
            .iter()
            .fold(0, |m, k| m | 1 << key_index(k).unwrap_or(31));
        assert_eq!(v2, V2_BITS);
        assert_eq!(key_index("ID"), None);
    }

    /// The direct read of the skill `skill` standing in a skillbook, and
    /// the node reader's, as the stream gives them (with the repeated
    /// keys the parse leaves to it); `None` for the node reader when the
    /// skill does not parse.
    fn both(skill: &str, template: Option<&[String]>) -> (Option<SkillRead>, Option<SkillRead>) {
        let head = "{\"skills\": {\"k-00001\": ";
        let text = format!("{head}{skill}}}}}");
        let span = Span::new(head.len(), head.len() + skill.len());
        let direct = read_skill(&text, span, template, None);
        let node = ace_jsonspan::parse_at_depth(&text, span.start..span.end, 2).map(|node| {
            let mut read = crate::skill::read_skill(&node, template);
            let mut repeated = Vec::new();
            ace_jsonspan::duplicate_keys(&node, &mut repeated);
            if !repeated.is_empty() {
                read.odd().diags.append(&mut repeated);
            }
            read
        });
        (direct, node)
    }

    const PLAIN_V2: &str = r#"{
      "id": "context-00001",
      "section": "context",
      "keywords": ["retry", "api_limits"],
      "issue": "Calls fail at the rate limit.",
      "insight": "Back off and retry.",
      "occurrences": [{"source_id": "t1", "reflection_index": 0, "reason": null}],
      "active": true,
      "used_count": 2,
      "helpful_count": 3,
      "harmful_count": 0,
      "neutral_count": 1,
      "created_at": "2026-01-01T00:00:00+00:00",
      "updated_at": "2026-01-02T00:00:00+00:00"
    }"#;

    const PLAIN_V08: &str = r#"{"id": "s-00002", "section": "Strategies", "content": "Check first.",
      "justification": "j", "evidence": "e", "helpful": 1, "harmful": 0, "neutral": 0,
      "created_at": "c", "updated_at": "u", "embedding": null, "status": "active",
      "sources": ["a", "b"]}"#;

    #[test]
    fn kaybas_own_shapes_are_read_directly_as_the_node_reader_reads_them() {
        let template: Vec<String> = crate::V2_KEYS.iter().map(|k| k.to_string()).collect();
        let harness = PLAIN_V2
            .replace("\"context\"", "\"harness\"")
            .replace("\"Back off and retry.\"", "null");
        for skill in [PLAIN_V2, PLAIN_V08, &harness, "{}"] {
            for t in [None, Some(template.as_slice())] {
                let (direct, node) = both(skill, t);
                assert!(direct.is_some(), "not read directly: {skill}");
                assert_eq!(direct, node, "{skill}");
            }
        }
    }

    /// A member of a generated skill: a key, and its value as written.
    fn member() -> impl proptest::strategy::Strategy<Value = (String, String)> {
        let keys: Vec<String> = crate::SKILL_KEYS
            .iter()
            .chain(crate::V2_KEYS.iter())
            .map(|k| k.to_string())
            .chain([
                "other".to_owned(),
                "ID".to_owned(),
                "is\\u0073ue".to_owned(),
            ])
            .collect();
        let values = [
            r#""context""#,
            r#""harness""#,
            r#""Context""#,
            r#"" pad ""#,
            r#""""#,
            r#""a \"q\" b""#,
            r#""plain text""#,
            "null",
            "true",
            "false",
            "truex",
            "0",
            "-0",
            "01",
            "1.5",
            "1e3",
            "42",
            "-",
            "9223372036854775808",
            "[]",
            r#"["kw"]"#,
            r#"["kw", "other_kw"]"#,
            r#"["Kw", "kw"]"#,
            r#"["a b"]"#,
            r#"[""]"#,
            "[1]",
            r#"["kw",]"#,
            r#"[{"a": 1, "a": 2}]"#,
            r#"[{"source_id": "t", "n": 1e2}]"#,
            "{}",
            "[[1], [\"x\"]]",
            r#""tab	in""#,
        ];
        (
            proptest::sample::select(keys),
            proptest::sample::select(values.map(str::to_owned).to_vec()),
        )
    }

    /// The members of one of kayba's skills, a few of them changed,
    /// added, left out or repeated: one step or two from what reads
    /// directly, so that each of the reader's conditions is crossed.
    fn skill() -> impl proptest::strategy::Strategy<Value = Vec<(String, String)>> {
        use proptest::prelude::*;
        let members = |text: &str| -> Vec<(String, String)> {
            let node = ace_jsonspan::parse(text).expect("a test skill parses");
            node.root
                .members()
                .unwrap_or_default()
                .iter()
                .map(|m| {
                    (
                        m.key.to_string(),
                        text[m.value.span.start..m.value.span.end].to_owned(),
                    )
                })
                .collect()
        };
        let bases = vec![members(PLAIN_V2), members(PLAIN_V08), Vec::new()];
        (
            proptest::sample::select(bases),
            proptest::collection::vec((0..4u8, any::<proptest::sample::Index>(), member()), 0..3),
        )
            .prop_map(|(mut skill, changes)| {
                for (op, at, (key, value)) in changes {
                    let i = if skill.is_empty() {
                        0
                    } else {
                        at.index(skill.len())
                    };
                    match op {
                        0 if !skill.is_empty() => skill[i].1 = value,
                        1 => skill.insert(i, (key, value)),
                        2 if !skill.is_empty() => {
                            skill.remove(i);
                        }
                        3 if !skill.is_empty() => skill.insert(i, skill[i].clone()),
                        _ => {}
                    }
                }
                skill
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(40_000))]
        /// Whatever a skill holds, the direct read either leaves it to the
        /// node reader or reads it as that reader does.
        #[test]
        fn a_direct_read_is_the_node_readers_or_none(
            members in skill(),
            space in proptest::sample::select(vec!["", " ", "\n  ", "\u{a0}", "\t"]),
            trailing in proptest::bool::ANY,
            ordered in proptest::bool::ANY,
        ) {
            let body: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{space}\"{k}\":{space}{v}"))
                .collect();
            let comma = if trailing && !body.is_empty() { "," } else { "" };
            let skill = format!("{{{}{comma}{space}}}", body.join(","));
            let template: Vec<String> = crate::V2_KEYS.iter().map(|k| k.to_string()).collect();
            let (direct, node) = both(&skill, ordered.then_some(template.as_slice()));
            if let Some(direct) = direct {
                let node = node.expect("what reads directly parses");
                let diags = node.odd.as_ref().map(|o| o.diags.as_slice()).unwrap_or_default();
                proptest::prop_assert!(diags.is_empty(), "{skill}: {:?}", diags);
                // `Extra` equality is a map's: the order is held here.
                let order = |r: &SkillRead| {
                    r.entry.as_ref().map(|e| e.extra.keys().cloned().collect::<Vec<_>>())
                };
                proptest::prop_assert_eq!(order(&direct), order(&node), "{}", skill);
                proptest::prop_assert_eq!(direct, node, "{}", skill);
            }
        }
    }
}
