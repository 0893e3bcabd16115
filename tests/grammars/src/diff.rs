//! The differential checks: a grammar and the hand-written reader it
//! specifies, run on the same text, must give the same verdict and the
//! same result. Each check says where they part, or nothing.

use ace_jsonspan::{Kind, Node};

use crate::outline::{Entry, Heading, Outline};

/// Where `grammars/tron.pest` and `ace_tron::parse` disagree on `text`,
/// strict and lenient: one accepting what the other refuses, or two
/// different span trees (the first differing node named by its path).
pub fn tron(text: &str) -> Option<String> {
    for lenient in [false, true] {
        let opts = ace_tron::Options {
            lenient,
            ..ace_tron::Options::default()
        };
        let hand = ace_tron::parse(text, &opts);
        let ours = crate::tron::parse(text, &opts);
        let mode = if lenient { "lenient" } else { "strict" };
        match (hand, ours) {
            (Ok(a), Ok(b)) => {
                if let Some(d) = first_difference(&a.root, &b.root, "$") {
                    return Some(format!("{mode}: the trees differ at {d}"));
                }
                let codes = |d: &ace_jsonspan::Document| {
                    d.diagnostics.iter().map(|x| x.code).collect::<Vec<_>>()
                };
                if codes(&a) != codes(&b) {
                    return Some(format!(
                        "{mode}: ace-tron notes {:?}, the grammar {:?}",
                        codes(&a),
                        codes(&b)
                    ));
                }
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => {
                return Some(format!(
                    "{mode}: ace-tron accepts; the grammar refuses at byte {}: {}",
                    e.span.start, e.message
                ))
            }
            (Err(e), Ok(_)) => {
                return Some(format!(
                    "{mode}: the grammar accepts; ace-tron refuses at byte {}: {}",
                    e.span.start, e.message
                ))
            }
        }
    }
    None
}

/// The path of the first node where `a` and `b` differ, and how.
pub fn first_difference(a: &Node, b: &Node, path: &str) -> Option<String> {
    if a.span != b.span {
        return Some(format!("{path}: span {:?} against {:?}", a.span, b.span));
    }
    match (&a.kind, &b.kind) {
        (Kind::Array(x), Kind::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} items against {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]")))
        }
        (Kind::Object(x), Kind::Object(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} members against {}", x.len(), y.len()));
            }
            x.iter().zip(y).find_map(|(p, q)| {
                let here = format!("{path}.{}", p.key);
                if p.key != q.key || p.key_span != q.key_span {
                    return Some(format!(
                        "{here}: key {:?} at {:?} against {:?} at {:?}",
                        p.key, p.key_span, q.key, q.key_span
                    ));
                }
                first_difference(&p.value, &q.value, &here)
            })
        }
        (x, y) if x != y => Some(format!("{path}: {x:?} against {y:?}")),
        _ => None,
    }
}

/// Where `grammars/markdown-playbook.pest` and `ace_markdown::read` part:
/// a different title, section heading or entry (ID, section, content,
/// counters, byte range).
pub fn markdown(text: &str) -> Option<String> {
    let grammar = match crate::markdown::outline(text) {
        Ok(o) => o,
        Err(e) => return Some(format!("the grammar refuses what the reader reads: {e}")),
    };
    let read = ace_markdown::read(text);
    let pb = &read.playbook;
    let section_of = |key: &Option<String>| {
        key.as_ref()
            .and_then(|k| pb.sections.iter().position(|s| &s.key == k))
    };
    let reader = Outline {
        bom: read
            .diagnostics
            .iter()
            .any(|d| d.code == ace_model::rules::BOM.code),
        title: pb.title.clone(),
        sections: pb
            .sections
            .iter()
            .map(|s| Heading {
                level: s
                    .extra
                    .get(ace_model::keys::HEADING_LEVEL)
                    .and_then(serde_json::Value::as_u64)
                    .map_or(2, |l| l as usize),
                title: s.title.clone().unwrap_or_default(),
                span: s.origin.0.unwrap_or_default(),
            })
            .collect(),
        entries: pb
            .entries
            .iter()
            .map(|e| Entry {
                id: e.id.clone(),
                section: section_of(&e.section),
                content: e.content.clone(),
                helpful: e.helpful,
                harmful: e.harmful,
                neutral: e.neutral,
                project: e.project_id.clone(),
                span: e.origin.0.unwrap_or_default(),
            })
            .collect(),
    };
    crate::outline::first_difference(&reader, &grammar)
}

/// Where `grammars/agents-md.pest` and `ace_agents::read` part: a
/// different bullet (ID, counts, aggregate, other fields, content,
/// provenance pairs, byte range), or one that only one of them finds.
pub fn agents(text: &str) -> Option<String> {
    let (bom, grammar) = match crate::agents::bullets(text) {
        Ok(found) => found,
        Err(e) => return Some(format!("the grammar refuses what the reader reads: {e}")),
    };
    let read = ace_agents::read(text);
    let noted = read
        .diagnostics
        .iter()
        .any(|d| d.code == ace_model::rules::BOM.code);
    if noted != bom {
        return Some(format!("BOM: reader {noted}, grammar {bom}"));
    }
    let reader: Vec<crate::agents::Bullet> = read
        .playbook
        .entries
        .iter()
        .map(|e| crate::agents::Bullet {
            id: e.id.clone(),
            helpful: e.helpful,
            harmful: e.harmful,
            aggregated: e
                .extra
                .get(ace_model::keys::AGGREGATED_FROM)
                .and_then(serde_json::Value::as_u64),
            other_fields: e
                .extra
                .get(ace_agents::BULLET_FIELDS_KEY)
                .and_then(serde_json::Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            content: e.content.clone(),
            provenance: e.provenance.as_ref().map(|p| {
                let mut m = std::collections::BTreeMap::new();
                for (k, v) in [
                    ("deltaId", &p.delta_id),
                    ("beadsId", &p.beads_id),
                    ("createdAt", &p.created_at),
                    ("hash", &p.hash),
                ] {
                    if let Some(v) = v {
                        m.insert(k.to_owned(), v.clone());
                    }
                }
                for (k, v) in &p.extra {
                    m.insert(k.clone(), v.as_str().unwrap_or_default().to_owned());
                }
                m
            }),
            span: e.origin.0.unwrap_or_default(),
        })
        .collect();
    crate::outline::first_differing("bullet", &reader, &grammar)
}
