//! The contract between a format crate and the tools: [`PlaybookFormat`]
//! for a file that holds a playbook, [`DeltaDialect`] for one that holds
//! deltas, [`DocumentCheck`] for what `ace-validate` checks in a file that
//! is no playbook (a delta, a patch, curator JSON). Each format crate
//! exports its implementations as `static`s; the registry lists them, and
//! every tool, test and benchmark iterates that list instead of naming
//! formats or dialects.

use std::cell::OnceCell;
use std::path::Path;
use std::sync::Arc;

use ace_exec::Out;
use ace_model::mapping::SectionMap;
use ace_model::WriteReport;
use ace_model::{Diagnostic, Playbook, ReadOutput, Severity};

mod curation;
mod dialect;
pub mod top;

pub use curation::{AppliedDelta, Curation, IdScheme, Ledger};
pub use dialect::{DeltaDialect, DeltaReadCtx, DeltaWriteCtx, WrittenDelta};

/// The first `n` bytes of `text` at most, cut back to a character
/// boundary: the head a sniff looks in, so that a large file is not
/// searched to its end.
pub fn head(text: &str, n: usize) -> &str {
    let mut end = text.len().min(n);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// How sure a format is that a file is one of its own. Detection takes the
/// highest; a tie goes to the format listed first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Confidence {
    /// The syntax fits and nothing more is known: any JSON may be a skill
    /// playbook, any text a markdown playbook.
    Likely,
    /// The file says it is a document of the format's family that holds no
    /// playbook (vAgenda's successor vBRIEF): its reader is the one to say
    /// so when the file is named, but a directory walk does not take it for
    /// an ACE file.
    Related,
    /// The content has what this format's files have (a key, a line shape).
    Content,
    /// The content has what only this format's files have (a patch
    /// operation name).
    Marker,
    /// The file name alone says it (`AGENTS.md`, `*.tron`, `playbook.json`).
    Name,
    /// The file says what it is, which outweighs its name: the canonical
    /// JSON's format tag, a root object with vAgenda's `vAgendaInfo`.
    Declared,
}

/// The broad syntax of an input: from its extension when that settles it,
/// else from how its content starts. Formats claim inputs of their syntax
/// only, so that a JSON string holding `[Bullet #` is no AGENTS.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Json,
    Tron,
    Yaml,
    Text,
}

impl Syntax {
    /// The syntax a (lower-case) file extension says, when it says one.
    pub fn of_extension(ext: &str) -> Option<Syntax> {
        Syntax::EXTENSIONS
            .iter()
            .find(|(e, _)| *e == ext)
            .map(|(_, s)| *s)
    }

    /// The file extensions that say a syntax formats are written in: a
    /// file of any other is an ACE file only by its name.
    pub const EXTENSIONS: [(&'static str, Syntax); 8] = [
        ("json", Syntax::Json),
        ("tron", Syntax::Tron),
        ("yaml", Syntax::Yaml),
        ("yml", Syntax::Yaml),
        ("md", Syntax::Text),
        ("markdown", Syntax::Text),
        ("txt", Syntax::Text),
        ("mdc", Syntax::Text),
    ];
}

/// What detection looks at: the file name (none for standard input) and
/// the text, or its head when a directory walk only peeks.
pub struct Sniff<'a> {
    pub path: Option<&'a Path>,
    pub text: &'a str,
    syntax: OnceCell<Syntax>,
    top: std::cell::RefCell<Option<top::Scan>>,
    /// What a format must reach to be taken over the best claim so far
    /// ([`Sniff::could_win`]).
    bar: std::cell::Cell<Option<Confidence>>,
}

impl<'a> Sniff<'a> {
    pub fn new(path: Option<&'a Path>, text: &'a str) -> Self {
        Sniff {
            path,
            text,
            syntax: OnceCell::new(),
            top: std::cell::RefCell::new(None),
            bar: std::cell::Cell::new(None),
        }
    }

    /// [`Sniff::new`] for a JSON text whose root object's keys are known
    /// (each with the first byte of its value, in order, as [`Read::top`]
    /// gives them): the answers are those of a scan of the text, and
    /// nothing is scanned.
    pub fn with_top(path: Option<&'a Path>, text: &'a str, keys: &[(String, u8)]) -> Self {
        let sniff = Sniff::new(path, text);
        *sniff.top.borrow_mut() = Some(top::Scan::known(keys));
        sniff
    }

    /// Whether claiming the input with confidence `c` could still make a
    /// format the one detected: a format may leave out a costly look (a
    /// search of the whole text) for a claim that could not. Detection
    /// asks the formats from the last to the first, so that a format is
    /// asked knowing the best claim of those after it, which it takes
    /// when it ties. Always true outside detection.
    pub fn could_win(&self, c: Confidence) -> bool {
        self.bar.get().is_none_or(|bar| c >= bar)
    }

    /// Sets what [`Sniff::could_win`] compares with; `None`: anything can.
    pub fn set_bar(&self, bar: Option<Confidence>) {
        self.bar.set(bar);
    }

    /// The file name, lower-cased. Bytes that are not UTF-8 (a name git
    /// gives as it is) become U+FFFD, which no format's name or extension
    /// holds: the rest of the name still tells the format.
    pub fn file_name(&self) -> Option<String> {
        Some(
            self.path?
                .file_name()?
                .to_string_lossy()
                .to_ascii_lowercase(),
        )
    }

    /// The extension, lower-cased.
    pub fn extension(&self) -> Option<String> {
        Some(
            self.path?
                .extension()?
                .to_string_lossy()
                .to_ascii_lowercase(),
        )
    }

    /// The syntax the extension says, when it says one.
    pub fn syntax_of_name(&self) -> Option<Syntax> {
        Syntax::of_extension(&self.extension()?)
    }

    pub fn syntax(&self) -> Syntax {
        *self.syntax.get_or_init(|| {
            let by_name = self.syntax_of_name();
            // A text extension names no structure: a `.txt` or `.md` file
            // that is one whole JSON document (an export saved under the
            // wrong name) is JSON, not prose to fold into a description.
            if let Some(syntax) = by_name.filter(|s| *s != Syntax::Text) {
                return syntax;
            }
            let trimmed = self.text.trim_start_matches('\u{feff}').trim_start();
            if (trimmed.starts_with('{') || trimmed.starts_with('['))
                && serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok()
            {
                Syntax::Json
            } else if by_name.is_none() && trimmed.starts_with("class ") {
                Syntax::Tron
            } else {
                Syntax::Text
            }
        })
    }

    /// The first byte of the root value of a JSON text (`{`, `[`, ...).
    pub fn root(&self) -> Option<u8> {
        self.scanned(|scan, _| scan.root)
    }

    /// Whether the root object of a JSON text has the key `name`: what a
    /// JSON format's detection looks at, rather than a key
    /// anywhere in the text.
    pub fn top_has(&self, name: &str) -> bool {
        self.top_opens(name).is_some()
    }

    /// The first byte of the value of the root object's key `name`.
    pub fn top_opens(&self, name: &str) -> Option<u8> {
        // The scan stops at the key asked for, so that a question the first
        // keys answer does not read the file to its end. Detection asks
        // some ten keys a file lacks: the first one it lacks is answered by
        // scanning to the end, which then answers them all. (A search of
        // the text for each key took longer than one scan, which skips
        // each member's value 64 bytes at a time.)
        self.scanned(|scan, text| {
            if let Some(k) = scan.keys.iter().find(|k| k.name == name) {
                return Some(k.opens);
            }
            let mut found = None;
            while let Some(k) = scan.next_key(text) {
                if k.name == name {
                    found = Some(k.opens);
                    break;
                }
            }
            found
        })
    }

    fn scanned<T>(&self, f: impl FnOnce(&mut top::Scan, &str) -> T) -> T {
        let mut scan = self.top.borrow_mut();
        let scan = scan.get_or_insert_with(|| top::Scan::new(self.text));
        f(scan, self.text)
    }

    /// Whether the text is a JSON Schema document: a root object whose
    /// `$schema` names a json-schema.org meta-schema. A schema of an ACE
    /// format holds that format's key names, and is not one of its files.
    pub fn is_json_schema(&self) -> bool {
        self.syntax() == Syntax::Json
            && self.top_opens("$schema") == Some(b'"')
            && self.text.contains("://json-schema.org/")
    }

    /// Whether the file name ends with any of `suffixes` (lower case).
    pub fn name_ends_with(&self, suffixes: &[&str]) -> bool {
        self.file_name()
            .is_some_and(|n| suffixes.iter().any(|s| n.ends_with(s)))
    }

    /// Whether the text holds any of `needles`.
    pub fn contains_any(&self, needles: &[&str]) -> bool {
        needles
            .iter()
            .any(|n| memchr::memmem::find(self.text.as_bytes(), n.as_bytes()).is_some())
    }
}

/// What a reader is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadCtx {
    /// Findings below this severity are not wanted: a reader may leave out
    /// checks that can only find less, where they cost. The playbook read
    /// is the same whatever this is.
    pub min: Severity,
    /// The kinds' sections, for a reader that derives sections from kinds.
    pub sections: Arc<SectionMap>,
    /// Whether the playbook may be written back in its own format, which
    /// keeps the file's layout ([`Playbook::layout`]). False for a caller
    /// that wants the data alone (a conversion to another format, the
    /// Python module's `read`): a reader may then leave the layout out.
    /// The playbook's data is the same either way.
    pub layout: bool,
}

impl Default for ReadCtx {
    fn default() -> Self {
        ReadCtx {
            min: Severity::Info,
            sections: Arc::default(),
            layout: true,
        }
    }
}

impl ReadCtx {
    /// Findings of severity `min` and above only.
    pub fn min(min: Severity) -> Self {
        ReadCtx {
            min,
            ..ReadCtx::default()
        }
    }

    /// The same, without the layout: for the data alone.
    pub fn data_only(self) -> Self {
        ReadCtx {
            layout: false,
            ..self
        }
    }
}

/// A choice a writer offers, such as the skill's schema generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOption {
    pub name: &'static str,
    /// The values it takes; unset, the writer does what `help` says.
    pub values: &'static [&'static str],
    pub help: &'static str,
}

/// The text an agent is shown of a playbook ([`PlaybookFormat::prompt`]):
/// its active entries written by the format named `format` with the
/// write option `option` set, as a registry resolves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prompt {
    pub format: &'static str,
    pub option: Option<(&'static str, &'static str)>,
    /// What prints it, for people ("kayba's `Skillbook.as_prompt()`").
    pub describe: &'static str,
}

/// What a writer is asked for: the values of the options writers offer
/// (each writer reads its own, and ignores the others), the time for
/// timestamps a target requires and the playbook lacks, and the table of
/// sections, prefixes and kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteCtx {
    options: Vec<(&'static str, String)>,
    /// RFC 3339; `None` lets the writer derive one from the playbook.
    pub now: Option<String>,
    /// The time when neither `now` nor the playbook gives one: the clock,
    /// which the tools set (a new file is dated today, not 1970). `None`
    /// writes the Unix epoch, so a library call stays a function of its
    /// input.
    pub clock: Option<String>,
    pub sections: Arc<SectionMap>,
}

impl WriteCtx {
    pub fn with_option(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.options.retain(|(n, _)| *n != name);
        self.options.push((name, value.into()));
        self
    }

    pub fn with_now(mut self, now: Option<String>) -> Self {
        self.now = now;
        self
    }

    pub fn with_clock(mut self, clock: Option<String>) -> Self {
        self.clock = clock;
        self
    }

    pub fn with_sections(mut self, sections: Arc<SectionMap>) -> Self {
        self.sections = sections;
        self
    }

    /// The value given for option `name`, if any.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Which generic lint rules mean something for a format's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LintProfile {
    /// The playbook format spec's ID shape (`xxx-NNNNN`).
    pub id_shape: bool,
    /// IDs use their section's prefix (the playbook format spec).
    pub prefixes: bool,
    /// The curator spec's deprecation rule, `harmful > helpful`.
    pub deprecation: bool,
    /// `<!-- ace-validate: ignore … -->` comments suppress findings.
    pub suppression_comments: bool,
    /// The append-only ADR's GuardrailMonitor quarantine (ACE062): its
    /// project's rule, which kayba's files, whose own curation differs, do
    /// not follow.
    pub guardrail: bool,
}

impl Default for LintProfile {
    fn default() -> Self {
        LintProfile {
            id_shape: true,
            prefixes: true,
            deprecation: false,
            suppression_comments: false,
            guardrail: true,
        }
    }
}

/// A file read as a playbook format that holds something else.
#[derive(Clone, Copy)]
pub struct Other {
    /// What it is, for messages ("skill delta", "vAgenda PlaybookPatch").
    pub what: &'static str,
    /// What applying it would be called ("deltas", "patches").
    pub applying: &'static str,
    /// How it is checked; `None` when the read's findings are all there is.
    pub check: Option<&'static dyn DocumentCheck>,
    /// Whether the read's findings are findings about the document too
    /// (a vAgenda patch is read in the document's own syntax), or only
    /// said what it is not (a skill delta read as a playbook).
    pub keeps_read_findings: bool,
}

impl std::fmt::Debug for Other {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Other")
            .field("what", &self.what)
            .field("check", &self.check.map(|c| c.name()))
            .finish()
    }
}

/// The keys of a JSON root object, each with the first byte of its value
/// (`{`, `[`, `"`, a digit...), in order, as detection scans them.
pub type TopKeys = Vec<(String, u8)>;

/// A reader's result: the playbook and findings, and, when the file holds
/// something else, what it holds.
#[derive(Debug, Default)]
pub struct Read {
    pub parsed: ReadOutput,
    pub other: Option<Other>,
    /// The keys of the JSON root object the reader parsed, each with the
    /// first byte of its value, in order; `None` when it does not say.
    /// Detection that looked at a large file's head only confirms its
    /// guess from them ([`Sniff::with_top`]).
    pub top: Option<TopKeys>,
}

impl From<ReadOutput> for Read {
    fn from(parsed: ReadOutput) -> Self {
        Read {
            parsed,
            other: None,
            top: None,
        }
    }
}

/// One playbook format: how to recognise, read and write its files.
pub trait PlaybookFormat: Sync {
    /// The name used in every command and document (`skill-json`).
    fn name(&self) -> &'static str;

    /// One line for help texts and format lists.
    fn describe(&self) -> &'static str;

    /// Extensions that make a new file of this format (`-o plan.tron`);
    /// the first is the one ace-tools gives the files it creates. Formats
    /// that share one (`.json`) are told apart by content when read, and
    /// need `--to` when written.
    fn extensions(&self) -> &'static [&'static str];

    /// The syntax its files are written in: by default the one its first
    /// extension says (`skillbook.md` is text), and text for a format known
    /// by file name alone (AGENTS.md). Plain text has no escapes: what it
    /// cannot hold raw is escaped before it is written (`ace_registry`).
    fn syntax(&self) -> Syntax {
        self.extensions()
            .first()
            .and_then(|e| Syntax::of_extension(e.rsplit('.').next().unwrap_or(e)))
            .unwrap_or(Syntax::Text)
    }

    /// How sure this format is that the input is one of its files.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence>;

    /// Reads a playbook. A syntax error that stops the read is the error;
    /// everything else is a diagnostic in the result.
    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic>;

    /// Prints `pb` into `out` and reports what the format could not hold.
    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport;

    /// Which generic lint rules apply to this format's files.
    fn lint_profile(&self) -> LintProfile {
        LintProfile::default()
    }

    /// The choices this format's writer offers.
    fn write_options(&self) -> &'static [WriteOption] {
        &[]
    }

    /// The owner of the layout this format's reader keeps and its writer
    /// uses (`Playbook::layout`), if it keeps one.
    fn layout_owner(&self) -> Option<&'static str> {
        None
    }

    /// What the curator needs to know of this format's files: how new
    /// entries are numbered, which bookkeeping fields they keep, whether
    /// the file is line-based, where applied deltas are recorded. `pb` is
    /// the playbook as read: a file whose rules depend on how it is
    /// written (a managed block's style) tells them from its layout; a
    /// caller with no file passes an empty playbook, which gives a new
    /// file's rules.
    fn curation(&self, _pb: &Playbook) -> Curation {
        Curation::default()
    }

    /// The file kept beside this format's file, if it has one: the
    /// curator's playbook.yaml beside AGENTS.md.
    fn companion(&self) -> Option<&'static dyn Companion> {
        None
    }

    /// What an agent is shown of this format's files when it is not the
    /// file itself: kayba's agents read a skillbook as `as_prompt()`
    /// prints it, not as its JSON.
    fn prompt(&self) -> Option<Prompt> {
        None
    }

    /// The part of a file's text that is the playbook, which token counts
    /// and budgets count: the whole text, but for a managed block the
    /// block's content (the context file's own prose is not the
    /// playbook's).
    fn playbook_text<'t>(&self, text: &'t str) -> &'t str {
        text
    }

    /// Writes `after` over `src`, the text `before` was read from, so that
    /// only what changed between the two is written anew: the edits of
    /// `src` that make the new file. `None` when the
    /// changes are ones the format cannot place that way: the caller then
    /// writes the whole playbook. Formats that keep their file's layout in
    /// the model itself (AGENTS.md, vAgenda) need not splice.
    fn rewrite(
        &self,
        _src: &str,
        _before: &ace_model::Before,
        _after: &Playbook,
        _ctx: &WriteCtx,
    ) -> Option<(ace_model::edit::Edits, WriteReport)> {
        None
    }
}

/// A second file that holds part of a playbook, beside the format's own
/// file: read with it when it is there, written with it into a directory.
pub trait Companion: Sync {
    /// The companion's format, for loss reports (`playbook-yaml`).
    fn name(&self) -> &'static str;

    /// The name of the format's own file when the two are written into a
    /// directory (`AGENTS.md`).
    fn main_file(&self) -> &'static str;

    /// The companion's names beside it, in order of preference; the first
    /// is the one written.
    fn file_names(&self) -> &'static [&'static str];

    /// Reads the companion's text into the playbook read from the main
    /// file. Findings about the main file go into `read.diagnostics`; the
    /// ones about the companion are returned. A companion that does not
    /// parse is the error.
    fn attach(&self, read: &mut ReadOutput, text: &str) -> Result<Vec<Diagnostic>, Diagnostic>;

    /// Prints the main file into `out` and returns the companion's text.
    /// The report is of the pair: what one file holds is not a loss of
    /// the other.
    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> (String, WriteReport);
}

/// What a [`DocumentCheck`] checks against.
#[derive(Debug, Clone, Copy)]
pub struct CheckCtx<'a> {
    /// The playbook the document applies to (`--playbook`).
    pub playbook: Option<&'a Playbook>,
    /// That playbook's vAgenda document sequence, if it has one.
    pub sequence: Option<i64>,
    /// The curator spec's thresholds: the lowest confidence and the shortest
    /// evidence a curator accepts.
    pub min_confidence: f64,
    pub min_evidence: usize,
}

/// A file that is not a playbook but goes with one: a delta, a patch,
/// curator input or output.
pub trait DocumentCheck: Sync {
    fn name(&self) -> &'static str;

    fn describe(&self) -> &'static str;

    /// Whether a file of playbook format `format` is this kind of document,
    /// before it is read as a playbook. Checks that a format's reader finds
    /// on its own ([`Other::check`]) say `false`.
    fn claims(&self, format: &str, text: &str) -> bool;

    /// Every finding for `text`.
    fn check(&self, text: &str, ctx: &CheckCtx<'_>) -> Vec<Diagnostic>;
}

#[cfg(test)]
mod tests {
    #[test]
    fn head_cuts_back_to_a_character_boundary() {
        assert_eq!(super::head("abc", 2), "ab");
        assert_eq!(super::head("abc", 9), "abc");
        // é is two bytes: a cut inside it keeps the byte before.
        assert_eq!(super::head("aé", 2), "a");
        assert_eq!(super::head("aé", 3), "aé");
        assert_eq!(super::head("", 4), "");
    }
}
