//! The dump in the format registry.

use ace_exec::Out;
use ace_format::{
    AppliedDelta, Confidence, Curation, IdScheme, Ledger, LintProfile, PlaybookFormat, Read,
    ReadCtx, Sniff, Syntax, WriteCtx,
};
use ace_model::{Diagnostic, Playbook, WriteReport};
use serde_json::Value;

pub struct Dump;

/// The format as the registry lists it.
pub static FORMAT: Dump = Dump;

impl PlaybookFormat for Dump {
    fn name(&self) -> &'static str {
        "dannymac"
    }

    fn describe(&self) -> &'static str {
        "DannyMac180/ACE's playbook dump (`ace playbook dump`, `ace playbook import`)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    /// The two keys every bullet of a dump has and no other format's
    /// bullets do declare it, above the name `playbook.json` (which the
    /// project's README gives its dumps, and the skill's files have).
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        (input.syntax() == Syntax::Json
            && input.top_opens("bullets") == Some(b'[')
            && crate::sniff(input.text))
        .then_some(Confidence::Declared)
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        crate::read(text, ctx)
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let (text, report) = crate::write(pb, ctx.now.as_deref(), ctx.clock.as_deref());
        out.push_str(&text);
        report
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// Every commit to DannyMac180's store raises the playbook's version
    /// by one (`merge.apply_delta`), which the dump's ledger does; its
    /// store appends new bullets, in the order a dump lists them. A bullet
    /// has no status: a deprecation that removes, removes.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            ids: IdScheme::PREFIXED,
            ledger: Some(&LEDGER),
            appends: true,
            dialect: Some("dannymac-ops"),
            ..Curation::default()
        }
    }

    /// The IDs are the curator's `{section[:4]}-{8 hex}` or the seed's
    /// `strat-00001`; sections are the schema's four.
    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            ..LintProfile::default()
        }
    }
}

/// The dump's `version`, raised by one for each delta applied.
pub struct Version;

pub static LEDGER: Version = Version;

impl Ledger for Version {
    fn applied(&self, _: &Playbook) -> Vec<String> {
        Vec::new()
    }

    fn record(&self, pb: &mut Playbook, applied: &[AppliedDelta], _: &str) {
        let was = pb.version.as_ref().and_then(Value::as_i64).unwrap_or(0);
        pb.version = Some(Value::from(was.saturating_add(applied.len() as i64)));
    }
}
