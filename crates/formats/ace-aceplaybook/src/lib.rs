//! jmanhype/ace-playbook's playbook files (commit eaa1f01), in two shapes:
//!
//! - the trainer's: `OfflineTrainer.save_playbook` writes `{version:
//!   "v1.0.0", created_at, training_config, bullets}` with
//!   `json.dump(indent=2)` (`ace/ops/offline_trainer.py`), and
//!   `load_initial_playbook` makes each bullet a `PlaybookBullet(**bullet)`,
//!   so a bullet is the model's columns (`ace/models/playbook.py`): `id`,
//!   `domain_id`, `content`, `section` (`Helpful`, `Harmful`, `Neutral`),
//!   `helpful_count`, `harmful_count`, `tags`, `embedding`, `created_at`,
//!   `last_used_at`, `stage`;
//! - the list its `.specify/memory/playbooks/README.md` documents:
//!   `[{content, section: "Strategies"|"Pitfalls", helpful_count,
//!   harmful_count, tags}]`, with no IDs, one list on a line for tags.
//!
//! The trainer's `bullet.to_dict()` has no definition at that commit, so
//! the bullet's keys are those its loader takes.

mod format;

pub use format::{AcePlaybook, FORMAT};

use ace_format::{Read, ReadCtx};
use ace_model::{Diagnostic, Entry, Playbook, ReadOutput, WriteReport};
use ace_records::{Field, Fill, Slot, Writer};
use serde_json::{json, Map, Value};

/// The owner name of the layout a file is read with.
pub const LAYOUT_KEY: &str = "ace-playbook";

/// The project, as messages name it.
pub const PROJECT: &str = "ace-playbook";

/// A bullet of the trainer's file: `PlaybookBullet`'s columns, in order.
pub const TRAINER: &[Field] = &[
    Field::new("id", Slot::Id).required(),
    Field::new("domain_id", Slot::Extra),
    Field::new("content", Slot::Content).required(),
    Field::new("section", Slot::Section),
    Field::new("helpful_count", Slot::Helpful).fill(Fill::Zero),
    Field::new("harmful_count", Slot::Harmful).fill(Fill::Zero),
    Field::new("tags", Slot::Tags).fill(Fill::EmptyList),
    Field::new("embedding", Slot::Extra),
    Field::new("created_at", Slot::Created),
    Field::new("last_used_at", Slot::Extra),
    Field::new("stage", Slot::Extra),
];

/// A bullet of the README's list.
pub const LIST: &[Field] = &[
    Field::new("content", Slot::Content).required(),
    Field::new("section", Slot::Section).required(),
    Field::new("helpful_count", Slot::Helpful).fill(Fill::Zero),
    Field::new("harmful_count", Slot::Harmful).fill(Fill::Zero),
    Field::new("tags", Slot::Tags).fill(Fill::EmptyList),
];

/// Which shape a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Trainer,
    List,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Trainer => "trainer",
            Shape::List => "list",
        }
    }

    pub fn from_name(name: &str) -> Option<Shape> {
        match name {
            "trainer" => Some(Shape::Trainer),
            "list" => Some(Shape::List),
            _ => None,
        }
    }
}

/// The shape of a text, when it is one of the project's files: the
/// trainer's by its root object's `training_config` and `bullets`, the
/// list by bullets with counters and a section but no `id` (the skill's
/// lists have IDs and titles).
pub fn sniff(input: &ace_format::Sniff<'_>) -> Option<Shape> {
    if input.root() == Some(b'{') && input.top_has("training_config") && input.top_has("bullets") {
        return Some(Shape::Trainer);
    }
    let t = input.text.trim_start_matches('\u{feff}').trim_start();
    let head = ace_format::head(t, 4096);
    (t.starts_with('[')
        && head.contains("\"helpful_count\"")
        && head.contains("\"section\"")
        && !head.contains("\"id\"")
        && !head.contains("\"title\""))
    .then_some(Shape::List)
}

/// The ID a bullet of the list is given, which it has none of: its
/// section's first three letters and its place, `str-00001`.
fn list_id(section: Option<&str>, n: usize) -> String {
    let stem: String = section
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_alphabetic)
        .take(3)
        .collect::<String>()
        .to_ascii_lowercase();
    let stem = if stem.is_empty() {
        "blt".to_owned()
    } else {
        stem
    };
    format!("{stem}-{n:05}")
}

/// Reads either shape.
pub fn read(text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let mut diags = doc.diagnostics;
    let root = &doc.root;
    let mut pb = Playbook::default();
    let mut entries: Vec<Entry> = Vec::new();
    let shape = if let Some(items) = root.as_array() {
        for (i, item) in items.iter().enumerate() {
            if let Some(mut e) = ace_records::read(item, LIST, PROJECT, "bullet", &mut diags) {
                e.id = list_id(e.section.as_deref(), i + 1);
                entries.push(e);
            }
        }
        Shape::List
    } else if let Some(members) = root.members() {
        for m in members {
            match m.key.as_str() {
                "version" => pb.version = Some(m.value.to_value()),
                "created_at" if m.value.as_str().is_some() => {
                    pb.created_at = m.value.as_str().map(str::to_owned)
                }
                "bullets" => match m.value.as_array() {
                    Some(items) => {
                        for item in items {
                            if let Some(e) =
                                ace_records::read(item, TRAINER, PROJECT, "bullet", &mut diags)
                            {
                                entries.push(e);
                            }
                        }
                    }
                    None => {
                        diags.push(ace_records::shape(
                            PROJECT,
                            m.value.span,
                            format_args!("`bullets` is {}; expected a list", m.value.type_name()),
                        ));
                        pb.extra.insert("bullets".into(), m.value.to_value());
                    }
                },
                _ => {
                    pb.extra.insert(m.key.to_string(), m.value.to_value());
                }
            }
        }
        Shape::Trainer
    } else {
        return Err(ace_records::shape(
            PROJECT,
            root.span,
            format_args!(
                "a playbook file is a list of bullets or the trainer's object; found {}",
                root.type_name()
            ),
        ));
    };
    pb.sections = ace_records::sections_of(&entries);
    pb.entries = entries;
    pb.set_layout(
        LAYOUT_KEY,
        json!({ "shape": shape.name(), "final_newline": text.ends_with('\n') }),
    );
    Ok(ReadOutput {
        playbook: pb,
        diagnostics: diags,
    }
    .into())
}

/// The section an entry of section `key` is written under in `shape`:
/// its own when the shape has it, else the one its name means.
pub fn section_for(shape: Shape, key: &str) -> &'static str {
    let k = key.to_ascii_lowercase();
    let bad = [
        "pitfall", "mistake", "harm", "trouble", "error", "fail", "avoid", "warn",
    ]
    .iter()
    .any(|w| k.contains(w));
    match shape {
        Shape::List => match key {
            "Strategies" => "Strategies",
            "Pitfalls" => "Pitfalls",
            _ if bad => "Pitfalls",
            _ => "Strategies",
        },
        Shape::Trainer => match key {
            "Helpful" => "Helpful",
            "Harmful" => "Harmful",
            "Neutral" => "Neutral",
            _ if bad => "Harmful",
            _ if k.contains("strateg") || k.contains("insight") || k.contains("rule") => "Helpful",
            _ => "Neutral",
        },
    }
}

/// The text of `pb` in `shape` (else the shape it was read in, else the
/// trainer's), and what it could not hold.
pub fn write(pb: &Playbook, shape: Option<Shape>) -> (String, WriteReport) {
    let layout = pb.layout_of(LAYOUT_KEY);
    let read_as = layout
        .and_then(|l| l.get("shape"))
        .and_then(Value::as_str)
        .and_then(Shape::from_name);
    let shape = shape.or(read_as).unwrap_or(Shape::Trainer);
    let own = read_as == Some(shape);
    let fields = match shape {
        Shape::Trainer => TRAINER,
        Shape::List => LIST,
    };
    let writer = Writer {
        fields,
        keep_extra: own,
        time: "",
    };
    // A section the file was read with stays as it is in a rewrite.
    let bullets: Vec<Value> = pb
        .entries
        .iter()
        .map(|e| {
            let key = e.section.as_deref().unwrap_or("");
            let section = if own { key } else { section_for(shape, key) };
            Value::Object(writer.record(e, Some(section)))
        })
        .collect();
    let mut text = String::new();
    match shape {
        Shape::List => {
            let layout = ace_pyjson::Layout {
                indent: 2,
                ascii: false,
                inline_scalar_lists: true,
            };
            ace_pyjson::dump_with(&Value::Array(bullets), &layout, &mut text);
        }
        Shape::Trainer => {
            let mut top = Map::new();
            // The trainer writes its version as text; another kind of
            // version is not the trainer's, which the loss report says.
            let version = match &pb.version {
                Some(Value::String(v)) => Value::from(v.clone()),
                _ => Value::from("v1.0.0"),
            };
            top.insert("version".into(), version);
            if let Some(t) = &pb.created_at {
                top.insert("created_at".into(), Value::from(t.clone()));
            }
            // `training_config` and any other key, before the bullets as
            // the trainer writes them.
            if own {
                for (k, v) in &pb.extra {
                    top.insert(k.clone(), v.clone());
                }
            }
            top.insert("bullets".into(), Value::Array(bullets));
            ace_pyjson::dump(&Value::Object(top), 2, true, &mut text);
        }
    }
    let newline = layout
        .filter(|_| own)
        .and_then(|l| l.get("final_newline"))
        .and_then(Value::as_bool)
        .unwrap_or(shape == Shape::List);
    if newline {
        text.push('\n');
    }
    let reason = match shape {
        Shape::Trainer => "ace-playbook's trainer file holds a bullet's ID, content, Helpful/Harmful/Neutral section, two counters, tags and created_at, and the playbook's version and created_at",
        Shape::List => "ace-playbook's bullet list holds a bullet's content, Strategies/Pitfalls section, two counters and tags, and no IDs",
    };
    let report = match read(&text, &ReadCtx::default()) {
        Ok(back) => ace_records::readback(pb, &back.parsed.playbook, reason),
        Err(_) => WriteReport::default(),
    };
    (text, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    const README: &str = "[\n  {\n    \"content\": \"Always validate input parameters before processing\",\n    \"section\": \"Strategies\",\n    \"helpful_count\": 5,\n    \"harmful_count\": 0,\n    \"tags\": [\"validation\", \"security\"]\n  },\n  {\n    \"content\": \"Avoid nested loops without considering algorithmic complexity\",\n    \"section\": \"Pitfalls\",\n    \"helpful_count\": 0,\n    \"harmful_count\": 3,\n    \"tags\": [\"performance\", \"algorithms\"]\n  }\n]\n";

    #[test]
    fn the_readme_list_reads_with_ids_of_its_own_and_writes_back() {
        assert_eq!(
            sniff(&ace_format::Sniff::new(None, README)),
            Some(Shape::List)
        );
        let r = read(README, &ReadCtx::default()).unwrap().parsed;
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        let ids: Vec<&str> = r.playbook.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["str-00001", "pit-00002"]);
        assert_eq!(r.playbook.entries[1].harmful, Some(3));
        let (text, report) = write(&r.playbook, None);
        assert_eq!(text, README);
        assert!(report.losses.is_empty(), "{:?}", report.losses);
    }

    #[test]
    fn an_empty_trainer_file_is_the_trainers_bytes() {
        let text = "{\n  \"version\": \"v1.0.0\",\n  \"created_at\": \"2025-11-04T10:00:00.123456\",\n  \"training_config\": {\n    \"dataset\": \"gsm8k\",\n    \"num_examples\": 0,\n    \"generator_model\": \"gpt-4o-mini\",\n    \"reflector_model\": \"gpt-4o-mini\"\n  },\n  \"bullets\": []\n}";
        assert_eq!(
            sniff(&ace_format::Sniff::new(None, text)),
            Some(Shape::Trainer)
        );
        let pb = read(text, &ReadCtx::default()).unwrap().parsed.playbook;
        assert_eq!(write(&pb, None).0, text);
    }
}
