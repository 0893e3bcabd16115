//! The property checks of `tests/properties.rs`, over the formats of a
//! registry, so that a format registered by a test is checked as every
//! built-in one is: the generator of playbooks, the field-by-field
//! comparison of a model with its trip through a format, and the checks.

use std::collections::{BTreeSet, HashMap};

use ace_model::{Confidence, Entry, Evidence, LossEntry, Playbook, Section, Status};
use ace_registry::{Format, Registry};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Map, Value};

// ---------------------------------------------------------------- generator

pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z][A-Za-z ,.]{0,40}[a-z.]",
        "[a-zA-Z]{1,8} (é|ß|안전|→|Σ|🙂) [a-z ]{0,20}[a-z]",
        "[A-Za-z][a-z ]{0,20}[a-z]\n[A-Za-z][a-z ]{0,20}[a-z]",
    ]
}

pub fn counter() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![Just(None), Just(Some(0)), (1i64..50).prop_map(Some)]
}

pub fn id_shape(n: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        Just(format!("str-{:05}", n + 1)),
        Just(format!(
            "{:08x}",
            0x88f2_2305u32.wrapping_add(n as u32 * 7919)
        )),
        Just(format!("bullet-2025-10-25-{:03}", n + 1)),
        Just(format!("entry-{}", n + 1)),
        Just(format!(
            "t-{}",
            ["migrate", "backup", "pin", "retry"][n % 4]
        )),
    ]
    .prop_map(move |id| {
        // Entries are told apart by ID: make the word-only ones unique.
        if id.starts_with("t-") {
            format!("{id}-x{n}")
        } else {
            id
        }
    })
}

pub fn entry(n: usize, sections: Vec<String>) -> impl Strategy<Value = Entry> {
    let section = if sections.is_empty() {
        Just(None).boxed()
    } else {
        proptest::option::of(proptest::sample::select(sections)).boxed()
    };
    (
        id_shape(n),
        section,
        text(),
        counter(),
        counter(),
        proptest::option::of(text()),
        proptest::option::of(proptest::collection::vec(
            "[a-z]{2,6}(\\.[a-z]{2,6})?",
            0..3,
        )),
        proptest::option::of(prop_oneof![
            Just("strategy"),
            Just("warning"),
            Just("note"),
            Just("rule"),
            Just("learning")
        ]),
    )
        .prop_flat_map(|fields| {
            (
                Just(fields),
                proptest::option::of(prop_oneof![Just(0.25), Just(0.8), Just(1.0)]),
                proptest::option::of(prop_oneof![
                    Just(Status::Active),
                    Just(Status::Deprecated),
                    Just(Status::Archived)
                ]),
                proptest::option::of(Just("2025-10-25T12:00:00Z".to_owned())),
                proptest::option::of(proptest::collection::vec("[a-z]{3}:[0-9]{1,3}", 1..3)),
                proptest::option::of("[a-z]{2,8}"),
            )
        })
        .prop_map(
            |(
                (id, section, content, helpful, harmful, title, tags, kind),
                confidence,
                status,
                created,
                evidence,
                author,
            )| {
                let mut e = Entry::new(id, content);
                e.section = section;
                e.helpful = helpful;
                e.harmful = harmful;
                e.title = title;
                e.tags = tags;
                e.kind = kind.map(str::to_owned);
                e.confidence = confidence
                    .and_then(serde_json::Number::from_f64)
                    .map(Confidence::Score);
                e.status = status;
                e.created_at = created;
                e.evidence = evidence.map(|v| v.into_iter().map(Evidence::Text).collect());
                if let Some(a) = author {
                    e.extra.insert("author", Value::String(a));
                }
                e
            },
        )
}

pub fn section(i: usize) -> impl Strategy<Value = Section> {
    (
        proptest::option::of(prop_oneof![
            Just("STRATEGIES & INSIGHTS".to_owned()),
            Just("Build & Test Patterns".to_owned()),
            Just("TROUBLESHOOTING AND PITFALLS:".to_owned()),
            "[A-Z][A-Za-z ]{2,20}[a-z]",
        ]),
        proptest::option::of("[a-z]{3}"),
        proptest::option::of(prop_oneof![Just(0.5), Just(0.7), Just(1.0)]),
    )
        .prop_map(move |(title, prefix, weight)| {
            let key = title
                .as_deref()
                .map(ace_model::normalize::section_key)
                .filter(|k| !k.is_empty())
                .map_or_else(|| format!("section_{i}"), |k| format!("{k}_{i}"));
            let mut s = Section::new(key);
            s.title = title;
            s.prefix = prefix;
            s.weight = weight.and_then(serde_json::Number::from_f64);
            s
        })
}

pub fn playbook() -> impl Strategy<Value = Playbook> {
    (0usize..4)
        .prop_flat_map(|n| proptest::collection::vec(section(0), n..=n))
        .prop_map(|mut sections| {
            for (i, s) in sections.iter_mut().enumerate() {
                s.key = format!(
                    "{}_{i}",
                    s.key
                        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '_')
                );
            }
            sections
        })
        .prop_flat_map(|sections| {
            let keys: Vec<String> = sections.iter().map(|s| s.key.clone()).collect();
            let entries = (0usize..12)
                .prop_flat_map(move |n| (0..n).map(|i| entry(i, keys.clone())).collect::<Vec<_>>());
            (
                Just(sections),
                entries,
                proptest::option::of(text()),
                proptest::option::of(prop_oneof![Just(Value::from(2)), Just(Value::from("0.3"))]),
            )
        })
        .prop_map(|(sections, entries, title, version)| Playbook {
            sections,
            entries,
            title,
            version,
            ..Playbook::default()
        })
}

// ------------------------------------------------------------ differences

/// A field of the model: the entry (by its ID in the original) or `None`
/// for the playbook, and the field's name as loss reports spell it.
pub type Field = (Option<String>, String);

pub fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Every field of `a` that `b` does not give back. `ids` maps the IDs of
/// `a` to the ones `b` has for the same entries. Fields `b` adds (a default
/// weight, a derived section) are not differences: nothing was lost.
pub fn lost_fields(a: &Playbook, b: &Playbook, ids: &HashMap<String, String>) -> BTreeSet<Field> {
    let mut out = BTreeSet::new();
    let top_a = object(serde_json::to_value(a).unwrap());
    let top_b = object(serde_json::to_value(b).unwrap());
    for (k, va) in &top_a {
        match k.as_str() {
            "sections" | "entries" => {}
            "extra" => {
                for (x, v) in object(va.clone()) {
                    if top_b.get("extra").and_then(|e| e.get(&x)) != Some(&v) {
                        out.insert((None, format!("extra.{x}")));
                    }
                }
            }
            _ => {
                if top_b.get(k) != Some(va) {
                    out.insert((None, k.clone()));
                }
            }
        }
    }
    for s in &a.sections {
        let Some(t) = b.sections.iter().find(|t| t.key == s.key) else {
            out.insert((None, format!("sections[{}]", s.key)));
            continue;
        };
        let (sa, sb) = (
            object(serde_json::to_value(s).unwrap()),
            object(serde_json::to_value(t).unwrap()),
        );
        for (k, v) in &sa {
            // A title or prefix that is the key is what a format without
            // them gives back (docs/formats/mapping.md): no difference.
            let default = matches!(k.as_str(), "title" | "prefix") && v.as_str() == Some(&s.key);
            if sb.get(k) != Some(v) && !(default && sb.get(k).is_none()) {
                out.insert((None, format!("sections[{}].{k}", s.key)));
            }
        }
    }
    // The sections read back in another order (a writer that sorts them).
    let kept: Vec<usize> = a
        .sections
        .iter()
        .filter_map(|s| b.sections.iter().position(|t| t.key == s.key))
        .collect();
    if kept.windows(2).any(|w| w[0] > w[1]) {
        out.insert((None, "sections".into()));
    }
    let mut order_a = Vec::new();
    for e in &a.entries {
        let want = ids.get(&e.id).unwrap_or(&e.id);
        let Some(pos) = b.entries.iter().position(|f| &f.id == want) else {
            out.insert((Some(e.id.clone()), "entry".into()));
            continue;
        };
        order_a.push(pos);
        if want != &e.id {
            out.insert((Some(e.id.clone()), "id".into()));
        }
        let (mut ea, eb) = (
            object(serde_json::to_value(e).unwrap()),
            object(serde_json::to_value(&b.entries[pos]).unwrap()),
        );
        // A reference to an entry given a new ID follows it.
        let follow = |v: &mut Value| {
            if let Some(new) = v.as_str().and_then(|id| ids.get(id)) {
                *v = Value::String(new.clone());
            }
        };
        for k in ["links", "supersedes"] {
            if let Some(Value::Array(items)) = ea.get_mut(k) {
                items.iter_mut().for_each(follow);
            }
        }
        for k in ["superseded_by", "duplicate_of"] {
            if let Some(v) = ea.get_mut(k) {
                follow(v);
            }
        }
        for (k, v) in &ea {
            match k.as_str() {
                "id" => {}
                "extra" => {
                    for (x, xv) in object(v.clone()) {
                        if eb.get("extra").and_then(|m| m.get(&x)) != Some(&xv) {
                            out.insert((Some(e.id.clone()), format!("extra.{x}")));
                        }
                    }
                }
                _ => {
                    if eb.get(k) != Some(v) {
                        out.insert((Some(e.id.clone()), k.clone()));
                    }
                }
            }
        }
    }
    if order_a.windows(2).any(|w| w[0] > w[1]) {
        out.insert((None, "entries".into()));
    }
    out
}

/// Every field `b` has that `a` lacks or holds differently (a default
/// written for an absent value shows up here, not in [`lost_fields`]).
pub fn differing_fields(
    a: &Playbook,
    b: &Playbook,
    ids: &HashMap<String, String>,
) -> BTreeSet<Field> {
    let back: HashMap<String, String> = inverse(ids);
    let mut out = lost_fields(a, b, ids);
    // What b has that a does not: compare the other way round, with b's IDs
    // mapped back to a's.
    for (id, f) in lost_fields(b, a, &back) {
        out.insert((id.map(|i| back.get(&i).cloned().unwrap_or(i)), f));
    }
    out
}

/// The fields a loss report names, with entry IDs mapped back to the
/// original's (a writer that reassigns IDs reports under the new ones).
pub fn reported(losses: &[LossEntry], new_to_old: &HashMap<String, String>) -> BTreeSet<Field> {
    losses
        .iter()
        .map(|l| {
            let id = l
                .entry_id
                .as_deref()
                .map(|id| new_to_old.get(id).map_or(id, String::as_str).to_owned());
            (id, l.field.to_string())
        })
        .collect()
}

/// Whether `loss` names `field`: the same entry (or a playbook-wide loss
/// of all entries) and the same field or one containing it.
pub fn covers(loss: &Field, field: &Field) -> bool {
    // Entries are grouped by section; once sections are lost, so is the
    // order they gave.
    if field == &(None, "entries".to_owned())
        && (loss.1 == "section" || loss.1.starts_with("sections["))
    {
        return true;
    }
    // Sections are ordered as their entries are: entries written in
    // another order take the sections' order with them, and a section
    // that lost its key (or was dropped) is read back elsewhere.
    if field == &(None, "sections".to_owned())
        && loss.0.is_none()
        && (loss.1 == "entries" || loss.1.starts_with("sections["))
    {
        return true;
    }
    let same_owner = loss.0 == field.0 || (loss.0.is_none() && field.1 == "entries");
    let (l, f) = (loss.1.as_str(), field.1.as_str());
    // A section that lost its key is another section when read back.
    if let Some(section) = l.strip_suffix(".key") {
        if same_owner && f.starts_with(&format!("{section}.")) {
            return true;
        }
    }
    // An entry's section is a section key: a section that lost its key, or
    // was dropped whole, takes its entries' references with it.
    if f == "section" && l.starts_with("sections[") && (l.ends_with("].key") || l.ends_with(']')) {
        return true;
    }
    // Both counters are reported as one field.
    if l == "helpful/harmful" && same_owner && (f == "helpful" || f == "harmful") {
        return true;
    }
    let same_field = l == f
        || f.starts_with(&format!("{l}."))
        || l.starts_with(&format!("{f}."))
        // a whole entry or section lost covers its fields
        || (f == "entry")
        || f.starts_with(&format!("{l}["));
    same_owner && same_field
}

// ------------------------------------------------------------- conversion

pub struct Converted {
    pub back: Playbook,
    pub losses: Vec<LossEntry>,
    /// Original ID -> the ID in `back`.
    pub ids: HashMap<String, String>,
}

pub fn convert(pb: &Playbook, to: Format) -> Converted {
    let files = ace_registry::write_files(to, pb, &ace_registry::WriteCtx::default());
    let back = ace_registry::read_files(to, &files.main, files.companion.as_deref())
        .unwrap_or_else(|e| panic!("{to} does not read its own output: {e}\n{}", files.main))
        .playbook;
    let mut ids = HashMap::new();
    for c in files.id_changes {
        ids.entry(c.old).or_insert(c.new);
    }
    Converted {
        back,
        losses: files.losses,
        ids,
    }
}

pub fn inverse(ids: &HashMap<String, String>) -> HashMap<String, String> {
    ids.iter().map(|(o, n)| (n.clone(), o.clone())).collect()
}

/// `read_F(write_F(m))` gives back everything F reports as kept, and
/// the report names every field that is not given back.
pub fn the_loss_report_is_exactly_the_difference(
    registry: &Registry,
    pb: &Playbook,
) -> Result<(), TestCaseError> {
    for &to in registry.formats() {
        let c = convert(pb, to);
        let lost = lost_fields(pb, &c.back, &c.ids);
        let said = reported(&c.losses, &inverse(&c.ids));
        for field in &lost {
            prop_assert!(
                said.iter().any(|l| covers(l, field)),
                "{to}: {field:?} changed without a loss report\nreported: {said:?}\nmodel: {}",
                ace_json::write(pb)
            );
        }
        // and nothing is reported that did not change. A default written
        // into the file (ACE104) is reported even when ace-tools marks it
        // and reads it back as absent: other readers see the default.
        let mut differ = differing_fields(pb, &c.back, &c.ids);
        // What only the source's layout kept is left behind by a target
        // that keeps no layout of that owner.
        if let Some((owner, _)) = pb.layout_holds() {
            if to.imp().layout_owner() != Some(owner) {
                differ.insert((None, "layout".into()));
            }
        }
        let undefaulted: Vec<LossEntry> = c
            .losses
            .iter()
            .filter(|l| l.code != ace_model::rules::VALUE_DEFAULTED.code)
            .cloned()
            .collect();
        // Sections are compared by key, so when repeated headings are
        // renumbered (`x_1` reads back as `x_2`, `x_2` as `x_3`), the
        // section now keyed `x_2` can equal the one that was: the key
        // moved, and the renamed sections show up whole instead.
        let renumbered = differ
            .iter()
            .any(|f| f.0.is_none() && f.1.starts_with("sections[") && f.1.ends_with(']'));
        for loss in &reported(&undefaulted, &inverse(&c.ids)) {
            let moved_key =
                renumbered && loss.1.starts_with("sections[") && loss.1.ends_with("].key");
            prop_assert!(
                moved_key || differ.iter().any(|f| covers(loss, f) || covers(f, loss)),
                "{to}: {loss:?} is reported, but nothing differs there\ndiffering: {differ:?}\nmodel: {}",
                ace_json::write(pb)
            );
        }
    }
    Ok(())
}

/// X -> Y -> X keeps every field of X's reading that Y reported no loss for.
pub fn a_trip_through_another_format_keeps_what_both_hold(
    registry: &Registry,
    pb: &Playbook,
) -> Result<(), TestCaseError> {
    for &x in registry.formats() {
        let mx = convert(pb, x).back;
        for &y in registry.formats() {
            let cy = convert(&mx, y);
            let cxx = convert(&cy.back, x);
            let mut ids = HashMap::new();
            for (old, mid) in &cy.ids {
                ids.insert(old.clone(), cxx.ids.get(mid).unwrap_or(mid).clone());
            }
            for (mid, new) in &cxx.ids {
                if !cy.ids.values().any(|m| m == mid) {
                    ids.insert(mid.clone(), new.clone());
                }
            }
            let said = reported(&cy.losses, &inverse(&cy.ids));
            let also = reported(&cxx.losses, &inverse(&ids));
            for field in lost_fields(&mx, &cxx.back, &ids) {
                prop_assert!(
                    said.iter().chain(&also).any(|l| covers(l, &field)),
                    "{x} -> {y} -> {x}: {field:?} was not kept, and neither trip reported it\nmodel: {}",
                    ace_json::write(&mx)
                );
            }
        }
    }
    Ok(())
}

/// Extreme sizes: nothing at all, and a thousand entries in one section.
pub fn extreme_sizes_round_trip(registry: &Registry) {
    let empty = Playbook::default();
    let mut big = Playbook::default();
    let mut s = Section::new("strategies_and_insights");
    s.title = Some("STRATEGIES & INSIGHTS".into());
    s.prefix = Some("str".into());
    big.sections.push(s);
    for i in 1..=1000 {
        let mut e = Entry::new(
            format!("str-{i:05}"),
            format!("Advice number {i}: verify → retry."),
        );
        e.section = Some("strategies_and_insights".into());
        e.helpful = Some(i % 7);
        e.harmful = Some(0);
        big.entries.push(e);
    }
    for pb in [&empty, &big] {
        for &to in registry.formats() {
            let c = convert(pb, to);
            let lost = lost_fields(pb, &c.back, &c.ids);
            let said = reported(&c.losses, &inverse(&c.ids));
            assert!(
                lost.iter().all(|f| said.iter().any(|l| covers(l, f))),
                "{to}: {lost:?} not reported (reported {said:?})"
            );
            assert_eq!(c.back.entries.len(), pb.entries.len(), "{to}");
        }
    }
}
