//! The skill's playbook.json, and its deltas, in the registry.

use ace_exec::Out;
use ace_format::{
    AppliedDelta, CheckCtx, Confidence, Curation, DeltaDialect, DeltaReadCtx, DeltaWriteCtx,
    DocumentCheck, IdScheme, Ledger, LintProfile, Other, PlaybookFormat, Read, ReadCtx, Sniff,
    Syntax, WriteCtx, WriteOption, WrittenDelta,
};
use ace_model::delta::{Delta, Rules};
use ace_model::WriteReport;
use ace_model::{Diagnostic, Playbook};

use crate::{DocumentKind, Generation};

pub struct SkillJson;

/// The format as the registry lists it.
pub static FORMAT: SkillJson = SkillJson;

/// The skill's delta, reflector output and curator output, which the
/// reader recognises in a file read as a playbook.
pub struct Deltas;

pub static DELTAS: Deltas = Deltas;

/// `--skill-generation`: the bullet schema generation to write.
pub const GENERATION: WriteOption = WriteOption {
    name: "skill-generation",
    values: &["1", "2"],
    help: "write `confidence` and `scope` as schema generation 1 (levels and names) or 2 (numbers and objects); unset, a skill file keeps each value's form and a new one is generation 2",
};

/// Top-level keys of the skill's playbooks and delta documents, and of
/// the JSON that ace-tools reads as the skill's when nothing else claims
/// it: curator JSON (`deltas`) and the paper's curator operations
/// (`operations`) are checked by what they hold, from this reading.
const TOP_KEYS: [&str; 6] = [
    "new_bullets",
    "proposed_deltas",
    "clean_delta",
    "helpful_count",
    "deltas",
    "operations",
];

impl PlaybookFormat for SkillJson {
    fn name(&self) -> &'static str {
        "skill-json"
    }

    fn describe(&self) -> &'static str {
        "skill playbook.json bullets (ace-context-engineering skill spec)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        if input.syntax() != Syntax::Json {
            return None;
        }
        let named = input
            .file_name()
            .is_some_and(|n| n == "playbook.json" || n.ends_with(".playbook.json"));
        if named {
            return Some(Confidence::Name);
        }
        if !input.could_win(Confidence::Content) {
            return Some(Confidence::Likely);
        }
        let shaped = (input.root() == Some(b'[') && bullets_in_head(input.text))
            || input.top_opens("bullets") == Some(b'[')
            || TOP_KEYS.iter().any(|k| input.top_has(k));
        Some(if shaped {
            Confidence::Content
        } else {
            Confidence::Likely
        })
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        let (parsed, kind, top) = crate::read_classified(text, ctx.min)?;
        let other = (kind != DocumentKind::Playbook).then(|| Other {
            what: kind.name(),
            applying: "deltas",
            check: Some(&DELTAS as &dyn DocumentCheck),
            keeps_read_findings: false,
        });
        Ok(Read { parsed, other, top })
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let generation = ctx
            .option(GENERATION.name)
            .and_then(|v| v.parse().ok())
            .and_then(Generation::from_number);
        let opts = crate::WriteOptions {
            generation,
            now: ctx.now.clone(),
            clock: ctx.clock.clone(),
        };
        crate::write_into(pb, &opts, out)
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// Skill IDs are `bullet-YYYY-MM-DD-NNN` or free-form and bullets have
    /// no sections; the bullet schema checks the ID shape instead.
    /// The skill's dated IDs; applied deltas listed in the playbook's
    /// `metadata`.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            ids: IdScheme::DATED,
            status: true,
            timestamps: true,
            ledger: Some(&LEDGER),
            dialect: Some("skill-delta"),
            complete_new: Some(crate::conform::complete_new),
            refuse_set: Some(crate::conform::refuse_set),
            title_of: Some(crate::conform::title_of),
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            ..LintProfile::default()
        }
    }

    fn write_options(&self) -> &'static [WriteOption] {
        &[GENERATION]
    }
}

impl DocumentCheck for Deltas {
    fn name(&self) -> &'static str {
        "skill-delta"
    }

    fn describe(&self) -> &'static str {
        "the skill's delta, reflector output and curator output (ace-context-engineering skill spec)"
    }

    fn claims(&self, _: &str, _: &str) -> bool {
        false
    }

    fn check(&self, text: &str, ctx: &CheckCtx<'_>) -> Vec<Diagnostic> {
        crate::check_delta(text, ctx.playbook).unwrap_or_else(|d| vec![d])
    }
}

/// The skill's delta, reflector output and curator output as a delta
/// dialect.
pub struct SkillDeltas;

pub static SKILL_DELTA: SkillDeltas = SkillDeltas;

impl DeltaDialect for SkillDeltas {
    /// The skill spec: new bullets are stamped, the playbook's
    /// `metadata.last_curated` is set, and `--compat skill-script`
    /// applies a delta as `merge_deltas.py` does.
    fn rules(&self) -> Rules {
        Rules {
            stamp_new: true,
            script: true,
            stamp_curated: true,
            ..Rules::PLAIN
        }
    }

    fn name(&self) -> &'static str {
        "skill-delta"
    }

    fn describe(&self) -> &'static str {
        "the skill's delta, reflector output (proposed_deltas) or curator output (clean_delta)"
    }

    fn what(&self) -> &'static str {
        "a skill delta"
    }

    /// Any JSON may be one; the read tells, and gives the parse error of
    /// a text that is no JSON.
    fn sniff(&self, _: &Sniff<'_>) -> Option<Confidence> {
        Some(Confidence::Likely)
    }

    fn read(&self, text: &str, _: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        crate::ops::read_delta(text).map(|d| d.map(|d| vec![d]))
    }

    fn writes(&self) -> bool {
        true
    }

    fn write(&self, delta: &Delta, ctx: &DeltaWriteCtx<'_>) -> Option<WrittenDelta> {
        Some(crate::ops::write_delta(delta, Some(ctx.note)))
    }

    fn checks(&self) -> &'static [&'static dyn DocumentCheck] {
        &SKILL_DELTA_CHECKS
    }
}

static SKILL_DELTA_CHECKS: [&dyn DocumentCheck; 1] = [&DELTAS];

/// The skill playbook's record of applied deltas: `metadata.applied_deltas`.
pub struct SkillLedger;

pub static LEDGER: SkillLedger = SkillLedger;

impl Ledger for SkillLedger {
    fn applied(&self, pb: &Playbook) -> Vec<String> {
        crate::ops::applied_deltas(pb)
    }

    fn record(&self, pb: &mut Playbook, applied: &[AppliedDelta], _now: &str) {
        let ids: Vec<String> = applied.iter().filter_map(|a| a.id.clone()).collect();
        if !ids.is_empty() {
            crate::ops::record_applied(pb, &ids);
        }
    }
}

/// Whether a JSON array's head looks like skill bullets: empty (as the
/// skill's scripts start a playbook), or with a bullet's key in its first
/// few kilobytes. Any other array (a test suite, a list of records) is no
/// skill playbook to claim in a walk.
fn bullets_in_head(text: &str) -> bool {
    let head = ace_format::head(text, 4096);
    let inner = head.trim_start_matches('\u{feff}').trim_start();
    let empty = inner
        .strip_prefix('[')
        .is_some_and(|rest| rest.trim_start().starts_with(']'));
    empty
        || ["\"content\"", "\"helpful_count\"", "\"harmful_count\""]
            .iter()
            .any(|k| head.contains(k))
}
