//! AceDelta files as canonical [`Delta`]s, for `ace-apply`: one AceDelta,
//! an array of them, the curator input `{deltas}`, and the reflector's
//! insights (`{insights: [...]}`, a bare array, or JSON Lines) that carry a
//! `delta`. Each delta is refused for what [`crate::check`] finds in it,
//! with the curator's own reason codes.

use ace_jsonspan::Node;
use ace_model::delta::{Change, Delta, Op, Reason, Target};
use ace_model::{normalize, Diagnostic, Entry, Provenance, Severity, Span};
use serde_json::Value;

use crate::{classify, DocumentKind, Options};

const INSIGHT_KEYS: [&str; 4] = ["pattern", "recommendation", "signal", "delta"];

/// A reflector insight: two of its keys, `delta` or not (ace_beads logs
/// insights that propose no change without one).
fn is_insight(n: &Node) -> bool {
    n.members()
        .is_some_and(|_| INSIGHT_KEYS.iter().filter(|k| n.get(k).is_some()).count() >= 2)
}

fn text_of(n: Option<&Node>) -> Option<String> {
    n.and_then(Node::as_str).map(str::to_owned)
}

fn number(n: Option<&Node>) -> Option<f64> {
    n.and_then(|n| n.to_value().as_f64())
}

/// The deltas in `text`, or `None` when it holds none of the shapes above
/// (the curator's output, for one). A text that does not parse is the
/// error; a JSON Lines text is read line by line.
pub fn read_deltas(text: &str, opts: &Options) -> Result<Option<Vec<Delta>>, Diagnostic> {
    let doc = match ace_jsonspan::parse(text) {
        Ok(doc) => doc,
        Err(e) => return read_lines(text, opts)?.map(Some).ok_or(e),
    };
    let root = &doc.root;
    if let Some(items) = root.get("insights").and_then(Node::as_array).or_else(|| {
        root.as_array()
            .filter(|a| !a.is_empty() && a.iter().all(is_insight))
    }) {
        return Ok(Some(items.iter().map(|n| insight(n, opts)).collect()));
    }
    if is_insight(root) {
        return Ok(Some(vec![insight(root, opts)]));
    }
    // `classify` looks at the root's members and, in a list, at each
    // item's members: only that much is copied, not another dialect's
    // whole patch.
    let value = root.to_value_within(if root.as_array().is_some() { 2 } else { 1 });
    let nodes: Vec<&Node> = match classify(&value) {
        Some(DocumentKind::Delta) => vec![root],
        Some(DocumentKind::Batch) => root.as_array().unwrap_or(&[]).iter().collect(),
        Some(DocumentKind::Input) => root
            .get("deltas")
            .and_then(Node::as_array)
            .unwrap_or(&[])
            .iter()
            .collect(),
        // An empty queue (`[]`, as ace_beads commits it) holds no delta.
        None if matches!(&value, Value::Array(a) if a.is_empty()) => Vec::new(),
        _ => return Ok(None),
    };
    let mut deltas: Vec<Delta> = nodes.iter().map(|n| ace_delta(n)).collect();
    for d in crate::check(text, None, opts)? {
        if d.severity < Severity::Error {
            continue;
        }
        let owner = deltas
            .iter_mut()
            .find(|x| x.span.start <= d.span.start && d.span.end <= x.span.end);
        match owner {
            Some(x) => x.refuse(Reason::for_rule(d.code), d.span, d.message.clone()),
            // A finding about the wrapper (the input's `agentsMd`, say)
            // refuses every delta it carries.
            None => {
                for x in &mut deltas {
                    x.refuse(Reason::for_rule(d.code), d.span, d.message.clone());
                }
            }
        }
    }
    Ok(Some(deltas))
}

/// Whether `text` is a reflector's insights: `{insights: [...]}`, a bare
/// non-empty array of insights, or JSON Lines of them.
pub fn is_insights_file(text: &str) -> bool {
    match ace_jsonspan::parse(text) {
        Ok(doc) => {
            let root = &doc.root;
            root.get("insights").and_then(Node::as_array).is_some()
                || root
                    .as_array()
                    .is_some_and(|a| !a.is_empty() && a.iter().all(is_insight))
        }
        Err(_) => ace_jsonspan::parse_lines(text)
            .is_some_and(|lines| !lines.is_empty() && lines.iter().all(is_insight)),
    }
}

/// A JSON Lines text of insights or AceDeltas: `None` when a line is not
/// JSON, or holds neither.
fn read_lines(text: &str, opts: &Options) -> Result<Option<Vec<Delta>>, Diagnostic> {
    let Some(lines) = ace_jsonspan::parse_lines(text) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for root in &lines {
        if is_insight(root) {
            out.push(insight(root, opts));
        } else if classify(&root.to_value()) == Some(DocumentKind::Delta) {
            let mut d = ace_delta(root);
            let line = &text[root.span.start..root.span.end];
            for f in crate::check(line, None, opts)? {
                if f.severity >= Severity::Error {
                    let at = root.span.start;
                    let span = Span::new(f.span.start + at, f.span.end + at);
                    d.refuse(Reason::for_rule(f.code), span, f.message);
                }
            }
            out.push(d);
        } else {
            return Ok(None);
        }
    }
    Ok(Some(out))
}

/// One AceDelta: `add` a bullet, `amend` the one with the same hash (its
/// counters grow by the delta's, its text and provenance are the delta's),
/// or `deprecate` it.
fn ace_delta(n: &Node) -> Delta {
    let mut d = Delta::new(n.span);
    d.id = text_of(n.get("id"));
    let meta = n.get("metadata");
    let m = |k: &str| meta.and_then(|m| m.get(k));
    d.created_at = text_of(m("createdAt"));
    let (Some(section), Some(content), Some(op)) = (
        text_of(n.get("section")),
        text_of(n.get("content")),
        n.get("op").and_then(Node::as_str),
    ) else {
        return d;
    };
    let hash = normalize::dedup_key(&section, &content);
    let helpful = m("helpful").and_then(|v| v.to_value().as_i64());
    let harmful = m("harmful").and_then(|v| v.to_value().as_i64());
    let provenance = Provenance {
        delta_id: d.id.clone(),
        beads_id: m("source")
            .and_then(|s| s.get("beadsId"))
            .and_then(Node::as_str)
            .map(str::to_owned),
        created_at: d.created_at.clone(),
        hash: Some(hash.clone()),
        ..Provenance::default()
    };
    let mut entry = Entry {
        section: Some(section),
        content,
        helpful: Some(helpful.unwrap_or(0)),
        harmful: Some(harmful.unwrap_or(0)),
        ..Entry::default()
    };
    if let Some(tags) = m("tags").and_then(Node::as_array) {
        let tags: Vec<String> = tags.iter().filter_map(|t| text_of(Some(t))).collect();
        if !tags.is_empty() {
            entry.tags = Some(tags);
        }
    }
    entry.provenance = Some(Box::new(provenance));
    let target = Target::Key(hash);
    let span = n.span;
    match op {
        "add" => d.ops.push(Op {
            change: Change::Add(entry),
            span,
        }),
        "amend" => {
            d.ops.push(Op {
                change: Change::Count {
                    target: target.clone(),
                    helpful: helpful.unwrap_or(0),
                    harmful: harmful.unwrap_or(0),
                    neutral: 0,
                },
                span,
            });
            d.ops.push(Op {
                change: Change::Set {
                    target,
                    from: Box::new(entry),
                    fields: vec!["content".into(), "provenance".into()],
                },
                span,
            });
        }
        "deprecate" => d.ops.push(Op {
            change: Change::Deprecate {
                target,
                reason: None,
            },
            span,
        }),
        _ => {}
    }
    d
}

/// One reflector insight. Its `delta` is `{section, operation|type,
/// content|text, bullet_id}`; a `null` delta proposes nothing. The curator's
/// gate applies to the insight's confidence and evidence.
fn insight(n: &Node, opts: &Options) -> Delta {
    let mut d = Delta::new(n.span);
    d.id = text_of(n.get("id"));
    d.created_at = text_of(n.get("timestamp"));
    let Some(delta) = n.get("delta").filter(|x| x.members().is_some()) else {
        return d;
    };
    if let Some((c, node)) = n
        .get("confidence")
        .and_then(|c| number(Some(c)).map(|v| (v, c)))
    {
        if c < opts.confidence {
            d.refuse(
                Reason::LowConfidence,
                node.span,
                format!("confidence {c} is below {}", opts.confidence),
            );
        }
    }
    let evidence = n
        .get("evidence")
        .and_then(Node::as_str)
        .map(str::to_owned)
        .or_else(|| {
            let items = n.get("signal")?.get("evidence")?.as_array()?;
            Some(
                items
                    .iter()
                    .filter_map(Node::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        });
    match evidence {
        Some(e) if e.trim().chars().count() >= opts.evidence_length => {}
        Some(e) => d.refuse(
            Reason::LowEvidence,
            n.span,
            format!(
                "evidence {e:?} is shorter than {} characters",
                opts.evidence_length
            ),
        ),
        None => d.refuse(Reason::LowEvidence, n.span, "the insight gives no evidence"),
    }
    let op = delta
        .get("operation")
        .or_else(|| delta.get("type"))
        .or_else(|| delta.get("op"))
        .and_then(Node::as_str)
        .unwrap_or("");
    let content = text_of(delta.get("content")).or_else(|| text_of(delta.get("text")));
    let section = text_of(delta.get("section"));
    let by_id = text_of(delta.get("bullet_id")).map(Target::Id);
    let by_key = || {
        section
            .as_deref()
            .zip(content.as_deref())
            .map(|(s, c)| Target::Key(normalize::dedup_key(s, c)))
    };
    let span = delta.span;
    let change = match op {
        "add" => match (&section, &content) {
            (Some(s), Some(c)) => {
                let mut e = Entry {
                    section: Some(s.clone()),
                    content: c.clone(),
                    helpful: Some(0),
                    harmful: Some(0),
                    ..Entry::default()
                };
                e.provenance = Some(Box::new(Provenance {
                    delta_id: d.id.clone(),
                    created_at: d.created_at.clone(),
                    hash: Some(normalize::dedup_key(s, c)),
                    ..Provenance::default()
                }));
                Some(Change::Add(e))
            }
            _ => None,
        },
        "remove" => by_id
            .or_else(by_key)
            .map(|target| Change::Remove { target }),
        "deprecate" => by_id.or_else(by_key).map(|target| Change::Deprecate {
            target,
            reason: None,
        }),
        _ => None,
    };
    match change {
        Some(change) => d.ops.push(Op { change, span }),
        None => d.refuse(
            Reason::Invalid,
            span,
            format!(
                "the insight's delta is not one the curator can apply: operation `{op}` needs {}",
                if op == "add" {
                    "`section` and `content`"
                } else {
                    "`add`, `remove` or `deprecate` with a target"
                }
            ),
        ),
    }
    d
}

/// What [`write_deltas`] needs besides the delta.
pub struct WriteOptions<'a> {
    /// The playbook the delta applies to: an AceDelta names a bullet by its
    /// section and text, which the delta's other operations leave to it.
    pub old: &'a ace_model::Playbook,
    /// `metadata.createdAt` of every delta, and part of each new ID.
    pub now: &'a str,
    /// `metadata.evidence` of every delta.
    pub evidence: &'a str,
}

/// `delta` as a JSON array of AceDeltas, for ace_beads' curator: `add` for
/// a new bullet, `amend` for a bullet whose counters grow or whose text
/// changes without changing its hash, `deprecate` for one deprecated or
/// removed. A bullet whose text or section changed is deprecated and added
/// anew, as the curator has no other way to say it. Gives, besides the
/// deltas, what they could not say (the curator gives new bullets IDs of
/// its own; counters only grow; fields an AGENTS.md bullet lacks).
pub fn write_deltas(delta: &Delta, opts: &WriteOptions<'_>) -> (Value, Vec<String>) {
    use std::collections::HashMap;
    let mut lost = Vec::new();
    let mut out: Vec<Value> = Vec::new();
    let by_id: HashMap<&str, &Entry> = opts
        .old
        .entries
        .iter()
        .filter(|e| !e.id.is_empty())
        .map(|e| (e.id.as_str(), e))
        .collect();
    let find = |t: &Target| -> Option<&Entry> {
        match t {
            Target::Id(id) => by_id.get(id.as_str()).copied(),
            Target::Key(k) => opts.old.entries.iter().find(|e| &e.dedup_key() == k),
            Target::Unnamed(_) => None,
        }
    };
    let name = |e: &Entry| {
        if e.id.is_empty() {
            e.content.clone()
        } else {
            e.id.clone()
        }
    };
    // Each target's operations together: an amend carries both the
    // counters and the text.
    let mut order: Vec<&Target> = Vec::new();
    let mut ops: HashMap<&Target, Vec<&Change>> = HashMap::new();
    // The hashes a new bullet may not have: the curator refuses a second
    // bullet of one hash (the old playbook's, less those the delta
    // retires, and those it adds).
    let retired: std::collections::HashSet<String> = delta
        .ops
        .iter()
        .filter(|op| matches!(op.change, Change::Deprecate { .. } | Change::Remove { .. }))
        .flat_map(|op| op.change.targets())
        .filter_map(|t| find(t).map(Entry::dedup_key))
        .collect();
    let mut taken: std::collections::HashSet<String> = opts
        .old
        .entries
        .iter()
        .map(Entry::dedup_key)
        .filter(|k| !retired.contains(k))
        .collect();
    for op in &delta.ops {
        lost.extend(op.change.unsaid_by("an AceDelta"));
        match &op.change {
            Change::Append { .. } => {}
            Change::Add(e) if !taken.insert(e.dedup_key()) => lost.push(format!(
                "`{}` repeats a bullet of the same section and text; the curator refuses a second one",
                name(e)
            )),
            Change::Add(e) => {
                if !e.id.is_empty() {
                    lost.push(format!(
                        "`{}` is added without its ID: the curator gives a new bullet its own",
                        e.id
                    ));
                }
                out.push(ace_delta_value("add", e, e.helpful, e.harmful, opts, out.len()));
            }
            Change::Merge { .. } => lost.push("a merge is not written as AceDeltas".into()),
            other => {
                for t in other.targets() {
                    if !ops.contains_key(t) {
                        order.push(t);
                    }
                    ops.entry(t).or_default().push(other);
                }
            }
        }
    }
    for t in order {
        let Some(old) = find(t) else {
            lost.push(format!("{t} is not in the old playbook"));
            continue;
        };
        let (mut helpful, mut harmful) = (0, 0);
        let mut retire = false;
        let mut new = old.clone();
        let mut fields: Vec<&str> = Vec::new();
        for change in &ops[t] {
            match change {
                Change::Count {
                    helpful: h,
                    harmful: m,
                    ..
                } => {
                    helpful += h;
                    harmful += m;
                }
                Change::Deprecate { .. } | Change::Remove { .. } => retire = true,
                Change::Set {
                    from, fields: f, ..
                } => {
                    for field in f {
                        ace_model::delta::copy_field(&mut new, from, field);
                        fields.push(field);
                    }
                }
                Change::Replace { entry, .. } => {
                    new = (**entry).clone();
                    fields.extend(["content", "section"]);
                }
                _ => {}
            }
        }
        let deprecate = |out: &mut Vec<Value>| {
            let v = ace_delta_value("deprecate", old, Some(0), Some(0), opts, out.len());
            out.push(v);
        };
        if retire {
            deprecate(&mut out);
            continue;
        }
        for f in &fields {
            if !matches!(*f, "content" | "section" | "updated_at" | "provenance") {
                lost.push(format!(
                    "`{}` {f}: an AceDelta carries a bullet's text and counters alone",
                    name(old)
                ));
            }
        }
        if new.dedup_key() != old.dedup_key() {
            lost.push(format!(
                "`{}` changed its text: the curator amends only a bullet with the same hash, so it is deprecated and added anew",
                name(old)
            ));
            deprecate(&mut out);
            if !taken.insert(new.dedup_key()) {
                lost.push(format!(
                    "`{}`'s new text repeats a bullet of its section; the curator refuses a second one",
                    name(old)
                ));
                continue;
            }
            let mut added = new.clone();
            // A delta of its own, which keeps only the bullet's beads issue.
            added.provenance = old.provenance.as_ref().map(|p| {
                Box::new(ace_model::Provenance {
                    beads_id: p.beads_id.clone(),
                    ..Default::default()
                })
            });
            added.helpful = new.helpful.map(|h| h + helpful);
            added.harmful = new.harmful.map(|h| h + harmful);
            out.push(ace_delta_value(
                "add",
                &added,
                added.helpful,
                added.harmful,
                opts,
                out.len(),
            ));
            continue;
        }
        if helpful < 0 || harmful < 0 {
            lost.push(format!(
                "`{}`: its counters fall ({helpful:+}, {harmful:+}); an AceDelta's counters only grow",
                name(old)
            ));
        }
        if old.provenance.is_some() {
            lost.push(format!(
                "`{}`: an amend records itself as the bullet's provenance (deltaId, createdAt)",
                name(old)
            ));
        }
        out.push(ace_delta_value(
            "amend",
            &new,
            Some(helpful.max(0)),
            Some(harmful.max(0)),
            opts,
            out.len(),
        ));
    }
    // What the curator refuses of it (a bullet with no section, as a skill
    // playbook's are), said here, before anyone applies it, in the words
    // ace-apply refuses it with: the deltas are read back as ace-apply
    // reads them.
    let out = Value::Array(out);
    let text = serde_json::to_string_pretty(&out).unwrap_or_default();
    if let Ok(Some(deltas)) = read_deltas(&text, &Options::default()) {
        for r in deltas.iter().filter_map(|d| d.refusals.first()) {
            let said = format!("the delta will be refused: {}", r.message);
            if !lost.contains(&said) {
                lost.push(said);
            }
        }
    }
    (out, lost)
}

/// One AceDelta about `e`: its section and text, counters as given, tags,
/// and `e`'s own provenance (delta ID, beads ID, time) where it has one,
/// else a name-based UUID of what the delta says and the time of writing.
fn ace_delta_value(
    op: &str,
    e: &Entry,
    helpful: Option<i64>,
    harmful: Option<i64>,
    opts: &WriteOptions<'_>,
    index: usize,
) -> Value {
    use serde_json::json;
    // A new bullet keeps the delta that added it; any other delta is new
    // and names only the bullet's beads issue.
    let p = e.provenance.as_deref();
    let own = p.filter(|_| op == "add");
    let section = e.section.clone().unwrap_or_default();
    let created = own
        .and_then(|p| p.created_at.clone())
        .unwrap_or_else(|| opts.now.to_owned());
    let id = own
        .and_then(|p| p.delta_id.clone())
        .filter(|id| uuid::Uuid::try_parse(id).is_ok())
        .unwrap_or_else(|| {
            let name = format!("ace-tools:{created}:{index}:{op}:{section}:{}", e.content);
            uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, name.as_bytes()).to_string()
        });
    json!({
        "id": id,
        "section": section,
        "op": op,
        "content": e.content,
        "metadata": {
            "source": {"beadsId": p.and_then(|p| p.beads_id.clone()).unwrap_or_default()},
            "confidence": 1.0,
            "helpful": helpful.unwrap_or(0),
            "harmful": harmful.unwrap_or(0),
            "tags": e.tags.clone().unwrap_or_default(),
            "evidence": opts.evidence,
            "createdAt": created,
        }
    })
}
