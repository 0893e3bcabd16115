//! A skill playbook read from its whole span tree: the reference the
//! streamed read is checked against, and what reads the files it cannot
//! settle.

use std::collections::HashMap;

use ace_jsonspan::{Kind, Node};
use ace_model::{rules, Diagnostic, Entry, Playbook, ReadOutput, Span};

use crate::checks::{self, Hint};
use crate::delta::DocumentKind;
use crate::fields::KeyOrder;
use crate::layout;
use crate::parts::{
    finish, generation_note, key_order, mixed_generation, other_generation, read_bullet,
    read_wrapper, schema_diagnostics, wrapper_checks,
};
use crate::style::Style;

/// [`crate::read`] from the whole span tree: the reference the streamed read is
/// checked against (here and by the fuzz targets), and its fallback.
/// `schema`: run the bullet schema checks.
#[doc(hidden)]
pub fn read(text: &str, schema: bool) -> Result<ReadOutput, Diagnostic> {
    read_classified(text, schema).map(|(out, _)| out)
}

pub(crate) fn read_classified(
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
