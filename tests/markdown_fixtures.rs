//! Every quirk of real markdown playbooks, reproduced in `tests/fixtures/markdown`.

use std::path::PathBuf;

use ace_markdown::{read, write};
use ace_model::{Diagnostic, Entry, LineIndex, Playbook, Section};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/markdown")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn codes(diags: &[Diagnostic]) -> Vec<&'static str> {
    diags.iter().map(|d| d.code).collect()
}

fn count(diags: &[Diagnostic], code: &str) -> usize {
    diags.iter().filter(|d| d.code == code).count()
}

fn line_of(src: &str, d: &Diagnostic) -> usize {
    LineIndex::new(src).line_col(src, d.span.start).line
}

fn ids(pb: &Playbook) -> Vec<&str> {
    pb.entries.iter().map(|e| e.id.as_str()).collect()
}

/// Rewriting is idempotent and loses no entry.
fn assert_stable(src: &str) {
    let first = read(src).playbook;
    let once = write(&first);
    let reread = read(&once.text).playbook;
    assert_eq!(reread, first, "read(write(read(x))) must equal read(x)");
    assert_eq!(
        write(&reread).text,
        once.text,
        "rewriting must be idempotent"
    );
}

#[test]
fn canonical_layout_round_trips_byte_for_byte() {
    let src = fixture("canonical.md");
    let out = read(&src);
    assert_eq!(
        codes(&out.diagnostics),
        vec!["ACE020"],
        "{:#?}",
        out.diagnostics
    );
    let pb = &out.playbook;
    assert_eq!(
        ids(pb),
        ["str-00001", "str-00002", "cal-00001", "mis-00001"]
    );
    assert_eq!(pb.sections.len(), 4);
    assert_eq!(pb.sections[0].key, "strategies_and_insights");
    assert_eq!(
        pb.sections[0].title.as_deref(),
        Some("STRATEGIES & INSIGHTS")
    );
    assert_eq!(pb.sections[0].prefix.as_deref(), Some("str"));
    assert_eq!(pb.sections[3].prefix, None);
    let e = &pb.entries[2];
    assert_eq!((e.helpful, e.harmful, e.neutral), (Some(8), Some(0), None));
    assert_eq!(e.content, "NPV = Σ(Cash Flow / (1+r)^t)");
    assert_eq!(e.section.as_deref(), Some("formulas_and_calculations"));
    let w = write(pb);
    assert!(w.losses.is_empty(), "{:?}", w.losses);
    assert_eq!(w.text, src);
}

#[test]
fn entries_keep_their_source_span() {
    let src = fixture("multiline.txt");
    let pb = read(&src).playbook;
    let span = pb.entries[0].origin.0.unwrap();
    let text = &src[span.start..span.end];
    assert!(text.starts_with("[code-00010] For CSV"));
    assert!(text.ends_with("join(csv_lines)"));
    for e in &pb.entries {
        let s = e.origin.0.unwrap();
        assert!(src[s.start..s.end].starts_with(&format!("[{}]", e.id)));
    }
}

#[test]
fn counters_absent_are_not_zero() {
    let src = fixture("no-counters.txt");
    let out = read(&src);
    let pb = &out.playbook;
    assert_eq!(
        ids(pb),
        [
            "shr-00001",
            "shr-00005",
            "api-00004",
            "ts-00002",
            "misc-00003"
        ]
    );
    assert!(pb
        .entries
        .iter()
        .all(|e| e.helpful.is_none() && e.harmful.is_none()));
    assert_eq!(
        pb.entries[0].content,
        "Make sure to end code blocks with ``` followed by a newline(\\n)."
    );
    assert_eq!(count(&out.diagnostics, "ACE003"), 5);
    assert_eq!(count(&out.diagnostics, "ACE013"), 1);
    assert_eq!(count(&out.diagnostics, "ACE020"), 1, "one empty section");
    // trailing colon, mixed case
    assert_eq!(count(&out.diagnostics, "ACE018"), 2);
    let t = pb
        .sections
        .iter()
        .find(|s| s.key == "troubleshooting_and_pitfalls")
        .unwrap();
    assert_eq!(t.title.as_deref(), Some("TROUBLESHOOTING AND PITFALLS:"));
    // two blank lines before OTHERS
    let spacing: Vec<_> = out
        .diagnostics
        .iter()
        .filter(|d| d.code == "ACE012")
        .map(|d| line_of(&src, d))
        .collect();
    assert_eq!(spacing, [15]);
    // the rewrite keeps "no counters" distinct from 0/0 and adds the final newline
    let w = write(pb);
    assert!(w.text.contains("\n[shr-00001] Make sure"));
    assert!(w
        .text
        .ends_with("[misc-00003] Remember that the email addresses are not valid anymore.\n"));
    assert_stable(&src);
}

#[test]
fn multi_line_entries_and_hash_continuations() {
    let src = fixture("multiline.txt");
    let out = read(&src);
    let pb = &out.playbook;
    assert_eq!(ids(pb), ["code-00010", "code-00017", "cms-00018"]);
    assert_eq!(
        pb.sections.len(),
        2,
        "`# ` lines inside entries are not headings"
    );
    assert_eq!(pb.entries[0].content.lines().count(), 6);
    assert!(pb.entries[0]
        .content
        .contains("\n# Create CSV content manually"));
    assert_eq!(pb.entries[1].helpful, Some(1));
    assert_eq!(
        pb.entries[1].content,
        "Deduplicate songs:\n# Collect songs, then deduplicate by song_id\nunique_songs = {}"
    );
    assert_eq!(
        pb.entries[2].section.as_deref(),
        Some("common_mistakes_and_correct_strategies")
    );
    assert_eq!(count(&out.diagnostics, "ACE015"), 2);
    assert_eq!(count(&out.diagnostics, "ACE016"), 2);
    assert_eq!(
        count(&out.diagnostics, "ACE012"),
        1,
        "heading right after an entry"
    );
    assert_stable(&src);
    // a multi-line entry in canonical layout round-trips exactly
    let w = write(pb);
    assert!(w.losses.is_empty());
    assert_eq!(read(&w.text).playbook, *pb);
}

#[test]
fn list_items_prefixes_and_comments() {
    let src = fixture("list-dash.md");
    let out = read(&src);
    let pb = &out.playbook;
    assert_eq!(ids(pb), ["sr-001", "sr-002", "s6", "dec-003", "rg-016"]);
    assert_eq!(count(&out.diagnostics, "ACE019"), 4);
    assert_eq!(
        count(&out.diagnostics, "ACE025"),
        2,
        "commented bullets are not entries"
    );
    let dec = &pb.entries[3];
    assert_eq!(
        (dec.helpful, dec.content.as_str()),
        (None, "Decisions are logged.")
    );
    assert_eq!(pb.entries[1].content, "Keep PHP autoload parity.");
    assert!(pb
        .description
        .as_deref()
        .unwrap()
        .contains("ACE-managed rules"));
    assert_eq!(pb.sections[0].extra["heading_level"], 3);
    assert_eq!(
        pb.sections[0].description.as_deref(),
        Some("<!-- [str-001] helpful=1 harmful=0 :: commented bullet -->")
    );
    let w = write(pb);
    assert!(
        w.text.contains("### Short Rules\n"),
        "heading level is kept"
    );
    assert!(
        w.text.contains("\n[dec-003] Decisions are logged.\n"),
        "no counters: `::` only where the content needs it"
    );
    assert_stable(&src);
}

#[test]
fn crlf_bom_and_trailing_whitespace() {
    let src = fixture("crlf-bom.md");
    assert!(src.starts_with('\u{feff}') && src.contains("\r\n"));
    let out = read(&src);
    assert_eq!(ids(&out.playbook), ["str-00001", "str-00002"]);
    assert_eq!(out.playbook.entries[0].content, "CRLF line");
    assert_eq!(
        out.playbook.sections[0].title.as_deref(),
        Some("STRATEGIES & INSIGHTS")
    );
    assert_eq!(count(&out.diagnostics, "ACE009"), 1);
    assert_eq!(count(&out.diagnostics, "ACE010"), 1);
    assert_eq!(count(&out.diagnostics, "ACE011"), 1);
    let ws = out.diagnostics.iter().find(|d| d.code == "ACE011").unwrap();
    assert_eq!(&src[ws.span.start..ws.span.end], "   ");
    let span = out.playbook.entries[0].origin.0.unwrap();
    assert_eq!(
        &src[span.start..span.end],
        "[str-00001] helpful=1 harmful=0 :: CRLF line"
    );
    let w = write(&out.playbook);
    assert!(!w.text.contains('\r') && !w.text.starts_with('\u{feff}'));
    assert_stable(&src);
}

#[test]
fn empty_file() {
    let out = read("");
    assert_eq!(out.playbook, Playbook::default());
    assert!(out.diagnostics.is_empty());
    assert_eq!(write(&out.playbook).text, "");
    assert_eq!(read(&fixture("empty.md")).playbook, Playbook::default());
}

#[test]
fn entries_before_the_first_heading() {
    let src = fixture("before-heading.md");
    let out = read(&src);
    let pb = &out.playbook;
    assert_eq!(pb.entries[0].section, None);
    assert_eq!(
        pb.entries[2].section.as_deref(),
        Some("strategies_and_insights")
    );
    assert_eq!(count(&out.diagnostics, "ACE017"), 2);
    let w = write(pb);
    assert_eq!(w.text, src, "this layout is canonical");
}

#[test]
fn malformed_counters_keep_the_text() {
    let src = fixture("malformed.md");
    let out = read(&src);
    let pb = &out.playbook;
    assert_eq!(pb.entries.len(), 9);
    let e = &pb.entries[0];
    assert_eq!(e.helpful, None);
    assert_eq!(
        e.content,
        "helpful=N harmful=M :: counters are placeholders"
    );
    let bad = out.diagnostics.iter().find(|d| d.code == "ACE004").unwrap();
    assert_eq!(&src[bad.span.start..bad.span.end], "helpful=N");
    assert_eq!(line_of(&src, bad), 2);
    assert_eq!(pb.entries[1].helpful, Some(-1));
    assert_eq!(pb.entries[3].content, "Break  problems DOWN");
    let sep = &pb.entries[6];
    assert_eq!(
        (sep.helpful, sep.harmful, sep.content.as_str()),
        (Some(3), Some(1), "no separator here")
    );
    assert_eq!(count(&out.diagnostics, "ACE014"), 1);
    assert_eq!(pb.entries[7].content, "");
    assert_eq!(
        (pb.entries[8].helpful, pb.entries[8].harmful),
        (Some(1), None)
    );
    assert_eq!(count(&out.diagnostics, "ACE003"), 1);
    // Written in the spec's form: the lone counter gets its pair.
    let w = write(pb);
    assert!(w
        .text
        .contains("[str-00009] helpful=1 harmful=0 :: only one counter"));
    assert!(w.losses.iter().any(|l| l.field == "helpful/harmful"));
    let paired = src.replace(
        "helpful=1 :: only one counter",
        "helpful=1 harmful=0 :: only one counter",
    );
    assert_ne!(paired, src, "the fixture's lone counter");
    assert_stable(&paired);
}

#[test]
fn specs_quote_entries_in_fences() {
    let src = fixture("spec-like.md");
    let out = read(&src);
    let pb = &out.playbook;
    assert!(pb.entries.is_empty());
    assert_eq!(
        pb.title.as_deref(),
        Some("ACE Playbook Format Specification")
    );
    assert_eq!(pb.sections.len(), 2);
    let structure = pb.sections[1].description.as_deref().unwrap();
    assert!(structure.starts_with("```markdown\n## SECTION NAME\n[prefix-00001]"));
    assert!(
        structure.contains("\n\n[str-00001]"),
        "blank lines inside a fence are kept"
    );
    assert!(structure.ends_with("| `str` | STRATEGIES & INSIGHTS |"));
    assert_eq!(count(&out.diagnostics, "ACE025"), 2);
    let w = write(pb);
    assert!(w.losses.is_empty(), "{:?}", w.losses);
    assert_eq!(w.text, src, "prose right after a heading is canonical");
    assert_stable(&src);
}

#[test]
fn an_unclosed_fence_does_not_swallow_entries() {
    let src = fixture("unclosed-fence.md");
    let out = read(&src);
    assert_eq!(ids(&out.playbook), ["str-00001", "str-00002"]);
    assert_eq!(count(&out.diagnostics, "ACE024"), 1);
    assert_stable(&src);
}

fn entry(id: &str, section: Option<&str>, content: &str) -> Entry {
    let mut e = Entry::new(id, content);
    e.section = section.map(str::to_owned);
    e
}

fn section(key: &str, title: &str) -> Section {
    let mut s = Section::new(key);
    s.title = Some(title.to_owned());
    s
}

#[test]
fn expressible_models_round_trip() {
    let mut pb = Playbook {
        title: Some("Team playbook".into()),
        description: Some("Learned rules.\n\nKeep them short.".into()),
        ..Playbook::default()
    };
    pb.sections = vec![
        section("strategies_and_insights", "STRATEGIES & INSIGHTS"),
        section("others", "OTHERS"),
    ];
    pb.sections[1].description = Some("Anything else.".into());
    pb.entries = vec![
        entry("x-1", None, "unsectioned"),
        entry(
            "str-00001",
            Some("strategies_and_insights"),
            "helpful=3 looks like counters",
        ),
        entry(
            "str-00002",
            Some("strategies_and_insights"),
            ":: starts with a separator",
        ),
        entry(
            "oth-00003",
            Some("others"),
            "first line\n# a comment line\n    indented code",
        ),
        entry("oth-00004", Some("others"), ""),
    ];
    (pb.entries[1].helpful, pb.entries[1].harmful) = (Some(0), Some(0));
    (pb.entries[2].helpful, pb.entries[2].harmful) = (Some(4), Some(1));
    (pb.entries[4].helpful, pb.entries[4].harmful) = (Some(0), Some(2));
    let w = write(&pb);
    assert!(w.losses.is_empty(), "{:?}", w.losses);
    let mut back = read(&w.text).playbook;
    // the reader derives prefixes; the model above leaves them unset
    for s in &mut back.sections {
        s.prefix = None;
    }
    assert_eq!(back, pb, "\n{}", w.text);
}

#[test]
fn what_markdown_cannot_hold_is_reported() {
    let mut pb = Playbook {
        version: Some(3.into()),
        ..Playbook::default()
    };
    let mut s = section("custom key", "Strategies");
    s.weight = Some(serde_json::Number::from_f64(0.5).unwrap());
    pb.sections.push(s);
    let mut e = entry("str-00001", Some("custom key"), "text\n\n## not a heading");
    e.title = Some("A title".into());
    e.tags = Some(vec!["a".into()]);
    e.extra.insert("author", "me".into());
    pb.entries.push(e);
    pb.entries
        .push(entry("abc", Some("other"), "no digit in the id"));
    pb.entries
        .push(entry("str-00003", Some("custom key"), "after"));
    let w = write(&pb);
    let got: Vec<(&str, &str)> = w.losses.iter().map(|l| (l.code, &*l.field)).collect();
    for expected in [
        ("ACE101", "version"),
        ("ACE101", "sections[custom key].weight"),
        ("ACE101", "sections[custom key].key"),
        ("ACE101", "title"),
        ("ACE101", "tags"),
        ("ACE101", "extra.author"),
        ("ACE102", "content"),
        ("ACE106", "id"),
        ("ACE103", "entries"),
    ] {
        assert!(got.contains(&expected), "missing {expected:?} in {got:?}");
    }
    assert!(w.text.contains("\n\\## not a heading\n"));
    // `abc` is in section `other`, prefix `oth`, the first of its prefix
    assert!(
        w.text.contains("\n[oth-00001] no digit in the id\n"),
        "{}",
        w.text
    );
    assert_eq!(w.id_changes.len(), 1);
    // fields the format holds are not reported
    assert!(!got.iter().any(|(_, f)| *f == "helpful" || *f == "section"));
}
