use std::collections::HashMap;

use ace_model::normalize::{dedup_key, section_key};
use ace_model::{
    keys, rules, Diagnostic, Entry, Origin, Playbook, Provenance, ReadOutput, Section, Span,
};
use serde_json::Value;

use ace_mdtext::{comment_open, fence_open, heading, is_blank};

use crate::bullet::{self, Parsed};
use crate::layout::Builder;

#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    /// Without the line ending.
    text: &'a str,
    /// With the line ending.
    full: &'a str,
    start: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    Heading(usize),
    Bullet,
    Provenance,
    Comment,
    Text,
}

fn split_lines(src: &str, from: usize) -> Vec<Line<'_>> {
    let rest = &src.as_bytes()[from..];
    let mut out = Vec::with_capacity(memchr::memchr_iter(b'\n', rest).count() + 1);
    let mut start = from;
    let mut push = |start: usize, end: usize| {
        let full = &src[start..end];
        let text = full.strip_suffix('\n').unwrap_or(full);
        let text = text.strip_suffix('\r').unwrap_or(text);
        out.push(Line { text, full, start });
    };
    for nl in memchr::memchr_iter(b'\n', rest) {
        let end = from + nl + 1;
        push(start, end);
        start = end;
    }
    if start < src.len() {
        push(start, src.len());
    }
    out
}

/// The section key for a heading: a curator id (`node/tooling`) as written,
/// a human title (`Build & Test Patterns`) through the shared key rule.
pub(crate) fn key_for_title(title: &str) -> String {
    let slug = !title.is_empty()
        && title
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"._/-".contains(&c));
    match (slug, section_key(title)) {
        (true, _) => title.to_owned(),
        (false, k) if k.is_empty() => "section".to_owned(),
        (false, k) => k,
    }
}

/// Reads an AGENTS.md. Never fails: what is not a bullet is kept in the
/// layout, and every deviation from the curator spec is a diagnostic.
pub fn read(src: &str) -> ReadOutput {
    let base = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let lines = split_lines(src, base);
    let mut diags = Vec::new();
    if base > 0 {
        diags.push(Diagnostic::new(
            &rules::BOM,
            Span::new(0, base),
            "file starts with a UTF-8 byte-order mark",
        ));
    }
    let kinds = classify(&lines, &mut diags);
    let n = lines.len();

    let headings: Vec<(usize, usize, &str)> = (0..n)
        .filter_map(|i| match kinds[i] {
            Kind::Heading(level) => heading(lines[i].text).map(|(_, t)| (i, level, t)),
            _ => None,
        })
        .collect();
    let first_text = (0..n).find(|&i| kinds[i] != Kind::Blank);
    let title_line = first_text.filter(|&i| kinds[i] == Kind::Heading(1));

    let mut pb = Playbook::default();
    if let Some(t) = title_line {
        pb.title = heading(lines[t].text).map(|(_, t)| t.to_owned());
    }

    // Which headings are sections, and where each section's bullets end.
    // `owner[i]`: the section (index into pb.sections) line i belongs to.
    let mut owner: Vec<Option<usize>> = vec![None; n];
    let mut end_before: Vec<(usize, Option<usize>)> = Vec::new();
    let mut keys: HashMap<String, usize> = HashMap::new();
    for (h, &(idx, level, title)) in headings.iter().enumerate() {
        if Some(idx) == title_line {
            continue;
        }
        let next = headings.get(h + 1);
        let body = idx + 1..next.map_or(n, |x| x.0);
        let has_bullet = body.clone().any(|i| kinds[i] == Kind::Bullet);
        let no_text = body
            .clone()
            .all(|i| matches!(kinds[i], Kind::Blank | Kind::Comment));
        let next_deeper = next.is_some_and(|x| x.1 > level);
        if !(has_bullet || (no_text && !next_deeper)) {
            continue;
        }
        let s = pb.sections.len();
        let span = Span::new(lines[idx].start, lines[idx].start + lines[idx].text.len());
        let base_key = key_for_title(title);
        let mut key = base_key.clone();
        if let Some(&first) = keys.get(&key) {
            let mut k = 2;
            while keys.contains_key(&format!("{base_key}_{k}")) {
                k += 1;
            }
            key = format!("{base_key}_{k}");
            diags.push(
                Diagnostic::new(
                    &rules::DUPLICATE_SECTION,
                    span,
                    format!(
                        "section `{title}` repeats an earlier heading; kept separately as `{key}`"
                    ),
                )
                .with_related(
                    pb.sections[first].origin.0.unwrap_or_default(),
                    "first heading with this key",
                ),
            );
        }
        keys.insert(key.clone(), s);
        let mut section = Section::new(key);
        section.title = Some(title.to_owned());
        section.origin = Origin::from(span);
        if level != 2 {
            section
                .extra
                .insert(keys::HEADING_LEVEL.to_owned(), Value::from(level));
        }
        pb.sections.push(section);
        for o in &mut owner[body.clone()] {
            *o = Some(s);
        }
        let last = body
            .clone()
            .rev()
            .find(|&i| matches!(kinds[i], Kind::Bullet | Kind::Provenance))
            .or_else(|| body.clone().rev().find(|&i| kinds[i] != Kind::Blank))
            .unwrap_or(idx);
        end_before.push((last + 1, Some(s)));
    }
    let first_section_line = pb.sections.first().and_then(|s| {
        let start = s.origin.0?.start;
        lines.iter().position(|l| l.start == start)
    });
    let none_end = (0..first_section_line.unwrap_or(n))
        .rev()
        .find(|&i| matches!(kinds[i], Kind::Bullet | Kind::Provenance))
        .map_or(first_section_line.unwrap_or(n), |i| i + 1);
    end_before.push((none_end, None));
    // Markers at one position: the unsectioned group first, then sections in order.
    end_before.sort_by_key(|&(p, s)| (p, s.map_or(0, |s| s + 1)));

    // Each bullet is parsed, checked and rendered on its own, so the
    // entries are built first, on every core, straight into the playbook;
    // the layout is then assembled in document order.
    let bullet_lines: Vec<usize> = (0..n).filter(|&i| kinds[i] == Kind::Bullet).collect();
    let mut built: Vec<Option<Box<Built>>> = Vec::new();
    let sections = &pb.sections;
    ace_exec::par::unzip_into(
        bullet_lines.len(),
        |k| {
            let i = bullet_lines[k];
            let prov_line = (kinds.get(i + 1) == Some(&Kind::Provenance)).then(|| lines[i + 1]);
            let section = owner[i].map(|s| &sections[s]);
            build(lines[i], prov_line, section)
        },
        &mut pb.entries,
        &mut built,
    );
    drop(bullet_lines);
    let mut items = Builder::default();
    let mut text = String::from(&src[..base]);
    let mut markers = end_before.iter().peekable();
    let mut next_bullet = 0;
    let mut i = 0;
    while i <= n {
        while let Some(&&(p, s)) = markers.peek() {
            if p != i {
                break;
            }
            flush(&mut text, &mut items);
            items.end(
                s.map(|s| pb.sections[s].key.as_str()),
                s.and_then(|s| pb.sections[s].title.as_deref()),
            );
            markers.next();
        }
        if i == n {
            break;
        }
        let line = lines[i];
        if kinds[i] != Kind::Bullet {
            text.push_str(line.full);
            i += 1;
            continue;
        }
        flush(&mut text, &mut items);
        let k = next_bullet;
        next_bullet += 1;
        let entry = &pb.entries[k];
        let (raw, found) = match built[k].take() {
            Some(b) => (b.raw, b.diags),
            None => (None, Vec::new()),
        };
        items.bullet(&entry.id, entry.section.as_deref(), raw);
        diags.extend(found);
        i += if kinds.get(i + 1) == Some(&Kind::Provenance) {
            2
        } else {
            1
        };
    }
    flush(&mut text, &mut items);
    let layout = items.finish();
    let holds = match prose_lines(&layout) {
        0 => Vec::new(),
        n => vec![format!(
            "the AGENTS.md prose and comments around the bullets ({n} line{})",
            if n == 1 { "" } else { "s" }
        )],
    };
    pb.set_layout_holding(crate::LAYOUT_KEY, layout, holds);
    diags.sort_by_key(|d| (d.span.start, d.code));
    ReadOutput {
        playbook: pb,
        diagnostics: diags,
    }
}

fn flush(text: &mut String, items: &mut Builder) {
    if !text.is_empty() {
        items.text(std::mem::take(text));
    }
}

fn line_span(l: Line) -> Span {
    Span::new(l.start, l.start + l.text.len())
}

fn unclosed(diags: &mut Vec<Diagnostic>, l: Line, what: &str) {
    diags.push(Diagnostic::new(
        &rules::UNCLOSED_BLOCK,
        line_span(l),
        format!("this {what} is never closed; the line is read as plain text"),
    ));
}

fn classify(lines: &[Line], diags: &mut Vec<Diagnostic>) -> Vec<Kind> {
    let mut ends = ace_mdtext::BlockEnds::default();
    let n = lines.len();
    let mut kinds = vec![Kind::Text; n];
    let mut i = 0;
    let in_block = |diags: &mut Vec<Diagnostic>, l: Line, what: &str| {
        let t = l.text.trim_start();
        let t = t.strip_prefix('>').unwrap_or(t);
        if matches!(bullet::parse(t), Parsed::Bullet(_)) {
            diags.push(Diagnostic::new(
                &rules::ENTRY_IN_BLOCK,
                line_span(l),
                format!("bullet {what} is text, not a bullet"),
            ));
        }
    };
    while i < n {
        let l = lines[i];
        let t = l.text;
        if is_blank(t) {
            kinds[i] = Kind::Blank;
            i += 1;
            continue;
        }
        if let Some((ch, run)) = fence_open(t) {
            match ends.fence_end(i, n, ch, run, |k| lines[k].text) {
                Some(end) => {
                    for &l in &lines[i + 1..end] {
                        in_block(diags, l, "inside a code fence");
                    }
                    i = end + 1;
                }
                None => {
                    unclosed(diags, l, "code fence");
                    i += 1;
                }
            }
            continue;
        }
        if comment_open(t) {
            let open = t.find("<!--").unwrap_or(0) + 4;
            if t[open..].contains("-->") {
                let after_bullet = i > 0 && kinds[i - 1] == Kind::Bullet;
                kinds[i] = if after_bullet && bullet::parse_provenance(t).is_some() {
                    Kind::Provenance
                } else {
                    Kind::Comment
                };
                in_block(
                    diags,
                    Line {
                        text: &t[open..],
                        ..l
                    },
                    "inside an HTML comment",
                );
                i += 1;
                continue;
            }
            match ends.comment_end(i, n, |k| lines[k].text) {
                Some(end) => {
                    for k in i..=end {
                        kinds[k] = Kind::Comment;
                        in_block(diags, lines[k], "inside an HTML comment");
                    }
                    i = end + 1;
                }
                None => {
                    unclosed(diags, l, "HTML comment");
                    i += 1;
                }
            }
            continue;
        }
        if let Some((level, _)) = heading(t) {
            kinds[i] = Kind::Heading(level);
            i += 1;
            continue;
        }
        match bullet::parse(t) {
            Parsed::Bullet(_) => kinds[i] = Kind::Bullet,
            Parsed::Malformed(at, msg) => diags.push(
                Diagnostic::new(
                    &rules::BULLET_SYNTAX,
                    Span::new(l.start + at, l.start + t.len()),
                    format!("not a bullet: {msg}"),
                )
                .with_help(
                    "write `[Bullet #id, helpful:N, harmful:M] Content`; the line is kept as text",
                ),
            ),
            Parsed::NotBullet => {
                if t.trim_start().starts_with('>') {
                    in_block(diags, l, "quoted in prose");
                }
            }
        }
        i += 1;
    }
    kinds
}

/// What reading a bullet gives beside its entry, when it gives anything.
struct Built {
    diags: Vec<Diagnostic>,
    /// The bytes as read and the seed's rendering, when they differ.
    raw: Option<(String, String)>,
}

/// The entry of a bullet line (and its provenance line), with its
/// diagnostics and, when the bytes are not the seed's rendering, both.
fn build(line: Line, prov: Option<Line>, section: Option<&Section>) -> (Entry, Option<Box<Built>>) {
    let mut diags = Vec::new();
    let (entry, canon) = entry_from(line, prov, section, &mut diags);
    let same = canon.len() == line.full.len() + prov.map_or(0, |p| p.full.len())
        && canon.starts_with(line.full)
        && prov.is_none_or(|p| canon[line.full.len()..] == *p.full);
    if section.is_none() {
        diags.push(Diagnostic::new(
            &rules::ENTRY_BEFORE_SECTION,
            entry.origin.0.unwrap_or_default(),
            format!(
                "bullet `{}` appears before the first section heading",
                entry.id
            ),
        ));
    }
    let raw = (!same).then(|| {
        let mut raw = line.full.to_owned();
        if let Some(p) = prov {
            raw.push_str(p.full);
        }
        (raw, canon)
    });
    let built = (raw.is_some() || !diags.is_empty()).then(|| Box::new(Built { diags, raw }));
    (entry, built)
}

fn entry_from(
    line: Line,
    prov: Option<Line>,
    section: Option<&Section>,
    diags: &mut Vec<Diagnostic>,
) -> (Entry, String) {
    let Parsed::Bullet(b) = bullet::parse(line.text) else {
        unreachable!("classify marked this line as a bullet");
    };
    let mut e = Entry::new(b.id, b.content);
    e.section = section.map(|s| s.key.clone());
    e.helpful = b.helpful;
    e.harmful = b.harmful;
    if let Some(n) = b.aggregated {
        e.extra
            .insert(keys::AGGREGATED_FROM.to_owned(), Value::from(n));
    }
    if !b.other_fields.is_empty() {
        e.extra.insert(
            crate::BULLET_FIELDS_KEY.to_owned(),
            Value::from(b.other_fields.clone()),
        );
    }
    let end = prov.map_or(line.start + line.text.len(), |p| p.start + p.text.len());
    e.origin = Origin::from(Span::new(line.start, end));
    let span = line_span(line);
    let counted = b.helpful.is_some() && b.harmful.is_some();
    if !counted {
        diags.push(Diagnostic::new(
            &rules::MISSING_COUNTERS,
            span,
            format!("bullet `{}` lacks `helpful:N` or `harmful:M`", b.id),
        ));
    }
    if let Some(p) = prov {
        let pairs = bullet::parse_provenance(p.text).unwrap_or_default();
        let mut pv = Provenance::default();
        for (k, v) in pairs {
            let v = v.to_owned();
            match k {
                "deltaId" => pv.delta_id = Some(v),
                "beadsId" => pv.beads_id = Some(v),
                "createdAt" => pv.created_at = Some(v),
                "hash" => pv.hash = Some(v),
                other => {
                    pv.extra.insert(other.to_owned(), Value::String(v));
                }
            }
        }
        if let (Some(hash), Some(s)) = (&pv.hash, section) {
            let expected = // The spec hashes the section name as the heading writes it.
            dedup_key(s.display_title(), &e.content);
            if *hash != expected && *hash != dedup_key(&s.key, &e.content) {
                diags.push(
                    Diagnostic::new(
                        &rules::PROVENANCE_HASH,
                        line_span(p),
                        format!("provenance hash does not match bullet `{}`", e.id),
                    )
                    .with_help(format!("expected `hash={expected}`")),
                );
            }
        }
        e.provenance = Some(Box::new(pv));
    }
    // Rendered once: its first line is the bullet's seed form, the whole
    // what the layout compares the bytes read with.
    let canon = bullet::render_entry(&e);
    if counted {
        let canon_line = canon.split('\n').next().unwrap_or_default();
        if b.list_marker {
            diags.push(Diagnostic::new(
                &rules::BULLET_STYLE,
                Span::new(line.start, line.start + b.open),
                "bullet written as a list item",
            ));
        } else if canon_line != line.text {
            diags.push(Diagnostic::new(
                &rules::BULLET_STYLE,
                span,
                format!("bullet is not in the spec's exact form `{canon_line}`"),
            ));
        }
    }
    (e, canon)
}

/// The lines of the layout's text that are neither blank nor a heading
/// (the title and the sections are the model's): the prose and comments a
/// conversion to another format leaves behind.
fn prose_lines(layout: &serde_json::Value) -> usize {
    layout
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .flat_map(str::lines)
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && ace_mdtext::heading(t).is_none()
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bom_is_skipped_and_reported() {
        let out = read("\u{feff}## s\n\n[Bullet #a1, helpful:1, harmful:0] x\n");
        assert_eq!(out.playbook.entries[0].id, "a1");
        let bom: Vec<_> = out
            .diagnostics
            .iter()
            .filter(|d| d.code == "ACE010")
            .collect();
        assert_eq!(bom.len(), 1);
        assert_eq!(bom[0].span, Span::new(0, 3));
    }

    /// Bullets of every shape the reader treats apart, past the size at
    /// which their entries are built on several threads.
    fn long_document() -> String {
        let mut doc = String::from("# Playbook\n\n[Bullet #early, helpful:1, harmful:0] before any section\n\n## build/patterns\n\n");
        for i in 0..3 * ace_exec::par::MIN_ITEMS + 5 {
            match i % 7 {
                0 => doc.push_str(&format!("[Bullet #b{i}, helpful:{i}, harmful:0] plain {i}\n")),
                1 => doc.push_str(&format!("- [Bullet #b{i}, helpful:1, harmful:2] listed\n")),
                2 => doc.push_str(&format!("[Bullet #b{i}] no counters é\n")),
                3 => doc.push_str(&format!(
                    "[Bullet #b{i}, helpful:0, harmful:0] with provenance\n<!-- deltaId=d{i}, hash=wrong -->\n"
                )),
                4 => doc.push_str(&format!("[Bullet #b{i},helpful:3,harmful:1]  spaced\r\n")),
                5 => doc.push_str(&format!(
                    "[Bullet #b{i}, helpful:1, harmful:1, Aggregated from 2 instances, source:x] merged\n"
                )),
                _ => doc.push_str(&format!("Prose between bullets {i}.\n\n## section {i}\n\n")),
            }
        }
        doc
    }

    #[test]
    fn a_long_document_reads_as_one_thread_reads_it() {
        let doc = long_document();
        let spread = read(&doc);
        let one = ace_exec::par::on_one_thread(|| read(&doc));
        assert!(spread.playbook.entries.len() > 2 * ace_exec::par::MIN_ITEMS);
        assert_eq!(
            serde_json::to_value(&spread.playbook).unwrap(),
            serde_json::to_value(&one.playbook).unwrap()
        );
        assert_eq!(spread.diagnostics, one.diagnostics);
        let codes: std::collections::BTreeSet<&str> =
            spread.diagnostics.iter().map(|d| d.code).collect();
        for code in [
            rules::MISSING_COUNTERS.code,
            rules::BULLET_STYLE.code,
            rules::PROVENANCE_HASH.code,
            rules::ENTRY_BEFORE_SECTION.code,
        ] {
            assert!(codes.contains(code), "{code} in {codes:?}");
        }
        assert_eq!(crate::write(&spread.playbook).text, doc);
    }
}
