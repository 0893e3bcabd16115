use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::Extra;

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

/// A playbook as it was before a change, kept as cheaply as writing the
/// change over the playbook's own file needs: the playbook without its
/// entries or layout, and the entries the change altered or removed, as
/// they were (their origins say where they stood). Entries it does not list
/// are the same in the changed playbook.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Before {
    /// The playbook without entries or layout.
    pub shell: Playbook,
    /// The altered and removed entries as they were, in playbook order.
    pub originals: Vec<Entry>,
}

impl Before {
    /// The playbook without entries or layout.
    pub fn shell_of(pb: &mut Playbook) -> Playbook {
        let entries = std::mem::take(&mut pb.entries);
        let layout = std::mem::take(&mut pb.layout);
        let shell = pb.clone();
        pb.entries = entries;
        pb.layout = layout;
        shell
    }

    /// All of `pb`, for a change that does not say which entries it
    /// touched.
    pub fn of(pb: &Playbook) -> Before {
        let mut copy = pb.clone();
        let originals = std::mem::take(&mut copy.entries);
        copy.layout = Kept::default();
        Before {
            shell: copy,
            originals,
        }
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
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
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
    /// How the file it was read from was laid out, for that format's
    /// writer alone: not data, never written by another format.
    #[serde(skip)]
    #[schemars(skip)]
    pub layout: Kept,
}

/// A format's own record of how a file was laid out (its key order, its
/// prose around the bullets, the rest of a vAgenda document), so that a
/// rewrite in that format changes only what changed. `owner` names the
/// layout's kind (a format crate's `LAYOUT_KEY`); a writer uses a layout
/// only when it owns it, so a conversion into another format writes that
/// format's own clean file and carries no trace of the source's.
///
/// Equality ignores it, as it ignores [`Origin`]: two playbooks that hold
/// the same data are equal however their files were laid out.
#[derive(Debug, Clone)]
pub struct Layout {
    pub owner: &'static str,
    pub value: Value,
    /// What of the layout is content, not form, said for a loss report:
    /// AGENTS.md's prose and comments, the vAgenda document around the
    /// playbook. A writer of another format drops the layout, and with it
    /// this; the registry reports each as lost, so that `--strict` refuses.
    pub holds: Vec<String>,
}

/// The slot a [`Layout`] is kept in; every two are equal.
#[derive(Debug, Clone, Default)]
pub struct Kept(pub Option<Box<Layout>>);

impl PartialEq for Kept {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Playbook {
    /// The layout kept by `owner`, if the playbook was read by it.
    pub fn layout_of(&self, owner: &str) -> Option<&Value> {
        self.layout
            .0
            .as_deref()
            .filter(|l| l.owner == owner)
            .map(|l| &l.value)
    }

    pub fn set_layout(&mut self, owner: &'static str, value: Value) {
        self.set_layout_holding(owner, value, Vec::new());
    }

    /// [`Playbook::set_layout`] for a layout that keeps content the model
    /// has no field for ([`Layout::holds`]).
    pub fn set_layout_holding(&mut self, owner: &'static str, value: Value, holds: Vec<String>) {
        self.layout = Kept(Some(Box::new(Layout {
            owner,
            value,
            holds,
        })));
    }

    /// The owner of the kept layout and what content it holds, if any.
    pub fn layout_holds(&self) -> Option<(&'static str, &[String])> {
        self.layout
            .0
            .as_deref()
            .filter(|l| !l.holds.is_empty())
            .map(|l| (l.owner, l.holds.as_slice()))
    }
}

/// A field that is there, `null` included: a bare `version:` in
/// playbook.yaml is a null the writers keep, and serde's `Option` would
/// read the canonical JSON's `"version": null` back as no field at all.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
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
///
/// Only the fields nearly every entry has are stored inline; the others live
/// in [`Rare`] behind one box that exists only once one of them is set.
/// A million-entry playbook is read into one vector, and with every field
/// inline an entry would take 576 bytes before its strings. The rare fields read
/// through `Deref` (`entry.title`) and writing one (`entry.title = ...`)
/// allocates the box, so code reads as if every field were inline.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    pub id: String,
    /// Key of the section the entry belongs to; `None` before any section.
    pub section: Option<String>,
    /// vAgenda kind (`strategy`, `learning`, `rule`, `warning`, `note`).
    pub kind: Option<String>,
    pub content: String,
    /// Counters are signed so that a negative value in a file can be read,
    /// kept and reported rather than rejected.
    pub helpful: Option<i64>,
    pub harmful: Option<i64>,
    pub origin: Origin,
    /// Public so that struct literals can end in `..Entry::default()`;
    /// read and write the fields through `Deref` instead.
    pub rare: Option<Box<Rare>>,
}

/// The fields of an [`Entry`] that most entries leave empty, in two tiers:
/// those the skillbook eras and vAgenda set on every entry they have
/// (counters beyond two, status, timestamps, tags, evidence, `extra`)
/// here, and those only some vAgenda entries carry in [`Rarer`], behind
/// a second box. A kayba skill then costs 224 bytes of rare fields rather
/// than 448, on the 100,000 entries of a large skillbook; `entry.title`
/// reads through both `Deref`s as if it were inline.
#[derive(Debug, Clone, Default)]
pub struct Rare {
    pub tags: Option<Vec<String>>,
    pub evidence: Option<Vec<Evidence>>,
    pub neutral: Option<i64>,
    pub status: Option<Status>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub extra: Extra,
    /// Public for struct literals, as [`Entry::rare`].
    pub rarer: Option<Box<Rarer>>,
}

/// The fields of a [`Rare`] that only some vAgenda entries carry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rarer {
    pub title: Option<String>,
    pub confidence: Option<Confidence>,
    pub deprecation_reason: Option<String>,
    pub supersedes: Option<Vec<String>>,
    pub superseded_by: Option<String>,
    pub duplicate_of: Option<String>,
    pub links: Option<Vec<String>>,
    pub provenance: Option<Box<Provenance>>,
    pub scope: Option<Scope>,
    pub project_id: Option<String>,
}

static NO_RARE: std::sync::LazyLock<Rare> = std::sync::LazyLock::new(Rare::default);
static NO_RARER: std::sync::LazyLock<Rarer> = std::sync::LazyLock::new(Rarer::default);

impl std::ops::Deref for Entry {
    type Target = Rare;

    fn deref(&self) -> &Rare {
        self.rare.as_deref().unwrap_or(&NO_RARE)
    }
}

impl std::ops::DerefMut for Entry {
    fn deref_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }
}

impl std::ops::Deref for Rare {
    type Target = Rarer;

    fn deref(&self) -> &Rarer {
        self.rarer.as_deref().unwrap_or(&NO_RARER)
    }
}

impl std::ops::DerefMut for Rare {
    fn deref_mut(&mut self) -> &mut Rarer {
        self.rarer.get_or_insert_with(Box::default)
    }
}

/// A box touched but left empty equals none.
impl PartialEq for Rare {
    fn eq(&self, other: &Self) -> bool {
        self.tags == other.tags
            && self.evidence == other.evidence
            && self.neutral == other.neutral
            && self.status == other.status
            && self.created_at == other.created_at
            && self.updated_at == other.updated_at
            && self.extra == other.extra
            && **self == **other
    }
}

/// Compares what the entries hold: an entry whose rare fields were touched
/// but left empty equals one whose were never touched.
impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.section == other.section
            && self.kind == other.kind
            && self.content == other.content
            && self.helpful == other.helpful
            && self.harmful == other.harmful
            && **self == **other
    }
}

/// The serialized form of an [`Entry`], every field at its own key: what
/// the canonical JSON reads and what its schema describes.
#[derive(Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Entry", description = "One piece of learned advice.")]
struct EntryFields {
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
    // Boxed: few entries carry it.
    pub provenance: Option<Box<Provenance>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// Borrows an [`Entry`] in the order and with the omissions of
/// [`EntryFields`], so that writing canonical JSON copies nothing.
#[derive(Serialize)]
struct EntryRef<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    section: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a String>,
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<&'a Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<&'a Vec<Evidence>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<&'a Confidence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    helpful: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    harmful: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    neutral: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a Status>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deprecation_reason: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_at: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_at: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    supersedes: Option<&'a Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    superseded_by: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duplicate_of: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    links: Option<&'a Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    provenance: Option<&'a Provenance>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'a Scope>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project_id: Option<&'a String>,
    #[serde(skip_serializing_if = "Extra::is_empty")]
    extra: &'a Extra,
}

impl Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r: &Rare = self;
        EntryRef {
            id: &self.id,
            section: self.section.as_ref(),
            kind: self.kind.as_ref(),
            title: r.title.as_ref(),
            content: &self.content,
            tags: r.tags.as_ref(),
            evidence: r.evidence.as_ref(),
            confidence: r.confidence.as_ref(),
            helpful: self.helpful,
            harmful: self.harmful,
            neutral: r.neutral,
            status: r.status.as_ref(),
            deprecation_reason: r.deprecation_reason.as_ref(),
            created_at: r.created_at.as_ref(),
            updated_at: r.updated_at.as_ref(),
            supersedes: r.supersedes.as_ref(),
            superseded_by: r.superseded_by.as_ref(),
            duplicate_of: r.duplicate_of.as_ref(),
            links: r.links.as_ref(),
            provenance: r.provenance.as_deref(),
            scope: r.scope.as_ref(),
            project_id: r.project_id.as_ref(),
            extra: &r.extra,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = EntryFields::deserialize(deserializer)?;
        let rarer = Rarer {
            title: f.title,
            confidence: f.confidence,
            deprecation_reason: f.deprecation_reason,
            supersedes: f.supersedes,
            superseded_by: f.superseded_by,
            duplicate_of: f.duplicate_of,
            links: f.links,
            provenance: f.provenance,
            scope: f.scope,
            project_id: f.project_id,
        };
        let rare = Rare {
            tags: f.tags,
            evidence: f.evidence,
            neutral: f.neutral,
            status: f.status,
            created_at: f.created_at,
            updated_at: f.updated_at,
            extra: f.extra,
            rarer: (rarer != Rarer::default()).then(|| Box::new(rarer)),
        };
        Ok(Entry {
            id: f.id,
            section: f.section,
            kind: f.kind,
            content: f.content,
            helpful: f.helpful,
            harmful: f.harmful,
            origin: Origin::default(),
            rare: (rare != Rare::default()).then(|| Box::new(rare)),
        })
    }
}

impl JsonSchema for Entry {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        EntryFields::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        EntryFields::json_schema(generator)
    }
}

impl Entry {
    pub fn new(id: impl Into<String>, content: impl Into<String>) -> Self {
        Entry {
            id: id.into(),
            content: content.into(),
            ..Entry::default()
        }
    }

    /// The texts of the entry an agent or a reviewer reads, by field
    /// (an extension field by its name; each tag as `tags`).
    pub fn texts(&self) -> Vec<(&str, &str)> {
        let mut texts: Vec<(&str, &str)> = vec![("content", &self.content)];
        texts.extend(self.title.as_deref().map(|t| ("title", t)));
        texts.extend(self.section.as_deref().map(|t| ("section", t)));
        texts.extend(self.tags.iter().flatten().map(|t| ("tags", t.as_str())));
        for (key, v) in self.extra.iter() {
            if let Some(t) = v.as_str() {
                texts.push((key.as_str(), t));
            }
        }
        texts
    }

    /// Every optional field other than the section and the counters, with
    /// whether it holds a value: writers report the ones their format has no
    /// place for.
    pub fn optional_fields(&self) -> [(&'static str, bool); 16] {
        // Each box is looked up once: through `Deref`, every field would
        // look up both, and writers ask this of every entry.
        let r: &Rare = self;
        let rr: &Rarer = r;
        [
            ("kind", self.kind.is_some()),
            ("title", rr.title.is_some()),
            ("tags", r.tags.is_some()),
            ("evidence", r.evidence.is_some()),
            ("confidence", rr.confidence.is_some()),
            ("status", r.status.is_some()),
            ("deprecation_reason", rr.deprecation_reason.is_some()),
            ("created_at", r.created_at.is_some()),
            ("updated_at", r.updated_at.is_some()),
            ("supersedes", rr.supersedes.is_some()),
            ("superseded_by", rr.superseded_by.is_some()),
            ("duplicate_of", rr.duplicate_of.is_some()),
            ("links", rr.links.is_some()),
            ("provenance", rr.provenance.is_some()),
            ("scope", rr.scope.is_some()),
            ("project_id", rr.project_id.is_some()),
        ]
    }

    /// The curator-spec deduplication key of this entry (`section::normalized`).
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

impl Evidence {
    /// The item as one line of text: a note as it is, a reference as
    /// `type: ref (note)`, for a format that holds evidence as text.
    pub fn text(&self) -> String {
        match self {
            Evidence::Text(t) => t.clone(),
            Evidence::Ref(r) => {
                let mut line = [r.kind.as_deref(), r.reference.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(": ");
                if let Some(note) = &r.note {
                    line.push_str(&format!(" ({note})"));
                }
                line
            }
        }
    }
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

impl Status {
    /// The value as written.
    pub fn as_str(&self) -> &str {
        match self {
            Status::Active => "active",
            Status::Deprecated => "deprecated",
            Status::Archived => "archived",
            Status::Quarantined => "quarantined",
            Status::Other(s) => s,
        }
    }
}

impl From<Status> for String {
    fn from(s: Status) -> Self {
        match s {
            Status::Other(s) => s,
            known => known.as_str().to_owned(),
        }
    }
}

/// Where an entry came from (the curator spec's provenance comment).
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
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub inputs: Option<Value>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub outputs: Option<Value>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl Playbook {
    /// The first section of `key`. It goes through the list: a loop over
    /// entries or sections looks them up in [`Playbook::sections_by_key`].
    pub fn section(&self, key: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.key == key)
    }

    /// The first section of each key, as [`Playbook::section`] finds it.
    pub fn sections_by_key(&self) -> std::collections::HashMap<&str, &Section> {
        (self.section_places().into_iter())
            .map(|(k, i)| (k, &self.sections[i]))
            .collect()
    }

    /// The place in `sections` of the first section of each key.
    pub fn section_places(&self) -> std::collections::HashMap<&str, usize> {
        let mut first = std::collections::HashMap::with_capacity(self.sections.len());
        for (i, s) in self.sections.iter().enumerate() {
            first.entry(s.key.as_str()).or_insert(i);
        }
        first
    }
}

/// A playbook and everything its reader noticed, in source order.
#[derive(Debug, Clone, Default)]
pub struct ReadOutput {
    pub playbook: Playbook,
    pub diagnostics: Vec<crate::Diagnostic>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field set, so that the borrowed serializer is checked against
    /// the deserializer key by key.
    fn full() -> Value {
        serde_json::json!({
            "id": "str-00001",
            "section": "strategies",
            "kind": "strategy",
            "title": "A title",
            "content": "text",
            "tags": ["a", "b"],
            "evidence": ["seen", {"type": "run", "ref": "r1"}],
            "confidence": 0.5,
            "helpful": 3,
            "harmful": -1,
            "neutral": 0,
            "status": "deprecated",
            "deprecation_reason": "old",
            "created_at": "2025-01-01",
            "updated_at": "2025-01-02",
            "supersedes": ["str-00000"],
            "superseded_by": "str-00002",
            "duplicate_of": "str-00003",
            "links": ["l"],
            "provenance": {"delta_id": "d1"},
            "scope": "repo",
            "project_id": "p",
            "extra": {"x": 1}
        })
    }

    #[test]
    fn canonical_form_round_trips_key_for_key_in_order() {
        let v = full();
        let e: Entry = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            serde_json::to_string(&v).unwrap()
        );
        let bare: Entry = serde_json::from_str(r#"{"id":"a","content":"b"}"#).unwrap();
        assert!(bare.rare.is_none(), "no rare field, no box");
    }

    #[test]
    fn touching_a_rare_field_without_setting_it_changes_nothing() {
        let a = Entry::new("a", "b");
        let mut b = a.clone();
        b.title = None;
        assert!(b.rare.is_some());
        assert_eq!(a, b);
        b.title = Some("t".into());
        assert_ne!(a, b);
        assert_eq!(a.title, None, "a's view is the shared empty one");
    }

    #[test]
    fn an_entry_stays_small() {
        // The model of a million-entry playbook is one vector of these.
        assert!(
            std::mem::size_of::<Entry>() <= 160,
            "{}",
            std::mem::size_of::<Entry>()
        );
    }
}
