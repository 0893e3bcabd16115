//! A delta dialect that is not built in, registered by this test alone:
//! `{"test_ops": [...]}`, each operation a canonical change with the
//! entry in the canonical JSON. Registering it is all it takes for the
//! checks every built-in dialect goes through to cover it: detection,
//! a difference written in it and applied back, and the apply pipeline
//! (`tests/support/dialects.rs`). None of those checks names a dialect.

use ace_model::delta::{Change, Delta, Deprecation, Op, Rules, Target};
use ace_model::mint::{IdScheme, Stem};
use ace_model::{rules, Diagnostic, Entry, Span};
use ace_registry::{
    Confidence, DeltaDialect, DeltaReadCtx, DeltaWriteCtx, Registry, Sniff, WrittenDelta,
};
use ace_tests::dialects;
use serde_json::{json, Value};

struct TestOps;

static TEST_OPS: TestOps = TestOps;

const KEY: &str = "test_ops";

fn entry(v: &Value) -> Option<Entry> {
    serde_json::from_value(v.clone()).ok()
}

fn id(v: &Value) -> Option<Target> {
    Some(Target::Id(v.get("id")?.as_str()?.to_owned()))
}

fn change(v: &Value) -> Option<Change> {
    let count = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0);
    Some(match v.get("op")?.as_str()? {
        "add" => Change::Add(entry(v.get("entry")?)?),
        "remove" => Change::Remove { target: id(v)? },
        "count" => Change::Count {
            target: id(v)?,
            helpful: count("helpful"),
            harmful: count("harmful"),
            neutral: count("neutral"),
        },
        "deprecate" => Change::Deprecate {
            target: id(v)?,
            reason: v.get("reason").and_then(Value::as_str).map(str::to_owned),
        },
        "set" => Change::Set {
            target: id(v)?,
            from: Box::new(entry(v.get("from")?)?),
            fields: serde_json::from_value(v.get("fields")?.clone()).ok()?,
        },
        _ => return None,
    })
}

impl DeltaDialect for TestOps {
    fn name(&self) -> &'static str {
        "test-ops"
    }

    fn describe(&self) -> &'static str {
        "canonical changes in JSON (registered by a test)"
    }

    fn what(&self) -> &'static str {
        "test operations"
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        input.top_has(KEY).then_some(Confidence::Marker)
    }

    fn read(&self, text: &str, _: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Diagnostic::new(&rules::PARSE_ERROR, Span::new(0, 0), e.to_string()))?;
        let Some(ops) = value.get(KEY).and_then(Value::as_array) else {
            return Ok(None);
        };
        let mut delta = Delta::new(Span::new(0, text.len()));
        for v in ops {
            match change(v) {
                Some(change) => delta.ops.push(Op {
                    change,
                    span: Span::default(),
                }),
                None => delta.refuse(
                    ace_model::delta::Reason::Invalid,
                    Span::default(),
                    format!("not a test operation: {v}"),
                ),
            }
        }
        Ok(Some(vec![delta]))
    }

    /// Rules no built-in dialect has: the entries it adds without an ID
    /// are numbered `tst-NNNN`, and a touched entry is deprecated once
    /// harmful is at least twice helpful.
    fn rules(&self) -> Rules {
        Rules {
            ids: Some(IdScheme {
                stem: Stem::Text("tst"),
                width: 4,
                ..IdScheme::PREFIXED
            }),
            deprecate: Some(Deprecation {
                factor: 2,
                offset: 0,
            }),
            ..Rules::PLAIN
        }
    }

    fn writes(&self) -> bool {
        true
    }

    fn write(&self, delta: &Delta, _: &DeltaWriteCtx<'_>) -> Option<WrittenDelta> {
        let mut lost = Vec::new();
        let mut ops = Vec::new();
        for op in &delta.ops {
            let target = |t: &Target, lost: &mut Vec<String>| t.id_for("test-ops", lost);
            let v = match &op.change {
                Change::Add(e) => json!({"op": "add", "entry": e}),
                Change::Remove { target: t } => match target(t, &mut lost) {
                    Some(id) => json!({"op": "remove", "id": id}),
                    None => continue,
                },
                Change::Count {
                    target: t,
                    helpful,
                    harmful,
                    neutral,
                } => match target(t, &mut lost) {
                    Some(id) => {
                        json!({"op": "count", "id": id, "helpful": helpful, "harmful": harmful, "neutral": neutral})
                    }
                    None => continue,
                },
                Change::Deprecate { target: t, reason } => match target(t, &mut lost) {
                    Some(id) => json!({"op": "deprecate", "id": id, "reason": reason}),
                    None => continue,
                },
                Change::Set {
                    target: t,
                    from,
                    fields,
                } => match target(t, &mut lost) {
                    Some(id) => json!({"op": "set", "id": id, "from": from, "fields": fields}),
                    None => continue,
                },
                other => {
                    lost.push(format!("`{}` has no test operation", other.name()));
                    continue;
                }
            };
            ops.push(v);
        }
        Some((json!({ KEY: ops }), lost))
    }
}

/// The built-in registry with the test dialect: the one line it takes.
fn registry() -> Registry {
    Registry::builtin().clone().with_dialect(&TEST_OPS)
}

#[test]
fn names_and_detection_come_from_the_registry() {
    let r = registry();
    assert_eq!(r.dialect("test-ops").map(|d| d.name()), Some("test-ops"));
    assert!(r.written_dialects().any(|d| d.name() == "test-ops"));
    // The built-in registry does not know it.
    assert!(Registry::builtin().dialect("test-ops").is_none());
    dialects::each_dialect_detects_its_own_output(&r);
}

#[test]
fn the_diff_then_apply_check_covers_it() {
    let runs = dialects::a_diff_applied_gives_the_new_entries(&registry());
    let exact = runs
        .iter()
        .find(|(name, _)| *name == "test-ops")
        .map(|r| r.1);
    // Every format's pair, its entries compared exactly: the dialect
    // carries every field.
    assert_eq!(exact, Some(registry().formats().len()));
}

#[test]
fn the_apply_pipeline_covers_it() {
    dialects::the_pipeline_applies_every_dialect(&registry());
}

/// Its rules are its own, and the engine applies them: an entry added
/// without an ID is numbered in its scheme, whatever the playbook's, and
/// an entry found harmful twice as often as helpful is deprecated (a
/// format with statuses keeps it so; the markdown playbook removes it).
#[test]
fn the_engine_applies_its_own_rules() {
    let r = registry();
    let delta = json!({KEY: [
        {"op": "add", "entry": {"id": "", "section": "strategies", "content": "Name things for what they do."}},
        {"op": "count", "id": "str-00001", "harmful": 2},
        {"op": "count", "id": "str-00002", "harmful": 1}
    ]})
    .to_string();
    let text = "## STRATEGIES\n[str-00001] helpful=1 harmful=0 :: Check the input first.\n[str-00002] helpful=1 harmful=0 :: Keep functions small.\n";
    let format = r.by_name("markdown").unwrap();
    let playbook = ace_registry::read(format, text).unwrap().playbook;
    let opts = ace_apply::RunOptions {
        registry: &r,
        dialect: None,
        read: Default::default(),
        apply: ace_apply::Options {
            now: "2026-01-02T00:00:00Z".into(),
            ..ace_apply::Options::default()
        },
    };
    let applied = ace_apply::run(
        ace_apply::Subject {
            format,
            text,
            companion: None,
            playbook,
        },
        &[ace_apply::DeltaSource {
            name: "delta",
            file_name: None,
            text: &delta,
        }],
        &opts,
    );
    assert_eq!(applied.refused(), 0, "{}", applied.report_json());
    let ids: Vec<&str> = applied
        .playbook
        .entries
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    // str-00001 (helpful 1, harmful 2) is deprecated, and the markdown
    // playbook has no status: it is removed. str-00002 (1, 1) stays.
    assert_eq!(ids, ["str-00002", "tst-0001"]);
}
