//! The skillbook's eras: the shapes kayba's releases save and load.

/// A shape of the skillbook, named by the `--skillbook-version` value that
/// writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Era {
    /// 0.3 to 0.6: `bullets`, with counters.
    Bullets,
    /// 0.7 to 0.8: `skills`, with counters, `justification`, `evidence`
    /// and `sources` (0.8).
    Counters,
    /// 0.9 to 0.10: the counters removed, a null `embedding` left out.
    Plain,
    /// 0.12 on: `schema_version` "2", `issue`/`insight`/`keywords`,
    /// `occurrences`, `active` and `*_count`; embeddings in a sidecar.
    V2,
}

impl Era {
    /// Every era, oldest first.
    pub const ALL: [Era; 4] = [Era::Bullets, Era::Counters, Era::Plain, Era::V2];

    /// The `--skillbook-version` value.
    pub fn value(self) -> &'static str {
        match self {
            Era::Bullets => "0.6",
            Era::Counters => "0.8",
            Era::Plain => "0.9",
            Era::V2 => "2",
        }
    }

    pub fn from_value(v: &str) -> Option<Era> {
        Era::ALL.into_iter().find(|e| e.value() == v)
    }

    /// The releases that save and load it, for messages.
    pub fn releases(self) -> &'static str {
        match self {
            Era::Bullets => "kayba 0.3 to 0.6",
            Era::Counters => "kayba 0.7 to 0.8",
            Era::Plain => "kayba 0.9 to 0.10",
            Era::V2 => "kayba 0.12 and later",
        }
    }

    /// The key of the object of skills.
    pub fn object(self) -> &'static str {
        match self {
            Era::Bullets => "bullets",
            _ => "skills",
        }
    }

    /// The top-level keys `save_to_file` writes, in its order.
    pub fn top_keys(self) -> &'static [&'static str] {
        match self {
            Era::Bullets => &["bullets", "sections", "next_id", "similarity_decisions"],
            Era::Counters | Era::Plain => {
                &["skills", "sections", "next_id", "similarity_decisions"]
            }
            Era::V2 => &[
                "schema_version",
                "skills",
                "sections",
                "next_id",
                "similarity_decisions",
            ],
        }
    }

    /// A skill's keys as `save_to_file` writes them, in its order (0.9's
    /// `embedding` only when it has one).
    pub fn skill_keys(self) -> &'static [&'static str] {
        match self {
            Era::Bullets => &[
                "id",
                "section",
                "content",
                "helpful",
                "harmful",
                "neutral",
                "created_at",
                "updated_at",
                "embedding",
                "status",
            ],
            Era::Counters => &crate::SKILL_KEYS,
            Era::Plain => &[
                "id",
                "section",
                "content",
                "justification",
                "evidence",
                "created_at",
                "updated_at",
                "embedding",
                "status",
                "sources",
            ],
            Era::V2 => &crate::V2_KEYS,
        }
    }

    /// The keys it saves as `null` when they hold nothing.
    pub fn nullable(self) -> &'static [&'static str] {
        match self {
            Era::Bullets | Era::Counters => &["justification", "evidence", "embedding"],
            Era::Plain => &["justification", "evidence"],
            Era::V2 => &["insight"],
        }
    }

    /// Whether its skills keep helpful/harmful/neutral counts.
    pub fn counts(self) -> bool {
        self != Era::Plain
    }
}
