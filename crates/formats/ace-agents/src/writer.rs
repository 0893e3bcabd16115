use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use ace_exec::Out;
use ace_model::Losses;
use ace_model::WriteReport;
use ace_model::{keys, rules, Entry, LossEntry, Playbook, Section};

use crate::bullet;
use crate::layout::{self, Item};

/// The text and what it could not hold.
#[derive(Debug, Clone, Default)]
pub struct WriteOutput {
    pub text: String,
    pub losses: Vec<LossEntry>,
}

struct Writer<'a, 'w> {
    out: &'a mut Out<'w>,
    losses: Vec<LossEntry>,
    /// Section keys the reader will have given to the headings so far; it
    /// numbers a repeated key (`_2`, `_3`), and so must the key check.
    taken: HashSet<String>,
    /// The keys of the sections playbook.yaml, written beside, lists: one
    /// of them with no bullets, title or description needs no heading.
    listed: Option<&'a HashSet<&'a str>>,
}

/// Writes an AGENTS.md. With a layout from [`crate::read`] in the playbook,
/// everything but the bullets is written back as read and each bullet goes
/// where it stood; new bullets go at the end of their section, new sections
/// at the end of the file. Without one, the seed's layout is written, in the
/// seed's order: section, then helpful descending, then content.
pub fn write(pb: &Playbook) -> WriteOutput {
    let mut out = Out::new();
    let report = write_into(pb, &mut out);
    WriteOutput {
        text: out.into_string(),
        losses: report.losses,
    }
}

/// [`write`] into `out`, which may send the text on as it is printed.
pub fn write_into(pb: &Playbook, out: &mut Out<'_>) -> WriteReport {
    write_beside(pb, out, None)
}

/// [`write_into`], with the keys of the sections playbook.yaml lists when
/// it is written beside (the curator's pair): a new file then gives no
/// heading to such a section if it has nothing else (no bullets, title or
/// description), as the curator's own files have none.
pub fn write_beside<'a>(
    pb: &Playbook,
    out: &'a mut Out<'_>,
    listed: Option<&'a HashSet<&'a str>>,
) -> WriteReport {
    let mut w = Writer {
        out,
        losses: Vec::new(),
        taken: HashSet::new(),
        listed,
    };
    w.playbook_losses(pb);
    match pb.layout_of(crate::LAYOUT_KEY).map(layout::from_value) {
        Some(Some(items)) => w.with_layout(pb, &items),
        Some(None) => {
            w.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                "layout",
                "not an AGENTS.md layout this version can read; the spec's layout is written instead",
            );
            w.fresh(pb);
        }
        None => w.fresh(pb),
    }
    WriteReport {
        losses: w.losses,
        id_changes: Vec::new(),
    }
}

/// The model's sections plus any that only entries name, sorted by key (the
/// seed's section order).
/// Whether `pb`'s sections read back in another order from AGENTS.md
/// written with headings for `headed`, in that order: the headed sections
/// come first, then those playbook.yaml alone lists, in its order.
fn sections_reordered(pb: &Playbook, headed: &[&str]) -> bool {
    let known: HashSet<&str> = pb.sections.iter().map(|s| s.key.as_str()).collect();
    let order = headed.iter().copied().filter(|k| known.contains(k)).chain(
        pb.sections
            .iter()
            .map(|s| s.key.as_str())
            .filter(|k| !headed.contains(k)),
    );
    order.ne(pb.sections.iter().map(|s| s.key.as_str()))
}

fn sections_by_key(pb: &Playbook) -> Vec<Cow<'_, Section>> {
    let known: HashSet<&str> = pb.sections.iter().map(|s| s.key.as_str()).collect();
    let mut named: Vec<&str> = pb
        .entries
        .iter()
        .filter_map(|e| e.section.as_deref())
        .filter(|k| !known.contains(k))
        .collect();
    named.sort_unstable();
    named.dedup();
    let mut all: Vec<Cow<Section>> = pb.sections.iter().map(Cow::Borrowed).collect();
    all.extend(named.into_iter().map(|k| Cow::Owned(Section::new(k))));
    all.sort_by(|a, b| a.key.cmp(&b.key));
    all
}

/// The entries of each section (`None`: of none), in the seed's order,
/// gathered in one pass (a million entries are not walked once per
/// section) and sorted a section per thread.
struct Groups<'p>(HashMap<Option<&'p str>, Vec<&'p Entry>>);

impl<'p> Groups<'p> {
    fn new(pb: &'p Playbook) -> Self {
        let mut g: HashMap<Option<&str>, Vec<&Entry>> = HashMap::new();
        for e in &pb.entries {
            g.entry(e.section.as_deref()).or_default().push(e);
        }
        let mut lists: Vec<&mut Vec<&Entry>> = g.values_mut().collect();
        ace_exec::par::each_heavy_mut(&mut lists, pb.entries.len(), |list| {
            **list = seed_sorted(list)
        });
        Groups(g)
    }

    /// A section's entries in the seed's order.
    fn in_seed_order(&self, key: Option<&str>) -> Vec<&'p Entry> {
        self.0.get(&key).cloned().unwrap_or_default()
    }
}

/// `entries` in the seed's order within a section: helpful descending,
/// then content; ties keep their order.
///
/// Sorted on packed keys (helpful, 16 bytes of content, position) rather
/// than by comparing through the references: at a million entries,
/// chasing each pair's pointers into the heap, and comparing the long
/// prefixes that entries share from the start, made the sort a second of
/// a conversion to AGENTS.md. Entries that tie on a chunk are sorted on
/// the next one (an MSD radix sort by 16-byte digits), so each string is
/// read once per chunk of it that matters.
fn seed_sorted<'p>(entries: &[&'p Entry]) -> Vec<&'p Entry> {
    // On every core: a source without sections (a skill file) is one list
    // of a million entries, and taking each key's first chunk misses the
    // cache once per entry.
    let mut keys: Vec<(u64, Chunk, usize)> = ace_exec::par::map_index(entries.len(), |i| {
        let e = entries[i];
        (helpful_key(e), Chunk::of(&e.content, 0), i)
    });
    ace_exec::par::sort_unstable(&mut keys);
    let mut order: Vec<usize> = keys.iter().map(|k| k.2).collect();
    // The runs that tie on the first chunk are disjoint slices of `order`,
    // each refined on its own: entries written from a few words tie on
    // their first chunk by the hundred thousand.
    let mut ties: Vec<&mut [usize]> = Vec::new();
    let mut rest: &mut [usize] = &mut order;
    let mut cut = 0;
    for_each_run(
        &keys,
        |a, b| a.0 == b.0 && a.1 == b.1,
        |run, k| {
            if run.len() > 1 && k.1.goes_on() {
                let (_, tail) = std::mem::take(&mut rest).split_at_mut(run.start - cut);
                let (slots, tail) = tail.split_at_mut(run.len());
                ties.push(slots);
                rest = tail;
                cut = run.end;
            }
        },
    );
    ace_exec::par::each_heavy_mut(&mut ties, entries.len(), |slots| refine(slots, entries));
    order.into_iter().map(|i| entries[i]).collect()
}

/// Sorts `slots`, indices of entries whose contents tie on their first
/// chunk, by the chunks after it.
fn refine(slots: &mut [usize], entries: &[&Entry]) {
    // A work list, not recursion: equal contents of a megabyte would nest
    // tens of thousands of calls.
    let mut ties = vec![(0..slots.len(), Chunk::LEN)];
    let mut chunks: Vec<(Chunk, usize)> = Vec::new();
    while let Some((run, at)) = ties.pop() {
        let slots = &mut slots[run.clone()];
        chunks.clear();
        chunks.extend(
            slots
                .iter()
                .map(|&i| (Chunk::of(&entries[i].content, at), i)),
        );
        chunks.sort_unstable();
        for (slot, k) in slots.iter_mut().zip(&chunks) {
            *slot = k.1;
        }
        for_each_run(
            &chunks,
            |a, b| a.0 == b.0,
            |sub, k| {
                if sub.len() > 1 && k.0.goes_on() {
                    ties.push((run.start + sub.start..run.start + sub.end, at + Chunk::LEN));
                }
            },
        );
    }
}

/// Calls `f` with the range and first item of each run of items that are
/// `same`.
fn for_each_run<T>(
    items: &[T],
    same: impl Fn(&T, &T) -> bool,
    mut f: impl FnMut(std::ops::Range<usize>, &T),
) {
    let mut start = 0;
    while start < items.len() {
        let first = &items[start];
        let len = items[start..].iter().take_while(|k| same(first, k)).count();
        f(start..start + len, first);
        start += len;
    }
}

/// Ascending in this key is helpful descending (absent counts as 0).
fn helpful_key(e: &Entry) -> u64 {
    !((e.helpful.unwrap_or(0) as u64) ^ (1 << 63))
}

/// Up to 16 bytes of a string from an offset, big-endian and padded with
/// zeros, and how many bytes the string had left there (capped at one
/// more than the chunk). Chunks order as the strings' bytes from that
/// offset do, as far as the chunk reaches: a string that ends inside the
/// chunk, with the same bytes, is a prefix of the other and sorts first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Chunk(u128, u8);

impl Chunk {
    const LEN: usize = 16;

    fn of(s: &str, at: usize) -> Chunk {
        let rest = s.as_bytes().get(at..).unwrap_or_default();
        let n = rest.len().min(Self::LEN);
        let mut b = [0u8; Self::LEN];
        b[..n].copy_from_slice(&rest[..n]);
        Chunk(u128::from_be_bytes(b), rest.len().min(Self::LEN + 1) as u8)
    }

    /// Both strings go on past this chunk: equal chunks do not decide.
    fn goes_on(self) -> bool {
        usize::from(self.1) > Self::LEN
    }
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

impl Writer<'_, '_> {
    fn playbook_losses(&mut self, pb: &Playbook) {
        for (name, present) in [
            ("version", pb.version.is_some()),
            ("project_id", pb.project_id.is_some()),
            ("created_at", pb.created_at.is_some()),
            ("updated_at", pb.updated_at.is_some()),
        ] {
            if present {
                self.losses.lose(&rules::DROPPED_FIELD, None, name, "AGENTS.md has no place for this playbook field (playbook.yaml keeps `version`)");
            }
        }
        for key in pb.extra.keys() {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("extra.{key}"),
                "AGENTS.md has no place for extra playbook fields",
            );
        }
        for s in &pb.sections {
            let field = |f: &str| format!("sections[{}].{f}", s.key);
            if s.weight.is_some() {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    field("weight"),
                    "section weights live in playbook.yaml, not AGENTS.md",
                );
            }
            if s.prefix.is_some() {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    field("prefix"),
                    "AGENTS.md has no section prefixes; the entry IDs are kept as they are",
                );
            }
            for k in s.extra.keys().filter(|k| *k != keys::HEADING_LEVEL) {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    field(&format!("extra.{k}")),
                    "AGENTS.md has no place for extra section fields",
                );
            }
        }
    }

    /// The entry as it can be written, reporting what had to change.
    fn prepare<'e>(&mut self, e: &'e Entry) -> Cow<'e, Entry> {
        let id = e.id.as_str();
        if e.neutral.is_some() {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                "neutral",
                "an AGENTS.md bullet has only helpful and harmful counters",
            );
        }
        for (name, present) in e.optional_fields() {
            if present && name != "provenance" {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    Some(id),
                    name,
                    "an AGENTS.md bullet has no place for this field",
                );
            }
        }
        for key in e.extra.keys() {
            if key != keys::AGGREGATED_FROM && key != crate::BULLET_FIELDS_KEY {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    Some(id),
                    format!("extra.{key}"),
                    "an AGENTS.md bullet has no place for extra fields",
                );
            }
        }
        if e.helpful.is_none() || e.harmful.is_none() {
            self.losses.lose(
                &rules::VALUE_DEFAULTED,
                Some(id),
                "helpful/harmful",
                "a bullet must carry both counters; the absent one is written as 0",
            );
        }
        let mut e = Cow::Borrowed(e);
        if e.id.is_empty() || !e.id.chars().all(is_id_char) {
            let fixed: String =
                e.id.chars()
                    .map(|c| if is_id_char(c) { c } else { '-' })
                    .collect();
            let fixed = if fixed.is_empty() {
                "unnamed".to_owned()
            } else {
                fixed
            };
            self.losses.lose(
                &rules::ALTERED_TEXT,
                Some(id),
                "id",
                "an AGENTS.md ID is letters, digits, `-`, `_` and `.`; other characters became `-`",
            );
            e.to_mut().id = fixed;
        }
        if !ace_exec::scan::all_bytes(e.content.as_bytes(), |b| (b != b'\n') & (b != b'\r')) {
            self.losses.lose(
                &rules::ALTERED_TEXT,
                Some(id),
                "content",
                "a bullet is one line; line breaks in the content became spaces",
            );
            let joined = e.content.replace("\r\n", " ").replace(['\n', '\r'], " ");
            e.to_mut().content = joined;
        }
        if let Some(p) = e.provenance.as_deref() {
            let values = [&p.delta_id, &p.beads_id, &p.created_at, &p.hash];
            let bad = values.iter().any(|v| {
                v.as_deref()
                    .is_some_and(|v| v.contains(['\n', '\r']) || v.contains("-->"))
            });
            if bad {
                self.losses.lose(&rules::ALTERED_TEXT, Some(id), "provenance", "a provenance value with a line break or `-->` would end the comment; they became spaces");
                let mut p = p.clone();
                for v in [
                    &mut p.delta_id,
                    &mut p.beads_id,
                    &mut p.created_at,
                    &mut p.hash,
                ]
                .into_iter()
                .flatten()
                {
                    *v = v.replace("-->", "- ->").replace(['\n', '\r'], " ");
                }
                e.to_mut().provenance = Some(Box::new(p));
            }
        }
        e
    }

    fn bullet(&mut self, e: &Entry) {
        let e = self.prepare(e);
        self.out.push_str(&bullet::render_entry(&e));
    }

    /// [`Writer::bullet`] of each entry, runs of a long list printed on
    /// several threads.
    fn bullets(&mut self, entries: &[&Entry]) {
        ace_exec::par::print_runs_reporting(
            entries.len(),
            self.out,
            &mut self.losses,
            |range, out, losses| {
                let mut w = Writer {
                    out,
                    losses: std::mem::take(losses),
                    taken: HashSet::new(),
                    listed: None,
                };
                ace_exec::prefetch::each_ahead(&entries[range], |e| w.bullet(e));
                *losses = w.losses;
            },
        );
    }

    fn ensure_line_start(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n") {
            self.out.push('\n');
        }
    }

    fn heading(&mut self, s: &Section) {
        // A section is a `##` heading: what the curator writes, and what
        // this reader takes for a section outside a kept layout. Another
        // level (a markdown document's `###`) would read back as prose.
        let level = 2;
        if s.extra
            .get(keys::HEADING_LEVEL)
            .and_then(|v| v.as_u64())
            .is_some_and(|l| l != 2)
        {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}].extra.{}", s.key, keys::HEADING_LEVEL),
                "an AGENTS.md section is a `##` heading; the section is written as one",
            );
        }
        let title = self.one_line(s.display_title(), format!("sections[{}].title", s.key));
        let base = crate::reader::key_for_title(&title);
        let mut read_as = base.clone();
        let mut n = 2;
        while self.taken.contains(&read_as) {
            read_as = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(read_as.clone());
        if read_as != s.key {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}].key", s.key),
                format!(
                    "section keys are derived from headings; `{}` reads back as `{read_as}`",
                    s.key
                ),
            );
        }
        self.out.push_str(&"#".repeat(level));
        self.out.push(' ');
        self.out.push_str(&title);
        self.out.push('\n');
    }

    /// A heading's text: one line, without the white space at its ends that
    /// reading a heading drops.
    fn one_line(&mut self, text: &str, field: impl Into<std::borrow::Cow<'static, str>>) -> String {
        let line = text.replace(['\n', '\r'], " ");
        let line = line.trim();
        if line != text {
            self.losses.lose(
                &rules::ALTERED_TEXT,
                None,
                field,
                "a heading holds one line without surrounding white space; line breaks became spaces and the ends were trimmed",
            );
        }
        line.to_owned()
    }

    /// Prose from the model, escaped where a line would read as structure.
    fn text_block(&mut self, text: &str, field: impl Into<std::borrow::Cow<'static, str>>) {
        let field = field.into();
        for line in text.lines() {
            let t = line.trim_start();
            let structural = t.starts_with("[Bullet")
                || t.starts_with("- [Bullet")
                || ace_mdtext::heading(t).is_some();
            if structural {
                self.losses.lose(
                    &rules::ALTERED_TEXT,
                    None,
                    field.clone(),
                    "a line that would read as a heading or a bullet was escaped with `\\`",
                );
                self.out.push('\\');
            }
            self.out.push_str(line);
            self.out.push('\n');
        }
    }

    fn fresh(&mut self, pb: &Playbook) {
        if let Some(title) = &pb.title {
            let title = self.one_line(title, "title");
            self.out.push_str("# ");
            self.out.push_str(&title);
            self.out.push_str("\n\n");
        }
        if let Some(d) = &pb.description {
            self.text_block(d, "description");
            self.out.push('\n');
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                "description",
                "written as prose under the title, which AGENTS.md reads as prose: no field holds it",
            );
        }
        let groups = Groups::new(pb);
        let unsectioned = groups.in_seed_order(None);
        self.bullets(&unsectioned);
        if !unsectioned.is_empty() {
            self.out.push('\n');
        }
        let sections = sections_by_key(pb);
        let mut written: Vec<&Entry> = unsectioned;
        let mut headed: Vec<&str> = Vec::new();
        for s in &sections {
            let entries = groups.in_seed_order(Some(&s.key));
            let bare = s.title.is_none() && s.description.is_none() && entries.is_empty();
            if bare && self.listed.is_some_and(|l| l.contains(s.key.as_str())) {
                continue;
            }
            headed.push(s.key.as_str());
            let prose_under = s
                .description
                .as_deref()
                .is_some_and(|d| !d.trim().is_empty());
            if entries.is_empty() && prose_under && s.title.is_some() {
                // This reader takes a heading for a section by the bullets
                // under it, or by nothing at all under it; one with prose
                // and no bullet reads back as prose.
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    format!("sections[{}].title", s.key),
                    "a heading with no bullet under it reads back as prose, not as a section",
                );
            }
            self.heading(s);
            self.out.push('\n');
            if let Some(d) = &s.description {
                self.text_block(d, format!("sections[{}].description", s.key));
                self.out.push('\n');
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    format!("sections[{}].description", s.key),
                    "written as prose under the heading, which AGENTS.md reads as prose: no field holds it",
                );
            }
            self.bullets(&entries);
            if !entries.is_empty() {
                self.out.push('\n');
            }
            written.extend(entries);
        }
        if self.out.ends_with("\n\n") {
            self.out.pop();
        }
        // A bare section that only playbook.yaml lists is read back after
        // the headed ones; that moves no entry, so only entries that moved
        // are an order changed.
        let moved = written
            .iter()
            .zip(&pb.entries)
            .any(|(a, b)| !std::ptr::eq(*a, b));
        if moved {
            self.losses.lose(&rules::ORDER_CHANGED, None, "entries", "AGENTS.md is written in the ace_beads curator spec's order: section, then helpful descending, then content");
        } else if sections_reordered(pb, &headed) {
            // No entry moved, but sections did (empty ones, say): read
            // back, they are in another order than the source's.
            self.losses.lose(&rules::ORDER_CHANGED, None, "sections", "AGENTS.md lists its sections by name (the ace_beads curator spec's order), and playbook.yaml the sections it alone holds after them; the source's order is not kept");
        }
    }

    fn with_layout(&mut self, pb: &Playbook, items: &[Item]) {
        if pb.description.is_some() {
            self.losses.lose(&rules::DROPPED_FIELD, None, "description", "the AGENTS.md layout keeps its own prose; the model's description is not written into it");
        }
        let (slots, placed) = place(&pb.entries, items);
        // Entries the layout does not have (new ones), per section in model
        // order: each goes before the first placed entry of its section that
        // follows it in the model, the rest at the section's end. Where the
        // model puts a new entry is where it is written, so the writer
        // agrees with whoever ordered the model (ace-apply keeps appends
        // in ID order, so that they commute).
        let mut unplaced: HashMap<Option<&str>, (Vec<usize>, usize)> = HashMap::new();
        for (i, e) in pb.entries.iter().enumerate() {
            if !placed[i] {
                unplaced.entry(e.section.as_deref()).or_default().0.push(i);
            }
        }
        let mut slot_no = 0;
        let mut ends: HashSet<Option<&str>> = HashSet::new();
        let sections = pb.sections_by_key();
        for item in items {
            match item {
                Item::Text(t) => self.out.push_str(t),
                Item::Bullet { raw, .. } => {
                    if let Some(i) = slots[slot_no] {
                        if let Some((list, next)) =
                            unplaced.get_mut(&pb.entries[i].section.as_deref())
                        {
                            let from = *next;
                            while *next < list.len() && list[*next] < i {
                                *next += 1;
                            }
                            if from < *next {
                                let before: Vec<&Entry> =
                                    list[from..*next].iter().map(|&j| &pb.entries[j]).collect();
                                self.ensure_line_start();
                                self.bullets(&before);
                            }
                        }
                        let e = self.prepare(&pb.entries[i]);
                        let rendered = bullet::render_entry(&e);
                        match raw {
                            Some((raw, canon)) if *canon == rendered => self.out.push_str(raw),
                            _ => {
                                self.ensure_line_start();
                                self.out.push_str(&rendered);
                            }
                        }
                    }
                    slot_no += 1;
                }
                Item::End { section, title } => {
                    ends.insert(section.as_deref());
                    if let Some(key) = section {
                        self.taken.insert((*key).to_owned());
                    }
                    if let (Some(key), Some(title)) = (section, title) {
                        if let Some(s) = sections.get(key) {
                            if s.title.as_deref().is_some_and(|t| t != *title) {
                                self.losses.lose(
                                    &rules::ALTERED_TEXT,
                                    None,
                                    format!("sections[{key}].title"),
                                    "the heading is kept as the AGENTS.md layout has it",
                                );
                            }
                        }
                    }
                    if let Some((list, next)) = unplaced.get_mut(&section.as_deref()) {
                        let new: Vec<&Entry> =
                            list[*next..].iter().map(|&j| &pb.entries[j]).collect();
                        *next = list.len();
                        if !new.is_empty() {
                            self.ensure_line_start();
                            self.bullets(&new);
                        }
                    }
                }
            }
        }
        // Sections the layout does not have go at the end, in the seed's order.
        let rest: Vec<Cow<Section>> = sections_by_key(pb)
            .into_iter()
            .filter(|s| !ends.contains(&Some(s.key.as_str())))
            .collect();
        let has_entries = |s: &Section| {
            pb.entries
                .iter()
                .any(|e| e.section.as_deref() == Some(s.key.as_str()))
        };
        let (rest, empty): (Vec<Cow<Section>>, Vec<Cow<Section>>) =
            rest.into_iter().partition(|s| has_entries(s));
        for s in empty {
            // A heading of its own would change the document for a section
            // that holds nothing; playbook.yaml lists it when written beside.
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}]", s.key),
                "an empty section the AGENTS.md layout does not have is not added to it",
            );
        }
        let groups = match rest.is_empty() {
            true => Groups(HashMap::new()),
            false => Groups::new(pb),
        };
        for s in rest {
            self.ensure_line_start();
            if !self.out.is_empty() && !self.out.ends_with("\n\n") {
                self.out.push('\n');
            }
            self.heading(&s);
            self.out.push('\n');
            let entries = groups.in_seed_order(Some(&s.key));
            self.bullets(&entries);
        }
    }
}

/// The entry each bullet slot of the layout takes (`None`: its entry is
/// gone), and which entries took a slot.
///
/// Each slot takes the next unused entry with its ID and section, in model
/// order. While the layout's bullets follow the model one for one (a file
/// read and written back, or entries removed from it), that is the next
/// entry; otherwise the entries are looked up by ID.
fn place(entries: &[Entry], items: &[Item]) -> (Vec<Option<usize>>, Vec<bool>) {
    in_step(entries, items).unwrap_or_else(|| by_id(entries, items))
}

/// The slots walked beside the model: a slot whose bullet is not the next
/// entry is left empty. That is the rule's answer exactly when no entry
/// has the ID and section of a slot left empty (every entry before the
/// next one is placed, so the next one is the first unplaced entry of its
/// ID): checked once at the end in a set of the empty slots' keys, which
/// is small when entries were removed, instead of a look-up per slot in a
/// map of every entry's ID.
fn in_step(entries: &[Entry], items: &[Item]) -> Option<(Vec<Option<usize>>, Vec<bool>)> {
    let mut placed = vec![false; entries.len()];
    let mut slots: Vec<Option<usize>> = Vec::new();
    let mut gone: foldhash::HashSet<(&str, Option<&str>)> = Default::default();
    let mut next = 0;
    for item in items {
        let Item::Bullet { id, section, .. } = item else {
            continue;
        };
        match entries.get(next) {
            Some(e) if e.id == *id && e.section.as_deref() == *section => {
                placed[next] = true;
                slots.push(Some(next));
                next += 1;
            }
            _ => {
                // Past half the slots out of step, the look-up by ID is
                // the cheaper way.
                if gone.len() * 2 > entries.len().max(16) {
                    return None;
                }
                gone.insert((id, *section));
                slots.push(None);
            }
        }
    }
    let clash = !gone.is_empty()
        && entries
            .iter()
            .any(|e| gone.contains(&(e.id.as_str(), e.section.as_deref())));
    (!clash).then_some((slots, placed))
}

/// The slots given entries by ID: each takes the first unplaced entry of
/// its ID and section.
fn by_id(entries: &[Entry], items: &[Item]) -> (Vec<Option<usize>>, Vec<bool>) {
    let mut placed = vec![false; entries.len()];
    let mut chains = Chains::new(entries);
    let slots = items
        .iter()
        .filter_map(|item| match item {
            Item::Bullet { id, section, .. } => {
                Some(chains.take(id, *section, entries, &mut placed))
            }
            _ => None,
        })
        .collect();
    (slots, placed)
}

/// The entries of each ID chained in model order, from the first one not
/// yet placed: one number per entry rather than a queue per ID.
struct Chains<'a> {
    head: HashMap<&'a str, usize>,
    next: Vec<usize>,
}

impl<'a> Chains<'a> {
    const END: usize = usize::MAX;

    fn new(entries: &'a [Entry]) -> Self {
        let mut head: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
        let mut next = vec![Self::END; entries.len()];
        // From the last entry back, each one links to the later entry of
        // its ID seen before it, and becomes the head.
        for (i, e) in entries.iter().enumerate().rev() {
            next[i] = head.insert(e.id.as_str(), i).unwrap_or(Self::END);
        }
        Chains { head, next }
    }

    /// The first unplaced entry with `id` in `section`, marked placed.
    fn take(
        &mut self,
        id: &str,
        section: Option<&str>,
        entries: &[Entry],
        placed: &mut [bool],
    ) -> Option<usize> {
        let mut at = self.head.get(id).copied().unwrap_or(Self::END);
        while at != Self::END && (placed[at] || entries[at].section.as_deref() != section) {
            at = self.next[at];
        }
        if at == Self::END {
            return None;
        }
        placed[at] = true;
        // Placed entries at the front of a chain are skipped for good, so
        // many slots of one ID stay linear.
        if let Some(h) = self.head.get_mut(id) {
            while *h != Self::END && placed[*h] {
                *h = self.next[*h];
            }
        }
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule stated plainly: each slot takes the first entry in model
    /// order with its ID and section that no earlier slot took.
    fn naive(entries: &[Entry], slots: &[(&str, Option<&str>)]) -> Vec<Option<usize>> {
        let mut placed = vec![false; entries.len()];
        slots
            .iter()
            .map(|(id, section)| {
                let i = (0..entries.len()).find(|&i| {
                    !placed[i] && entries[i].id == *id && entries[i].section.as_deref() == *section
                })?;
                placed[i] = true;
                Some(i)
            })
            .collect()
    }

    /// Whether [`seed_sorted`] gives the very entries, in the very order,
    /// that a stable sort by the seed's rule gives.
    fn sorts_by_the_seed_rule_stably(refs: &[&Entry]) -> bool {
        let mut expected = refs.to_vec();
        expected.sort_by(|a, b| {
            b.helpful
                .unwrap_or(0)
                .cmp(&a.helpful.unwrap_or(0))
                .then_with(|| a.content.cmp(&b.content))
        });
        let got = seed_sorted(refs);
        got.len() == expected.len() && got.iter().zip(&expected).all(|(a, b)| std::ptr::eq(*a, *b))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// The radix sort gives what a stable sort by the seed's rule
        /// gives: contents from a small alphabet share long prefixes, end
        /// inside and at chunk boundaries, and hold NUL (which the chunks
        /// pad with).
        #[test]
        fn seed_sorted_is_the_seed_rule_stably(
            raw in proptest::collection::vec(
                (
                    proptest::option::of(-2i64..3),
                    proptest::collection::vec(proptest::sample::select(vec!["a", "b", "\0", "é", "aaaaaaaa"]), 0..12),
                ),
                0..60,
            )
        ) {
            let entries: Vec<Entry> = raw
                .into_iter()
                .map(|(helpful, parts)| {
                    let mut e = Entry::new("x", parts.concat());
                    e.helpful = helpful;
                    e
                })
                .collect();
            let refs: Vec<&Entry> = entries.iter().collect();
            proptest::prop_assert!(sorts_by_the_seed_rule_stably(&refs));
        }
    }

    /// Past the size that goes to the thread pool: the keys are taken and
    /// sorted there, and tens of thousands of entries tie on their first
    /// chunks, so the runs of ties are refined side by side.
    #[test]
    fn a_long_list_is_sorted_by_the_seed_rule_stably() {
        let words = ["a", "b", "aaaaaaaaaaaaaaaa", "\0", "é", ""];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as usize
        };
        let entries: Vec<Entry> = (0..ace_exec::par::MIN_ITEMS * 3 + 11)
            .map(|i| {
                let content: String = (0..next(9)).map(|_| words[next(6)]).collect();
                let mut e = Entry::new(format!("e{i}"), content);
                e.helpful = [None, Some(0), Some(1), Some(2)][next(4)];
                e
            })
            .collect();
        let refs: Vec<&Entry> = entries.iter().collect();
        assert!(sorts_by_the_seed_rule_stably(&refs));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Slots taken beside the model or by ID give the rule's answer:
        /// layouts that are the model with bullets removed, added, moved,
        /// and IDs repeated across sections.
        #[test]
        fn slots_take_entries_by_the_rule(
            model in proptest::collection::vec((0u8..6, 0u8..3), 0..30),
            edits in proptest::collection::vec((0u8..4, 0usize..40, 0u8..6, 0u8..3), 0..8),
        ) {
            let ids = ["a", "b", "c", "d", "e", "f"];
            let sections = [None, Some("s"), Some("t")];
            let entries: Vec<Entry> = model
                .iter()
                .map(|&(id, s)| {
                    let mut e = Entry::new(ids[id as usize], "x");
                    e.section = sections[s as usize].map(str::to_owned);
                    e
                })
                .collect();
            let mut layout: Vec<(&str, Option<&str>)> = model
                .iter()
                .map(|&(id, s)| (ids[id as usize], sections[s as usize]))
                .collect();
            for (kind, at, id, s) in edits {
                let at = at % (layout.len() + 1);
                match kind {
                    0 | 1 if at < layout.len() => {
                        layout.remove(at);
                    }
                    2 => layout.insert(at, (ids[id as usize], sections[s as usize])),
                    3 if at < layout.len() => {
                        let slot = layout.remove(at);
                        layout.push(slot);
                    }
                    _ => {}
                }
            }
            let items: Vec<Item> = layout
                .iter()
                .map(|&(id, section)| Item::Bullet { id, section, raw: None })
                .collect();
            let expected = naive(&entries, &layout);
            let taken: Vec<bool> = (0..entries.len())
                .map(|i| expected.contains(&Some(i)))
                .collect();
            proptest::prop_assert_eq!(&place(&entries, &items), &(expected.clone(), taken.clone()));
            proptest::prop_assert_eq!(&by_id(&entries, &items), &(expected.clone(), taken.clone()));
            if let Some(walked) = in_step(&entries, &items) {
                proptest::prop_assert_eq!(&walked, &(expected, taken));
            }
        }
    }

    #[test]
    fn slots_take_entries_by_the_rule_in_and_out_of_step() {
        let entry = |id: &str, section: Option<&str>| {
            let mut e = Entry::new(id, "x");
            e.section = section.map(str::to_owned);
            e
        };
        let (s, t) = (Some("s"), Some("t"));
        let model = vec![
            entry("a", s),
            entry("b", s),
            entry("a", s),
            entry("c", t),
            entry("a", t),
            entry("d", None),
        ];
        let layouts: Vec<Vec<(&str, Option<&str>)>> = vec![
            // Read and written back.
            vec![
                ("a", s),
                ("b", s),
                ("a", s),
                ("c", t),
                ("a", t),
                ("d", None),
            ],
            // Out of step at the second slot, back in order after.
            vec![
                ("a", s),
                ("a", s),
                ("b", s),
                ("c", t),
                ("a", t),
                ("d", None),
            ],
            // An entry that moved section, one deleted, one never placed.
            vec![("a", s), ("b", t), ("a", s), ("a", s), ("c", t), ("e", s)],
            // More slots of one ID than entries, and none at all.
            vec![("a", s), ("a", s), ("a", s), ("a", t), ("a", t)],
            vec![],
        ];
        for layout in layouts {
            let items: Vec<Item> = layout
                .iter()
                .map(|&(id, section)| Item::Bullet {
                    id,
                    section,
                    raw: None,
                })
                .chain([Item::Text("text\n")])
                .collect();
            let (slots, placed) = place(&model, &items);
            let expected = naive(&model, &layout);
            assert_eq!(slots, expected, "{layout:?}");
            let taken: Vec<bool> = (0..model.len())
                .map(|i| expected.contains(&Some(i)))
                .collect();
            assert_eq!(placed, taken, "{layout:?}");
        }
    }
}
