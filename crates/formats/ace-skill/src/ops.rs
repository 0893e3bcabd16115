//! A skill delta as the canonical [`Delta`]: what `ace-apply` applies. The
//! delta is found where [`crate::delta::check`] finds it (the delta itself,
//! a reflector's `proposed_deltas`, a curator's `clean_delta` or the
//! `normalized_delta` real files use), and every error that check reports
//! refuses it.

use ace_jsonspan::Node;
use ace_model::delta::{Change, Delta, Op, Reason, Target};
use ace_model::{Diagnostic, Severity, Span};

use crate::delta::{kind_of, DocumentKind};
use crate::parts::read_bullet;

/// The skill field a `set` names, as the canonical model names it.
fn canonical(key: &str) -> String {
    match key {
        "helpful_count" => "helpful".into(),
        "harmful_count" => "harmful".into(),
        "created" => "created_at".into(),
        "last_updated" => "updated_at".into(),
        "id" | "content" | "title" | "tags" | "links" | "evidence" | "confidence" | "scope"
        | "status" | "deprecation_reason" => key.into(),
        other => format!("extra.{other}"),
    }
}

fn id_of(n: &Node) -> Option<Target> {
    n.as_str().map(|s| Target::Id(s.to_owned()))
}

fn integer(n: Option<&Node>) -> Option<i64> {
    n.and_then(|n| n.to_value().as_i64())
}

fn point(span: Span) -> Span {
    Span::new(span.start, span.start + 1)
}

/// The delta in a skill delta, reflector output or curator output; `None`
/// when `text` is a skill playbook. A text that does not parse is the
/// error.
pub fn read_delta(text: &str) -> Result<Option<Delta>, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let root = &doc.root;
    let kind = kind_of(root);
    let node = match kind {
        DocumentKind::Playbook => return Ok(None),
        DocumentKind::Delta => root,
        DocumentKind::ReflectorOutput => root.get("proposed_deltas").unwrap_or(root),
        DocumentKind::CuratorOutput => root
            .get("clean_delta")
            .or_else(|| root.get("normalized_delta"))
            .unwrap_or(root),
    };
    let mut delta = Delta::new(root.span);
    delta.id = node
        .get("delta_id")
        .and_then(Node::as_str)
        .map(str::to_owned);
    delta.created_at = node
        .get("timestamp")
        .and_then(Node::as_str)
        .map(str::to_owned);
    let list = |key: &str| node.get(key).and_then(Node::as_array).unwrap_or(&[]);
    let mut ignored = Vec::new();
    // The seed's order: counters, new bullets, edits, merges, deprecations.
    for c in list("counters") {
        let (Some(target), helpful, harmful) = (
            c.get("id").and_then(id_of),
            integer(c.get("helpful_delta")),
            integer(c.get("harmful_delta")),
        ) else {
            continue;
        };
        let change = Change::Count {
            target,
            helpful: helpful.unwrap_or(0),
            harmful: harmful.unwrap_or(0),
            neutral: 0,
        };
        delta.ops.push(Op {
            change,
            span: c.span,
        });
    }
    for (i, b) in list("new_bullets").iter().enumerate() {
        let Some(members) = b.members() else { continue };
        let entry = read_bullet(b, members, i, &mut ignored);
        delta.ops.push(Op {
            change: Change::Add(entry),
            span: b.span,
        });
    }
    for e in list("edits") {
        let (Some(target), Some(set)) = (e.get("id").and_then(id_of), e.get("set")) else {
            continue;
        };
        let Some(members) = set.members() else {
            continue;
        };
        let from = read_bullet(set, members, 0, &mut ignored);
        let fields = members.iter().map(|m| canonical(&m.key)).collect();
        delta.ops.push(Op {
            change: Change::Set {
                target,
                from: Box::new(from),
                fields,
            },
            span: e.span,
        });
    }
    for m in list("merges") {
        let Some(keep) = m.get("keep_id").and_then(id_of) else {
            continue;
        };
        let merged = m
            .get("merge_ids")
            .and_then(Node::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(id_of)
            .collect();
        let content = m
            .get("merged_content")
            .and_then(Node::as_str)
            .map(str::to_owned);
        delta.ops.push(Op {
            change: Change::Merge {
                keep,
                merged,
                content,
            },
            span: m.span,
        });
    }
    for d in list("deprecations") {
        let Some(target) = d.get("id").and_then(id_of) else {
            continue;
        };
        let reason = d.get("reason").and_then(Node::as_str).map(str::to_owned);
        delta.ops.push(Op {
            change: Change::Deprecate { target, reason },
            span: d.span,
        });
    }
    // What the skill's own checks find wrong in the delta refuses it; a
    // finding about the reflector's or curator's wrapper around it (a
    // missing `justification`) does not.
    for d in crate::delta::check(text, None)? {
        let inside = node.span.start <= d.span.start && d.span.end <= node.span.end;
        let wrapped = !std::ptr::eq(node, root);
        if d.severity < Severity::Error || (wrapped && !inside) {
            continue;
        }
        delta.refuse(
            Reason::for_rule(d.code),
            d.span,
            format!("{} ({})", d.message, d.code),
        );
    }
    if delta.ops.is_empty() && node.members().is_none() {
        delta.refuse(
            Reason::Invalid,
            point(node.span),
            format!("expected a delta object, found {}", node.type_name()),
        );
    }
    Ok(Some(delta))
}

/// The skill field a canonical field name is written as in an edit's
/// `set`: [`canonical`] the other way round.
fn skill_key(field: &str) -> String {
    match field {
        "created_at" => "created".into(),
        "updated_at" => "last_updated".into(),
        other => other.strip_prefix("extra.").unwrap_or(other).into(),
    }
}

/// The `set` of the edit of `id`, a new one when it has none yet.
fn edit<'a>(
    edits: &'a mut Vec<(String, serde_json::Map<String, serde_json::Value>)>,
    id: &str,
) -> &'a mut serde_json::Map<String, serde_json::Value> {
    let i = match edits.iter().position(|(e, _)| e == id) {
        Some(i) => i,
        None => {
            edits.push((id.to_owned(), serde_json::Map::new()));
            edits.len() - 1
        }
    };
    &mut edits[i].1
}

/// `delta` as a skill delta: `counters`, `new_bullets`, and an edit per
/// changed bullet whose `set` holds the changed fields as the skill
/// writes them. A deprecation is an edit of `status` and
/// `deprecation_reason` (a delta may not both edit and deprecate one
/// bullet). Gives, besides the delta, what it could not say: a removal is
/// written as a deprecation, an entry without an ID cannot be named, a
/// field removed has no `set` to say so.
pub fn write_delta(delta: &Delta, rationale: Option<&str>) -> (serde_json::Value, Vec<String>) {
    use serde_json::{json, Map, Value};
    let mut lost = Vec::new();
    let mut counters = Vec::new();
    let mut new_bullets = Vec::new();
    // One edit per bullet, in the order bullets are first edited.
    let mut edits: Vec<(String, Map<String, Value>)> = Vec::new();
    let id = |t: &Target, lost: &mut Vec<String>| t.id_for("a skill delta", lost);
    let losses = |l: Vec<ace_model::LossEntry>, lost: &mut Vec<String>| {
        lost.extend(l.into_iter().map(|l| {
            format!(
                "`{}` {}: {}",
                l.entry_id.as_deref().unwrap_or("?"),
                l.field,
                l.reason
            )
        }))
    };
    for op in &delta.ops {
        lost.extend(op.change.unsaid_by("a skill delta"));
        match &op.change {
            Change::Append { .. } => {}
            Change::Add(e) => {
                if e.created_at.is_some() || e.updated_at.is_some() {
                    lost.push(format!(
                        "`{}` is added with the time of applying as `created` and `last_updated`, as the skill's merge sets them",
                        e.id
                    ));
                }
                let (v, l) = crate::writer::bullet_value(e);
                losses(l, &mut lost);
                new_bullets.push(v);
            }
            Change::Count {
                target,
                helpful,
                harmful,
                ..
            } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let mut c = Map::new();
                c.insert("id".into(), json!(id));
                if *helpful != 0 {
                    c.insert("helpful_delta".into(), json!(helpful));
                }
                if *harmful != 0 {
                    c.insert("harmful_delta".into(), json!(harmful));
                }
                counters.push(Value::Object(c));
            }
            Change::Set {
                target,
                from,
                fields,
            } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let (bullet, l) = crate::writer::bullet_value(from);
                losses(l, &mut lost);
                let set = edit(&mut edits, &id);
                for f in fields {
                    let key = skill_key(f);
                    match bullet.get(&key) {
                        Some(v) => {
                            set.insert(key, v.clone());
                        }
                        None => lost.push(format!(
                            "`{id}` loses `{key}`; a skill edit can set a field but not remove it"
                        )),
                    }
                }
            }
            Change::Replace { target, entry } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let (bullet, l) = crate::writer::bullet_value(entry);
                losses(l, &mut lost);
                let set = edit(&mut edits, &id);
                if let Value::Object(m) = bullet {
                    for (k, v) in m {
                        if !matches!(k.as_str(), "id" | "helpful_count" | "harmful_count") {
                            set.insert(k, v);
                        }
                    }
                }
            }
            Change::Deprecate { target, reason } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let set = edit(&mut edits, &id);
                set.insert("status".into(), json!("deprecated"));
                if let Some(r) = reason {
                    set.insert("deprecation_reason".into(), json!(r));
                }
            }
            Change::Remove { target } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                lost.push(format!(
                    "`{id}` is removed; a skill delta has no removal and deprecates it instead"
                ));
                let set = edit(&mut edits, &id);
                set.insert("status".into(), json!("deprecated"));
                set.insert("deprecation_reason".into(), json!("removed"));
            }
            Change::Merge { .. } => lost.push("a merge is not written into a skill delta".into()),
        }
    }
    let mut out = Map::new();
    if let Some(r) = rationale {
        out.insert("rationale".into(), json!(r));
    }
    if !counters.is_empty() {
        out.insert("counters".into(), Value::Array(counters));
    }
    if !new_bullets.is_empty() {
        out.insert("new_bullets".into(), Value::Array(new_bullets));
    }
    let edits: Vec<Value> = edits
        .into_iter()
        .filter(|(_, set)| !set.is_empty())
        .map(|(id, set)| json!({"id": id, "set": set}))
        .collect();
    if !edits.is_empty() {
        out.insert("edits".into(), Value::Array(edits));
    }
    let out = Value::Object(out);
    // What a bullet carries that the skill's schemas reject (a scope out of
    // its enum, as its own playbooks have) makes validate_delta.py, and
    // ace-apply, refuse the delta: said here, before anyone applies it.
    let text = serde_json::to_string_pretty(&out).unwrap_or_default();
    if let Ok(findings) = crate::delta::check(&text, None) {
        for d in findings.iter().filter(|d| d.severity >= Severity::Error) {
            lost.push(format!(
                "the delta will be refused: {} ({})",
                d.message, d.code
            ));
        }
    }
    (out, lost)
}

/// The key of the playbook's `metadata` where `ace-apply` lists the
/// `delta_id`s it applied. The skill spec's merge updates `metadata` key by key,
/// so the list survives the skill's own merges.
pub const APPLIED_KEY: &str = "applied_deltas";

/// The delta IDs the playbook's `metadata` records as applied.
pub fn applied_deltas(pb: &ace_model::Playbook) -> Vec<String> {
    pb.extra
        .get("metadata")
        .and_then(|m| m.get(APPLIED_KEY))
        .and_then(serde_json::Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Records `ids` as applied in the playbook's `metadata`; `false` when the
/// playbook has no `metadata` object (a bare array of bullets), which has
/// no place for the record.
pub fn record_applied(pb: &mut ace_model::Playbook, ids: &[String]) -> bool {
    let Some(serde_json::Value::Object(meta)) = pb.extra.get_mut("metadata") else {
        return false;
    };
    match meta
        .entry(APPLIED_KEY)
        .or_insert_with(|| serde_json::Value::Array(Vec::new()))
    {
        serde_json::Value::Array(list) => {
            list.extend(ids.iter().cloned().map(serde_json::Value::String));
            true
        }
        _ => false,
    }
}
