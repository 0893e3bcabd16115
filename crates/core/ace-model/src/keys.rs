//! Names of `extra` keys that more than one format reads or writes. A key
//! lives here when two format crates must agree on it without knowing each
//! other.

/// On a section: the heading level when it is not 2 (`### Build & Test`).
pub const HEADING_LEVEL: &str = "heading_level";

/// On an entry: the curator spec's `Aggregated from N instances` bracket field.
pub const AGGREGATED_FROM: &str = "aggregated_from";
