//! Skill deltas (`delta-YYYY-MM-DD-NNN`) and the reflector and curator
//! outputs that carry them: recognised by content, checked against the
//! skill's schemas with each new bullet judged by its own generation, and
//! checked for what the schema cannot see (unknown IDs, conflicting
//! operations, merges that keep what they archive). Applying a delta is not
//! done here.

use std::collections::{HashMap, HashSet};

use ace_jsonspan::Node;
use ace_model::{rules, Diagnostic, Playbook, Span};
use ace_schema::{Generation, SkillSchema};

use crate::checks::{self, Hint};

/// What a skill JSON file is, judged by its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    Playbook,
    Delta,
    ReflectorOutput,
    CuratorOutput,
}

impl DocumentKind {
    pub fn name(self) -> &'static str {
        match self {
            DocumentKind::Playbook => "skill playbook",
            DocumentKind::Delta => "skill delta",
            DocumentKind::ReflectorOutput => "skill reflector output",
            DocumentKind::CuratorOutput => "skill curator output",
        }
    }
}

const OPERATIONS: [&str; 5] = ["new_bullets", "edits", "merges", "deprecations", "counters"];

/// The kind of a parsed document: a reflector output has
/// `proposed_deltas`, a curator output `clean_delta` (or the demo's
/// `normalized_delta`), a delta `delta_id` or an operation list and no
/// `bullets`; everything else is read as a playbook.
pub fn kind_of(root: &Node) -> DocumentKind {
    match root.members() {
        None => DocumentKind::Playbook,
        Some(_) => kind_by_keys(|k| root.get(k).is_some()),
    }
}

/// [`kind_of`] for an object root with the keys `has` says it has.
fn kind_by_keys(has: impl Fn(&str) -> bool) -> DocumentKind {
    if has("proposed_deltas") {
        DocumentKind::ReflectorOutput
    } else if has("clean_delta") || has("normalized_delta") {
        DocumentKind::CuratorOutput
    } else if !has("bullets") && (has("delta_id") || OPERATIONS.iter().any(|k| has(k))) {
        DocumentKind::Delta
    } else {
        DocumentKind::Playbook
    }
}

/// The kind of a JSON text, or `None` if it does not parse.
pub fn sniff(text: &str) -> Option<DocumentKind> {
    // The kind shows in the root's keys alone, so their values are skipped
    // unparsed: ace-convert sniffs every skill file before reading it.
    match ace_format::top::top_level(text, |_| false) {
        Some(serde_json::Value::Object(keys)) => Some(kind_by_keys(|k| keys.contains_key(k))),
        Some(_) => Some(DocumentKind::Playbook),
        // serde_json stops at 128 levels, our parser at 512.
        None => sniff_parsed(text),
    }
}

fn sniff_parsed(text: &str) -> Option<DocumentKind> {
    // The items of the arrays below the root keys (a playbook's bullets
    // above all) are dropped as they are parsed, not held as a tree.
    struct Skim;
    impl ace_jsonspan::ItemSink for Skim {
        fn wants(&mut self, _: &[&str]) -> bool {
            true
        }
        fn item(&mut self, _: usize, _: Node) {}
    }
    ace_jsonspan::parse_with(text, &mut Skim)
        .ok()
        .map(|d| kind_of(&d.root))
}

/// Every finding for a delta, reflector output or curator output. With
/// `playbook`, IDs are checked against its entries.
pub fn check(text: &str, playbook: Option<&Playbook>) -> Result<Vec<Diagnostic>, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let mut out = doc.diagnostics;
    let root = &doc.root;
    let known: Option<HashSet<&str>> =
        playbook.map(|pb| pb.entries.iter().map(|e| e.id.as_str()).collect());
    // Where the delta sits: the document itself, or under one key.
    let (schema, delta_key): (SkillSchema, Option<&str>) = match kind_of(root) {
        DocumentKind::ReflectorOutput => (SkillSchema::ReflectorOutput, Some("proposed_deltas")),
        DocumentKind::CuratorOutput => (SkillSchema::CuratorOutput, Some("clean_delta")),
        _ => (SkillSchema::Delta, None),
    };
    let delta_path: Vec<&str> = delta_key.into_iter().collect();
    schema_check(root, "", schema, &delta_path, &mut out);
    let mut inner: Vec<&Node> = Vec::new();
    match delta_key {
        None => inner.push(root),
        Some(k) => inner.extend(root.get(k)),
    }
    // The skill's demo curator output names its delta `normalized_delta`;
    // the schema rejects the name (reported above), but the delta inside is
    // still worth checking as one.
    if schema == SkillSchema::CuratorOutput && root.get("clean_delta").is_none() {
        if let Some(d) = root.get("normalized_delta") {
            schema_check(d, "/normalized_delta", SkillSchema::Delta, &[], &mut out);
            inner.push(d);
        }
    }
    for d in inner {
        for n in bullets_of(d) {
            checks::check_bullet_timestamps(n, &mut out);
        }
        if let Some(n) = d.get("timestamp") {
            checks::check_timestamp(n, "timestamp", &mut out);
        }
        operations(d, known.as_ref(), &mut out);
    }
    out.sort_by_key(|d| (d.span.start, d.code));
    out.dedup();
    Ok(out)
}

fn bullets_of(delta: &Node) -> &[Node] {
    delta
        .get("new_bullets")
        .and_then(Node::as_array)
        .unwrap_or(&[])
}

/// Validates `node` against `schema` once per generation and keeps, for each
/// new bullet, the errors of the generation that bullet follows; errors
/// outside the new bullets are the same in both runs.
fn schema_check(
    node: &Node,
    base: &str,
    schema: SkillSchema,
    delta_path: &[&str],
    out: &mut Vec<Diagnostic>,
) {
    let value = node.to_value();
    let delta = node.locate(delta_path);
    let bullets: &[Node] = if delta.exact {
        bullets_of(delta.node)
    } else {
        &[]
    };
    let hints: Vec<Hint> = bullets.iter().map(checks::hint).collect();
    let default = checks::majority(&hints);
    let gens: Vec<Generation> = hints
        .iter()
        .map(|h| h.generation().unwrap_or(default))
        .collect();
    let bullet_of = |path: &[String]| -> Option<usize> {
        let n = delta_path.len();
        if path.len() > n + 1
            && path[..n].iter().zip(delta_path).all(|(a, b)| a == b)
            && path[n] == "new_bullets"
        {
            path[n + 1].parse().ok()
        } else {
            None
        }
    };
    let mut errors = Vec::new();
    for gen in [Generation::One, Generation::Two] {
        for e in ace_schema::validate(schema, gen, &value) {
            let keep = match bullet_of(&e.path) {
                Some(i) => gens.get(i).copied().unwrap_or(Generation::Two) == gen,
                None => gen == Generation::Two,
            };
            if keep {
                errors.push(e);
            }
        }
    }
    // A bullet ID of another shape, new or referred to, is reported, not
    // refused: the skill's own playbooks have such IDs.
    let (refs, errors): (Vec<_>, Vec<_>) = errors.into_iter().partition(|e| {
        let n = e.path.len();
        e.keyword == "pattern"
            && n >= 3
            && ["counters", "edits", "merges", "deprecations", "new_bullets"]
                .contains(&e.path[n - 3].as_str())
            && matches!(e.path[n - 1].as_str(), "id" | "keep_id" | "replacement_id")
            || n >= 4 && e.keyword == "pattern" && e.path[n - 2] == "merge_ids"
    });
    out.extend(ace_schema::diagnostics(
        &refs,
        node,
        &rules::DELTA_ID_SHAPE,
        base,
        schema.file_name(),
    ));
    out.extend(ace_schema::diagnostics(
        &errors,
        node,
        &rules::DELTA_SCHEMA,
        base,
        schema.file_name(),
    ));
    for ((i, bullet), gen) in bullets.iter().enumerate().zip(&gens) {
        if *gen == Generation::One {
            out.push(Diagnostic::new(
                &rules::SCHEMA_GENERATION,
                checks::hint_span(bullet),
                format!(
                    "new {} follows {}; the delta.schema.json shipped with the skill checks new bullets against generation 2, which rejects its `confidence` and `scope`",
                    checks::bullet_label(bullet, i),
                    checks::generation_name(Generation::One)
                ),
            ));
        }
    }
}

/// One ID mentioned by an operation.
struct Ref<'a> {
    id: &'a str,
    span: Span,
}

fn id_at<'a>(node: &'a Node, key: &str) -> Option<Ref<'a>> {
    let n = node.get(key)?;
    Some(Ref {
        id: n.as_str()?,
        span: n.span,
    })
}

fn items<'a>(delta: &'a Node, key: &str) -> &'a [Node] {
    delta.get(key).and_then(Node::as_array).unwrap_or(&[])
}

fn operations(delta: &Node, known: Option<&HashSet<&str>>, out: &mut Vec<Diagnostic>) {
    let new: Vec<Ref> = bullets_of(delta)
        .iter()
        .filter_map(|b| id_at(b, "id"))
        .collect();
    let counters: Vec<Ref> = items(delta, "counters")
        .iter()
        .filter_map(|c| id_at(c, "id"))
        .collect();
    let edits: Vec<(Ref, &Node)> = items(delta, "edits")
        .iter()
        .filter_map(|e| Some((id_at(e, "id")?, e)))
        .collect();
    let deprecations: Vec<(Ref, Option<Ref>)> = items(delta, "deprecations")
        .iter()
        .filter_map(|d| Some((id_at(d, "id")?, id_at(d, "replacement_id"))))
        .collect();
    let merges: Vec<(Option<Ref>, Vec<Ref>)> = items(delta, "merges")
        .iter()
        .map(|m| {
            let ids = m
                .get("merge_ids")
                .and_then(Node::as_array)
                .unwrap_or(&[])
                .iter()
                .filter_map(|n| {
                    Some(Ref {
                        id: n.as_str()?,
                        span: n.span,
                    })
                })
                .collect();
            (id_at(m, "keep_id"), ids)
        })
        .collect();

    let diag = |rule, r: &Ref, msg: String| Diagnostic::new(rule, r.span, msg);

    // New bullets: unique among themselves and new to the playbook.
    let mut first_new: HashMap<&str, Span> = HashMap::new();
    for r in &new {
        if let Some(first) = first_new.get(r.id) {
            out.push(
                diag(
                    &rules::DELTA_ID_EXISTS,
                    r,
                    format!("new bullet `{}` is added twice by this delta", r.id),
                )
                .with_related(*first, "first added here"),
            );
        } else {
            first_new.insert(r.id, r.span);
            if known.is_some_and(|k| k.contains(r.id)) {
                out.push(diag(
                    &rules::DELTA_ID_EXISTS,
                    r,
                    format!("new bullet `{}` already exists in the playbook", r.id),
                ));
            }
        }
    }
    let exists = |id: &str| known.is_none_or(|k| k.contains(id)) || first_new.contains_key(id);
    let unknown = |r: &Ref, what: &str, out: &mut Vec<Diagnostic>| {
        if !exists(r.id) {
            out.push(diag(&rules::DELTA_UNKNOWN_ID, r, format!("{what} `{}` is neither in the playbook nor added by this delta; the merge script skips it", r.id)));
        }
    };

    for r in &counters {
        if first_new.contains_key(r.id) {
            out.push(
                diag(&rules::COUNTER_ON_NEW_BULLET, r, format!("counter update for `{}`, which this delta adds: counters are applied before new bullets, so the update is dropped", r.id))
                    .with_related(first_new[r.id], "added here"),
            );
        } else if known.is_some_and(|k| !k.contains(r.id)) {
            out.push(diag(&rules::DELTA_UNKNOWN_ID, r, format!("counter update for `{}`, which is not in the playbook; the merge script skips it", r.id)));
        }
    }
    for (r, _) in &edits {
        unknown(r, "edit of", out);
    }
    for (r, replacement) in &deprecations {
        unknown(r, "deprecation of", out);
        if let Some(rep) = replacement {
            unknown(rep, "replacement", out);
        }
    }
    for (keep, ids) in &merges {
        if let Some(k) = keep {
            unknown(k, "merge target", out);
        }
        for r in ids {
            unknown(r, "merged bullet", out);
            if keep.as_ref().is_some_and(|k| k.id == r.id) {
                out.push(diag(&rules::MERGE_KEEPS_MERGED, r, format!("`{}` is both the bullet kept and one merged into it: its counters would double and it would be archived", r.id)));
            }
        }
    }

    // Conflicts between operations on one bullet.
    let conflict = |r: &Ref, msg: String, first: Span, first_msg: &str| {
        Diagnostic::new(&rules::DELTA_CONFLICT, r.span, msg)
            .with_related(first, first_msg.to_owned())
    };
    let mut merged_away: HashMap<&str, Span> = HashMap::new();
    for (keep, ids) in &merges {
        for r in ids {
            if keep.as_ref().is_some_and(|k| k.id == r.id) {
                continue;
            }
            match merged_away.get(r.id) {
                Some(first) => out.push(conflict(
                    r,
                    format!("`{}` is merged away twice", r.id),
                    *first,
                    "first merged here",
                )),
                None => {
                    merged_away.insert(r.id, r.span);
                }
            }
        }
    }
    for (keep, _) in &merges {
        if let Some(k) = keep {
            if let Some(first) = merged_away.get(k.id) {
                out.push(conflict(
                    k,
                    format!("merge keeps `{}`, which another merge archives", k.id),
                    *first,
                    "archived by this merge",
                ));
            }
        }
    }
    let mut edited: HashMap<&str, (Span, HashMap<&str, Span>)> = HashMap::new();
    for (r, edit) in &edits {
        if let Some(first) = merged_away.get(r.id) {
            out.push(conflict(
                r,
                format!("edit of `{}`, which this delta merges away", r.id),
                *first,
                "merged away here",
            ));
        }
        let fields: Vec<(&str, Span)> = edit
            .get("set")
            .and_then(Node::members)
            .unwrap_or(&[])
            .iter()
            .map(|m| (m.key.as_str(), m.key_span))
            .collect();
        let slot = edited
            .entry(r.id)
            .or_insert_with(|| (r.span, HashMap::new()));
        for (field, span) in fields {
            match slot.1.get(field) {
                Some(first) => out.push(
                    Diagnostic::new(
                        &rules::DELTA_CONFLICT,
                        span,
                        format!("two edits of `{}` set `{field}`; the later one wins", r.id),
                    )
                    .with_related(*first, "first set here"),
                ),
                None => {
                    slot.1.insert(field, span);
                }
            }
        }
    }
    let mut deprecated: HashMap<&str, Span> = HashMap::new();
    for (r, _) in &deprecations {
        if let Some((first, _)) = edited.get(r.id) {
            out.push(conflict(
                r,
                format!(
                    "`{}` is both edited and deprecated by this delta; resolve which one applies",
                    r.id
                ),
                *first,
                "edited here",
            ));
        }
        if let Some(first) = merged_away.get(r.id) {
            out.push(conflict(
                r,
                format!(
                    "deprecation of `{}`, which this delta merges away (the merge archives it)",
                    r.id
                ),
                *first,
                "merged away here",
            ));
        }
        match deprecated.get(r.id) {
            Some(first) => out.push(conflict(
                r,
                format!("`{}` is deprecated twice", r.id),
                *first,
                "first deprecated here",
            )),
            None => {
                deprecated.insert(r.id, r.span);
            }
        }
    }
    for (_, replacement) in &deprecations {
        if let Some(rep) = replacement {
            if let Some(first) = deprecated.get(rep.id).or_else(|| merged_away.get(rep.id)) {
                out.push(conflict(
                    rep,
                    format!(
                        "replacement `{}` is itself deprecated or merged away by this delta",
                        rep.id
                    ),
                    *first,
                    "retired here",
                ));
            }
        }
    }
}
