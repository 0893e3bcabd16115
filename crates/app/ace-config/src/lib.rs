//! `ace.toml`, and which files a run checks.
//!
//! The configuration is found upward from the working directory, as ruff and
//! taplo find theirs, so a hook run from any sub-folder sees the same
//! settings. Include and exclude patterns are relative to the folder that
//! holds `ace.toml`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

pub const FILE_NAME: &str = "ace.toml";

/// The contents of `ace.toml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(
    title = "ace.toml",
    description = "Configuration of ace-validate and ace-apply: which files to check, which rules to report and how severe they are, the thresholds of the rules that have one, and where ace-apply may write. Found in the working directory or the nearest folder above it."
)]
pub struct Config {
    /// Glob patterns (relative to the folder of `ace.toml`) of the files to
    /// check when a directory is given. Without it, files are recognised as
    /// ACE artifacts by name and content.
    #[serde(default)]
    pub include: Vec<String>,
    /// Glob patterns of files and folders never checked when found by walking
    /// a directory or expanding a glob. Files named on the command line are
    /// checked anyway unless `--force-exclude` is given. A pattern without a
    /// `/` matches a file or folder name at any depth.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Only report these rule codes (`--select` replaces it).
    #[serde(default)]
    pub select: Vec<String>,
    /// Never report these rule codes (`--ignore` adds to it).
    #[serde(default)]
    pub ignore: Vec<String>,
    /// A severity for each rule code that should not have its default one;
    /// `off` turns the rule off.
    #[serde(default)]
    pub severity: BTreeMap<String, Level>,
    /// Thresholds of the rules that have one (ace-apply's curator gate
    /// takes `confidence` and `evidence-length` from here too).
    #[serde(default)]
    pub thresholds: Thresholds,
    /// Settings of ace-apply.
    #[serde(default)]
    pub apply: Apply,
    /// How large a playbook may grow: `ace-validate` reports a playbook
    /// over it (ACE085, ACE086), `ace-apply --prune` removes entries until
    /// it fits.
    #[serde(default)]
    pub budget: Budget,
}

/// How large a playbook may grow. Its tokens are those of the file's text
/// as written, less the text of entries whose status is other than active
/// (which agents are not given); a section's are its active entries'
/// titles and contents, as `ace-validate --tokens` counts them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Budget {
    /// The most tokens the playbook may hold (`--max-tokens` replaces it).
    pub max_tokens: Option<usize>,
    /// The most active entries the playbook may hold (`--max-entries`
    /// replaces it).
    pub max_entries: Option<usize>,
    /// The encoding tokens are counted in: `cl100k_base` (the default, as
    /// the ACE paper's code counts), `o200k_base` or `chars4`
    /// (`--tokenizer` replaces it).
    pub tokenizer: Option<String>,
    /// Limits of single sections, by section key or title.
    #[serde(default)]
    pub sections: BTreeMap<String, Limits>,
}

/// The limits of one section.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// The most tokens the section's active entries may hold.
    pub max_tokens: Option<usize>,
    /// The most active entries the section may hold.
    pub max_entries: Option<usize>,
}

/// Settings of ace-apply.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Apply {
    /// Glob patterns (relative to the folder of `ace.toml`) outside which
    /// ace-apply refuses to write, as the ace_beads curator writes only under
    /// `knowledge/**` and `prompts/**`. `--write-scope` replaces it.
    #[serde(default)]
    pub write_scope: Vec<String>,
}

/// A rule's severity as set in `ace.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Info,
    Off,
}

/// Every threshold a rule uses. Absent values keep the seed's default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Thresholds {
    /// ACE006: report `harmful > helpful + curation` (the playbook format spec: 3).
    #[schemars(range(min = 0))]
    #[serde(default, deserialize_with = "non_negative")]
    pub curation: Option<i64>,
    /// ACE063: the lowest AceDelta confidence the curator accepts (the curator spec:
    /// 0.80).
    #[schemars(range(min = 0.0, max = 1.0))]
    #[serde(default, deserialize_with = "fraction")]
    pub confidence: Option<f64>,
    /// ACE064: the shortest AceDelta evidence the curator accepts, in
    /// characters (the curator spec: 8).
    pub evidence_length: Option<usize>,
    /// ACE061: the lexical similarity of title and content above which two
    /// entries are likely duplicates (the skill spec: 0.8).
    #[schemars(range(min = 0.0, max = 1.0))]
    #[serde(default, deserialize_with = "fraction")]
    pub similarity: Option<f64>,
    /// ACE061: the share of tags two entries must have in common (the skill spec:
    /// more than 0.7).
    #[schemars(range(min = 0.0, max = 1.0))]
    #[serde(default, deserialize_with = "fraction")]
    pub tag_overlap: Option<f64>,
    /// ACE072: the confidence at or above which a self-reported entry is
    /// reported (0.8).
    #[schemars(range(min = 0.0, max = 1.0))]
    #[serde(default, deserialize_with = "fraction")]
    pub self_report_confidence: Option<f64>,
    /// ACE056: content with fewer words than this is too vague (4).
    pub vague_words: Option<usize>,
}

/// `thresholds.curation`: below 0, `harmful > helpful + N` holds for an
/// entry never counted harmful, and pruning would empty the playbook.
fn non_negative<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let n = i64::deserialize(d)?;
    if n < 0 {
        return Err(serde::de::Error::custom(format!(
            "{n} is below 0; expected a whole number 0 or more"
        )));
    }
    Ok(Some(n))
}

/// A similarity, overlap or confidence, which is a number from 0 to 1.
fn fraction<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let x = f64::deserialize(d)?;
    if !(0.0..=1.0).contains(&x) {
        return Err(serde::de::Error::custom(format!(
            "{x} is not from 0 to 1; expected a number from 0 to 1"
        )));
    }
    Ok(Some(x))
}

/// The JSON Schema of `ace.toml`, as published in `schemas/ace-toml.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Config);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}

/// A configuration and the folder its patterns are relative to.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub path: Option<PathBuf>,
    pub root: PathBuf,
    pub config: Config,
}

/// The nearest `ace.toml` in `start` or a folder above it.
pub fn find(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|p| p.is_file())
}

/// Parses `text` as `ace.toml`; errors name `name:line:col` and say what was
/// expected.
pub fn parse(text: &str, name: &str) -> Result<Config, ace_model::Error> {
    toml::from_str(text).map_err(|e| {
        let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        let message = e.message().trim_end().replace('\n', "; ");
        ace_model::Error::Content {
            place: format!("{name}:{line}:{col}"),
            message,
        }
    })
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Reads the configuration at `path`.
pub fn load(path: &Path) -> Result<Loaded, ace_model::Error> {
    let name = path.display().to_string();
    // As a playbook is read: a repository's `ace.toml` may be a link to
    // `/dev/zero`, which must be refused, not read until memory runs out.
    let text = ace_fs::load(path)?.text;
    let config = parse(&text, &name)?;
    let root = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_owned();
    Ok(Loaded {
        path: Some(path.to_owned()),
        root,
        config,
    })
}

/// Where ace-apply may write: globs, and the current directory's path
/// below the folder they are relative to.
#[derive(Debug, Clone)]
pub struct WriteScope {
    globs: Vec<String>,
    set: GlobSet,
    base: PathBuf,
}

impl WriteScope {
    /// The scope in force: `cli` (`--write-scope`, relative to the current
    /// directory), else ace.toml's `[apply] write-scope` (relative to its
    /// folder, which the current directory must be inside); `None` when
    /// neither sets one.
    pub fn of(cli: &[String], loaded: &Loaded) -> Result<Option<WriteScope>, ace_model::Error> {
        if !cli.is_empty() {
            return WriteScope::new(cli, PathBuf::new()).map(Some);
        }
        let globs = &loaded.config.apply.write_scope;
        if globs.is_empty() {
            return Ok(None);
        }
        let cwd = std::env::current_dir()
            .and_then(|d| d.canonicalize())
            .map_err(|e| ace_model::Error::io(Path::new("the current directory"), e))?;
        let root = loaded
            .root
            .canonicalize()
            .map_err(|e| ace_model::Error::io(&loaded.root, e))?;
        let below = cwd.strip_prefix(&root).map_err(|_| {
            ace_model::Error::Refused(format!(
                "the write scope of {} is relative to {}, which the current directory is not inside",
                loaded.path.as_deref().unwrap_or(Path::new(FILE_NAME)).display(),
                root.display()
            ))
        })?;
        WriteScope::new(globs, below.to_owned()).map(Some)
    }

    fn new(globs: &[String], base: PathBuf) -> Result<WriteScope, ace_model::Error> {
        let mut b = GlobSetBuilder::new();
        for g in globs {
            let glob = globset::GlobBuilder::new(g)
                .literal_separator(true)
                .build()
                .map_err(|e| ace_model::Error::Content {
                    place: format!("write scope {g:?}"),
                    message: e.to_string(),
                })?;
            b.add(glob);
        }
        Ok(WriteScope {
            globs: globs.to_vec(),
            set: b.build().map_err(|e| ace_model::Error::Content {
                place: "write scope".into(),
                message: e.to_string(),
            })?,
            base,
        })
    }

    /// Whether `path` (relative to the current directory) is inside one of
    /// the globs: relative, never climbing out of their folder with `..`,
    /// and the file a write would replace, symbolic links followed, inside
    /// them too (a link in the scope to a file outside it is outside).
    pub fn check(&self, path: &Path) -> Result<(), ace_model::Error> {
        let refuse = |why: String| {
            Err(ace_model::Error::Refused(format!(
                "refusing to write {}: {why} ({})",
                path.display(),
                self.globs.join(" ")
            )))
        };
        if path.is_absolute() {
            return refuse(format!("{} is absolute", path.display()));
        }
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for c in self.base.components().chain(path.components()) {
            match c {
                Component::CurDir => {}
                Component::Normal(p) => parts.push(p),
                Component::ParentDir if parts.pop().is_some() => {}
                _ => {
                    return refuse(format!(
                        "{} climbs out of the write scope's folder with `..`",
                        path.display()
                    ))
                }
            }
        }
        let clean: PathBuf = parts.iter().collect();
        if !self.set.is_match(&clean) {
            return refuse(format!("{} is outside the write scope", path.display()));
        }
        let real = resolved(path).map_err(|e| ace_model::Error::io(path, e))?;
        let root = root_of(&self.base)
            .map_err(|e| ace_model::Error::io(Path::new("the current directory"), e))?;
        match real.strip_prefix(&root) {
            Ok(rel) if self.set.is_match(rel) => Ok(()),
            _ => refuse(format!(
                "{} is {}, outside the write scope",
                path.display(),
                real.display()
            )),
        }
    }
}

/// The folder the globs are relative to: the current directory, less
/// `base` (its path below that folder), links resolved.
fn root_of(base: &Path) -> std::io::Result<PathBuf> {
    let mut root = std::env::current_dir()?.canonicalize()?;
    for _ in base.components() {
        root.pop();
    }
    Ok(root)
}

/// The absolute path of the file a write to `path` replaces: symbolic
/// links followed, on the file and on every folder above it, as far as
/// they exist (a new file in a folder not made yet is where it is named).
fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let dest = ace_fs::destination(path)?;
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let mut at = dest.as_path();
    loop {
        let existing = if at.as_os_str().is_empty() {
            Path::new(".")
        } else {
            at
        };
        if let Ok(real) = existing.canonicalize() {
            return Ok(rest.iter().rev().fold(real, |p, r| p.join(r)));
        }
        match (at.file_name(), at.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                at = parent;
            }
            _ => {
                return Err(std::io::Error::other(
                    "cannot tell which file this names".to_owned(),
                ))
            }
        }
    }
}

/// Include and exclude patterns, compiled.
#[derive(Debug, Clone)]
pub struct Selector {
    root: PathBuf,
    include: Option<GlobSet>,
    exclude: GlobSet,
}

fn glob_set(patterns: &[String], what: &str) -> Result<GlobSet, ace_model::Error> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let p = p.trim_end_matches('/');
        // Like .gitignore: a bare name matches at any depth.
        let full = if p.contains('/') {
            p.trim_start_matches("./").to_owned()
        } else {
            format!("**/{p}")
        };
        let glob = Glob::new(&full).map_err(|e| ace_model::Error::Content {
            place: format!("{what} pattern `{p}`"),
            message: e.kind().to_string(),
        })?;
        b.add(glob);
    }
    b.build().map_err(|e| ace_model::Error::Content {
        place: format!("{what} patterns"),
        message: e.to_string(),
    })
}

impl Selector {
    pub fn new(loaded: &Loaded) -> Result<Selector, ace_model::Error> {
        let c = &loaded.config;
        Ok(Selector {
            root: ace_fs::absolute(&loaded.root),
            include: if c.include.is_empty() {
                None
            } else {
                Some(glob_set(&c.include, "include")?)
            },
            exclude: glob_set(&c.exclude, "exclude")?,
        })
    }

    /// The path relative to the configuration's folder, with `/` separators;
    /// paths outside it are matched as they are.
    fn relative(&self, path: &Path) -> PathBuf {
        let abs = ace_fs::absolute(path);
        abs.strip_prefix(&self.root)
            .map(Path::to_owned)
            .unwrap_or(abs)
    }

    /// Whether the path, or a folder it is in, matches an exclude pattern.
    pub fn is_excluded(&self, path: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let rel = self.relative(path);
        rel.ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| self.exclude.is_match(a))
    }

    /// `Some(true)` when an include pattern matches, `Some(false)` when none
    /// does, `None` when there are no include patterns (recognise by content).
    pub fn is_included(&self, path: &Path) -> Option<bool> {
        self.include
            .as_ref()
            .map(|set| set.is_match(self.relative(path)))
    }
}

/// One thing to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

/// Why the arguments select nothing, or cannot be walked.
#[derive(Debug)]
pub enum SelectError {
    /// A directory or glob that matches no file to check.
    Empty(String),
    /// A pattern that is not a valid glob.
    BadGlob(String, String),
    Walk(String),
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::Empty(m) => f.write_str(m),
            SelectError::BadGlob(p, e) => write!(f, "`{p}`: not a valid glob: {e}"),
            SelectError::Walk(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SelectError {}

fn has_glob_chars(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// Turns command-line arguments into the files to check, in a stable order.
///
/// A file argument is checked even when it is excluded, unless
/// `force_exclude`; this is what pre-commit needs, since it passes every
/// staged file by name. Directories are walked (hidden files and what
/// `.gitignore` excludes are skipped) and globs expanded; a file found that
/// way is kept when an include pattern matches it or, without include
/// patterns, when `recognise` says it is an ACE artifact. A directory or glob
/// that yields nothing is an error, never a silent pass.
pub fn select(
    args: &[impl AsRef<std::ffi::OsStr>],
    selector: &Selector,
    force_exclude: bool,
    recognise: &dyn Fn(&Path) -> bool,
) -> Result<Vec<Input>, SelectError> {
    let mut out = Vec::new();
    for arg in args {
        let arg = arg.as_ref();
        if arg == "-" {
            out.push(Input::Stdin);
            continue;
        }
        // A name that is not UTF-8 (an untrusted repository's) is a file
        // name, never a glob.
        let path = Path::new(arg);
        let shown = path.display();
        if path.is_dir() {
            let found = walk(path, None, selector, recognise)?;
            if found.is_empty() {
                return Err(SelectError::Empty(format!(
                    "{shown}: directory holds no ACE file to check (recognised by name and content{})",
                    if selector.include.is_some() {
                        ", or matching `include` in ace.toml"
                    } else {
                        ""
                    }
                )));
            }
            out.extend(found.into_iter().map(Input::File));
        } else if let Some(pattern) = arg.to_str().filter(|a| !path.exists() && has_glob_chars(a)) {
            let found = expand_glob(pattern, selector)?;
            if found.is_empty() {
                return Err(SelectError::Empty(format!(
                    "{shown}: pattern matches no ACE file to check"
                )));
            }
            out.extend(found.into_iter().map(Input::File));
        } else if !(force_exclude && selector.is_excluded(path)) {
            // A missing file is reported when it is loaded, with the
            // loader's message.
            out.push(Input::File(path.to_owned()));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|i| match i {
        Input::Stdin => true,
        Input::File(p) => seen.insert(p.clone()),
    });
    Ok(out)
}

fn walk(
    dir: &Path,
    filter: Option<&GlobSet>,
    selector: &Selector,
    recognise: &dyn Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, SelectError> {
    let mut found = Vec::new();
    let walker = ignore::WalkBuilder::new(dir)
        .sort_by_file_name(|a, b| a.cmp(b))
        .require_git(false)
        .build();
    for entry in walker {
        let entry = entry.map_err(|e| SelectError::Walk(e.to_string()))?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let p = entry.path();
        let rel = p.strip_prefix(dir).unwrap_or(p);
        if filter.is_some_and(|f| !f.is_match(rel)) || selector.is_excluded(p) {
            continue;
        }
        let keep = match selector.is_included(p) {
            Some(included) => included,
            None => filter.is_some() || recognise(p),
        };
        if keep {
            found.push(p.to_owned());
        }
    }
    Ok(found)
}

/// Expands `pattern` by walking the longest folder prefix without glob
/// characters and matching the rest.
fn expand_glob(pattern: &str, selector: &Selector) -> Result<Vec<PathBuf>, SelectError> {
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts.iter().take_while(|p| !has_glob_chars(p)).count();
    let base = match parts[..literal].join("/") {
        b if b.is_empty() && literal > 0 => PathBuf::from("/"),
        b if b.is_empty() => PathBuf::from("."),
        b => PathBuf::from(b),
    };
    let rest = parts[literal..].join("/");
    let glob = Glob::new(&rest)
        .map_err(|e| SelectError::BadGlob(pattern.to_owned(), e.kind().to_string()))?;
    let set = GlobSetBuilder::new()
        .add(glob)
        .build()
        .map_err(|e| SelectError::BadGlob(pattern.to_owned(), e.to_string()))?;
    if !base.is_dir() {
        return Ok(Vec::new());
    }
    // A glob the user wrote selects by name: with a filter, `walk` keeps
    // what matches without asking whether it looks like an ACE file.
    walk(&base, Some(&set), selector, &|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_line_and_column() {
        let e = parse(
            "exclude = [\"a\"]\nthresholds = { curation = \"x\" }\n",
            "ace.toml",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("ace.toml:2:"), "{e}");
        let e = parse("colour = 1\n", "ace.toml").unwrap_err();
        assert!(e.to_string().starts_with("ace.toml:1:1:"), "{e}");
        assert!(e.to_string().contains("unknown field `colour`"), "{e}");
    }

    #[test]
    fn a_threshold_out_of_its_range_is_refused_where_it_is() {
        for (text, want) in [
            (
                "[thresholds]\ncuration = -1\n",
                "ace.toml:2:12: -1 is below 0",
            ),
            (
                "[thresholds]\nsimilarity = 1.5\n",
                "ace.toml:2:14: 1.5 is not from 0 to 1",
            ),
            (
                "[thresholds]\nconfidence = -0.1\n",
                "ace.toml:2:14: -0.1 is not from 0 to 1",
            ),
        ] {
            let e = parse(text, "ace.toml").unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        let c = parse("[thresholds]\ncuration = 0\nsimilarity = 1\n", "ace.toml").unwrap();
        assert_eq!(c.thresholds.curation, Some(0));
        assert_eq!(c.thresholds.similarity, Some(1.0));
    }

    #[test]
    fn parses_every_key() {
        let c = parse(
            "include = [\"knowledge/**\"]\nexclude = [\"vendor\"]\nselect = [\"ACE002\"]\nignore = [\"ACE001\"]\n\
             [severity]\nACE006 = \"error\"\nACE018 = \"off\"\n[thresholds]\ncuration = 5\nconfidence = 0.9\n\
             evidence-length = 12\nsimilarity = 0.7\ntag-overlap = 0.5\nself-report-confidence = 0.6\nvague-words = 3\n",
            "ace.toml",
        )
        .unwrap();
        assert_eq!(c.severity["ACE018"], Level::Off);
        assert_eq!(c.thresholds.evidence_length, Some(12));
        assert_eq!(c.thresholds.vague_words, Some(3));
    }

    #[test]
    fn found_upward_and_patterns_relative_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            dir.path().join(FILE_NAME),
            "exclude = [\"vendor\", \"a/skip.md\"]\n",
        )
        .unwrap();
        let found = find(&sub).unwrap();
        assert_eq!(found, dir.path().join(FILE_NAME));
        let loaded = load(&found).unwrap();
        let sel = Selector::new(&loaded).unwrap();
        assert!(sel.is_excluded(&dir.path().join("x/vendor/p.md")));
        assert!(sel.is_excluded(&dir.path().join("a/skip.md")));
        assert!(!sel.is_excluded(&dir.path().join("a/keep.md")));
    }

    #[test]
    fn empty_directories_and_globs_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
        let sel = Selector::new(&Loaded::default()).unwrap();
        let arg = dir.path().display().to_string();
        let err = select(std::slice::from_ref(&arg), &sel, false, &|_| false).unwrap_err();
        assert!(matches!(err, SelectError::Empty(_)), "{err}");
        let found = select(std::slice::from_ref(&arg), &sel, false, &|_| true).unwrap();
        assert_eq!(found, vec![Input::File(dir.path().join("notes.txt"))]);
        let glob = format!("{arg}/*.md");
        assert!(select(&[glob], &sel, false, &|_| true).is_err());
        let glob = format!("{arg}/*.txt");
        assert_eq!(select(&[glob], &sel, false, &|_| false).unwrap().len(), 1);
    }

    #[test]
    fn named_files_are_excluded_only_when_forced() {
        let sel = Selector::new(&Loaded {
            path: None,
            root: PathBuf::from("."),
            config: Config {
                exclude: vec!["vendor".into()],
                ..Config::default()
            },
        })
        .unwrap();
        let args = vec!["vendor/p.md".to_owned()];
        assert_eq!(select(&args, &sel, false, &|_| true).unwrap().len(), 1);
        assert!(select(&args, &sel, true, &|_| true).unwrap().is_empty());
    }
}
