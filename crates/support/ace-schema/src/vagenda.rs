//! The vAgenda / vContext schemas (the vAgenda ACE extension): the core document schema of
//! each spec version and the playbook extensions that hang off it.
//!
//! Nothing in the core schemas wires the ACE extension in (notes §4): a
//! `plan.playbook` is only "an object" there. Callers validate the document
//! against [`VagendaSchema::Document`] and each playbook against
//! [`VagendaSchema::AcePlaybook`] or [`VagendaSchema::EventPlaybook`]
//! themselves. Each spec version has its own registry because the v0.2 and
//! v0.3 core schemas share one `$id`; inside a registry the extensions'
//! relative `$ref`s (`./vagenda-core.schema.json#/$defs/dateTime`) resolve
//! by `$id`, offline.

use std::sync::OnceLock;

use jsonschema::{Registry, Validator};
use serde_json::Value;

use crate::{errors_of, json, SchemaError};

/// A vAgenda spec version with a published schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// vAgenda 0.2: `todoList` or `plan`; the ACE extension and the first
    /// event-log Playbooks extension.
    V02,
    /// vAgenda 0.3: adds the standalone `playbook`; PlanItem; `playbook.items`.
    V03,
    /// vContext 0.4: `vContextInfo`; narratives as maps.
    V04,
}

impl Version {
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V02 => "0.2",
            Version::V03 => "0.3",
            Version::V04 => "0.4",
        }
    }

    pub fn parse(s: &str) -> Option<Version> {
        match s {
            "0.2" => Some(Version::V02),
            "0.3" => Some(Version::V03),
            "0.4" => Some(Version::V04),
            _ => None,
        }
    }
}

/// What to check a value against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VagendaSchema {
    /// A whole document, by its core schema.
    Document,
    /// `#/$defs/Playbook` of the ACE extension (entries with `id`, `kind`, `text`).
    AcePlaybook,
    AceEntry,
    AcePatch,
    AcePatchOp,
    /// `#/$defs/Playbook` of the Playbooks extension (an event log).
    EventPlaybook,
    /// One event of the Playbooks extension (`#/$defs/PlaybookItem`, or
    /// v0.2's `PlaybookEntry`).
    EventItem,
}

/// The bundled files (provenance and SHA-256 in `schemas/README.md`).
pub mod files {
    pub const CORE_V02: &str = include_str!("../schemas/vagenda/vagenda-core.v0.2.schema.json");
    pub const ACE: &str = include_str!("../schemas/vagenda/vagenda-extension-ace.schema.json");
    pub const PLAYBOOKS_V02: &str =
        include_str!("../schemas/vagenda/vagenda-extension-playbooks.v0.2.schema.json");
    pub const CORE_V03: &str = include_str!("../schemas/vagenda/vagenda-core.v0.3.schema.json");
    pub const PLAYBOOKS_V03: &str =
        include_str!("../schemas/vagenda/vagenda-extension-playbooks.v0.3.schema.json");
    pub const CORE_V04: &str = include_str!("../schemas/vagenda/vcontext-core.schema.json");
    pub const PLAYBOOKS_V04: &str =
        include_str!("../schemas/vagenda/vcontext-extension-playbooks.schema.json");

    /// Every bundled file with its name in `schemas/vagenda/`.
    pub const ALL: [(&str, &str); 7] = [
        ("vagenda-core.v0.2.schema.json", CORE_V02),
        ("vagenda-extension-ace.schema.json", ACE),
        (
            "vagenda-extension-playbooks.v0.2.schema.json",
            PLAYBOOKS_V02,
        ),
        ("vagenda-core.v0.3.schema.json", CORE_V03),
        (
            "vagenda-extension-playbooks.v0.3.schema.json",
            PLAYBOOKS_V03,
        ),
        ("vcontext-core.schema.json", CORE_V04),
        ("vcontext-extension-playbooks.schema.json", PLAYBOOKS_V04),
    ];
}

fn id_of(schema: &Value) -> String {
    schema["$id"]
        .as_str()
        .expect("bundled vAgenda schemas have an $id (tested)")
        .to_owned()
}

/// The files one version's registry holds: core first, then extensions.
fn members(version: Version) -> &'static [&'static str] {
    match version {
        // The ACE extension only ever existed beside the 0.2 core.
        Version::V02 => &[files::CORE_V02, files::ACE, files::PLAYBOOKS_V02],
        Version::V03 => &[files::CORE_V03, files::PLAYBOOKS_V03],
        Version::V04 => &[files::CORE_V04, files::PLAYBOOKS_V04],
    }
}

fn registry(version: Version) -> &'static Registry<'static> {
    static CELLS: [OnceLock<Registry<'static>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    CELLS[version as usize].get_or_init(|| {
        let mut r = Registry::new();
        for text in members(version) {
            let v = json(text);
            r = r
                .add(id_of(&v), v)
                .expect("bundled vAgenda schemas form a registry (tested)");
        }
        r.prepare()
            .expect("bundled vAgenda schemas form a registry (tested)")
    })
}

/// The `$ref` target of `schema` for `version`, and the version whose
/// registry holds it. Worked out once per pair: it parses whole schema
/// files, and messages ask for it on every file checked.
fn target(schema: VagendaSchema, version: Version) -> &'static (Version, String) {
    static CELLS: [[OnceLock<(Version, String)>; 7]; 3] =
        [const { [const { OnceLock::new() }; 7] }; 3];
    CELLS[version as usize][index(schema)].get_or_init(|| {
        let core = |v: Version| id_of(&json(members(v)[0]));
        let ace = || id_of(&json(files::ACE));
        let events = |v: Version| id_of(&json(members(v).last().expect("non-empty")));
        match schema {
            VagendaSchema::Document => (version, core(version)),
            VagendaSchema::AcePlaybook => (Version::V02, format!("{}#/$defs/Playbook", ace())),
            VagendaSchema::AceEntry => (Version::V02, format!("{}#/$defs/PlaybookEntry", ace())),
            VagendaSchema::AcePatch => (Version::V02, format!("{}#/$defs/PlaybookPatch", ace())),
            VagendaSchema::AcePatchOp => {
                (Version::V02, format!("{}#/$defs/PlaybookPatchOp", ace()))
            }
            VagendaSchema::EventPlaybook => {
                (version, format!("{}#/$defs/Playbook", events(version)))
            }
            VagendaSchema::EventItem => {
                let item = match version {
                    Version::V02 => "PlaybookEntry",
                    Version::V03 | Version::V04 => "PlaybookItem",
                };
                (version, format!("{}#/$defs/{item}", events(version)))
            }
        }
    })
}

fn index(schema: VagendaSchema) -> usize {
    SCHEMAS.iter().position(|s| *s == schema).expect("listed")
}

const SCHEMAS: [VagendaSchema; 7] = [
    VagendaSchema::Document,
    VagendaSchema::AcePlaybook,
    VagendaSchema::AceEntry,
    VagendaSchema::AcePatch,
    VagendaSchema::AcePatchOp,
    VagendaSchema::EventPlaybook,
    VagendaSchema::EventItem,
];

fn validator(schema: VagendaSchema, version: Version) -> &'static Validator {
    static CELLS: [[OnceLock<Validator>; 7]; 3] = [const { [const { OnceLock::new() }; 7] }; 3];
    CELLS[version as usize][index(schema)].get_or_init(|| {
        let (home, uri) = target(schema, version);
        let home = *home;
        // The schemas mark timestamps `format: date-time` and the notes'
        // reference results were produced with formats checked.
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .offline()
            .with_registry(registry(home))
            .build(&serde_json::json!({ "$ref": uri }))
            .expect("bundled vAgenda schemas compile (tested)")
    })
}

/// Every failure of `instance` against `schema` as published for `version`.
pub fn validate(schema: VagendaSchema, version: Version, instance: &Value) -> Vec<SchemaError> {
    errors_of(validator(schema, version), instance)
}

/// The file name to show in messages.
pub fn schema_name(schema: VagendaSchema, version: Version) -> String {
    let (_, uri) = target(schema, version);
    let (doc, fragment) = uri.split_once('#').unwrap_or((uri, ""));
    let file = doc.rsplit('/').next().unwrap_or(doc);
    if fragment.is_empty() {
        file.to_owned()
    } else {
        format!("{file}#{fragment}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_schema_compiles_for_every_version() {
        for v in [Version::V02, Version::V03, Version::V04] {
            for s in SCHEMAS {
                let _ = validator(s, v);
            }
        }
    }

    #[test]
    fn relative_refs_resolve_to_the_core_date_time() {
        let entry = json!({"id": "e", "kind": "rule", "text": "t", "createdAt": "2025-01-01"});
        let errs = validate(VagendaSchema::AceEntry, Version::V02, &entry);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs.iter().all(|e| e.path == ["createdAt"]));
        let ok =
            json!({"id": "e", "kind": "rule", "text": "t", "createdAt": "2025-01-01T00:00:00Z"});
        assert!(validate(VagendaSchema::AceEntry, Version::V02, &ok).is_empty());
    }

    #[test]
    fn documents_are_checked_by_their_version() {
        let v02 = json!({"vAgendaInfo": {"version": "0.2"}, "todoList": {"items": []}});
        assert!(validate(VagendaSchema::Document, Version::V02, &v02).is_empty());
        let errs = validate(VagendaSchema::Document, Version::V04, &v02);
        assert!(errs
            .iter()
            .any(|e| e.missing.as_deref() == Some("vContextInfo")));
        assert_eq!(
            schema_name(VagendaSchema::AcePatch, Version::V04),
            "vagenda-extension-ace.schema.json#/$defs/PlaybookPatch"
        );
    }
}
