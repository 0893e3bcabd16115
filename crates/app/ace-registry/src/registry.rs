//! The formats, delta dialects and document checks ace-tools knows, and
//! detection over them. Adding a format is one line in [`BUILTIN`], a
//! dialect one line in [`DIALECTS`]; every tool, test and benchmark
//! iterates the registry.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::io::Read as _;
use std::path::Path;
use std::sync::OnceLock;

use ace_format::{
    Confidence, DeltaDialect, DeltaReadCtx, DocumentCheck, PlaybookFormat, Sniff, Syntax,
};
use ace_model::delta::Delta;
use ace_model::{Diagnostic, Playbook};

/// A playbook format: a handle on its [`PlaybookFormat`] implementation,
/// compared by name.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn PlaybookFormat);

impl Format {
    pub const MARKDOWN: Format = Format(&ace_markdown::FORMAT);
    pub const AGENTS_MD: Format = Format(&crate::pair::AGENTS_MD);
    pub const PLAYBOOK_YAML: Format = Format(&ace_yaml::FORMAT);
    pub const SKILL_JSON: Format = Format(&ace_skill::FORMAT);
    pub const VAGENDA_JSON: Format = Format(&ace_vagenda::JSON);
    pub const VAGENDA_TRON: Format = Format(&ace_vagenda::TRON);
    pub const JSON: Format = Format(&ace_json::FORMAT);

    pub const fn new(imp: &'static dyn PlaybookFormat) -> Format {
        Format(imp)
    }

    /// The implementation, for what this handle does not forward.
    pub fn imp(self) -> &'static dyn PlaybookFormat {
        self.0
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    pub fn describe(self) -> &'static str {
        self.0.describe()
    }

    /// The built-in format of this name.
    pub fn from_name(name: &str) -> Option<Format> {
        Registry::builtin().by_name(name)
    }

    /// Every built-in format.
    pub fn all() -> &'static [Format] {
        Registry::builtin().formats()
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl Hash for Format {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Format({})", self.name())
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The registry: every format in the order help texts list them (which
/// also breaks ties in detection), then the delta dialects, in the same
/// way. The checks for documents that are not playbooks are the dialects'.
const BUILTIN: &[Format] = &[
    Format::MARKDOWN,
    Format::AGENTS_MD,
    Format::PLAYBOOK_YAML,
    Format::SKILL_JSON,
    Format::VAGENDA_JSON,
    Format::VAGENDA_TRON,
    Format::new(&ace_skillbook::FORMAT),
    Format::new(&ace_kaybamd::FORMAT),
    Format::new(&ace_dannymac::FORMAT),
    Format::new(&ace_codeengine::FORMAT),
    Format::new(&ace_aceplaybook::FORMAT),
    Format::new(&crate::block::MANAGED_BLOCK),
    Format::JSON,
];

const DIALECTS: &[&dyn DeltaDialect] = &[
    &ace_skillbook::KAYBA_BATCH,
    &ace_curator::ACEDELTA,
    &ace_vagenda::ACEPATCH,
    &ace_skill::SKILL_DELTA,
    &ace_markdown::CURATOR_OPS,
    &ace_vagenda::EVENTS,
    &ace_dannymac::OPS,
    &ace_codeengine::DELTA,
];

/// What [`Registry::detect_head`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detected {
    pub format: Format,
    /// Whether the name or the content told the format.
    pub told: bool,
    /// Whether this is the answer for the whole text, not a guess from its
    /// head to be confirmed.
    pub settled: bool,
}

/// Bytes of a file a directory walk reads to recognise it, and of a large
/// JSON file [`Registry::detect_head`] looks at.
const PEEK: u64 = 1 << 16;

/// A file of a playbook syntax whose name says it is a playbook
/// (`appworld_playbook.txt`, `team-playbook.json`): what the pre-commit
/// hook selects. It is one even while it is empty or holds no entry yet.
fn named_as_playbook(input: &Sniff<'_>) -> bool {
    input.syntax_of_name().is_some()
        && input
            .file_name()
            .is_some_and(|n| n.contains("playbook") || n.contains("skillbook"))
}

/// Why no delta could be read from a file.
#[derive(Debug)]
pub enum DeltaError {
    /// It does not parse; the diagnostic says where.
    Parse(Diagnostic),
    /// It parses but is no dialect's delta (or not the named one's).
    NotADelta(String),
}

/// A set of formats, dialects and checks. The tools use
/// [`Registry::builtin`]; tests add formats and dialects of their own
/// with [`Registry::with`] and [`Registry::with_dialect`].
#[derive(Clone)]
pub struct Registry {
    formats: Vec<Format>,
    dialects: Vec<&'static dyn DeltaDialect>,
    checks: Vec<&'static dyn DocumentCheck>,
}

impl Registry {
    pub fn builtin() -> &'static Registry {
        static REGISTRY: OnceLock<Registry> = OnceLock::new();
        REGISTRY.get_or_init(|| {
            let mut r = Registry {
                formats: BUILTIN.to_vec(),
                dialects: Vec::new(),
                checks: Vec::new(),
            };
            for &d in DIALECTS {
                r = r.with_dialect(d);
            }
            r
        })
    }

    /// This registry with `format` listed last.
    pub fn with(mut self, format: Format) -> Registry {
        self.formats.push(format);
        self
    }

    /// This registry with `dialect` listed last, and its checks.
    pub fn with_dialect(mut self, dialect: &'static dyn DeltaDialect) -> Registry {
        self.dialects.push(dialect);
        self.checks.extend(dialect.checks().iter().copied());
        self
    }

    pub fn formats(&self) -> &[Format] {
        &self.formats
    }

    pub fn dialects(&self) -> &[&'static dyn DeltaDialect] {
        &self.dialects
    }

    /// The dialect of this name.
    pub fn dialect(&self, name: &str) -> Option<&'static dyn DeltaDialect> {
        self.dialects.iter().copied().find(|d| d.name() == name)
    }

    /// The dialect a change to `format`'s playbook `pb` is written in when
    /// none is asked for: the format's own (`Curation::dialect`), else
    /// vAgenda's AcePatch, whose operations name entries by ID alone and
    /// so apply to a playbook of any format.
    pub fn dialect_for(&self, format: Format, pb: &Playbook) -> Option<&'static dyn DeltaDialect> {
        format
            .imp()
            .curation(pb)
            .dialect
            .and_then(|d| self.dialect(d))
            .or_else(|| self.dialect("acepatch"))
    }

    /// The dialects ace-tools writes, in registry order.
    pub fn written_dialects(&self) -> impl Iterator<Item = &'static dyn DeltaDialect> + '_ {
        self.dialects.iter().copied().filter(|d| d.writes())
    }

    /// The checks `ace-validate` runs on files that are no playbook: the
    /// dialects' checks, in registry order.
    pub fn checks(&self) -> &[&'static dyn DocumentCheck] {
        &self.checks
    }

    /// The deltas in a file, in its dialect: `forced`, else the dialect
    /// that reads them first among those that claim the file, the surest
    /// claim first (a tie goes to the dialect listed first). When none
    /// does, the first parse error, or why it is no delta.
    pub fn read_deltas(
        &self,
        text: &str,
        forced: Option<&'static dyn DeltaDialect>,
        ctx: &DeltaReadCtx<'_>,
    ) -> Result<(&'static dyn DeltaDialect, Vec<Delta>), DeltaError> {
        let order: Vec<&'static dyn DeltaDialect> = match forced {
            Some(d) => vec![d],
            None => {
                let input = Sniff::new(ctx.name.map(Path::new), text);
                let mut claims: Vec<(Confidence, &'static dyn DeltaDialect)> = self
                    .dialects
                    .iter()
                    .filter_map(|d| Some((d.sniff(&input)?, *d)))
                    .collect();
                claims.sort_by_key(|c| std::cmp::Reverse(c.0));
                claims.into_iter().map(|(_, d)| d).collect()
            }
        };
        let mut first_error = None;
        for d in order {
            match d.read(text, ctx) {
                Ok(Some(mut deltas)) => {
                    let rules = d.rules();
                    for delta in &mut deltas {
                        delta.rules = rules;
                    }
                    return Ok((d, deltas));
                }
                Ok(None) => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match (first_error, forced) {
            (Some(e), _) => Err(DeltaError::Parse(e)),
            (None, Some(d)) => Err(DeltaError::NotADelta(format!(
                "not a {} ({})",
                d.name(),
                d.describe()
            ))),
            (None, None) => {
                let whats: Vec<&str> = self.dialects.iter().map(|d| d.what()).collect();
                let list = match whats.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => whats.join(""),
                };
                Err(DeltaError::NotADelta(format!(
                    "no delta dialect recognises it: expected {list} (pass --delta-format to say which)"
                )))
            }
        }
    }

    pub fn by_name(&self, name: &str) -> Option<Format> {
        self.formats.iter().copied().find(|f| f.name() == name)
    }

    /// The format that claims the input most surely, with that confidence;
    /// a tie goes to the format listed first.
    pub fn sniff(&self, input: &Sniff<'_>) -> Option<(Format, Confidence)> {
        // From the last format to the first, each taking ties from those
        // after it: the highest claim, the first format listed among
        // equals. Each format is told the claim it must reach, and may
        // leave out what could not reach it.
        let mut best: Option<(Format, Confidence)> = None;
        for f in self.formats.iter().rev() {
            input.set_bar(best.map(|(_, b)| b));
            if let Some(c) = f.imp().sniff(input) {
                if best.is_none_or(|(_, b)| c >= b) {
                    best = Some((*f, c));
                }
            }
        }
        input.set_bar(None);
        best
    }

    /// The format of an input, from its file name and content. Text that
    /// no format claims is read as the first format's (the markdown
    /// playbook, which reports what it finds).
    pub fn detect(&self, path: Option<&Path>, text: &str) -> Format {
        self.detect_told(path, text).0
    }

    /// [`Registry::detect`], and whether the name or the content told the
    /// format (`false`: nothing did, and the format is a guess).
    pub fn detect_told(&self, path: Option<&Path>, text: &str) -> (Format, bool) {
        match self.sniff(&Sniff::new(path, text)) {
            Some((f, c)) => (f, c > Confidence::Likely),
            None => (self.formats[0], false),
        }
    }

    /// [`Registry::detect_told`] from the head of a large `.json` file:
    /// the root keys after a large value (a skillbook's skills) are not
    /// looked for, which would skim the whole file before its read skims
    /// it again. `settled` is false when the answer is such a guess: the
    /// caller reads the file as it says and then asks
    /// [`Registry::confirm`] with the keys the reader found.
    pub fn detect_head(&self, path: Option<&Path>, text: &str) -> Detected {
        let json_by_name = Sniff::new(path, "").syntax_of_name() == Some(Syntax::Json);
        if !json_by_name || text.len() as u64 <= PEEK {
            let (format, told) = self.detect_told(path, text);
            return Detected {
                format,
                told,
                settled: true,
            };
        }
        let (format, told) = self.detect_told(path, ace_format::head(text, PEEK as usize));
        Detected {
            format,
            told,
            settled: false,
        }
    }

    /// The format [`Registry::detect_told`] gives the whole of `text`,
    /// from the root keys a reader found in it (`Read::top`), for a guess
    /// of [`Registry::detect_head`]; without them the text is scanned.
    pub fn confirm(
        &self,
        path: Option<&Path>,
        text: &str,
        top: Option<&[(String, u8)]>,
    ) -> (Format, bool) {
        let Some(keys) = top else {
            return self.detect_told(path, text);
        };
        match self.sniff(&Sniff::with_top(path, text, keys)) {
            Some((f, c)) => (f, c > Confidence::Likely),
            None => (self.formats[0], false),
        }
    }

    /// The format a new file of this name is written in: the format whose
    /// file name it is, or the one format whose extension it has. `None`
    /// when that takes the content (`.json` is three formats').
    pub fn for_output(&self, path: &Path) -> Option<Format> {
        let input = Sniff::new(Some(path), "");
        if let Some((f, Confidence::Name)) = self.sniff(&input) {
            return Some(f);
        }
        let ext = input.extension()?;
        let mut of_ext = self
            .formats
            .iter()
            .filter(|f| f.imp().extensions().contains(&ext.as_str()));
        match (of_ext.next(), of_ext.next()) {
            (Some(f), None) => Some(*f),
            _ => None,
        }
    }

    /// A regular expression (Python's `re`, as pre-commit's `files:` takes
    /// it) that matches the name of every file [`Registry::recognise`] may
    /// take: every extension of a syntax formats are written in, and of
    /// each format's own names. Which of those files are ACE files only
    /// their content tells, so the hook passes them all and ace-validate
    /// leaves out the others (`--only-ace`).
    pub fn hook_files(&self) -> String {
        let mut exts: Vec<&str> = Syntax::EXTENSIONS.iter().map(|(e, _)| *e).collect();
        for f in &self.formats {
            exts.extend(
                f.imp()
                    .extensions()
                    .iter()
                    .map(|e| e.rsplit('.').next().unwrap_or(e)),
            );
        }
        exts.sort_unstable();
        exts.dedup();
        format!("(?i)\\.({})$", exts.join("|"))
    }

    /// Whether a file found by walking a directory is an ACE file: by its
    /// name, or by what its first 64 KiB hold when its extension is one of
    /// the syntaxes formats are written in. Unreadable files are not ACE
    /// files; named on the command line, they are still read and their
    /// error reported.
    pub fn recognise(&self, path: &Path) -> bool {
        let mut head = Vec::new();
        let Ok(file) = std::fs::File::open(path) else {
            return false;
        };
        if file.take(PEEK).read_to_end(&mut head).is_err() {
            return false;
        }
        let text = String::from_utf8_lossy(&head);
        let input = Sniff::new(Some(path), &text);
        match self.sniff(&input) {
            Some((_, Confidence::Name)) => !input.is_json_schema(),
            _ if input.syntax_of_name().is_none() => false,
            best => self.claims(&input, best),
        }
    }

    /// The format of an input ([`Registry::detect`]), and whether it is an
    /// ACE artifact: its name says so, or its content has what a format's
    /// files have, or a document check claims it. Text that only fits a
    /// syntax (any JSON, any prose) is not, and neither is a JSON Schema,
    /// whose key names are a format's.
    pub fn detect_artifact(&self, path: Option<&Path>, text: &str) -> (Format, bool) {
        let input = Sniff::new(path, text);
        let best = self.sniff(&input);
        let format = best.map_or(self.formats[0], |(f, _)| f);
        let artifact = named_as_playbook(&input) || self.claims(&input, best);
        (format, artifact)
    }

    /// Whether `best`, the sniff of `input`, claims it as an ACE file.
    fn claims(&self, input: &Sniff<'_>, best: Option<(Format, Confidence)>) -> bool {
        if input.is_json_schema() {
            return false;
        }
        match best {
            Some((_, c)) if c >= Confidence::Content => true,
            Some((f, _)) => self.claimed_check(f, input.text).is_some(),
            None => false,
        }
    }

    /// The check for a document that a file detected as `format` holds
    /// instead of a playbook, when that shows before it is read.
    pub fn claimed_check(&self, format: Format, text: &str) -> Option<&'static dyn DocumentCheck> {
        self.checks
            .iter()
            .copied()
            .find(|c| c.claims(format.name(), text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect;
    use ace_model::Playbook;

    #[test]
    fn names_round_trip() {
        for f in Format::all() {
            assert_eq!(Format::from_name(f.name()), Some(*f));
        }
        assert_eq!(Format::from_name("md"), None);
    }

    #[test]
    fn output_names() {
        let r = Registry::builtin();
        let of = |p: &str| r.for_output(Path::new(p));
        assert_eq!(of("x/AGENTS.md"), Some(Format::AGENTS_MD));
        assert_eq!(of("p.md"), Some(Format::MARKDOWN));
        assert_eq!(of("p.txt"), Some(Format::MARKDOWN));
        assert_eq!(of("p.tron"), Some(Format::VAGENDA_TRON));
        assert_eq!(of("p.yml"), Some(Format::PLAYBOOK_YAML));
        assert_eq!(of("p.json"), None);
        assert_eq!(of("p"), None);
    }

    #[test]
    fn detection() {
        let p = |s: &str| Some(Path::new(s).to_owned());
        assert_eq!(
            detect(p("knowledge/AGENTS.md").as_deref(), ""),
            Format::AGENTS_MD
        );
        assert_eq!(
            detect(p("x/AGENTS.archive.md").as_deref(), ""),
            Format::AGENTS_MD
        );
        assert_eq!(
            detect(p("playbook.txt").as_deref(), "## A\n[a-1] x"),
            Format::MARKDOWN
        );
        assert_eq!(
            detect(
                p("notes.md").as_deref(),
                "[Bullet #1, helpful:0, harmful:0] x"
            ),
            Format::AGENTS_MD
        );
        assert_eq!(detect(p("p.yaml").as_deref(), ""), Format::PLAYBOOK_YAML);
        assert_eq!(detect(p("p.tron").as_deref(), ""), Format::VAGENDA_TRON);
        assert_eq!(
            detect(p("p.json").as_deref(), "{\"bullets\": []}"),
            Format::SKILL_JSON
        );
        assert_eq!(
            detect(p("p.json").as_deref(), "{\"vAgendaInfo\": {}}"),
            Format::VAGENDA_JSON
        );
        let canonical = ace_json::write(&Playbook::default());
        assert_eq!(detect(None, &canonical), Format::JSON);
        assert_eq!(
            detect(None, "[str-00001] helpful=1 harmful=0 :: x"),
            Format::MARKDOWN
        );
        assert_eq!(detect(None, "class A: x\nA(1)"), Format::VAGENDA_TRON);
        assert_eq!(detect(None, "[{\"id\": \"b-1\"}]"), Format::SKILL_JSON);
        assert_eq!(
            detect(
                p("patch.json").as_deref(),
                "{\"op\": \"incrementCounter\", \"entryId\": \"e1\"}"
            ),
            Format::VAGENDA_JSON
        );
        // A JSON string that holds a bullet is no AGENTS.md.
        assert_eq!(
            detect(None, "{\"bullets\": [\"[Bullet #1] x\"]}"),
            Format::SKILL_JSON
        );
    }

    /// A skillbook's skills, more than the head [`Registry::detect_head`]
    /// looks at.
    fn large_skills() -> String {
        let skills: Vec<String> = (1..=400)
            .map(|i| {
                format!(
                    "\"context-{i:05}\": {{\"id\": \"context-{i:05}\", \"section\": \"context\", \"keywords\": [\"k\"], \"issue\": \"Issue {i} {}.\", \"insight\": \"Insight.\", \"occurrences\": [], \"active\": true, \"used_count\": 0, \"helpful_count\": 0, \"harmful_count\": 0, \"neutral_count\": 0, \"created_at\": \"2026-01-01T00:00:00+00:00\", \"updated_at\": \"2026-01-01T00:00:00+00:00\"}}",
                    "x".repeat(100)
                )
            })
            .collect();
        format!("{{{}}}", skills.join(", "))
    }

    #[test]
    fn a_guess_from_the_head_is_confirmed_or_corrected_by_the_keys_read() {
        let r = Registry::builtin();
        let skills = large_skills();
        assert!(skills.len() as u64 > PEEK);
        let texts = [
            // The head and the whole say the same.
            format!("{{\"schema_version\": \"2\", \"skills\": {skills}, \"next_id\": 401}}"),
            // A vAgenda key after the skills makes the file a vAgenda
            // document, which the head alone does not show.
            format!("{{\"skills\": {skills}, \"vAgendaInfo\": {{\"version\": \"0.4\"}}}}"),
            // The head is JSON cut off; the whole is not JSON.
            format!("{{\"skills\": {skills}, \"next_id\": }}"),
        ];
        let ctx = ace_format::ReadCtx::default();
        for (i, text) in texts.iter().enumerate() {
            for name in ["big.json", "big.skillbook.json", "big.vagenda.json"] {
                let path = Some(Path::new(name));
                let whole = r.detect_told(path, text);
                let head = r.detect_head(path, text);
                let got = if head.settled {
                    (head.format, head.told)
                } else {
                    let read = head.format.imp().read(text, &ctx);
                    r.confirm(path, text, read.ok().and_then(|x| x.top).as_deref())
                };
                assert_eq!(got, whole, "text {i}, {name}");
                if i == 1 && name == "big.json" {
                    assert_eq!(head.format.name(), "skillbook");
                    assert!(!head.settled);
                    assert_eq!(whole.0, Format::VAGENDA_JSON);
                }
            }
        }
        // Small files and names of other syntaxes are detected whole.
        let small = r#"{"skills": {}, "vAgendaInfo": {}}"#;
        let d = r.detect_head(Some(Path::new("s.json")), small);
        assert!(d.settled);
        assert_eq!(d.format, Format::VAGENDA_JSON);
        let d = r.detect_head(None, &texts[0]);
        assert!(d.settled);
    }

    #[test]
    fn directory_walks_recognise_by_name_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("AGENTS.md", "# prose only\n", true),
            ("notes.md", "# prose only\n", false),
            (
                "play.md",
                "## A\n[str-00001] helpful=1 harmful=0 :: x\n",
                true,
            ),
            (
                "Cargo.toml",
                "[str-00001] helpful=1 harmful=0 :: x\n",
                false,
            ),
            ("data.json", "{\"a\": 1}", false),
            ("skill.json", "{\"bullets\": []}", true),
            (
                "curator.json",
                "{\"op\": \"add\", \"section\": \"s\"}",
                true,
            ),
            ("plan.tron", "vAgendaInfo: {version: \"0.2\"}\n", true),
            ("other.tron", "a: 1\n", false),
            ("x.yaml", "sections:\n  - id: a\n", true),
            ("y.yaml", "name: x\n", false),
            (
                "vagenda-core.schema.json",
                "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"properties\": {\"vAgendaInfo\": {}}}",
                false,
            ),
            (
                "plan.json",
                "{\"$schema\": \"https://vagenda.dev/schemas/core.json\", \"vAgendaInfo\": {\"version\": \"0.2\"}}",
                true,
            ),
        ];
        for (name, text, want) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            assert_eq!(Registry::builtin().recognise(&path), want, "{name}");
        }
    }
}
