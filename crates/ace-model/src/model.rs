use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::diag::Span;

/// Where a value came from in its source file.
///
/// Equality ignores it: two playbooks that hold the same data are equal no
/// matter where they were read from, which is what round-trip tests compare.
#[derive(Debug, Clone, Copy, Default)]
pub struct Origin(pub Option<Span>);

impl PartialEq for Origin {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl From<Span> for Origin {
    fn from(span: Span) -> Self {
        Origin(Some(span))
    }
}

/// A whole playbook: sections in display order and entries in file order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Playbook {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Free text that belongs to the playbook rather than to an entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Kept as written (a YAML `0.3` and a JSON `"0.3"` are different values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Section>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<Entry>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A named group of entries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// Stable machine key, unique within the playbook; entries refer to it.
    pub key: String,
    /// Display title as the source wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// ID prefix used by entries of this section (`str`, `shr`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
    #[serde(skip)]
    pub origin: Origin,
}

impl Section {
    pub fn new(key: impl Into<String>) -> Self {
        Section {
            key: key.into(),
            ..Section::default()
        }
    }

    /// The title to show: the source's own title, else the key.
    pub fn display_title(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.key)
    }
}

/// One piece of learned advice.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    /// Key of the section the entry belongs to; `None` before any section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// vAgenda kind (`strategy`, `learning`, `rule`, `warning`, `note`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Vec<Evidence>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// Counters are signed so that a negative value in a file can be read,
    /// kept and reported rather than rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub helpful: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harmful: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neutral: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_reason: Option<String>,
    /// Timestamps are kept as written; validation checks their shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Boxed: few entries carry it, and inline it would double the size of
    /// every entry (a 100,000-entry playbook is read into one vector).
    pub provenance: Option<Box<Provenance>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
    #[serde(skip)]
    pub origin: Origin,
}

impl Entry {
    pub fn new(id: impl Into<String>, content: impl Into<String>) -> Self {
        Entry {
            id: id.into(),
            content: content.into(),
            ..Entry::default()
        }
    }

    /// Every optional field other than the section and the counters, with
    /// whether it holds a value: writers report the ones their format has no
    /// place for.
    pub fn optional_fields(&self) -> [(&'static str, bool); 16] {
        [
            ("kind", self.kind.is_some()),
            ("title", self.title.is_some()),
            ("tags", self.tags.is_some()),
            ("evidence", self.evidence.is_some()),
            ("confidence", self.confidence.is_some()),
            ("status", self.status.is_some()),
            ("deprecation_reason", self.deprecation_reason.is_some()),
            ("created_at", self.created_at.is_some()),
            ("updated_at", self.updated_at.is_some()),
            ("supersedes", self.supersedes.is_some()),
            ("superseded_by", self.superseded_by.is_some()),
            ("duplicate_of", self.duplicate_of.is_some()),
            ("links", self.links.is_some()),
            ("provenance", self.provenance.is_some()),
            ("scope", self.scope.is_some()),
            ("project_id", self.project_id.is_some()),
        ]
    }

    /// The seed-001 deduplication key of this entry (`section::normalized`).
    pub fn dedup_key(&self) -> String {
        crate::normalize::dedup_key(self.section.as_deref().unwrap_or(""), &self.content)
    }
}

/// Evidence for an entry: a plain note, or a typed reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Evidence {
    Text(String),
    Ref(EvidenceRef),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvidenceRef {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Confidence as a score in 0..1 or as a level; the form read is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Confidence {
    Score(Number),
    Level(ConfidenceLevel),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ConfidenceLevel {
    High,
    Medium,
    Low,
}

impl Confidence {
    /// A score for comparisons; a level gives [`ConfidenceLevel::score`].
    pub fn score(&self) -> Option<f64> {
        match self {
            Confidence::Score(n) => n.as_f64(),
            Confidence::Level(l) => Some(l.score()),
        }
    }
}

impl ConfidenceLevel {
    /// The rule by which levels become numbers: the middle of each band
    /// (high 0.9, medium 0.6, low 0.3). [`ConfidenceLevel::from_score`]
    /// gives the level back, so level -> number -> level is exact.
    pub fn score(self) -> f64 {
        match self {
            ConfidenceLevel::High => 0.9,
            ConfidenceLevel::Medium => 0.6,
            ConfidenceLevel::Low => 0.3,
        }
    }

    /// The rule by which numbers become levels: 0.75 and above high, 0.45
    /// and above medium, below that low.
    pub fn from_score(score: f64) -> ConfidenceLevel {
        if score >= 0.75 {
            ConfidenceLevel::High
        } else if score >= 0.45 {
            ConfidenceLevel::Medium
        } else {
            ConfidenceLevel::Low
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ConfidenceLevel::High => "high",
            ConfidenceLevel::Medium => "medium",
            ConfidenceLevel::Low => "low",
        }
    }
}

/// Lifecycle status. Unknown values are kept verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Status {
    Active,
    Deprecated,
    Archived,
    Quarantined,
    Other(String),
}

/// Any string: the four known values, or another kept as written.
impl JsonSchema for Status {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Status".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "Lifecycle status: `active`, `deprecated`, `archived`, `quarantined`, or another value kept as written.",
            "examples": ["active", "deprecated", "archived", "quarantined"]
        })
    }
}

impl From<String> for Status {
    fn from(s: String) -> Self {
        match s.as_str() {
            "active" => Status::Active,
            "deprecated" => Status::Deprecated,
            "archived" => Status::Archived,
            "quarantined" => Status::Quarantined,
            _ => Status::Other(s),
        }
    }
}

impl From<Status> for String {
    fn from(s: Status) -> Self {
        match s {
            Status::Active => "active".into(),
            Status::Deprecated => "deprecated".into(),
            Status::Archived => "archived".into(),
            Status::Quarantined => "quarantined".into(),
            Status::Other(s) => s,
        }
    }
}

/// Where an entry came from (seed 001's provenance comment).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beads_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Where an entry applies: a plain name (`global`) or a structured scope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Scope {
    Name(String),
    Detail(Box<ScopeDetail>),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScopeDetail {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Value>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl Playbook {
    pub fn section(&self, key: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.key == key)
    }

    /// Entries of one section (`None`: the entries before any section), in order.
    pub fn entries_in<'a>(&'a self, key: Option<&'a str>) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.section.as_deref() == key)
    }
}

/// A playbook and everything its reader noticed, in source order.
#[derive(Debug, Clone, Default)]
pub struct ReadOutput {
    pub playbook: Playbook,
    pub diagnostics: Vec<crate::Diagnostic>,
}
