//! The conversion matrix on the corpus: every playbook of every source
//! variant is converted to every format in the registry, and each output must
//! read back in its format. When a conversion reports that nothing was lost,
//! reading the output back must give the same model (the target's own
//! layout bookkeeping aside, on both sides: a file's own layout is checked
//! byte for byte by each format's tests): a loss report that says "nothing
//! lost" has to be true.

use std::collections::BTreeMap;
use std::path::Path;

use ace_model::Playbook;
use ace_registry::{Format, Parsed, Registry};
use ace_tests::matrix::converts_to_every_format;
use ace_tests::{corpus_dir, corpus_files};

/// Corpus folders holding playbooks of the five variants.
const SOURCES: [&str; 5] = [
    "markdown-playbook",
    "agents-md",
    "skill-json",
    "vagenda",
    "tron",
];

/// A playbook a file holds, or why the file is not one to convert.
fn playbook_of(path: &Path) -> Result<(Format, Parsed), String> {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())?;
    let format = ace_registry::detect(Some(path), &text);
    // The five variants a user migrates between, not the curator's YAML
    // alone or the canonical JSON.
    if [Format::PLAYBOOK_YAML, Format::JSON].contains(&format) {
        return Err(format!("a {format} file"));
    }
    if let Some(check) = ace_registry::Registry::builtin().claimed_check(format, &text) {
        return Err(format!("{}, not a playbook", check.name()));
    }
    if let Some(other) = ace_registry::other_document(format, &text) {
        return Err(format!("a {}, not a playbook", other.what));
    }
    let parsed = ace_registry::read(format, &text).map_err(|e| format!("does not parse: {e}"))?;
    Ok((format, parsed))
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_playbook_converts_to_every_variant() {
    let mut converted: BTreeMap<&str, usize> = BTreeMap::new();
    let mut lossless = 0;
    let mut skipped = Vec::new();
    for variant in SOURCES {
        let dir = corpus_dir(variant);
        for path in corpus_files(&dir) {
            if path.extension().is_some_and(|e| e == "md") && matches!(variant, "vagenda" | "tron")
            {
                continue; // READMEs the blocks were cut from
            }
            let (from, parsed) = match playbook_of(&path) {
                Ok(p) => p,
                Err(why) => {
                    skipped.push(format!("{}: {why}", path.display()));
                    continue;
                }
            };
            lossless += converts_to_every_format(
                Registry::builtin(),
                &format!("{} ({from})", path.display()),
                &parsed.playbook,
            );
            *converted.entry(variant).or_default() += 1;
        }
    }
    for variant in SOURCES {
        assert!(
            converted.get(variant).copied().unwrap_or(0) > 0,
            "no playbook of {variant} was converted; skipped: {skipped:#?}"
        );
    }
    eprintln!(
        "converted {converted:?} to every format; {lossless} conversions reported no loss and read back equal; skipped {}: {skipped:#?}",
        skipped.len()
    );
}

/// Writers print long playbooks in runs on several threads: for every
/// format, the text, the losses (in order) and the new IDs must be what one
/// thread gives. The entries carry what each writer alters or drops.
#[test]
fn every_writer_writes_a_long_playbook_as_one_thread_writes_it() {
    use ace_model::{Entry, Section};
    let entries = (0..3 * ace_exec::par::MIN_ITEMS)
        .map(|i| {
            let mut e = Entry::new(format!("str-{i:05}"), format!("advice {}", i % 97));
            e.section = match i % 3 {
                0 => None,
                1 => Some("a".into()),
                _ => Some("b".into()),
            };
            e.helpful = Some((i % 13) as i64);
            if i % 5 != 0 {
                e.harmful = Some(0);
            }
            match i % 1001 {
                0 => e.content = format!(" two\n\nlines {i}\r\n## heading"),
                3 => e.id = format!("bad id {i}"),
                7 => e.title = Some("t".into()),
                9 => {
                    e.extra.insert("x", 1.into());
                }
                11 => e.content = "[str-1] :: looks like an entry".into(),
                13 => e.tags = Some(vec!["t\u{e9}".into()]),
                _ => {}
            }
            if i % 777 == 0 {
                e.neutral = Some(1);
            }
            e
        })
        .collect();
    let pb = Playbook {
        sections: vec![Section::new("a"), Section::new("b")],
        entries,
        ..Default::default()
    };
    for &format in Format::all() {
        let write = || {
            let w = ace_registry::write(format, &pb);
            (w.text, w.losses, w.id_changes)
        };
        let spread = write();
        let one = ace_exec::par::on_one_thread(write);
        assert!(spread.0.len() > 500_000, "{format:?}");
        if format == Format::MARKDOWN || format == Format::AGENTS_MD {
            assert!(spread.1.len() > 50, "{format:?}: {}", spread.1.len());
        }
        assert!(spread.0 == one.0, "{format:?}: the text differs");
        assert_eq!(spread.1, one.1, "{format:?}");
        assert_eq!(spread.2, one.2, "{format:?}");
    }
}
