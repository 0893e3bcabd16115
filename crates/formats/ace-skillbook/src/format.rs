//! The skillbook in the format registry.

use ace_exec::Out;
use ace_format::{
    Confidence, Curation, IdScheme, LintProfile, PlaybookFormat, Prompt, Read, ReadCtx, Sniff,
    Syntax, WriteCtx, WriteOption,
};
use ace_model::{Diagnostic, Playbook, WriteReport};

pub struct Skillbook;

/// The format as the registry lists it.
pub static FORMAT: Skillbook = Skillbook;

/// `--skillbook-version`: the era to write.
pub const VERSION: WriteOption = WriteOption {
    name: "skillbook-version",
    values: &["0.6", "0.8", "0.9", "2"],
    help: "the kayba release to write a skillbook for: 0.6 (`bullets`, before 0.7), 0.8 (`skills` with counters, 0.7 to 0.8), 0.9 (no counters, 0.9 to 0.10) or 2 (`schema_version` 2, 0.12 and later); unset, a skillbook keeps its era and a new one is 2",
};

impl PlaybookFormat for Skillbook {
    fn name(&self) -> &'static str {
        "skillbook"
    }

    fn describe(&self) -> &'static str {
        "kayba ace-framework skillbook JSON (v2 of 0.12 on, `skills` of 0.7 to 0.10, `bullets` before)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    /// A root whose `skills` is an object, or whose `bullets` is an object
    /// beside the framework's `sections` or `next_id`, is a skillbook
    /// whatever the file is called (the framework's own skill saves one as
    /// `playbook.json`). A name with `skillbook` in it says so too.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        if input.syntax() != Syntax::Json {
            return None;
        }
        if input.root() == Some(b'{') {
            // Each look for a top-level key may scan the whole file: the
            // second only when the first says no.
            let skills = || input.top_opens("skills") == Some(b'{');
            let bullets = || {
                input.top_opens("bullets") == Some(b'{')
                    && (input.top_has("next_id") || input.top_has("sections"))
            };
            if skills() || bullets() {
                return Some(Confidence::Declared);
            }
        }
        let named = input
            .file_name()
            .is_some_and(|n| n.to_ascii_lowercase().contains("skillbook") && n.ends_with(".json"));
        named.then_some(Confidence::Name)
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        let want = crate::read::Want::new(ctx.min, ctx.layout);
        let (parsed, top) = crate::read::read_top(text, want)?;
        Ok(Read {
            top,
            ..Read::from(parsed)
        })
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let opts = crate::Options {
            era: ctx.option(VERSION.name).and_then(crate::Era::from_value),
            clock: ctx.now.clone().or_else(|| ctx.clock.clone()),
        };
        crate::write_into(pb, &opts, out)
    }

    fn write_options(&self) -> &'static [WriteOption] {
        &[VERSION]
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// kayba's agents are shown `Skillbook.as_prompt()`: the active
    /// skills as kayba's markdown prints them in its `prompt` shape.
    fn prompt(&self) -> Option<Prompt> {
        Some(Prompt {
            format: "kayba-md",
            option: Some(("kayba-md-shape", "prompt")),
            describe: "kayba's Skillbook.as_prompt()",
        })
    }

    /// IDs are `{section}-{n:05d}` or anything else the caller chose, with
    /// no prefix rule.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            timestamps: true,
            // `active` (v2) and `status` (0.7 to 0.10): a deprecation
            // keeps the skill, as kayba's soft removal does.
            status: true,
            ids: IdScheme::SECTION_COUNTER,
            counter: Some(crate::batch::next_id),
            kept_apart: Some(kept_apart),
            dialect: Some("kayba-batch"),
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            guardrail: false,
            ..LintProfile::default()
        }
    }
}

/// The pairs kayba's SkillManager decided to keep apart:
/// `similarity_decisions` maps `"idA,idB"` (the IDs sorted) to a decision
/// whose `decision` is `KEEP`.
pub(crate) fn kept_apart(pb: &Playbook) -> Vec<(String, String)> {
    let Some(serde_json::Value::Object(m)) = pb.extra.get("similarity_decisions") else {
        return Vec::new();
    };
    m.iter()
        .filter(|(_, d)| d.get("decision").and_then(|v| v.as_str()) == Some("KEEP"))
        .filter_map(|(k, _)| {
            let (a, b) = k.split_once(',')?;
            Some((a.to_owned(), b.to_owned()))
        })
        .collect()
}

/// kayba's update batches as a delta dialect.
pub struct KaybaBatches;

pub static KAYBA_BATCH: KaybaBatches = KaybaBatches;

impl ace_format::DeltaDialect for KaybaBatches {
    /// kayba's `apply_update`: an operation on an ID the skillbook lacks
    /// is passed over; new skills are stamped.
    fn rules(&self) -> ace_model::delta::Rules {
        ace_model::delta::Rules {
            skip_unknown_ids: true,
            stamp_new: true,
            ..ace_model::delta::Rules::PLAIN
        }
    }

    fn name(&self) -> &'static str {
        "kayba-batch"
    }

    fn describe(&self) -> &'static str {
        "kayba's update batch (UpdateBatch: reasoning, operations ADD/UPDATE/TAG/REMOVE), 0.7 or 0.12 and later"
    }

    fn what(&self) -> &'static str {
        "a kayba update batch"
    }

    /// An `operations` list with kayba's `type` or `reasoning` beside it.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        crate::batch::sniff(input.text).then_some(Confidence::Marker)
    }

    fn read(
        &self,
        text: &str,
        _: &ace_format::DeltaReadCtx<'_>,
    ) -> Result<Option<Vec<ace_model::delta::Delta>>, Diagnostic> {
        crate::batch::read_batches(text)
    }

    fn writes(&self) -> bool {
        true
    }

    fn write(
        &self,
        delta: &ace_model::delta::Delta,
        ctx: &ace_format::DeltaWriteCtx<'_>,
    ) -> Option<ace_format::WrittenDelta> {
        let generation = crate::batch::generation_for(ctx.old);
        Some(crate::batch::write_batch(
            delta, generation, ctx.note, ctx.old,
        ))
    }

    fn checks(&self) -> &'static [&'static dyn ace_format::DocumentCheck] {
        &BATCH_CHECKS
    }
}

static BATCH_CHECKS: [&dyn ace_format::DocumentCheck; 1] = [&KAYBA_BATCH];

impl ace_format::DocumentCheck for KaybaBatches {
    fn name(&self) -> &'static str {
        "kayba-batch"
    }

    fn describe(&self) -> &'static str {
        "kayba's update batches (UpdateBatch)"
    }

    fn claims(&self, _: &str, text: &str) -> bool {
        matches!(crate::batch::read_batches(text), Ok(Some(_)))
    }

    fn check(&self, text: &str, _: &ace_format::CheckCtx<'_>) -> Vec<Diagnostic> {
        crate::batch::check(text)
    }
}
