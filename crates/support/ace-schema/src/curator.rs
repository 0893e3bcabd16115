//! The ace_beads curator's artifacts: the AceDelta, the curator's input and its
//! output. No project publishes these as JSON Schema, so ace-tools keeps its
//! own transcription in `schemas/curator/` (from ace_beads' zod schema and
//! the seed's text); the delta schema is the curator's "schema" check.

use std::sync::OnceLock;

use jsonschema::{Registry, Validator};
use serde_json::Value;

use crate::{errors_of, json, SchemaError};

const BASE: &str = "https://ace-tools.invalid/schemas/curator/";

pub mod files {
    pub const ACE_DELTA: &str = include_str!("../schemas/curator/ace-delta.schema.json");
    pub const INPUT: &str = include_str!("../schemas/curator/curator-input.schema.json");
    pub const OUTPUT: &str = include_str!("../schemas/curator/curator-output.schema.json");
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CuratorSchema {
    AceDelta,
    Input,
    Output,
}

impl CuratorSchema {
    pub fn file_name(self) -> &'static str {
        match self {
            CuratorSchema::AceDelta => "ace-delta.schema.json",
            CuratorSchema::Input => "curator-input.schema.json",
            CuratorSchema::Output => "curator-output.schema.json",
        }
    }
}

fn validator(schema: CuratorSchema) -> &'static Validator {
    static REGISTRY: OnceLock<Registry<'static>> = OnceLock::new();
    static CELLS: [OnceLock<Validator>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let registry = REGISTRY.get_or_init(|| {
        Registry::new()
            .add(
                format!("{BASE}ace-delta.schema.json"),
                json(files::ACE_DELTA),
            )
            .and_then(|r| {
                r.add(
                    format!("{BASE}curator-input.schema.json"),
                    json(files::INPUT),
                )
            })
            .and_then(|r| {
                r.add(
                    format!("{BASE}curator-output.schema.json"),
                    json(files::OUTPUT),
                )
            })
            .and_then(|r| r.prepare())
            .expect("bundled schemas form a valid registry (tested)")
    });
    CELLS[schema as usize].get_or_init(|| {
        let root = serde_json::json!({"$ref": format!("{BASE}{}", schema.file_name())});
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .offline()
            .with_registry(registry)
            .build(&root)
            .expect("bundled schemas compile (tested)")
    })
}

/// Every failure of `instance` against `schema`.
pub fn validate(schema: CuratorSchema, instance: &Value) -> Vec<SchemaError> {
    errors_of(validator(schema), instance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_good_delta_passes_and_a_bad_one_is_located() {
        let good = json!({
            "id": "3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f",
            "section": "testing",
            "op": "add",
            "content": "Run the focused test before the whole suite",
            "metadata": {
                "source": {"beadsId": "bd-12"},
                "confidence": 0.9, "helpful": 0, "harmful": 0, "tags": [],
                "evidence": "bd-12 failed twice", "createdAt": "2025-10-25T12:00:00Z"
            }
        });
        assert!(validate(CuratorSchema::AceDelta, &good).is_empty());
        let mut bad = good.clone();
        bad["op"] = json!("remove");
        bad["metadata"]["confidence"] = json!(2);
        let errors = validate(CuratorSchema::AceDelta, &bad);
        let pointers: Vec<_> = errors.iter().map(SchemaError::pointer).collect();
        assert!(pointers.contains(&"/op".to_owned()), "{pointers:?}");
        assert!(
            pointers.contains(&"/metadata/confidence".to_owned()),
            "{pointers:?}"
        );
        for s in [CuratorSchema::Input, CuratorSchema::Output] {
            let _ = validator(s);
        }
    }
}
