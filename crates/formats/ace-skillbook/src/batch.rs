//! kayba's update batches (`UpdateBatch`: `{"reasoning", "operations":
//! [...]}`, what its SkillManager emits) as canonical [`Delta`]s, read as
//! the release that wrote them applies them, and written from a canonical
//! delta. Two generations:
//!
//! - 0.7 to 0.10 (`ace/updates.py`): `{type, section, content, skill_id,
//!   metadata, justification, evidence, insight_source}`; TAG's metadata
//!   adds to `helpful`/`harmful`/`neutral`, REMOVE deletes, ADD's and
//!   UPDATE's metadata set the counters;
//! - 0.12 and later (`ace/core/skillbook.py`): `{type, section, issue,
//!   keywords, insight, skill_id, metadata, reason, insight_source, ...}`;
//!   TAG's `metadata.delta` counts one helpful (> 0), harmful (< 0) or
//!   neutral (0), REMOVE sets `active` false, ADD files a legacy section
//!   under `context`.
//!
//! A batch's generation is told by its keys (`issue`, `keywords`,
//! `insight`, a TAG's `delta` say 0.12; `content`, `justification`,
//! `evidence`, a TAG's counter names say 0.7); a batch that says neither
//! is the current release's. Each batch is one delta: kayba raises on the
//! first operation it cannot take and saves nothing, so one such operation
//! refuses the whole batch (ACE084).

use std::collections::HashSet;

use ace_jsonspan::{Kind, Node};
use ace_model::delta::{Change, Delta, Op, Reason, Target};
use ace_model::{rules, Diagnostic, Entry, Evidence, Span, Status};
use serde_json::{json, Map, Value};

use crate::lint::{keywords, section};
use crate::write::evidence_text;

/// Which kayba release's batch it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// 0.7 to 0.10: `content`, counters by name, hard REMOVE.
    Legacy,
    /// 0.12 and later: `issue`/`insight`/`keywords`, `delta`, soft REMOVE.
    V2,
}

const V2_OP_KEYS: [&str; 6] = [
    "issue",
    "keywords",
    "insight",
    "reason",
    "reflection_index",
    "reflection_indices",
];
const LEGACY_OP_KEYS: [&str; 3] = ["content", "justification", "evidence"];
const COUNTERS: [&str; 3] = ["helpful", "harmful", "neutral"];

/// Whether `n` is an update batch: an object with an `operations` list
/// whose items name a `type` (an AcePatch's name an `op`), or with
/// `reasoning` beside an empty one or alone.
fn is_batch(n: &Node) -> bool {
    if reasoning_alone(n) {
        return true;
    }
    let Some(ops) = n.get("operations").and_then(Node::as_array) else {
        return false;
    };
    if ops.is_empty() {
        return n.get("reasoning").is_some();
    }
    ops.iter().all(is_kayba_op)
}

/// An object of `reasoning` alone: a SkillManager that decided on no
/// change and left `operations` out, which kayba's `UpdateBatch.from_json`
/// reads as a batch of none.
fn reasoning_alone(n: &Node) -> bool {
    n.members()
        .is_some_and(|m| !m.is_empty() && m.iter().all(|m| m.key == "reasoning"))
}

/// An operation of kayba's: a `type`, and no AcePatch `op`.
fn is_kayba_op(o: &Node) -> bool {
    o.get("type").is_some() && o.get("op").is_none()
}

/// Whether `text` looks like an update batch before it is parsed: an
/// `operations` key and an operation type of kayba's, or `reasoning`.
pub fn sniff(text: &str) -> bool {
    let b = text.as_bytes();
    let reasoning = memchr::memmem::find(b, b"\"reasoning\"").is_some();
    match memchr::memmem::find(b, b"\"operations\"") {
        Some(_) => reasoning || memchr::memmem::find(b, b"\"type\"").is_some(),
        None => reasoning,
    }
}

/// The batches in `text` (one object, an array of them, or JSON Lines),
/// each as one delta; `None` when it holds none.
pub fn read_batches(text: &str) -> Result<Option<Vec<Delta>>, Diagnostic> {
    if !sniff(text) {
        return Ok(None);
    }
    // One batch, the shape kayba saves: its operations are taken from the
    // parser one at a time and only their spans and keys kept, so that a
    // batch of a million operations is never held as a tree.
    let mut skim = OpSkim::default();
    if let Ok(doc) = ace_jsonspan::parse_with(text, &mut skim) {
        if doc.root.members().is_some() {
            let shell = doc.root.get("operations").and_then(Node::as_array);
            let is_one = reasoning_alone(&doc.root)
                || shell.is_some()
                    && !skim.untyped
                    && (!skim.spans.is_empty() || doc.root.get("reasoning").is_some());
            if !is_one {
                return Ok(None);
            }
            let generation = skim.generation();
            let ops = skim.spans.iter().map(|s| {
                // Each piece parsed as a whole: the parse above said so.
                std::borrow::Cow::Owned(
                    ace_jsonspan::parse_at_depth(text, s.start..s.end, 2).unwrap_or(Node {
                        span: *s,
                        kind: Kind::Null,
                    }),
                )
            });
            return Ok(Some(vec![batch(doc.root.span, generation, ops)]));
        }
    }
    // Without `operations`, only a one-object batch of `reasoning` alone
    // is one: another dialect's file that says `reasoning` is not judged
    // as JSON here.
    if memchr::memmem::find(text.as_bytes(), b"\"operations\"").is_none() {
        return Ok(None);
    }
    let nodes = ace_jsonspan::records(text, &[])?;
    if nodes.is_empty() || !nodes.iter().all(is_batch) {
        return Ok(None);
    }
    Ok(Some(
        nodes
            .iter()
            .map(|n| {
                let ops = n.get("operations").and_then(Node::as_array).unwrap_or(&[]);
                let generation = generation(ops);
                batch(
                    n.span,
                    generation,
                    ops.iter().map(std::borrow::Cow::Borrowed),
                )
            })
            .collect(),
    ))
}

/// What a one-batch read keeps of each operation while the parser goes on:
/// its span, the keys that tell the batch's generation, and whether one
/// is not kayba's (no `type`, or an AcePatch's `op`).
#[derive(Default)]
struct OpSkim {
    spans: Vec<Span>,
    untyped: bool,
    v2: bool,
    legacy: bool,
}

impl OpSkim {
    fn generation(&self) -> Generation {
        generation_of(self.v2, self.legacy)
    }
}

impl ace_jsonspan::ItemSink for OpSkim {
    fn wants(&mut self, path: &[&str]) -> bool {
        let ops = path == ["operations"];
        if ops {
            // A repeated key: the last list is the one read.
            *self = OpSkim::default();
        }
        ops
    }

    fn item(&mut self, _: usize, op: Node) {
        let (v2, legacy) = generation_keys(&op);
        self.v2 |= v2;
        self.legacy |= legacy;
        self.untyped |= !is_kayba_op(&op);
        self.spans.push(op.span);
    }
}

/// The findings of ACE084 for `text`: each operation kayba raises on.
pub fn check(text: &str) -> Vec<Diagnostic> {
    match read_batches(text) {
        Ok(Some(deltas)) => deltas
            .iter()
            .flat_map(|d| &d.refusals)
            .map(|r| Diagnostic::new(&rules::KAYBA_BATCH, r.span, r.message.clone()))
            .collect(),
        Ok(None) => Vec::new(),
        Err(d) => vec![d],
    }
}

/// The generation `ops` were written for.
pub fn generation(ops: &[Node]) -> Generation {
    let (mut v2, mut legacy) = (false, false);
    for o in ops {
        let (a, b) = generation_keys(o);
        v2 |= a;
        legacy |= b;
    }
    generation_of(v2, legacy)
}

/// Whether operation `o` has keys only the 0.12 generation writes, and
/// keys only 0.7's does.
fn generation_keys(o: &Node) -> (bool, bool) {
    let mut v2 = V2_OP_KEYS.iter().any(|k| o.get(k).is_some());
    let mut legacy = LEGACY_OP_KEYS.iter().any(|k| o.get(k).is_some());
    if let Some(m) = o.get("metadata").and_then(Node::members) {
        v2 |= m.iter().any(|m| m.key == "delta");
        legacy |= m.iter().any(|m| COUNTERS.contains(&&*m.key));
    }
    (v2, legacy)
}

/// A batch with only 0.7's keys is 0.7's; any other, the current release's.
fn generation_of(v2: bool, legacy: bool) -> Generation {
    if legacy && !v2 {
        Generation::Legacy
    } else {
        Generation::V2
    }
}

/// Python's `str(value).strip()` of a JSON scalar; `None` for `null` and
/// for a list or an object, which no batch kayba writes holds there.
fn py_str(n: &Node) -> Option<String> {
    match &n.kind {
        Kind::String(s) => Some(s.to_string()),
        Kind::Number(x) => Some(ace_pyjson::python_number(&ace_jsonspan::number(x))),
        Kind::Bool(b) => Some(if *b { "True" } else { "False" }.to_owned()),
        _ => None,
    }
}

/// kayba's `_normalize_optional_text`: stripped, `None` when empty.
fn text(n: Option<&Node>) -> Option<String> {
    let s = py_str(n?)?;
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

/// A key's value as the 0.7 generation takes it: `str(value)`, unstripped.
fn raw_text(n: Option<&Node>) -> Option<String> {
    n.and_then(py_str)
}

/// The skill key sources are kept in: v2's `occurrences`, 0.7's `sources`.
fn sources_key(v2: bool) -> &'static str {
    if v2 {
        "occurrences"
    } else {
        "sources"
    }
}

struct Reader<'a> {
    delta: Delta,
    generation: Generation,
    op: &'a Node,
}

impl Reader<'_> {
    fn refuse(&mut self, span: Span, message: String) {
        self.delta.refuse(Reason::Invalid, span, message);
    }

    fn push(&mut self, change: Change) {
        self.delta.ops.push(Op {
            change,
            span: self.op.span,
        });
    }

    fn get(&self, key: &str) -> Option<&Node> {
        self.op.get(key)
    }

    /// `metadata` as kayba's `from_json` takes it: `{str(k): int(v)}`,
    /// which raises on a value that is not an integer.
    fn metadata(&mut self) -> Vec<(String, i64)> {
        let Some(m) = self.get("metadata").and_then(Node::members) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut bad = None;
        for f in m {
            let n = match &f.value.kind {
                Kind::Number(_) => f.value.to_value().as_f64().map(|x| x.trunc() as i64),
                Kind::Bool(b) => Some(i64::from(*b)),
                Kind::String(s) => s.trim().parse::<i64>().ok(),
                _ => None,
            };
            match n {
                Some(n) => out.push((f.key.to_string(), n)),
                None => bad = Some((f.value.span, f.key.to_string())),
            }
        }
        if let Some((span, key)) = bad {
            self.refuse(
                span,
                format!("`metadata.{key}` is not an integer: kayba's `int()` raises on it"),
            );
        }
        out
    }

    /// The skill the operation names. kayba passes over an operation
    /// without `skill_id` (`if operation.skill_id is None: return`), and
    /// so does the engine, which says so.
    fn target(&self) -> Target {
        raw_text(self.get("skill_id")).map_or(Target::Unnamed("skill_id"), Target::Id)
    }

    /// `insight_source` as a list of sources (one object, or a list of
    /// them), each as kayba's `InsightSource` saves it.
    fn sources(&self) -> Vec<Value> {
        match self.get("insight_source").map(|n| n.to_value()) {
            // 0.7 keeps the dict as it came.
            Some(v @ Value::Object(_)) if self.generation == Generation::Legacy => vec![v],
            Some(Value::Object(m)) => vec![insight_source(&m)],
            Some(Value::Array(items)) if self.generation == Generation::V2 => items
                .iter()
                .filter_map(Value::as_object)
                .map(insight_source)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The skill key its sources are kept in.
    fn sources_key(&self) -> &'static str {
        sources_key(self.generation == Generation::V2)
    }

    fn append_sources(&mut self, target: &Target) {
        let sources = self.sources();
        if !sources.is_empty() {
            self.push(Change::Append {
                target: target.clone(),
                field: format!("extra.{}", self.sources_key()),
                values: sources,
            });
        }
    }

    /// A new skill's sources, where it has any.
    fn add_sources(&self, e: &mut Entry) {
        let sources = self.sources();
        if !sources.is_empty() {
            e.extra.insert(self.sources_key(), Value::Array(sources));
        }
    }

    /// `keywords` normalised as kayba's `from_json` does.
    fn keywords(&self) -> Vec<String> {
        let given: Vec<String> = self
            .get("keywords")
            .and_then(Node::as_array)
            .map(|a| a.iter().filter_map(py_str).collect())
            .unwrap_or_default();
        keywords(given.iter().map(String::as_str))
    }
}

/// The batch at `span` as one delta, its operations read in order.
fn batch<'n>(
    span: Span,
    generation: Generation,
    ops: impl Iterator<Item = std::borrow::Cow<'n, Node>>,
) -> Delta {
    let mut delta = Delta::new(span);
    for op in ops {
        let mut r = Reader {
            delta,
            generation,
            op: &op,
        };
        operation(&mut r);
        delta = r.delta;
    }
    delta
}

fn operation(r: &mut Reader<'_>) {
    let op = r.op;
    let Some(kind) = op.get("type") else {
        r.refuse(
            op.span,
            "the operation has no `type`: kayba's `from_json` raises `KeyError`".into(),
        );
        return;
    };
    let name = py_str(kind).unwrap_or_default().to_uppercase();
    let metadata = r.metadata();
    match name.as_str() {
        "ADD" => add(r, &metadata),
        "UPDATE" => update(r, &metadata),
        "TAG" => tag(r, &metadata),
        "REMOVE" => {
            let target = r.target();
            match r.generation {
                Generation::V2 => {
                    r.push(Change::Deprecate {
                        target: target.clone(),
                        reason: None,
                    });
                    r.append_sources(&target);
                }
                Generation::Legacy => r.push(Change::Remove { target }),
            }
        }
        other => r.refuse(
            kind.span,
            format!("operation type `{other}` is not ADD, UPDATE, TAG or REMOVE: kayba's `from_json` raises `Invalid operation type`"),
        ),
    }
}

fn add(r: &mut Reader<'_>, metadata: &[(String, i64)]) {
    let op = r.op;
    let id = raw_text(r.get("skill_id")).unwrap_or_default();
    let raw_section = raw_text(r.get("section")).unwrap_or_default();
    let mut e = Entry {
        id,
        ..Entry::default()
    };
    match r.generation {
        Generation::V2 => {
            let Some(section_text) = text(r.get("section")) else {
                r.refuse(op.span, "ADD has no `section`: kayba raises `section is required and must be non-empty`".into());
                return;
            };
            let lower = section_text.to_lowercase();
            let given = r.keywords();
            let legacy = section(&lower).is_none();
            let (sec, mut words) = match section(&lower) {
                Some(s) => (s, given),
                None => (
                    "context",
                    keywords(
                        std::iter::once(lower.as_str()).chain(given.iter().map(String::as_str)),
                    ),
                ),
            };
            if words.is_empty() {
                words = keywords([lower.as_str()]);
            }
            let Some(issue) = text(r.get("issue")) else {
                r.refuse(
                    op.span,
                    "ADD has no `issue`: kayba raises `issue is required and must be non-empty`"
                        .into(),
                );
                return;
            };
            let insight = match text(r.get("insight")) {
                None if sec == "context" && !legacy => {
                    r.refuse(op.span, "ADD to `context` has no `insight`: kayba raises `context skills require a non-empty insight`".into());
                    return;
                }
                // A legacy section's skill takes its issue as its insight.
                None if sec == "context" => Some(issue.clone()),
                other => other,
            };
            e.section = Some(sec.to_owned());
            e.tags = Some(words);
            match insight {
                Some(insight) => {
                    e.content = insight;
                    e.extra.insert("issue", Value::String(issue));
                }
                None => e.content = issue,
            }
            e.helpful = Some(0);
            e.harmful = Some(0);
            r.add_sources(&mut e);
        }
        Generation::Legacy => {
            if e.id.is_empty() && raw_section.split_whitespace().next().is_none() {
                r.refuse(op.span, "ADD has neither `skill_id` nor a `section` to number one by: kayba's `_generate_id` raises `IndexError`".into());
                return;
            }
            e.section = Some(raw_section);
            e.content = raw_text(r.get("content")).unwrap_or_default();
            if let Some(j) = raw_text(r.get("justification")) {
                e.extra.insert("justification", Value::String(j));
            }
            if let Some(ev) = raw_text(r.get("evidence")) {
                e.evidence = Some(vec![Evidence::Text(ev)]);
            }
            (e.helpful, e.harmful, e.neutral) = (Some(0), Some(0), Some(0));
            set_counters(&mut e, metadata);
            r.add_sources(&mut e);
        }
    }
    e.status = Some(Status::Active);
    r.push(Change::Add(e));
}

/// `apply_metadata`: each counter metadata names is set to its value.
fn set_counters(e: &mut Entry, metadata: &[(String, i64)]) -> Vec<String> {
    let mut fields = Vec::new();
    for (k, v) in metadata {
        let slot = match k.as_str() {
            "helpful" => &mut e.helpful,
            "harmful" => &mut e.harmful,
            "neutral" => &mut e.neutral,
            _ => continue,
        };
        *slot = Some(*v);
        fields.push(k.clone());
    }
    fields
}

fn update(r: &mut Reader<'_>, metadata: &[(String, i64)]) {
    let target = r.target();
    let mut from = Entry::default();
    let mut fields: Vec<String> = Vec::new();
    match r.generation {
        Generation::V2 => {
            if let Some(issue) = text(r.get("issue")) {
                from.extra.insert("issue", Value::String(issue));
                fields.push("extra.issue".into());
            }
            if let Some(insight) = text(r.get("insight")) {
                from.content = insight;
                fields.push("content".into());
            }
            let words = r.keywords();
            if !words.is_empty() {
                from.tags = Some(words);
                fields.push("tags".into());
            }
        }
        Generation::Legacy => {
            if let Some(c) = raw_text(r.get("content")) {
                from.content = c;
                fields.push("content".into());
            }
            if let Some(j) = raw_text(r.get("justification")) {
                from.extra.insert("justification", Value::String(j));
                fields.push("extra.justification".into());
            }
            if let Some(ev) = raw_text(r.get("evidence")) {
                from.evidence = Some(vec![Evidence::Text(ev)]);
                fields.push("evidence".into());
            }
            fields.extend(set_counters(&mut from, metadata));
        }
    }
    // kayba stamps `updated_at` whatever the update sets.
    r.push(Change::Set {
        target: target.clone(),
        from: Box::new(from),
        fields,
    });
    r.append_sources(&target);
}

fn tag(r: &mut Reader<'_>, metadata: &[(String, i64)]) {
    let target = r.target();
    let get = |k: &str| metadata.iter().rev().find(|(m, _)| m == k).map(|(_, v)| *v);
    let (helpful, harmful, neutral) = match r.generation {
        Generation::V2 => match get("delta").unwrap_or(0).signum() {
            1 => (1, 0, 0),
            -1 => (0, 1, 0),
            _ => (0, 0, 1),
        },
        Generation::Legacy => (
            get("helpful").unwrap_or(0),
            get("harmful").unwrap_or(0),
            get("neutral").unwrap_or(0),
        ),
    };
    let named = metadata.iter().any(|(k, _)| COUNTERS.contains(&k.as_str()));
    if r.generation == Generation::V2 || named {
        r.push(Change::Count {
            target: target.clone(),
            helpful,
            harmful,
            neutral,
        });
    }
    if r.generation == Generation::V2 {
        r.append_sources(&target);
    }
}

/// kayba's `InsightSource.from_dict(...).to_dict()` of one source: the
/// trace identity first (`trace_uid`, `source_system`, `trace_id`,
/// `display_name`), then the optional fields it keeps, stripped.
pub fn insight_source(m: &Map<String, Value>) -> Value {
    let s = |k: &str| -> Option<String> {
        let v = m.get(k)?;
        let t = match v {
            Value::Null => return None,
            Value::String(s) => s.clone(),
            Value::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
            Value::Number(n) => ace_pyjson::python_number(n),
            other => other.to_string(),
        };
        let t = t.trim();
        (!t.is_empty()).then(|| t.to_owned())
    };
    let legacy = || {
        ["sample_id", "item_id", "task_id", "id"]
            .iter()
            .find_map(|k| s(k))
    };
    let uid = s("trace_uid");
    let mut source = s("source_system");
    let mut trace = s("trace_id");
    if let Some(u) = &uid {
        if source.is_none() || trace.is_none() {
            if let Some((a, b)) = u.split_once(':') {
                source = source.or_else(|| Some(a.to_owned()));
                trace = trace.or_else(|| Some(b.to_owned()));
            }
        }
    }
    let trace = trace.or_else(legacy).unwrap_or_else(|| fingerprint(m));
    let source = source.unwrap_or_else(|| "legacy".into());
    // `TraceIdentity.__post_init__` strips again and fills in the uid.
    let uid = uid.unwrap_or_else(|| format!("{source}:{trace}"));
    let display = s("display_name")
        .or_else(legacy)
        .unwrap_or_else(|| trace.clone());
    let mut out = Map::new();
    out.insert("trace_uid".into(), Value::String(uid));
    out.insert("source_system".into(), Value::String(source));
    out.insert("trace_id".into(), Value::String(trace));
    out.insert("display_name".into(), Value::String(display));
    for k in ["relation", "sample_question"] {
        if let Some(v) = s(k) {
            out.insert(k.into(), Value::String(v));
        }
    }
    let epoch = match m.get("epoch") {
        Some(Value::Number(n)) if n.is_i64() => n.as_i64(),
        Some(Value::String(t)) => {
            let t = t.trim();
            let digits = t.strip_prefix('-').unwrap_or(t);
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse().ok())
                .flatten()
        }
        _ => None,
    };
    if let Some(e) = epoch {
        out.insert("epoch".into(), json!(e));
    }
    for k in ["operation_type", "error_identification", "learning_text"] {
        if let Some(v) = s(k) {
            out.insert(k.into(), Value::String(v));
        }
    }
    Value::Object(out)
}

/// kayba's `fingerprint_trace`: the SHA-256 of the source as `json.dumps(
/// sort_keys=True, ensure_ascii=False)` writes it.
fn fingerprint(m: &Map<String, Value>) -> String {
    use sha2::{Digest, Sha256};
    let sorted = ace_pyjson::sort_keys(&Value::Object(m.clone()));
    let mut text = String::new();
    ace_pyjson::dump_line(&sorted, false, &mut text);
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The generation a batch for playbook `old` is written in: a skillbook
/// of an era before v2 takes 0.7's, every other playbook the current
/// release's.
pub fn generation_for(old: &ace_model::Playbook) -> Generation {
    match old.layout_of(crate::LAYOUT_KEY).map(crate::write::era_of) {
        Some(era) if era != crate::Era::V2 => Generation::Legacy,
        _ => Generation::V2,
    }
}

/// New sources `items` as one operation's `insight_source`: one source,
/// or (0.12) a list of them; a 0.7 operation carries the first only.
fn insight_source_of(items: &[Value], v2: bool, id: &str, lost: &mut Vec<String>) -> Option<Value> {
    match items {
        [] => None,
        [one] => Some(one.clone()),
        _ if v2 => Some(Value::Array(items.to_vec())),
        [first, ..] => {
            lost.push(format!(
                "`{id}` gains {} sources; a 0.7 operation carries one",
                items.len()
            ));
            Some(first.clone())
        }
    }
}

/// `delta` as an update batch of `generation`, and what the batch cannot
/// say of it.
pub fn write_batch(
    delta: &Delta,
    generation: Generation,
    note: &str,
    old: &ace_model::Playbook,
) -> (Value, Vec<String>) {
    let before = |id: &str| old.entries.iter().find(|e| e.id == id);
    // A deprecation the delta also makes is the one REMOVE.
    let retired = |t: &Target| {
        delta.ops.iter().any(|op| {
            matches!(&op.change, Change::Deprecate { target, .. } | Change::Remove { target } if target == t)
        })
    };
    let mut counter = next_id(old);
    let mut ops: Vec<Value> = Vec::new();
    let mut lost: Vec<String> = Vec::new();
    let v2 = generation == Generation::V2;
    let what = if v2 {
        "a kayba 0.12 update batch"
    } else {
        "a kayba 0.7 update batch"
    };
    // kayba numbers the skills it adds from one counter shared by every
    // section, in the order the ADDs come: the new skills go in the order
    // of their numbers (each in the place of an ADD), so that each one
    // kayba would number as it is numbered here is left to kayba, and its
    // `next_id` ends past them as it did here.
    let number = |e: &Entry| -> Option<u64> {
        let prefix = ace_model::mint::section_word(e.section.as_deref());
        let n = e.id.strip_prefix(prefix.as_str())?.strip_prefix('-')?;
        n.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| n.parse().ok())?
    };
    let mut adds: Vec<&Entry> = delta
        .ops
        .iter()
        .filter_map(|op| match &op.change {
            Change::Add(e) => Some(e),
            _ => None,
        })
        .collect();
    adds.sort_by_key(|e| number(e).map_or((1, 0), |n| (0, n)));
    let mut adds = adds.into_iter();
    let mut named_past: Option<(u64, &str)> = None;
    for op in &delta.ops {
        let id = |t: &Target, lost: &mut Vec<String>| t.id_for(what, lost);
        match &op.change {
            Change::Add(_) => {
                let Some(e) = adds.next() else { continue };
                let mut o = Map::new();
                o.insert("type".into(), json!("ADD"));
                o.insert(
                    "section".into(),
                    json!(e.section.clone().unwrap_or_default()),
                );
                if v2 {
                    if let Some(other) = e.section.as_deref().filter(|s| section(s).is_none()) {
                        lost.push(format!(
                            "`{}` is in section `{other}`; a 0.12 ADD files it under `context`, the section name first in its keywords",
                            e.id
                        ));
                    }
                    let issue = e.extra.get("issue").and_then(Value::as_str);
                    o.insert("issue".into(), json!(issue.unwrap_or(&e.content)));
                    if let Some(tags) = &e.tags {
                        o.insert("keywords".into(), json!(tags));
                    }
                    if issue.is_some() || e.section.as_deref() != Some("harness") {
                        o.insert("insight".into(), json!(e.content));
                    }
                } else {
                    o.insert("content".into(), json!(e.content));
                    if let Some(j) = e.extra.get("justification") {
                        o.insert("justification".into(), j.clone());
                    }
                    if let Some(ev) = e.evidence.as_deref() {
                        o.insert("evidence".into(), json!(evidence_text(ev)));
                    }
                }
                // The ID kayba's counter gives next is left to it, so that
                // its `next_id` moves on as it did here.
                let prefix = ace_model::mint::section_word(e.section.as_deref());
                if e.id == format!("{prefix}-{:05}", counter + 1) {
                    counter += 1;
                } else if !e.id.is_empty() {
                    o.insert("skill_id".into(), json!(e.id));
                    if let Some(n) = number(e) {
                        if named_past.is_none_or(|(m, _)| n > m) {
                            named_past = Some((n, &e.id));
                        }
                    }
                }
                let sources = e
                    .extra
                    .get(sources_key(v2))
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                if let Some(v) = insight_source_of(sources, v2, &e.id, &mut lost) {
                    o.insert("insight_source".into(), v);
                }
                let counters: Vec<(&str, i64)> = [
                    ("helpful", e.helpful),
                    ("harmful", e.harmful),
                    ("neutral", e.neutral),
                ]
                .into_iter()
                .filter_map(|(k, v)| Some((k, v.filter(|n| *n != 0)?)))
                .collect();
                if v2 {
                    // A 0.12 ADD starts the counters at 0: TAGs of one
                    // follow it.
                    ops.push(Value::Object(std::mem::take(&mut o)));
                    for (k, n) in counters {
                        let delta = match k {
                            "helpful" => 1,
                            "harmful" => -1,
                            _ => 0,
                        };
                        if n < 0 {
                            lost.push(format!(
                                "`{}` is added with {k} {n}; a 0.12 TAG only adds one",
                                e.id
                            ));
                        }
                        for _ in 0..n.max(0) {
                            ops.push(json!({"type": "TAG", "section": "", "skill_id": e.id, "metadata": {"delta": delta}}));
                        }
                    }
                    continue;
                } else if !counters.is_empty() {
                    o.insert(
                        "metadata".into(),
                        Value::Object(
                            counters
                                .iter()
                                .map(|(k, v)| ((*k).into(), json!(v)))
                                .collect(),
                        ),
                    );
                }
                ops.push(Value::Object(o));
            }
            Change::Set {
                target,
                from,
                fields,
            } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let mut o = Map::new();
                o.insert("type".into(), json!("UPDATE"));
                o.insert(
                    "section".into(),
                    json!(from.section.clone().unwrap_or_default()),
                );
                o.insert("skill_id".into(), json!(id));
                let mut metadata = Map::new();
                let mut tags: Vec<Value> = Vec::new();
                for f in fields {
                    match (f.as_str(), v2) {
                        // A harness skill without an insight holds its
                        // issue as its content.
                        ("content", true)
                            if !from.extra.contains_key("issue")
                                && from.section.as_deref() == Some("harness") =>
                        {
                            o.insert("issue".into(), json!(from.content));
                        }
                        ("content", true) => {
                            o.insert("insight".into(), json!(from.content));
                        }
                        // New sources join as `insight_source`, which kayba
                        // appends.
                        ("extra.occurrences", true) | ("extra.sources", false) => {
                            let key = &f["extra.".len()..];
                            let items = |e: Option<&Entry>| -> Vec<Value> {
                                e.and_then(|e| e.extra.get(key))
                                    .and_then(Value::as_array)
                                    .cloned()
                                    .unwrap_or_default()
                            };
                            let (was, now) = (items(before(&id)), items(Some(from)));
                            // Values are compared as their JSON text, in
                            // sets: a list of any length costs its length.
                            let text = |v: &Value| v.to_string();
                            let now_set: HashSet<String> = now.iter().map(text).collect();
                            let was_set: HashSet<String> = was.iter().map(text).collect();
                            if was.iter().any(|v| !now_set.contains(&text(v))) {
                                lost.push(format!(
                                    "`{id}` {f} loses items; kayba only appends sources"
                                ));
                            }
                            let new: Vec<Value> = now
                                .into_iter()
                                .filter(|v| !was_set.contains(&text(v)))
                                .collect();
                            if let Some(v) = insight_source_of(&new, v2, &id, &mut lost) {
                                o.insert("insight_source".into(), v);
                            }
                        }
                        ("extra.issue", true) => {
                            if let Some(i) = from.extra.get("issue") {
                                o.insert("issue".into(), i.clone());
                            }
                        }
                        ("tags", true) => {
                            o.insert(
                                "keywords".into(),
                                json!(from.tags.clone().unwrap_or_default()),
                            );
                        }
                        ("content", false) => {
                            o.insert("content".into(), json!(from.content));
                        }
                        ("extra.justification", false) => {
                            if let Some(j) = from.extra.get("justification") {
                                o.insert("justification".into(), j.clone());
                            }
                        }
                        ("evidence", false) => {
                            if let Some(ev) = from.evidence.as_deref() {
                                o.insert("evidence".into(), json!(evidence_text(ev)));
                            }
                        }
                        // A 0.12 counter moves by TAGs of one: the
                        // difference from the playbook's value.
                        ("helpful" | "harmful" | "neutral", true) => {
                            let pick = |e: &Entry| match f.as_str() {
                                "helpful" => e.helpful,
                                "harmful" => e.harmful,
                                _ => e.neutral,
                            };
                            let was = before(&id).and_then(pick).unwrap_or(0);
                            let by = pick(from).unwrap_or(0) - was;
                            let delta = match f.as_str() {
                                "helpful" => 1,
                                "harmful" => -1,
                                _ => 0,
                            };
                            if by < 0 {
                                lost.push(format!(
                                    "`{id}` {f} goes down by {}; a 0.12 TAG only adds one",
                                    -by
                                ));
                            }
                            for _ in 0..by.max(0) {
                                tags.push(json!({"type": "TAG", "section": "", "skill_id": id, "metadata": {"delta": delta}}));
                            }
                        }
                        ("helpful" | "harmful" | "neutral", false) => {
                            let v = match f.as_str() {
                                "helpful" => from.helpful,
                                "harmful" => from.harmful,
                                _ => from.neutral,
                            };
                            metadata.insert(f.clone(), json!(v.unwrap_or(0)));
                        }
                        // kayba's one status change is REMOVE's.
                        ("status", _)
                            if !matches!(from.status, None | Some(Status::Active))
                                && !retired(target) =>
                        {
                            if !v2 {
                                lost.push(format!(
                                    "`{id}` is set inactive; a 0.7 REMOVE deletes it"
                                ));
                            }
                            tags.push(json!({"type": "REMOVE", "section": "", "skill_id": id}));
                        }
                        ("updated_at" | "id", _) => {}
                        (other, _) => {
                            lost.push(format!("`{id}` {other}: {what} does not update it"))
                        }
                    }
                }
                if !metadata.is_empty() {
                    o.insert("metadata".into(), Value::Object(metadata));
                }
                if o.len() > 3 {
                    ops.push(Value::Object(o));
                }
                ops.append(&mut tags);
            }
            Change::Replace { target, entry } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let text = if v2 { "insight" } else { "content" };
                ops.push(json!({"type": "UPDATE", "section": entry.section.clone().unwrap_or_default(), "skill_id": id, text: entry.content}));
            }
            Change::Count {
                target,
                helpful,
                harmful,
                neutral,
            } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                if v2 {
                    // A 0.12 TAG counts one: an increment of N is N tags.
                    for (n, delta) in [(*helpful, 1), (*harmful, -1), (*neutral, 0)] {
                        if n < 0 {
                            lost.push(format!("`{id}` counts {n}; a 0.12 TAG only adds one"));
                        }
                        for _ in 0..n.max(0) {
                            ops.push(json!({"type": "TAG", "section": "", "skill_id": id, "metadata": {"delta": delta}}));
                        }
                    }
                } else {
                    let mut m = Map::new();
                    for (k, n) in [
                        ("helpful", helpful),
                        ("harmful", harmful),
                        ("neutral", neutral),
                    ] {
                        if *n != 0 {
                            m.insert(k.into(), json!(n));
                        }
                    }
                    ops.push(json!({"type": "TAG", "section": "", "skill_id": id, "metadata": m}));
                }
            }
            Change::Deprecate { target, .. } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                if !v2 {
                    lost.push(format!("`{id}` is deprecated; a 0.7 REMOVE deletes it"));
                }
                ops.push(json!({"type": "REMOVE", "section": "", "skill_id": id}));
            }
            Change::Remove { target } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                if v2 {
                    lost.push(format!(
                        "`{id}` is removed; a 0.12 REMOVE sets `active` false and keeps it"
                    ));
                }
                ops.push(json!({"type": "REMOVE", "section": "", "skill_id": id}));
            }
            Change::Merge { keep, .. } => {
                lost.push(format!(
                    "the merge into {keep} is not an operation {what} has"
                ));
            }
            Change::Append {
                target,
                field,
                values,
            } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                if field.strip_prefix("extra.") != Some(sources_key(v2)) {
                    lost.push(format!(
                        "`{id}` gains items in `{field}`, which {what} cannot add"
                    ));
                    continue;
                }
                let Some(source) = insight_source_of(values, v2, &id, &mut lost) else {
                    continue;
                };
                ops.push(json!({"type": "UPDATE", "section": "", "skill_id": id, "insight_source": source}));
            }
        }
    }
    if let Some((n, id)) = named_past.filter(|(n, _)| *n > counter) {
        lost.push(format!(
            "`{id}` is added under its own ID, numbered past kayba's `next_id` ({counter}), which an ADD with an ID does not move: kayba's ADD number {n} would overwrite it"
        ));
    }
    (json!({"reasoning": note, "operations": ops}), lost)
}

/// The file's `next_id`: the number kayba's `_generate_id` gave last.
pub(crate) fn next_id(pb: &ace_model::Playbook) -> u64 {
    pb.layout_of(crate::LAYOUT_KEY)
        .and_then(|l| l.get("next_id"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `d` read from a text `by` bytes further on, put back in place.
    fn shifted(mut d: Delta, by: usize) -> Delta {
        let back = |s: &mut Span| *s = Span::new(s.start - by, s.end - by);
        back(&mut d.span);
        d.ops.iter_mut().for_each(|o| back(&mut o.span));
        d.refusals.iter_mut().for_each(|r| back(&mut r.span));
        d
    }

    /// Every batch of kayba's test set, in both generations, read as one
    /// object (its operations taken one at a time) and inside a list (the
    /// whole tree), gives the same delta.
    #[test]
    fn a_batch_read_alone_is_the_batch_read_in_a_list() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/kayba/batches");
        let mut seen = 0;
        for release in ["0.13.0", "0.8.9"] {
            let mut files: Vec<_> = std::fs::read_dir(dir.join(release))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap();
                let alone = read_batches(&text).unwrap().unwrap();
                let listed = read_batches(&format!("[{text}]")).unwrap().unwrap();
                assert_eq!(alone.len(), 1, "{}", f.display());
                let listed = listed
                    .into_iter()
                    .map(|d| shifted(d, 1))
                    .collect::<Vec<_>>();
                assert_eq!(alone, listed, "{}", f.display());
                seen += 1;
            }
        }
        assert_eq!(seen, 14);
    }

    #[test]
    fn the_generation_of_a_batch_read_alone_is_told_by_all_its_operations() {
        // The first operation says neither generation; the last says 0.7,
        // so the REMOVE before it is a hard one.
        let text = r#"{"operations": [
            {"type": "REMOVE", "skill_id": "a-1"},
            {"type": "ADD", "section": "s", "content": "c", "justification": "j"}
        ]}"#;
        let d = &read_batches(text).unwrap().unwrap()[0];
        assert!(
            matches!(d.ops[0].change, Change::Remove { .. }),
            "{:?}",
            d.ops
        );
        let v2 = text.replace(
            "\"justification\": \"j\"",
            "\"issue\": \"i\", \"insight\": \"c\"",
        );
        let d = &read_batches(&v2).unwrap().unwrap()[0];
        assert!(
            matches!(d.ops[0].change, Change::Deprecate { .. }),
            "{:?}",
            d.ops
        );
    }

    #[test]
    fn an_object_whose_operations_are_not_all_kaybas_is_no_batch() {
        for text in [
            r#"{"operations": [{"type": "ADD"}, {"section": "s"}]}"#,
            r#"{"operations": [{"type": "ADD", "op": "add"}]}"#,
            r#"{"operations": []}"#,
            r#"{"operations": {"type": "ADD"}}"#,
        ] {
            assert_eq!(read_batches(text).unwrap(), None, "{text}");
        }
        // As Python reads a repeated key: the last.
        let twice = r#"{"operations": [{"op": "add"}], "operations": [{"type": "TAG", "skill_id": "a", "metadata": {"delta": 1}}]}"#;
        let d = &read_batches(twice).unwrap().unwrap()[0];
        assert_eq!(d.ops.len(), 1);
        assert_eq!(d.ops[0].span.start, twice.find("{\"type\"").unwrap());
        let empty = read_batches(r#"{"reasoning": "r", "operations": []}"#)
            .unwrap()
            .unwrap();
        assert!(empty[0].ops.is_empty());
        // kayba's `from_json` reads a batch without `operations` as none;
        // `reasoning` beside another dialect's keys is that dialect's.
        let alone = read_batches(r#"{"reasoning": "nothing new"}"#)
            .unwrap()
            .unwrap();
        assert!(alone[0].ops.is_empty());
        for text in [
            r#"{"reasoning": "r", "proposed_deltas": []}"#,
            "reasoning: r\n",
            r#"{}"#,
        ] {
            assert_eq!(read_batches(text).unwrap(), None, "{text}");
        }
    }
}
