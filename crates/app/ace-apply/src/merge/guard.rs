//! What a merge takes as a side: a playbook of BASE's format that keeps
//! something of BASE. A crashed agent's empty run, the same playbook
//! converted to another format, or a file that is no playbook at all would
//! otherwise read as a playbook that removed every entry, and the merge
//! would carry that removal into the result as faithfully as any other.

use ace_fs::Source;
use ace_model::Playbook;
use ace_registry::{Format, Registry, Syntax};

/// Why a side is not merged. Each is a refusal: nothing is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Unfit {
    /// Its content is another format's.
    OtherFormat { found: Format },
    /// It does not read as a playbook of BASE's format.
    Unreadable(String),
    /// It reads, with none of the entries BASE had, and `allow_empty` was
    /// not given.
    Emptied { had: usize },
    /// It ends inside a line, as a file a crashed writer left does
    /// ([`cut_off`]): `last` is the entry of BASE's it lacks or holds cut
    /// short (BASE's last, when BASE ends with a line end), and `missing`
    /// how many of BASE's `had` entries it lacks.
    CutOff {
        last: String,
        missing: usize,
        had: usize,
        base_ends_line: bool,
    },
}

/// Who is told what to do about a refused side: the command line's flags
/// or the Python module's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Caller {
    #[default]
    Cli,
    Python,
}

impl Unfit {
    /// One line naming the side, what it is, and what `caller` can do.
    pub fn message(&self, name: &str, format: Format, caller: Caller) -> String {
        match self {
            Unfit::OtherFormat { found } => {
                let convert = match caller {
                    Caller::Cli => format!(
                        "ace-convert {name} --to {} -o FILE, then merge FILE",
                        format.name()
                    ),
                    Caller::Python => format!(
                        "ace_tools.convert(text, to=\"{}\"), then merge what it returns",
                        format.name()
                    ),
                };
                format!(
                    "{name}: a {} file, and BASE is {}; nothing merged (convert it first: {convert})",
                    found.name(),
                    format.name(),
                )
            }
            Unfit::Unreadable(why) => format!(
                "{name}: not a readable {} playbook ({why}); nothing merged",
                format.name()
            ),
            Unfit::Emptied { had } => format!(
                "{name}: holds none of BASE's {had} entries (an empty or cut-off run?); \
                 nothing merged ({} merges a run that removed every entry)",
                match caller {
                    Caller::Cli => "--allow-empty",
                    Caller::Python => "allow_empty=True",
                }
            ),
            Unfit::CutOff {
                last,
                missing,
                had,
                base_ends_line,
            } => format!(
                "{name}: ends inside a line, {} ({missing} of BASE's {had} entries missing): \
                 a run cut off by a crash?; nothing merged (a whole run ends with a line end: \
                 add one to merge it)",
                match base_ends_line {
                    true => format!(
                        "without the line end BASE ends with, and lacks BASE's last entry \
                         `{last}` in full"
                    ),
                    false => format!("inside entry `{last}`, whose text BASE holds in full"),
                }
            ),
        }
    }
}

/// The format `text`'s content claims, when it is neither `format` nor
/// what BASE's own content claims (`base_text`): only a claim as sure as
/// a format's own keys or line shapes counts, so a playbook that merely
/// fits another syntax is never taken for that format's.
pub fn other_format(format: Format, base_text: &str, text: &str) -> Option<Format> {
    let registry = Registry::builtin();
    let (found, sure) = registry.detect_told(None, text);
    if !sure || found == format {
        return None;
    }
    match registry.detect_told(None, base_text) {
        (base, true) if base == found => None,
        _ => Some(found),
    }
}

/// Whether `run` keeps nothing of `base`: `base` had entries and `run`
/// has none left of them (retired ones count: a run that only deprecated
/// is no empty run). `None` when it keeps something.
pub fn emptied(base: &Playbook, run: &Playbook) -> Option<usize> {
    let had = base.entries.len();
    if had == 0 || !run.entries.is_empty() {
        return None;
    }
    Some(had)
}

/// Whether `run` is cut short, as a writer killed mid-write leaves a
/// file: its text ends inside a line, and either BASE's ends with a line
/// end and BASE's last entry is missing from the run or there with its
/// content cut short, or the run's last entry is one of BASE's with its
/// content cut short (all a BASE without a final line end leaves to tell
/// a cut by). Such a run would merge as one that removed every entry after
/// the cut. Only a format whose cut file still reads (text, YAML) is
/// asked: a cut JSON or TRON file does not parse. A cut that falls on a
/// line end leaves nothing to tell it by.
pub fn cut_off(format: Format, base: (&str, &Playbook), run: (&str, &Playbook)) -> Option<Unfit> {
    let ((base_text, base), (run_text, run)) = (base, run);
    if !matches!(format.imp().syntax(), Syntax::Text | Syntax::Yaml)
        || run_text.is_empty()
        || run_text.ends_with('\n')
    {
        return None;
    }
    let cut_short = |e: &ace_model::Entry| {
        base.entries
            .iter()
            .rfind(|b| b.id == e.id)
            .is_some_and(|b| e.content.len() < b.content.len() && b.content.starts_with(&e.content))
    };
    let base_ends_line = base_text.ends_with('\n');
    let base_last = base.entries.last()?;
    let last = match run.entries.iter().rfind(|e| e.id == base_last.id) {
        None if base_ends_line => base_last,
        Some(e) if base_ends_line && cut_short(e) => base_last,
        _ => run.entries.last().filter(|e| cut_short(e))?,
    };
    let kept: std::collections::HashSet<&str> = run.entries.iter().map(|e| e.id.as_str()).collect();
    Some(Unfit::CutOff {
        base_ends_line: base_ends_line && last.id == base_last.id,
        last: last.id.clone(),
        missing: base
            .entries
            .iter()
            .filter(|e| !kept.contains(e.id.as_str()))
            .count(),
        had: base.entries.len(),
    })
}

/// `source` read as a side of a merge from BASE (its text and playbook)
/// in `format`: refused as
/// [`Unfit`] when it is another format's, does not read, is cut off, or
/// (unless `allow_empty`) keeps none of `base`'s entries.
pub fn read_side(
    source: &Source,
    format: Format,
    base: (&str, &Playbook),
    allow_empty: bool,
) -> Result<Playbook, Unfit> {
    let (base_text, base) = base;
    if let Some(found) = other_format(format, base_text, &source.text) {
        return Err(Unfit::OtherFormat { found });
    }
    let pb = ace_registry::convert::read_playbook(source, format)
        .map_err(|stop| Unfit::Unreadable(stop.to_string()))?;
    if let Some(cut) = cut_off(format, (base_text, base), (&source.text, &pb)) {
        return Err(cut);
    }
    match emptied(base, &pb) {
        Some(had) if !allow_empty => Err(Unfit::Emptied { had }),
        _ => Ok(pb),
    }
}
