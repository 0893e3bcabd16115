//! The one place that knows every format. Format crates know only the model;
//! this crate picks the right one, loads input safely and writes atomically.

pub mod capabilities;

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub use ace_model::out::{Out, WriteReport};
use ace_model::{Diagnostic, LineIndex, LossEntry, Playbook};

pub use ace_lint::Options as LintOptions;
pub use ace_skill::Generation as SkillGeneration;
pub use ace_vagenda::{Container as VagendaContainer, RootStyle as TronRoot};

/// Every format name, the same in every command and document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Markdown,
    AgentsMd,
    PlaybookYaml,
    SkillJson,
    VagendaJson,
    VagendaTron,
    Json,
}

impl Format {
    pub const ALL: [Format; 7] = [
        Format::Markdown,
        Format::AgentsMd,
        Format::PlaybookYaml,
        Format::SkillJson,
        Format::VagendaJson,
        Format::VagendaTron,
        Format::Json,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::AgentsMd => "agents-md",
            Format::PlaybookYaml => "playbook-yaml",
            Format::SkillJson => "skill-json",
            Format::VagendaJson => "vagenda-json",
            Format::VagendaTron => "vagenda-tron",
            Format::Json => "json",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether this build can read and write the format.
    pub fn is_supported(self) -> bool {
        matches!(
            self,
            Format::Markdown
                | Format::AgentsMd
                | Format::PlaybookYaml
                | Format::SkillJson
                | Format::VagendaJson
                | Format::VagendaTron
                | Format::Json
        )
    }

    pub fn description(self) -> &'static str {
        match self {
            Format::Markdown => {
                "markdown playbook `[str-00001] helpful=N harmful=M :: text` (seed 000)"
            }
            Format::AgentsMd => "AGENTS.md bullets `[Bullet #id, helpful:N, harmful:M]` (seed 001)",
            Format::PlaybookYaml => "curator knowledge/playbook.yaml (seed 001)",
            Format::SkillJson => "skill playbook.json bullets (seed 003)",
            Format::VagendaJson => "vAgenda document with the ACE extension, JSON (seed 002)",
            Format::VagendaTron => "vAgenda document with the ACE extension, TRON (seed 002)",
            Format::Json => "the canonical ace-tools model, for debugging and lossless storage",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Input that could not be turned into text.
#[derive(Debug)]
pub enum LoadError {
    NotFound(String),
    IsDirectory(String),
    Binary(String),
    InvalidUtf8 {
        name: String,
        line: usize,
        col: usize,
        byte: u8,
    },
    Io(String, std::io::Error),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound(n) => write!(f, "{n}: no such file"),
            LoadError::IsDirectory(n) => write!(f, "{n}: is a directory; expected a playbook file"),
            LoadError::Binary(n) => write!(
                f,
                "{n}: binary file (contains NUL bytes); expected UTF-8 text"
            ),
            LoadError::InvalidUtf8 {
                name,
                line,
                col,
                byte,
            } => {
                write!(
                    f,
                    "{name}:{line}:{col}: invalid UTF-8 (byte 0x{byte:02x}); expected UTF-8 text"
                )
            }
            LoadError::Io(n, e) => write!(f, "{n}: {e}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// A loaded input: its display name, path (none for stdin) and text.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub path: Option<PathBuf>,
    pub text: Text,
}

/// The text of an input, checked to be UTF-8 without NUL bytes. A large
/// regular file is mapped instead of read: reading it means zeroing fresh
/// pages for a buffer and copying the page cache into them, a tenth of a
/// conversion's time at 100k entries (docs/decisions.md).
#[derive(Debug, Default)]
pub struct Text(Repr);

#[derive(Debug)]
enum Repr {
    Owned(String),
    Mapped(memmap2::Mmap),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Owned(String::new())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(Repr::Owned(s))
    }
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Owned(s) => s,
            // SAFETY: `map_text` checked these bytes as UTF-8 and the map is
            // read-only. Another process truncating or rewriting the file
            // while it is mapped is the accepted risk of mapping it
            // (docs/decisions.md); files below MAP_AT are read instead.
            Repr::Mapped(m) => unsafe { std::str::from_utf8_unchecked(m) },
        }
    }
}

/// A copy is owned text: it outlives the map.
impl Clone for Text {
    fn clone(&self) -> Self {
        String::from(&**self).into()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self
    }
}

/// Files smaller than this are read: mapping them saves nothing measurable.
const MAP_AT: u64 = 1 << 20;

pub fn load(path: &Path) -> Result<Source, LoadError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => LoadError::NotFound(name.clone()),
        _ => LoadError::Io(name.clone(), e),
    })?;
    if meta.is_dir() {
        return Err(LoadError::IsDirectory(name));
    }
    let text = if meta.is_file() && meta.len() >= MAP_AT {
        map_text(path, &name)?
    } else {
        let bytes = std::fs::read(path).map_err(|e| LoadError::Io(name.clone(), e))?;
        decode(bytes, &name)?.into()
    };
    Ok(Source {
        text,
        name,
        path: Some(path.to_owned()),
    })
}

fn map_text(path: &Path, name: &str) -> Result<Text, LoadError> {
    let file = std::fs::File::open(path).map_err(|e| LoadError::Io(name.to_owned(), e))?;
    // SAFETY: the map is only read, and only through `Text`, after the
    // check below. See `Text`'s `deref` for the risk of a concurrent writer.
    let map =
        unsafe { memmap2::Mmap::map(&file) }.map_err(|e| LoadError::Io(name.to_owned(), e))?;
    check_text(&map, name)?;
    Ok(Text(Repr::Mapped(map)))
}

pub fn load_stdin(name: &str) -> Result<Source, LoadError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| LoadError::Io(name.to_owned(), e))?;
    Ok(Source {
        text: decode(bytes, name)?.into(),
        name: name.to_owned(),
        path: None,
    })
}

fn decode(bytes: Vec<u8>, name: &str) -> Result<String, LoadError> {
    check_no_nul(&bytes, name)?;
    String::from_utf8(bytes).map_err(|e| utf8_error(e.as_bytes(), e.utf8_error(), name))
}

fn check_no_nul(bytes: &[u8], name: &str) -> Result<(), LoadError> {
    match memchr::memchr(0, bytes) {
        Some(_) => Err(LoadError::Binary(name.to_owned())),
        None => Ok(()),
    }
}

/// Accepts UTF-8 text without NUL bytes, as [`decode`] does.
fn check_text(bytes: &[u8], name: &str) -> Result<(), LoadError> {
    check_no_nul(bytes, name)?;
    // The SIMD check passes valid text at memory speed; only a failure
    // asks std's check for where the bad byte is.
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return Ok(());
    }
    std::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(|e| utf8_error(bytes, e, name))
}

fn utf8_error(bytes: &[u8], e: std::str::Utf8Error, name: &str) -> LoadError {
    let valid = e.valid_up_to();
    let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
    let pos = LineIndex::new(prefix).line_col(prefix, valid);
    LoadError::InvalidUtf8 {
        name: name.to_owned(),
        line: pos.line,
        col: pos.col,
        byte: bytes[valid],
    }
}

/// The format a file name settles on its own: AGENTS.md by name, then by
/// extension. `.md` and `.txt` give the markdown playbook (content may still
/// show an AGENTS.md, see [`detect`]); `.json` needs the content, so `None`.
pub fn format_of_name(path: &Path) -> Option<Format> {
    let file = path.file_name()?.to_str()?.to_ascii_lowercase();
    if matches!(
        file.as_str(),
        "agents.md" | "agent.md" | "agents.archive.md"
    ) {
        return Some(Format::AgentsMd);
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "md" | "markdown" | "txt" => Some(Format::Markdown),
        "tron" => Some(Format::VagendaTron),
        "yaml" | "yml" => Some(Format::PlaybookYaml),
        _ => None,
    }
}

/// Picks a format from the file name, then from the content.
pub fn detect(path: Option<&Path>, text: &str) -> Format {
    if let Some(path) = path {
        match format_of_name(path) {
            Some(Format::Markdown) => return detect_text(text),
            Some(f) => return f,
            None if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json")) =>
            {
                return detect_json(text)
            }
            None => {}
        }
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok()
    {
        return detect_json(text);
    }
    if trimmed.starts_with("class ") {
        return Format::VagendaTron;
    }
    detect_text(text)
}

fn detect_json(text: &str) -> Format {
    if ace_model::json::sniff(text) {
        Format::Json
    } else if text.contains("\"vAgendaInfo\"")
        || text.contains("\"vContextInfo\"")
        || text.contains("\"vBRIEFInfo\"")
        || is_vagenda_patch(text)
    {
        Format::VagendaJson
    } else {
        Format::SkillJson
    }
}

/// A vAgenda AcePatch or a single patch operation (seed 002): the skill
/// has no `operations`, `baseDocumentSequence` or camel-case entry ops.
fn is_vagenda_patch(text: &str) -> bool {
    text.contains("\"baseDocumentSequence\"")
        || [
            "appendEntry",
            "updateEntry",
            "incrementCounter",
            "deprecateEntry",
        ]
        .iter()
        .any(|op| text.contains(&format!("\"{op}\"")))
}

fn detect_text(text: &str) -> Format {
    if text.contains("[Bullet #") {
        Format::AgentsMd
    } else {
        Format::Markdown
    }
}

/// Why an input could not be read.
#[derive(Debug)]
pub enum ReadError {
    Unsupported(Format),
    Syntax(Diagnostic),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Unsupported(format) => write!(
                f,
                "format `{format}` is not supported by this version of ace-tools"
            ),
            ReadError::Syntax(d) => f.write_str(&d.message),
        }
    }
}

/// A playbook and the reader's diagnostics.
pub type Parsed = ace_model::ReadOutput;

pub fn read(format: Format, text: &str) -> Result<Parsed, ReadError> {
    read_with(format, text, ace_model::Severity::Info)
}

/// [`read`] for a caller that shows only findings of severity `min` and
/// above (a conversion shows errors): a reader may leave out checks that
/// can only find less, where they cost (the skill bullet schema checks).
/// The playbook read is the same.
pub fn read_with(
    format: Format,
    text: &str,
    min: ace_model::Severity,
) -> Result<Parsed, ReadError> {
    match format {
        Format::Markdown => Ok(ace_markdown::read(text)),
        Format::AgentsMd => Ok(ace_agents::read(text)),
        Format::PlaybookYaml => ace_yaml::read(text).map_err(ReadError::Syntax),
        Format::SkillJson => ace_skill::read_with(text, min).map_err(ReadError::Syntax),
        Format::VagendaJson => {
            ace_vagenda::read(text, ace_vagenda::Syntax::Json).map_err(ReadError::Syntax)
        }
        Format::VagendaTron => {
            ace_vagenda::read(text, ace_vagenda::Syntax::Tron).map_err(ReadError::Syntax)
        }
        Format::Json => ace_model::json::read(text)
            .map(|playbook| Parsed {
                playbook,
                diagnostics: Vec::new(),
            })
            .map_err(ReadError::Syntax),
    }
}

/// What a file read as a playbook holds instead of one.
#[derive(Debug, Clone, PartialEq)]
pub enum OtherDocument {
    /// A skill delta, reflector output or curator output
    /// ([`skill_document`]).
    Skill(ace_skill::DocumentKind),
    /// A vAgenda PlaybookPatch, one patch operation, or a fragment
    /// ([`vagenda_document`]).
    Vagenda(ace_vagenda::DocKind),
}

/// [`read_with`], and what [`skill_document`] or [`vagenda_document`] says
/// of the file, from the same parse: a large playbook is not parsed twice
/// to learn that it is one.
pub fn read_document(
    format: Format,
    text: &str,
    min: ace_model::Severity,
) -> Result<(Parsed, Option<OtherDocument>), ReadError> {
    let syntax = match format {
        Format::VagendaJson => ace_vagenda::Syntax::Json,
        Format::VagendaTron => ace_vagenda::Syntax::Tron,
        Format::SkillJson => {
            let (parsed, kind) =
                ace_skill::read_classified(text, min).map_err(ReadError::Syntax)?;
            let other = (kind != ace_skill::DocumentKind::Playbook).then_some(kind);
            return Ok((parsed, other.map(OtherDocument::Skill)));
        }
        _ => return read_with(format, text, min).map(|p| (p, None)),
    };
    let (parsed, kind) = ace_vagenda::read_classified(text, syntax).map_err(ReadError::Syntax)?;
    let other = kind.filter(|k| !is_playbook_kind(k));
    Ok((parsed, other.map(OtherDocument::Vagenda)))
}

fn is_playbook_kind(kind: &ace_vagenda::DocKind) -> bool {
    matches!(
        kind,
        ace_vagenda::DocKind::Document { .. } | ace_vagenda::DocKind::Playbook
    )
}

/// Output text and what the target could not hold.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub text: String,
    pub losses: Vec<LossEntry>,
    /// Entries given new IDs because the target could not hold theirs.
    pub id_changes: Vec<ace_model::ids::IdChange>,
}

/// Choices a format's writer offers; each applies to one format only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// `skill-json`: write `confidence` and `scope` in this schema
    /// generation's form (1 or 2) instead of the form read.
    pub skill_generation: Option<ace_skill::Generation>,
    /// `vagenda-*`: the container of a new document.
    pub vagenda_container: ace_vagenda::Container,
    /// `vagenda-tron`: the implicit root of vAgenda's house style, or a
    /// braced root that `@tron-format/tron` reads.
    pub tron_root: ace_vagenda::RootStyle,
    /// `vagenda-*`: the time (RFC 3339) for timestamps the model lacks.
    pub now: Option<String>,
}

pub fn write(format: Format, pb: &Playbook) -> Result<Written, ReadError> {
    write_with(format, pb, &WriteOptions::default())
}

pub fn write_with(
    format: Format,
    pb: &Playbook,
    opts: &WriteOptions,
) -> Result<Written, ReadError> {
    let mut out = Out::new();
    let report = write_into(format, pb, opts, &mut out);
    Ok(Written {
        text: out.into_string(),
        losses: report.losses,
        id_changes: report.id_changes,
    })
}

/// [`write_with`] into `out`, which may send the text on (to a file, say)
/// as it is printed. What the target could not hold is known only at the
/// end, so a caller that must write nothing on a loss writes into a
/// temporary file or into [`std::io::sink`] first.
pub fn write_into(
    format: Format,
    pb: &Playbook,
    opts: &WriteOptions,
    out: &mut Out<'_>,
) -> WriteReport {
    let whole = |out: &mut Out<'_>, text: String, losses| {
        out.push_str(&text);
        WriteReport {
            losses,
            id_changes: Vec::new(),
        }
    };
    match format {
        Format::Markdown => ace_markdown::write_into(pb, out),
        Format::AgentsMd => ace_agents::write_into(pb, out),
        Format::PlaybookYaml => {
            let w = ace_yaml::write(pb);
            whole(out, w.text, w.losses)
        }
        Format::SkillJson => {
            let losses = ace_skill::write_into(
                pb,
                &ace_skill::WriteOptions {
                    generation: opts.skill_generation,
                },
                out,
            );
            WriteReport {
                losses,
                id_changes: Vec::new(),
            }
        }
        Format::VagendaJson | Format::VagendaTron => ace_vagenda::write_into(
            pb,
            &ace_vagenda::WriteOptions {
                syntax: if format == Format::VagendaTron {
                    ace_vagenda::Syntax::Tron
                } else {
                    ace_vagenda::Syntax::Json
                },
                container: opts.vagenda_container,
                tron_root: opts.tron_root,
                now: opts.now.clone(),
            },
            out,
        ),
        Format::Json => {
            ace_model::json::write_into(pb, out);
            WriteReport::default()
        }
    }
}

/// Every finding for one input: the reader's diagnostics, then the lint
/// rules, in source order.
pub fn validate(
    format: Format,
    text: &str,
    opts: &ace_lint::Options,
) -> Result<Vec<Diagnostic>, ReadError> {
    match read(format, text) {
        Ok(parsed) => Ok(validate_parsed(format, parsed, opts)),
        Err(ReadError::Syntax(d)) => Ok(vec![d]),
        Err(e) => Err(e),
    }
}

/// The lint rules that fit a format: seed 000's ID shapes and prefixes mean
/// nothing to curator bullets (`#88f22305`), and seed 001's deprecation rule
/// is the curator's own.
pub fn lint_options(format: Format, base: &ace_lint::Options) -> ace_lint::Options {
    match format {
        Format::AgentsMd | Format::PlaybookYaml => ace_lint::Options {
            id_shape: false,
            prefixes: false,
            deprecation: true,
            ..base.clone()
        },
        // Skill IDs are `bullet-YYYY-MM-DD-NNN` or free-form, and bullets
        // have no sections; the bullet schema checks the ID shape instead.
        // vAgenda ids are free-form (`entry-task-first`) and kinds are not
        // sections: the ACE schema and invariants check what it defines.
        Format::SkillJson | Format::VagendaJson | Format::VagendaTron => ace_lint::Options {
            id_shape: false,
            prefixes: false,
            ..base.clone()
        },
        _ => base.clone(),
    }
}

/// The reader's diagnostics of an already read input plus the lint rules.
pub fn validate_parsed(
    format: Format,
    parsed: Parsed,
    opts: &ace_lint::Options,
) -> Vec<Diagnostic> {
    let mut diags = parsed.diagnostics;
    diags.extend(ace_lint::lint(
        &parsed.playbook,
        &lint_options(format, opts),
    ));
    diags.sort_by_key(|d| (d.span.start, d.code));
    diags
}

/// What a file holds beyond its format: skill JSON may be a playbook or a
/// delta (or a reflector or curator output carrying one).
pub fn skill_document(format: Format, text: &str) -> Option<ace_skill::DocumentKind> {
    if format != Format::SkillJson {
        return None;
    }
    ace_skill::sniff(text).filter(|k| *k != ace_skill::DocumentKind::Playbook)
}

/// What a vAgenda file holds when it is not a document with a playbook that
/// can be converted: a PlaybookPatch, one patch operation, or a fragment.
pub fn vagenda_document(format: Format, text: &str) -> Option<ace_vagenda::DocKind> {
    let syntax = match format {
        Format::VagendaJson => ace_vagenda::Syntax::Json,
        Format::VagendaTron => ace_vagenda::Syntax::Tron,
        _ => return None,
    };
    ace_vagenda::kind_of(text, syntax).filter(|k| !is_playbook_kind(k))
}

/// Every finding for a skill delta, reflector output or curator output,
/// with IDs checked against `playbook` when given.
pub fn validate_skill_delta(text: &str, playbook: Option<&Playbook>) -> Vec<Diagnostic> {
    ace_skill::check_delta(text, playbook).unwrap_or_else(|d| vec![d])
}

/// What a JSON file holds when it is seed 001's curator JSON (AceDelta
/// objects, the curator's input or output) rather than a playbook.
pub fn curator_document(format: Format, text: &str) -> Option<ace_curator::DocumentKind> {
    if !matches!(format, Format::SkillJson | Format::Json) {
        return None;
    }
    ace_curator::sniff(text)
}

/// Every finding for seed 001's curator JSON, with `add` hashes checked
/// against `playbook` when given.
pub fn validate_curator(
    text: &str,
    playbook: Option<&Playbook>,
    opts: &ace_curator::Options,
) -> Vec<Diagnostic> {
    ace_curator::check(text, playbook, opts).unwrap_or_else(|d| vec![d])
}

/// The vAgenda document `sequence` a playbook was read with, if any.
pub fn document_sequence(pb: &Playbook) -> Option<i64> {
    ace_vagenda::document_sequence(pb)
}

/// Whether a file found by walking a directory is an ACE artifact: by its
/// name (AGENTS.md, playbook.yaml, playbook.json, `.tron`) or, for `.md`,
/// `.txt`, `.json` and `.yaml`, by what its first 64 KiB hold. Unreadable
/// files are not ACE files; named on the command line, they are still read
/// and their error reported.
pub fn recognise(path: &Path) -> bool {
    let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
        return false;
    };
    let lower = file.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "agents.md"
            | "agent.md"
            | "agents.archive.md"
            | "playbook.yaml"
            | "playbook.yml"
            | "playbook.json"
    ) {
        return true;
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !matches!(
        ext.as_str(),
        "md" | "markdown" | "txt" | "json" | "yaml" | "yml" | "tron"
    ) {
        return false;
    }
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(1 << 16);
    if (&mut f).take(1 << 16).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    match ext.as_str() {
        "md" | "markdown" | "txt" => text.contains("[Bullet #") || text.lines().any(is_entry_line),
        "json" => {
            ace_model::json::sniff(&text)
                || [
                    "\"vAgendaInfo\"",
                    "\"vContextInfo\"",
                    "\"helpful_count\"",
                    "\"new_bullets\"",
                    "\"proposed_deltas\"",
                    "\"clean_delta\"",
                    "\"deltas\"",
                    "\"operations\"",
                    "\"bullets\"",
                ]
                .iter()
                .any(|k| text.contains(k))
                || ace_curator::sniff(&text).is_some()
                || is_vagenda_patch(&text)
        }
        "tron" => [
            "vAgendaInfo",
            "vContextInfo",
            "playbook",
            "operations",
            "entries",
        ]
        .iter()
        .any(|k| text.contains(k)),
        _ => text
            .lines()
            .any(|l| l.starts_with("sections:") || l.starts_with("entries:")),
    }
}

/// `[str-00001]`, `- [calc-014]`: a line that starts like a seed-000 entry.
fn is_entry_line(line: &str) -> bool {
    let l = line.trim_start();
    let l = l
        .strip_prefix("- ")
        .or_else(|| l.strip_prefix("* "))
        .unwrap_or(l);
    let Some(rest) = l.strip_prefix('[') else {
        return false;
    };
    let Some((id, _)) = rest.split_once(']') else {
        return false;
    };
    let Some((prefix, num)) = id.split_once('-') else {
        return false;
    };
    !prefix.is_empty()
        && prefix.bytes().all(|b| b.is_ascii_alphabetic())
        && !num.is_empty()
        && num.bytes().all(|b| b.is_ascii_digit())
}

/// The curator's `playbook.yaml` beside an AGENTS.md, if there is one.
pub fn sections_beside(format: Format, input: &Path) -> Option<PathBuf> {
    if format != Format::AgentsMd {
        return None;
    }
    let dir = input
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    ["playbook.yaml", "playbook.yml"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
}

/// Reads the curator's playbook.yaml into a playbook read from AGENTS.md:
/// weights reach the sections whose key is the YAML `id`, YAML sections with
/// no heading are added, and `version` and unknown keys are kept. Findings
/// about AGENTS.md go into `parsed.diagnostics`; the ones about the YAML file
/// are returned. A YAML file that does not parse is the error.
pub fn attach_sections(
    parsed: &mut Parsed,
    yaml_text: &str,
) -> Result<Vec<Diagnostic>, Diagnostic> {
    use ace_model::rules;
    let yaml = ace_yaml::read(yaml_text)?;
    let mut yaml_diags = yaml.diagnostics;
    let y = yaml.playbook;
    let pb = &mut parsed.playbook;
    let listed: std::collections::HashSet<&str> =
        y.sections.iter().map(|s| s.key.as_str()).collect();
    for s in &pb.sections {
        if !listed.contains(s.key.as_str()) {
            parsed.diagnostics.push(
                Diagnostic::new(
                    &rules::SECTION_NOT_IN_YAML,
                    s.origin.0.unwrap_or_default(),
                    format!(
                        "section `{}` is not listed in playbook.yaml",
                        s.display_title()
                    ),
                )
                .with_help(format!(
                    "add `- id: {:?}` with a weight to playbook.yaml",
                    s.key
                )),
            );
        }
    }
    for ys in y.sections {
        match pb.sections.iter_mut().find(|s| s.key == ys.key) {
            Some(s) => {
                s.weight = ys.weight;
                s.extra.extend(ys.extra);
                if s.description.is_none() {
                    s.description = ys.description;
                }
                if s.prefix.is_none() {
                    s.prefix = ys.prefix;
                }
            }
            None => {
                yaml_diags.push(Diagnostic::new(
                    &rules::YAML_SECTION_UNUSED,
                    ys.origin.0.unwrap_or_default(),
                    format!("section `{}` has no heading in AGENTS.md", ys.key),
                ));
                pb.sections.push(ace_model::Section {
                    origin: ace_model::Origin(None),
                    ..ys
                });
            }
        }
    }
    if y.version.is_some() {
        pb.version = y.version;
    }
    pb.extra.extend(y.extra);
    yaml_diags.sort_by_key(|d| (d.span.start, d.code));
    Ok(yaml_diags)
}

/// AGENTS.md and playbook.yaml written together, and what neither holds.
#[derive(Debug, Clone, Default)]
pub struct CuratorPair {
    pub agents_md: String,
    pub playbook_yaml: String,
    pub losses: Vec<LossEntry>,
}

/// The curator variant as the two files it lives in. A loss that AGENTS.md
/// reports for something playbook.yaml keeps (the version, section weights,
/// extra fields) is not a loss of the pair.
pub fn write_curator_pair(pb: &Playbook) -> CuratorPair {
    let mut out = Out::new();
    let (playbook_yaml, losses) = write_curator_pair_into(pb, &mut out);
    CuratorPair {
        agents_md: out.into_string(),
        playbook_yaml,
        losses,
    }
}

/// [`write_curator_pair`] with AGENTS.md printed into `agents_md`, which
/// may send the text on as it is printed; returns playbook.yaml (a few
/// lines) and the losses.
pub fn write_curator_pair_into(pb: &Playbook, agents_md: &mut Out<'_>) -> (String, Vec<LossEntry>) {
    let agents = ace_agents::write_into(pb, agents_md);
    // The curator's file holds the version, the sections and the extra
    // fields only: a copy of those, not of a playbook of a million entries.
    let mut for_yaml = Playbook {
        version: pb.version.clone(),
        sections: pb.sections.clone(),
        extra: pb
            .extra
            .iter()
            .filter(|(k, _)| k.as_str() != ace_agents::LAYOUT_KEY)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        ..Playbook::default()
    };
    for s in &mut for_yaml.sections {
        s.extra.shift_remove(ace_model::keys::HEADING_LEVEL);
    }
    let yaml = ace_yaml::write_sections(&for_yaml);
    let listed: std::collections::HashSet<String> = ace_yaml::listed_sections(&for_yaml)
        .iter()
        .map(|s| format!("sections[{}]", s.key))
        .collect();
    let kept_by_yaml = |l: &LossEntry| {
        let in_listed = |rest: &str| {
            listed.iter().any(|p| {
                l.field
                    .strip_prefix(p.as_str())
                    .is_some_and(|r| r.is_empty() || r.starts_with(rest))
            })
        };
        l.entry_id.is_none()
            && (l.field == "version"
                || l.field.starts_with("extra.")
                || in_listed(".weight")
                || in_listed(".extra."))
    };
    let mut losses: Vec<LossEntry> = agents
        .losses
        .into_iter()
        .filter(|l| !kept_by_yaml(l))
        .collect();
    losses.extend(yaml.losses);
    (yaml.text, losses)
}

/// Writes `bytes` to a temporary file beside `path` and renames it over
/// `path`, so a reader never sees half a file and a failure leaves the old
/// file intact. An existing file's permissions are kept.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// A file written under a temporary name beside its destination and renamed
/// onto it by [`AtomicFile::commit`]; dropped uncommitted, it is removed
/// and the destination is untouched.
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    /// Bytes written, and how many of them the system was asked to start
    /// writing to disk ([`AtomicFile::start_writeback`]).
    written: u64,
    handed: u64,
}

/// Bytes written between requests to start writing them to disk.
const WRITEBACK: u64 = 8 << 20;

impl AtomicFile {
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".ace-").suffix(".tmp");
        // A temporary file is private (0600) by default; a new output
        // should get what any new file gets, 0666 less the umask, which the
        // system applies when the file is opened with this mode.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let tmp = builder.tempfile_in(dir)?;
        Ok(AtomicFile {
            tmp,
            path: path.to_owned(),
            written: 0,
            handed: 0,
        })
    }

    /// Asks the system to start writing what was written so far to disk,
    /// without waiting. [`AtomicFile::commit`]'s sync then waits for the
    /// last few megabytes only, not for all of a large output at once (a
    /// fifth of a second for 500 MB here). Advisory: a failure is ignored,
    /// and the sync in `commit` is what makes the file durable.
    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self) {
        use std::os::fd::AsRawFd;
        let fd = self.tmp.as_file().as_raw_fd();
        let (Ok(from), Ok(len)) = (
            i64::try_from(self.handed),
            i64::try_from(self.written - self.handed),
        ) else {
            return;
        };
        // SAFETY: `fd` is the open descriptor of the file this value owns;
        // the call reads no memory of ours, it only starts I/O on a range.
        unsafe {
            libc::sync_file_range(fd, from, len, libc::SYNC_FILE_RANGE_WRITE);
        }
        self.handed = self.written;
    }

    #[cfg(not(target_os = "linux"))]
    fn start_writeback(&mut self) {}

    pub fn commit(self) -> std::io::Result<()> {
        self.tmp.as_file().sync_all()?;
        if let Ok(meta) = std::fs::metadata(&self.path) {
            self.tmp.as_file().set_permissions(meta.permissions())?;
        }
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.tmp.write(buf)?;
        self.written += n as u64;
        if self.written - self.handed >= WRITEBACK {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("md"), None);
    }

    #[test]
    fn detection() {
        let p = |s: &str| Some(Path::new(s).to_owned());
        assert_eq!(
            detect(p("knowledge/AGENTS.md").as_deref(), ""),
            Format::AgentsMd
        );
        assert_eq!(
            detect(p("x/AGENTS.archive.md").as_deref(), ""),
            Format::AgentsMd
        );
        assert_eq!(
            detect(p("playbook.txt").as_deref(), "## A\n[a-1] x"),
            Format::Markdown
        );
        assert_eq!(
            detect(
                p("notes.md").as_deref(),
                "[Bullet #1, helpful:0, harmful:0] x"
            ),
            Format::AgentsMd
        );
        assert_eq!(detect(p("p.yaml").as_deref(), ""), Format::PlaybookYaml);
        assert_eq!(detect(p("p.tron").as_deref(), ""), Format::VagendaTron);
        assert_eq!(
            detect(p("p.json").as_deref(), "{\"bullets\": []}"),
            Format::SkillJson
        );
        assert_eq!(
            detect(p("p.json").as_deref(), "{\"vAgendaInfo\": {}}"),
            Format::VagendaJson
        );
        let canonical = ace_model::json::write(&Playbook::default());
        assert_eq!(detect(None, &canonical), Format::Json);
        assert_eq!(
            detect(None, "[str-00001] helpful=1 harmful=0 :: x"),
            Format::Markdown
        );
        assert_eq!(detect(None, "[{\"id\": \"b-1\"}]"), Format::SkillJson);
        assert_eq!(
            detect(
                p("patch.json").as_deref(),
                "{\"op\": \"incrementCounter\", \"entryId\": \"e1\"}"
            ),
            Format::VagendaJson
        );
    }

    #[test]
    fn decoding_errors_name_the_position() {
        assert!(matches!(
            decode(b"a\0b".to_vec(), "f"),
            Err(LoadError::Binary(_))
        ));
        let err = decode(b"ok\nab\xffc".to_vec(), "f").unwrap_err();
        assert_eq!(
            err.to_string(),
            "f:2:3: invalid UTF-8 (byte 0xff); expected UTF-8 text"
        );
    }

    #[test]
    fn large_files_are_mapped_and_checked_like_read_ones() {
        let dir = tempfile::tempdir().unwrap();
        let big = "[str-00001] helpful=1 harmful=0 :: x\n".repeat(40_000);
        let cases: [(&str, Vec<u8>); 4] = [
            ("small", b"## A\n".to_vec()),
            ("big", big.clone().into_bytes()),
            ("nul", [big.as_bytes(), b"a\0"].concat()),
            ("bad", [big.as_bytes(), b"ab\xffc"].concat()),
        ];
        for (name, bytes) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let mapped = bytes.len() as u64 >= MAP_AT;
            assert_eq!(mapped, name != "small");
            match (name, load(&path)) {
                ("small" | "big", Ok(s)) => {
                    assert_eq!(s.text.as_bytes(), &bytes[..]);
                    assert!(matches!(s.text.0, Repr::Mapped(_)) == mapped, "{name}");
                    assert_eq!(&*s.text.clone(), &*s.text);
                }
                ("nul", Err(LoadError::Binary(_))) => {}
                ("bad", Err(e)) => assert_eq!(
                    e.to_string(),
                    format!(
                        "{}:40001:3: invalid UTF-8 (byte 0xff); expected UTF-8 text",
                        path.display()
                    )
                ),
                (name, other) => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    /// An output of several writeback ranges, written in uneven pieces, is
    /// the file committed, byte for byte; uncommitted, nothing is left.
    #[test]
    fn a_large_output_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let bytes: Vec<u8> = (0..3 * WRITEBACK + 12_345)
            .map(|i| b'a' + (i % 26) as u8)
            .collect();
        let mut file = AtomicFile::create(&path).unwrap();
        let mut at = 0;
        for piece in [1, 1 << 16, 7 << 20, 13, 11 << 20].iter().cycle() {
            let end = (at + piece).min(bytes.len());
            file.write_all(&bytes[at..end]).unwrap();
            at = end;
            if at == bytes.len() {
                break;
            }
        }
        assert_eq!(file.written, bytes.len() as u64);
        // All but the last range was handed on as it was written.
        #[cfg(target_os = "linux")]
        assert!(file.handed >= 2 * WRITEBACK && file.written - file.handed < WRITEBACK);
        file.commit().unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes);
        let mut dropped = AtomicFile::create(&dir.path().join("gone.json")).unwrap();
        dropped.write_all(&bytes).unwrap();
        drop(dropped);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }
}
