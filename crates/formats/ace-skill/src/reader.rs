//! Skill playbook JSON into the model.
//!
//! A value goes into a model field only when the writer gives it back byte
//! for byte; anything else (a `scope` object with other keys first, evidence
//! of an unexpected shape, a count written `3.0`) stays under its key in the
//! entry's `extra`. Either way nothing is lost, and the schema checks report
//! the deviation.

use std::collections::HashMap;

use ace_jsonspan::{Kind, Member, Node};
use ace_model::{
    rules, Confidence, ConfidenceLevel, Diagnostic, Entry, Evidence, EvidenceRef, Playbook,
    ReadOutput, Scope, ScopeDetail, Severity, Span, Status,
};

use crate::checks::{self, Hint};
use crate::delta::DocumentKind;
use crate::fields::KeyOrder;
use crate::style::Style;
use crate::{layout, LAYOUT_KEY};

/// Reads a skill playbook: `{version, schema_version, last_updated,
/// bullets: [...], metadata?}` or a bare array of bullets. Only JSON that
/// does not parse is an error.
pub fn read(text: &str) -> Result<ReadOutput, Diagnostic> {
    read_with(text, Severity::Info)
}

/// [`read`] for a caller that wants findings of severity `min` and above
/// only: the bullet schema checks (warnings, and most of a read's time on a
/// file that breaks its schema) are left out below `Warning`. The
/// playbook read is the same.
pub fn read_with(text: &str, min: Severity) -> Result<ReadOutput, Diagnostic> {
    read_classified(text, min).map(|(out, _)| out)
}

/// [`read_with`], and what [`crate::sniff`] says the text is, found from
/// the same parse: a caller that refuses deltas need not parse a large
/// playbook twice to learn it is not one. A delta read this way is read as
/// a playbook; only the kind is of use then.
pub fn read_classified(
    text: &str,
    min: Severity,
) -> Result<(ReadOutput, DocumentKind), Diagnostic> {
    let schema = rules::PLAYBOOK_SCHEMA.severity >= min;
    match crate::stream::read(text, schema)? {
        Some(read) => Ok(read),
        None => read_whole_classified(text, schema),
    }
}

/// [`read`] from the whole span tree: the reference the streamed read is
/// checked against (here and by the fuzz targets), and its fallback.
/// `schema`: run the bullet schema checks.
#[doc(hidden)]
pub fn read_whole(text: &str, schema: bool) -> Result<ReadOutput, Diagnostic> {
    read_whole_classified(text, schema).map(|(out, _)| out)
}

pub(crate) fn read_whole_classified(
    text: &str,
    schema: bool,
) -> Result<(ReadOutput, DocumentKind), Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let kind = crate::kind_of(&doc.root);
    let mut diags = doc.diagnostics;
    let root = &doc.root;
    let mut pb = Playbook::default();
    let mut layout = layout::Layout {
        style: Style::detect(root, text),
        ..layout::Layout::default()
    };
    let bullets: Option<&Node> = match &root.kind {
        Kind::Array(_) => {
            layout.array = true;
            Some(root)
        }
        Kind::Object(members) => {
            read_wrapper(members, &mut pb, &mut layout, &mut diags);
            root.get("bullets").filter(|b| b.as_array().is_some())
        }
        _ => {
            return Err(Diagnostic::new(
                &rules::SKILL_SHAPE,
                root.span,
                format!(
                    "expected an object with `bullets` or an array of bullets, found {}",
                    root.type_name()
                ),
            ))
        }
    };
    let items: &[Node] = bullets.and_then(Node::as_array).unwrap_or(&[]);
    let mut objects: Vec<(usize, &Node)> = Vec::new();
    // Exactly, not by doubling: at a million entries the slack of a grown
    // vector is hundreds of megabytes.
    pb.entries.reserve_exact(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.members() {
            Some(members) => {
                objects.push((i, item));
                let e = read_bullet(item, members, i, &mut diags);
                pb.entries.push(e);
            }
            None => {
                diags.push(Diagnostic::new(
                    &rules::SKILL_SHAPE,
                    item.span,
                    format!(
                        "bullet #{} is {}, expected an object; it is kept in place but is not an entry",
                        i + 1,
                        item.type_name()
                    ),
                ));
                layout.non_bullets.push((i, item.to_value()));
            }
        }
    }
    record_key_orders(&objects, &pb.entries, &mut layout);
    check_generations(&objects, layout.array, schema, &mut diags);
    wrapper_checks(root, &pb.entries, &mut diags);
    check_layout(root, text, &layout, &mut diags);
    Ok((finish(pb, layout, diags), kind))
}

/// The checks of what stands around the bullets: metadata counts and the
/// wrapper's timestamps.
pub(crate) fn wrapper_checks(root: &Node, entries: &[Entry], diags: &mut Vec<Diagnostic>) {
    if let Some(meta) = root.get("metadata") {
        check_metadata(meta, entries, diags);
    }
    if let Some(n) = root.get("last_updated") {
        checks::check_timestamp(n, "last_updated", diags);
    }
    if let Some(n) = root.get("metadata").and_then(|m| m.get("last_curated")) {
        checks::check_timestamp(n, "metadata.last_curated", diags);
    }
}

/// The read playbook with its layout, and the diagnostics in report order.
pub(crate) fn finish(
    mut pb: Playbook,
    mut layout: layout::Layout,
    mut diags: Vec<Diagnostic>,
) -> ReadOutput {
    split_metadata(&mut pb, &mut layout);
    pb.extra.insert(LAYOUT_KEY.into(), layout.to_value());
    diags.sort_by_key(|d| (d.span.start, d.code));
    ReadOutput {
        playbook: pb,
        diagnostics: diags,
    }
}

pub(crate) fn read_wrapper(
    members: &[Member],
    pb: &mut Playbook,
    layout: &mut layout::Layout,
    diags: &mut Vec<Diagnostic>,
) {
    for m in unique(members) {
        layout.keys.push(m.key.to_string());
        match (m.key.as_str(), &m.value.kind) {
            ("version", _) => pb.version = Some(m.value.to_value()),
            ("last_updated", Kind::String(s)) => pb.updated_at = Some(s.clone()),
            ("bullets", Kind::Array(_)) => {}
            ("bullets", _) => {
                diags.push(Diagnostic::new(
                    &rules::SKILL_SHAPE,
                    m.value.span,
                    format!(
                        "`bullets` should be an array of bullet objects, found {}; kept as an extra field",
                        m.value.type_name()
                    ),
                ));
                pb.extra.insert(m.key.to_string(), m.value.to_value());
            }
            _ => {
                pb.extra.insert(m.key.to_string(), m.value.to_value());
            }
        }
    }
    if !members.iter().any(|m| m.key == "bullets") {
        let start = members.first().map_or(0, |m| m.key_span.start);
        diags.push(Diagnostic::new(
            &rules::SKILL_SHAPE,
            Span::new(start, start),
            "no `bullets` key: the file holds no bullets (a skill playbook is `{\"bullets\": [...]}` or an array)",
        ));
    }
}

/// Members in first-appearance order, each with the value that is used:
/// a repeated key keeps its first position and takes its last value, as a
/// Python dict does.
fn unique(members: &[Member]) -> Vec<&Member> {
    let mut out: Vec<&Member> = Vec::with_capacity(members.len());
    for m in members {
        match out.iter_mut().find(|o| o.key == m.key) {
            Some(slot) => *slot = m,
            None => out.push(m),
        }
    }
    out
}

fn strings(node: &Node) -> Option<Vec<String>> {
    node.as_array()?
        .iter()
        .map(|n| n.as_str().map(str::to_owned))
        .collect()
}

fn integer(node: &Node) -> Option<i64> {
    match &node.kind {
        Kind::Number(lex) if !lex.contains(['.', 'e', 'E']) => lex.parse().ok(),
        _ => None,
    }
}

/// Keys in the order the writer puts them, for an object that maps to a
/// model struct with fixed fields followed by `extra`.
fn in_order(members: &[&Member], fixed: &[&str]) -> bool {
    let ranks: Vec<usize> = members
        .iter()
        .map(|m| {
            fixed
                .iter()
                .position(|f| *f == m.key)
                .unwrap_or(fixed.len())
        })
        .collect();
    ranks.windows(2).all(|w| w[0] <= w[1])
}

fn evidence(node: &Node) -> Option<Vec<Evidence>> {
    node.as_array()?
        .iter()
        .map(|item| match &item.kind {
            Kind::String(s) => Some(Evidence::Text(s.clone())),
            Kind::Object(members) => {
                let members = unique(members);
                if members.len() != item.members().map_or(0, <[Member]>::len)
                    || !in_order(&members, &["type", "ref", "note"])
                {
                    return None;
                }
                let mut r = EvidenceRef::default();
                for m in members {
                    let s = m.value.as_str().map(str::to_owned);
                    match m.key.as_str() {
                        "type" => r.kind = Some(s?),
                        "ref" => r.reference = Some(s?),
                        "note" => r.note = Some(s?),
                        _ => {
                            r.extra.insert(m.key.to_string(), m.value.to_value());
                        }
                    }
                }
                Some(Evidence::Ref(r))
            }
            _ => None,
        })
        .collect()
}

fn scope(node: &Node) -> Option<Scope> {
    match &node.kind {
        Kind::String(s) => Some(Scope::Name(s.clone())),
        Kind::Object(all) => {
            let members = unique(all);
            if members.len() != all.len() || !in_order(&members, &["domain", "inputs", "outputs"]) {
                return None;
            }
            let mut d = ScopeDetail::default();
            for m in members {
                match m.key.as_str() {
                    "domain" => d.domain = Some(m.value.as_str()?.to_owned()),
                    "inputs" => d.inputs = Some(m.value.to_value()),
                    "outputs" => d.outputs = Some(m.value.to_value()),
                    _ => {
                        d.extra.insert(m.key.to_string(), m.value.to_value());
                    }
                }
            }
            Some(Scope::Detail(Box::new(d)))
        }
        _ => None,
    }
}

fn confidence(node: &Node) -> Option<Confidence> {
    match &node.kind {
        Kind::String(s) => match s.as_str() {
            "high" => Some(Confidence::Level(ConfidenceLevel::High)),
            "medium" => Some(Confidence::Level(ConfidenceLevel::Medium)),
            "low" => Some(Confidence::Level(ConfidenceLevel::Low)),
            _ => None,
        },
        Kind::Number(lex) => Some(Confidence::Score(ace_jsonspan::number(lex))),
        _ => None,
    }
}

fn text(node: &Node) -> Option<String> {
    node.as_str().map(str::to_owned)
}

pub(crate) fn read_bullet(
    bullet: &Node,
    members: &[Member],
    index: usize,
    diags: &mut Vec<Diagnostic>,
) -> Entry {
    let mut e = Entry {
        origin: bullet
            .get("id")
            .map_or(Span::new(bullet.span.start, bullet.span.start + 1), |n| {
                n.span
            })
            .into(),
        ..Entry::default()
    };
    for m in unique(members) {
        let v = &m.value;
        let kept = match m.key.as_str() {
            "id" => text(v).map(|s| e.id = s),
            "content" => text(v).map(|s| e.content = s),
            "title" => text(v).map(|s| e.title = Some(s)),
            "tags" => strings(v).map(|s| e.tags = Some(s)),
            "links" => strings(v).map(|s| e.links = Some(s)),
            "evidence" => evidence(v).map(|s| e.evidence = Some(s)),
            "confidence" => confidence(v).map(|c| e.confidence = Some(c)),
            "scope" => scope(v).map(|s| e.scope = Some(s)),
            "helpful_count" => integer(v).map(|n| e.helpful = Some(n)),
            "harmful_count" => integer(v).map(|n| e.harmful = Some(n)),
            "status" => text(v).map(|s| e.status = Some(Status::from(s))),
            "deprecation_reason" => text(v).map(|s| e.deprecation_reason = Some(s)),
            "created" => text(v).map(|s| e.created_at = Some(s)),
            "last_updated" => text(v).map(|s| e.updated_at = Some(s)),
            _ => None,
        };
        if kept.is_none() {
            e.extra.insert(m.key.to_string(), v.to_value());
        }
    }
    let label = checks::bullet_label(bullet, index);
    for key in ["id", "content"] {
        match bullet.get(key) {
            Some(n) if n.as_str().is_none() => diags.push(Diagnostic::new(
                &rules::SKILL_SHAPE,
                n.span,
                format!(
                    "{label}: `{key}` should be a string, found {}; kept as an extra field",
                    n.type_name()
                ),
            )),
            None => diags.push(Diagnostic::new(
                &rules::SKILL_SHAPE,
                Span::new(bullet.span.start, bullet.span.start + 1),
                format!("{label} has no `{key}`"),
            )),
            _ => {}
        }
    }
    checks::check_bullet_timestamps(bullet, diags);
    e
}

/// The first bullet's key order is the template; a bullet the template does
/// not reproduce gets its own order in the layout.
fn record_key_orders(objects: &[(usize, &Node)], entries: &[Entry], layout: &mut layout::Layout) {
    if let Some((_, first)) = objects.first() {
        layout.bullet_keys = key_order(first);
    }
    // The writer takes the orders of one ID in turn, so every bullet of a
    // repeated ID records its order, or a later one would take an earlier
    // one's.
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for e in entries {
        *seen.entry(e.id.as_str()).or_default() += 1;
    }
    let template = KeyOrder::new(layout.bullet_keys.clone());
    for ((_, node), e) in objects.iter().zip(entries) {
        let keys = key_order(node);
        if seen[e.id.as_str()] > 1 || template.keys(e) != keys {
            layout.bullet_orders.push((e.id.clone(), keys));
        }
    }
}

/// A bullet's keys in file order, each once.
pub(crate) fn key_order(node: &Node) -> Vec<String> {
    key_order_refs(node)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// [`key_order`] without copying the keys.
pub(crate) fn key_order_refs(node: &Node) -> Vec<&str> {
    let mut keys: Vec<&str> = Vec::new();
    for m in node.members().unwrap_or(&[]) {
        if !keys.contains(&m.key.as_str()) {
            keys.push(&m.key);
        }
    }
    keys
}

fn check_generations(
    objects: &[(usize, &Node)],
    array: bool,
    schema: bool,
    diags: &mut Vec<Diagnostic>,
) {
    if objects.is_empty() {
        return;
    }
    let hints: Vec<Hint> = objects.iter().map(|(_, b)| checks::hint(b)).collect();
    let file_gen = checks::majority(&hints);
    let first = objects
        .iter()
        .zip(&hints)
        .find(|(_, h)| h.generation() == Some(file_gen))
        .map(|((_, b), _)| checks::hint_span(b))
        .unwrap_or(Span::new(
            objects[0].1.span.start,
            objects[0].1.span.start + 1,
        ));
    let all_none = hints.iter().all(|h| *h == Hint::None);
    diags.push(generation_note(file_gen, all_none, first));
    for ((i, bullet), hint) in objects.iter().zip(&hints) {
        let label = || checks::bullet_label(bullet, *i);
        let gen = hint.generation().unwrap_or(file_gen);
        match hint {
            Hint::Mixed(g) => diags.push(mixed_generation(bullet, &label(), *g)),
            _ if gen != file_gen => diags.push(other_generation(
                checks::hint_span(bullet),
                &label(),
                gen,
                file_gen,
            )),
            _ => {}
        }
        if schema {
            diags.extend(schema_diagnostics(bullet, *i, gen, array));
        }
    }
}

/// The file's generation, said once at the first bullet that shows it.
pub(crate) fn generation_note(
    file_gen: ace_schema::Generation,
    all_none: bool,
    first: Span,
) -> Diagnostic {
    let note = match (file_gen, all_none) {
        (_, true) => "no bullet has `confidence` or `scope`, so the file fits either generation; checked against generation 2".to_string(),
        (ace_schema::Generation::One, _) => format!(
            "bullets follow {}; generation 2, shipped with the skill today, rejects their `confidence` and `scope`",
            checks::generation_name(file_gen)
        ),
        (ace_schema::Generation::Two, _) => format!("bullets follow {}", checks::generation_name(file_gen)),
    };
    Diagnostic::new(&rules::SCHEMA_GENERATION, first, note)
}

pub(crate) fn mixed_generation(
    bullet: &Node,
    label: &str,
    g: ace_schema::Generation,
) -> Diagnostic {
    Diagnostic::new(
        &rules::MIXED_GENERATION,
        checks::hint_span(bullet),
        format!(
            "{label} mixes generations: its `confidence` is generation {} and its `scope` generation {}; checked against generation {}",
            g.number(),
            g.other().number(),
            g.number()
        ),
    )
}

/// A bullet whose generation is not the file's.
pub(crate) fn other_generation(
    span: Span,
    label: &str,
    gen: ace_schema::Generation,
    file_gen: ace_schema::Generation,
) -> Diagnostic {
    Diagnostic::new(
        &rules::MIXED_GENERATION,
        span,
        format!(
            "{label} follows generation {} while the file follows generation {}; checked against generation {}",
            gen.number(),
            file_gen.number(),
            gen.number()
        ),
    )
}

/// The schema errors of bullet `i` under generation `gen`.
pub(crate) fn schema_diagnostics(
    bullet: &Node,
    i: usize,
    gen: ace_schema::Generation,
    array: bool,
) -> Vec<Diagnostic> {
    schema_diagnostics_of(bullet, &bullet.to_value(), i, gen, array)
}

/// [`schema_diagnostics`] for a bullet already made a `Value`.
pub(crate) fn schema_diagnostics_of(
    bullet: &Node,
    value: &serde_json::Value,
    i: usize,
    gen: ace_schema::Generation,
    array: bool,
) -> Vec<Diagnostic> {
    let errors = ace_schema::validate(ace_schema::SkillSchema::Bullet, gen, value);
    if errors.is_empty() {
        return Vec::new();
    }
    let base = if array {
        format!("/{i}")
    } else {
        format!("/bullets/{i}")
    };
    ace_schema::diagnostics(
        &errors,
        bullet,
        &rules::PLAYBOOK_SCHEMA,
        &base,
        &format!("bullet schema generation {}", gen.number()),
    )
}

/// Takes the counts that agree with the bullets out of `metadata`: they
/// are derived, like vAgenda's metrics, and the writer computes them again.
/// A wrong count stays (it was reported), as does every other key; the
/// layout remembers the key order.
fn split_metadata(pb: &mut Playbook, layout: &mut layout::Layout) {
    let Some(serde_json::Value::Object(meta)) = pb.extra.get_mut("metadata") else {
        return;
    };
    let counts = crate::fields::metadata_counts(&pb.entries);
    layout.metadata_keys = meta.keys().cloned().collect();
    meta.retain(|k, v| {
        !counts
            .iter()
            .any(|(key, n)| key == k && v.as_i64() == Some(*n))
    });
    if meta.is_empty() && !layout.metadata_keys.is_empty() {
        pb.extra.shift_remove("metadata");
    }
}

fn check_metadata(meta: &Node, entries: &[Entry], diags: &mut Vec<Diagnostic>) {
    for (key, actual) in crate::fields::metadata_counts(entries) {
        let Some(node) = meta.get(key) else { continue };
        let Some(n) = integer(node) else { continue };
        if n != actual {
            diags.push(Diagnostic::new(
                &rules::METADATA_COUNT,
                node.span,
                format!("metadata.{key} is {n}, but the file has {actual}"),
            ));
        }
    }
}

/// ACE046 when the detected style does not give back the file's bytes.
fn check_layout(root: &Node, text: &str, layout: &layout::Layout, diags: &mut Vec<Diagnostic>) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The check on the bytes settles nearly every file; only where it
    // cannot is the printing compared, which also finds the place.
    if root.span.start == text.len() - body.len()
        && text[root.span.end..] == *if layout.style.final_newline { "\n" } else { "" }
        && layout.style.keeps(root, text, 0)
    {
        return;
    }
    // Compared as it is printed: a copy of a large file would be most of
    // the read's memory.
    let mut compare = crate::style::Compare::new(body);
    layout.style.render_into(root, &mut compare);
    let Some((offset, line_start, want)) = compare.finish() else {
        return;
    };
    let shift = text.len() - body.len();
    let line_end = body[line_start.min(body.len())..]
        .find('\n')
        .map_or(body.len(), |i| line_start + i);
    diags.push(Diagnostic::new(
        &rules::LAYOUT_NOT_KEPT,
        Span::new(shift + offset.max(line_start), shift + line_end.max(offset)),
        format!(
            "a rewrite would change this file's layout from here on (the data stays the same); this line would read `{}`",
            want.trim()
        ),
    ));
}
