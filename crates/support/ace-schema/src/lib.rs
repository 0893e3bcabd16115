//! The schemas ACE projects publish, compiled into the binary, and their
//! errors turned into diagnostics at the offending line and column.
//!
//! Nothing is fetched: every `$ref` resolves inside a registry built from the
//! files in `schemas/` (provenance in `schemas/README.md`). Validation runs on
//! the `serde_json::Value` projection of an [`ace_jsonspan::Node`] tree, and
//! each error's instance path is walked back through that tree (notes/anchors.md
//! §4): a bad value is reported at the value, a missing property at the
//! object's opening brace, an unexpected property at its key.

use std::sync::OnceLock;

use ace_jsonspan::Node;
use ace_model::{rules::Rule, Diagnostic, Span};
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Registry, Validator};
use serde_json::Value;

/// The two incompatible generations of the skill's `bullet.schema.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// Commit c1db146: `confidence` a level, `scope` a name.
    One,
    /// Shipped today: `confidence` a number, `scope` an object.
    Two,
}

impl Generation {
    /// The generation the skill ships today, which new playbooks follow.
    pub const CURRENT: Generation = Generation::Two;

    pub fn number(self) -> u8 {
        match self {
            Generation::One => 1,
            Generation::Two => 2,
        }
    }

    /// The generation this one is not.
    pub fn other(self) -> Generation {
        match self {
            Generation::One => Generation::Two,
            Generation::Two => Generation::One,
        }
    }

    pub fn from_number(n: u8) -> Option<Generation> {
        match n {
            1 => Some(Generation::One),
            2 => Some(Generation::Two),
            _ => None,
        }
    }
}

/// A schema of the skill (the skill spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkillSchema {
    Bullet,
    Delta,
    ReflectorOutput,
    CuratorOutput,
}

impl SkillSchema {
    pub fn file_name(self) -> &'static str {
        match self {
            SkillSchema::Bullet => "bullet.schema.json",
            SkillSchema::Delta => "delta.schema.json",
            SkillSchema::ReflectorOutput => "reflector_output.schema.json",
            SkillSchema::CuratorOutput => "curator_output.schema.json",
        }
    }
}

const SKILL_BASE: &str = "https://claude.com/schemas/ace/";

/// The bundled files, by name; `bullet.schema.json` is per generation.
pub mod files {
    pub const BULLET_GEN1: &str = include_str!("../schemas/skill/bullet.gen1.schema.json");
    pub const BULLET_GEN2: &str = include_str!("../schemas/skill/bullet.schema.json");
    pub const DELTA: &str = include_str!("../schemas/skill/delta.schema.json");
    pub const REFLECTOR_OUTPUT: &str =
        include_str!("../schemas/skill/reflector_output.schema.json");
    pub const CURATOR_OUTPUT: &str = include_str!("../schemas/skill/curator_output.schema.json");
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("bundled schemas are valid JSON (tested)")
}

fn registry(gen: Generation) -> &'static Registry<'static> {
    static ONE: OnceLock<Registry<'static>> = OnceLock::new();
    static TWO: OnceLock<Registry<'static>> = OnceLock::new();
    let (cell, bullet) = match gen {
        Generation::One => (&ONE, files::BULLET_GEN1),
        Generation::Two => (&TWO, files::BULLET_GEN2),
    };
    cell.get_or_init(|| {
        let uri = |name: &str| format!("{SKILL_BASE}{name}");
        Registry::new()
            .add(uri("bullet.schema.json"), json(bullet))
            .and_then(|r| r.add(uri("delta.schema.json"), json(files::DELTA)))
            .and_then(|r| {
                r.add(
                    uri("reflector_output.schema.json"),
                    json(files::REFLECTOR_OUTPUT),
                )
            })
            .and_then(|r| {
                r.add(
                    uri("curator_output.schema.json"),
                    json(files::CURATOR_OUTPUT),
                )
            })
            .and_then(|r| r.prepare())
            .expect("bundled schemas form a valid registry (tested)")
    })
}

fn validator(schema: SkillSchema, gen: Generation) -> &'static Validator {
    type Cell = OnceLock<Validator>;
    static CELLS: [[Cell; 4]; 2] = [
        [Cell::new(), Cell::new(), Cell::new(), Cell::new()],
        [Cell::new(), Cell::new(), Cell::new(), Cell::new()],
    ];
    let row = &CELLS[usize::from(gen.number() - 1)];
    let cell = match schema {
        SkillSchema::Bullet => &row[0],
        SkillSchema::Delta => &row[1],
        SkillSchema::ReflectorOutput => &row[2],
        SkillSchema::CuratorOutput => &row[3],
    };
    cell.get_or_init(|| {
        let root = serde_json::json!({"$ref": format!("{SKILL_BASE}{}", schema.file_name())});
        // Formats are left to the callers' own checks (ACE039 for
        // timestamps), which say what is wrong instead of "fails format".
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .should_validate_formats(false)
            .offline()
            .with_registry(registry(gen))
            .build(&root)
            .expect("bundled schemas compile (tested)")
    })
}

/// One schema failure, located by instance path.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    /// Instance path segments (`["bullets", "0", "confidence"]`).
    pub path: Vec<String>,
    /// The schema keyword that failed (`type`, `required`, ...).
    pub keyword: String,
    /// What is wrong, without the location.
    pub message: String,
    /// For `required`: the missing property.
    pub missing: Option<String>,
    /// For `additionalProperties`: the unexpected keys.
    pub unexpected: Vec<String>,
}

impl SchemaError {
    /// The path as a JSON Pointer, `""` for the document itself.
    pub fn pointer(&self) -> String {
        self.path
            .iter()
            .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
            .collect()
    }
}

/// Every failure of `instance` against `schema` of generation `gen`.
pub fn validate(schema: SkillSchema, gen: Generation, instance: &Value) -> Vec<SchemaError> {
    errors_of(validator(schema, gen), instance)
}

/// Whether `instance` passes `schema` of generation `gen`.
pub fn is_valid(schema: SkillSchema, gen: Generation, instance: &Value) -> bool {
    validator(schema, gen).is_valid(instance)
}

fn errors_of(validator: &Validator, instance: &Value) -> Vec<SchemaError> {
    // Nearly every instance is valid, and `is_valid` answers that without
    // the error iterators' allocations.
    if validator.is_valid(instance) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for e in validator.iter_errors(instance) {
        convert(&e, &mut out, None);
    }
    out
}

/// How well a failed branch of `oneOf`/`anyOf` matched, lower is better:
/// a branch whose very first problem is the value's type did not fit at
/// all; then fewer errors; then errors deeper in the value (the branch
/// got further), as python-jsonschema's `best_match` ranks them.
fn branch_rank(
    branch: &[jsonschema::ValidationError<'static>],
    base: usize,
) -> (bool, usize, usize) {
    let wrong_type = branch.iter().any(|e| {
        matches!(e.kind(), ValidationErrorKind::Type { .. })
            && e.instance_path().iter().count() == base
    });
    let deepest = branch
        .iter()
        .map(|e| e.instance_path().iter().count())
        .max()
        .unwrap_or(0);
    (wrong_type, branch.len(), usize::MAX - deepest)
}

/// One validation error as [`SchemaError`]s. A failed `oneOf`/`anyOf` is
/// replaced by the errors of its best-matching branch, each at its own
/// place, saying which branch it was: the other branches' complaints are
/// about shapes the value was never meant to have.
fn convert(e: &jsonschema::ValidationError<'_>, out: &mut Vec<SchemaError>, via: Option<&str>) {
    let path: Vec<String> = e.instance_path().iter().map(|s| s.to_string()).collect();
    let keyword = e.kind().keyword().to_owned();
    if let ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } =
        e.kind()
    {
        let best = context
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.is_empty())
            .min_by_key(|(_, b)| branch_rank(b, path.len()));
        if let Some((i, branch)) = best {
            let note = format!(
                "closest of the {} shapes `{keyword}` allows (#{}): ",
                context.len(),
                i + 1
            );
            let note = match via {
                Some(outer) => format!("{outer}{note}"),
                None => note,
            };
            for inner in branch {
                convert(inner, out, Some(&note));
            }
            return;
        }
    }
    let (missing, unexpected) = match e.kind() {
        ValidationErrorKind::Required { property } => (
            Some(
                property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned),
            ),
            Vec::new(),
        ),
        ValidationErrorKind::AdditionalProperties { unexpected } => (None, unexpected.clone()),
        _ => (None, Vec::new()),
    };
    let message = describe(e.kind(), e.instance());
    out.push(SchemaError {
        message: match via {
            Some(note) => format!("{note}{message}"),
            None => message,
        },
        path,
        keyword,
        missing,
        unexpected,
    });
}

/// A value for a message: short, on one line.
fn show(v: &Value) -> String {
    let s = match v {
        Value::Object(_) => return "an object".into(),
        Value::Array(_) => return "an array".into(),
        other => other.to_string(),
    };
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn describe(kind: &ValidationErrorKind, instance: &Value) -> String {
    match kind {
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            match instance {
                Value::Object(_) | Value::Array(_) | Value::Null => {
                    format!("expected {expected}, found {}", type_name(instance))
                }
                _ => format!(
                    "expected {expected}, found {} {}",
                    type_name(instance),
                    show(instance)
                ),
            }
        }
        ValidationErrorKind::Enum { options } => {
            format!("expected one of {options}, found {}", show(instance))
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("{} does not match the pattern `{pattern}`", show(instance))
        }
        ValidationErrorKind::Required { property } => {
            format!("missing required property {property}")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let keys: Vec<String> = unexpected.iter().map(|k| format!("`{k}`")).collect();
            format!("unexpected properties {}", keys.join(", "))
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "{} is {} characters long, shorter than the minimum {limit}",
            show(instance),
            instance.as_str().map_or(0, |s| s.chars().count())
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "text is {} characters long, longer than the maximum {limit}",
            instance.as_str().map_or(0, |s| s.chars().count())
        ),
        ValidationErrorKind::MinItems { limit } => {
            format!("expected at least {limit} items, found {}", len(instance))
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("expected at most {limit} items, found {}", len(instance))
        }
        ValidationErrorKind::Minimum { limit } => {
            format!("{} is less than the minimum {limit}", show(instance))
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("{} is greater than the maximum {limit}", show(instance))
        }
        ValidationErrorKind::UniqueItems => "items are not unique".into(),
        ValidationErrorKind::MinProperties { limit } => {
            format!("expected at least {limit} properties")
        }
        ValidationErrorKind::AnyOf { .. } => {
            "matches none of the allowed shapes (anyOf)".to_string()
        }
        ValidationErrorKind::OneOfNotValid { .. } => {
            "matches none of the allowed shapes (oneOf)".to_string()
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the allowed shapes (oneOf)".to_string()
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!(
                "expected {}, found {}",
                show(expected_value),
                show(instance)
            )
        }
        ValidationErrorKind::Format { format } => {
            format!("{} is not a valid `{format}`", show(instance))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("{} is not a multiple of {multiple_of}", show(instance))
        }
        // The remaining keywords do not occur in the bundled schemas.
        _ => format!("fails `{}`", kind.keyword()),
    }
}

fn len(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

/// Schema errors as diagnostics of `rule`, each at its place in the source:
/// unexpected properties at their keys (one diagnostic per key), a missing
/// property at the opening brace of its object, anything else at the value.
/// `root` is the node the schema was applied to, at JSON Pointer `base` in
/// the document; `schema` names the schema in the message.
pub fn diagnostics(
    errors: &[SchemaError],
    root: &Node,
    rule: &Rule,
    base: &str,
    schema: &str,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for e in errors {
        let at = root.locate(&e.path);
        let pointer = format!("{base}{}", e.pointer());
        let place = if pointer.is_empty() {
            format!("document ({schema})")
        } else {
            format!("`{pointer}` ({schema})")
        };
        if !e.unexpected.is_empty() {
            for key in &e.unexpected {
                let span = at
                    .node
                    .member(key)
                    .map(|m| m.key_span)
                    .unwrap_or_else(|| at.value_span());
                out.push(Diagnostic::new(
                    rule,
                    span,
                    format!("{place}: unexpected property `{key}`; the schema allows no other properties"),
                ));
            }
            continue;
        }
        let span: Span = at.value_span();
        out.push(Diagnostic::new(
            rule,
            span,
            format!("{place}: {}", e.message),
        ));
    }
    out
}

pub mod curator;
pub mod vagenda;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bundled_schemas_compile_for_both_generations() {
        for gen in [Generation::One, Generation::Two] {
            for s in [
                SkillSchema::Bullet,
                SkillSchema::Delta,
                SkillSchema::ReflectorOutput,
                SkillSchema::CuratorOutput,
            ] {
                let _ = validator(s, gen);
            }
        }
    }

    #[test]
    fn bundled_files_are_unchanged() {
        use sha2::{Digest, Sha256};
        let readme = include_str!("../schemas/README.md");
        let mut all = vec![
            ("bullet.gen1.schema.json", files::BULLET_GEN1),
            ("bullet.schema.json", files::BULLET_GEN2),
            ("delta.schema.json", files::DELTA),
            ("reflector_output.schema.json", files::REFLECTOR_OUTPUT),
            ("curator_output.schema.json", files::CURATOR_OUTPUT),
        ];
        all.extend(vagenda::files::ALL);
        all.extend([
            ("ace-delta.schema.json", curator::files::ACE_DELTA),
            ("curator-input.schema.json", curator::files::INPUT),
            ("curator-output.schema.json", curator::files::OUTPUT),
        ]);
        for (name, text) in all {
            let digest: String = Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let row = readme
                .lines()
                .find(|l| l.starts_with(&format!("| `{name}` ")))
                .unwrap_or_else(|| panic!("{name} has a row in schemas/README.md"));
            assert!(row.contains(&digest), "{name} changed: {digest}");
            let v = json(text);
            let id = v["$id"].as_str().unwrap();
            if id.starts_with("https://ace-tools.invalid/") {
                continue;
            }
            if id.starts_with(SKILL_BASE) {
                assert_eq!(v["$schema"], "http://json-schema.org/draft-07/schema#");
            } else {
                assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
                assert!(
                    id.starts_with("https://vagenda.dev/schemas/")
                        || id.starts_with("https://vcontext.dev/schemas/")
                );
            }
        }
    }

    fn bullet(confidence: Value, scope: Value) -> Value {
        json!({
            "id": "bullet-2025-10-25-001",
            "title": "A good title",
            "content": "Content that is long enough to pass.",
            "tags": ["a.b"],
            "confidence": confidence,
            "scope": scope,
        })
    }

    #[test]
    fn generations_disagree_on_confidence_and_scope() {
        let g1 = bullet(json!("high"), json!("global"));
        let g2 = bullet(
            json!(0.8),
            json!({"domain": "x", "inputs": [], "outputs": []}),
        );
        assert!(validate(SkillSchema::Bullet, Generation::One, &g1).is_empty());
        assert!(validate(SkillSchema::Bullet, Generation::Two, &g2).is_empty());
        let errs = validate(SkillSchema::Bullet, Generation::Two, &g1);
        let paths: Vec<String> = errs.iter().map(SchemaError::pointer).collect();
        assert_eq!(paths, ["/confidence", "/scope"]);
        assert_eq!(errs[0].message, "expected number, found a string \"high\"");
    }

    #[test]
    fn the_delta_resolves_the_bullet_of_its_generation() {
        let delta = json!({"new_bullets": [bullet(json!("high"), json!("global"))]});
        assert!(validate(SkillSchema::Delta, Generation::One, &delta).is_empty());
        let errs = validate(SkillSchema::Delta, Generation::Two, &delta);
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].path, ["new_bullets", "0", "confidence"]);
    }

    #[test]
    fn errors_point_at_keys_values_and_openings() {
        let text = "{\n  \"proposed_deltas\": {\"counters\": [{\"id\": 7}]},\n  \"extra\": 1\n}";
        let doc = ace_jsonspan::parse(text).unwrap();
        let errs = validate(
            SkillSchema::ReflectorOutput,
            Generation::Two,
            &doc.root.to_value(),
        );
        let diags = diagnostics(
            &errs,
            &doc.root,
            &ace_model::rules::DELTA_SCHEMA,
            "",
            "reflector_output.schema.json",
        );
        let at = |d: &Diagnostic| &text[d.span.start..d.span.end];
        let by_msg = |needle: &str| {
            diags
                .iter()
                .find(|d| d.message.contains(needle))
                .unwrap_or_else(|| panic!("no `{needle}` in {diags:#?}"))
        };
        assert_eq!(at(by_msg("justification")), "{");
        assert_eq!(by_msg("justification").span.start, 0);
        assert_eq!(at(by_msg("unexpected property `extra`")), "\"extra\"");
        assert_eq!(at(by_msg("/proposed_deltas/counters/0/id")), "7");
    }
}
