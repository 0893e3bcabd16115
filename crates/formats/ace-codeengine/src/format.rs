//! The export in the format registry.

use ace_exec::Out;
use ace_format::{
    Confidence, Curation, IdScheme, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, Syntax,
    WriteCtx,
};
use ace_model::{Diagnostic, Playbook, WriteReport};

pub struct Export;

/// The format as the registry lists it.
pub static FORMAT: Export = Export;

impl PlaybookFormat for Export {
    fn name(&self) -> &'static str {
        "code-engine"
    }

    fn describe(&self) -> &'static str {
        "Code Engine ACE's playbook export (`ace-cli export`)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    /// `playbook`, an object holding one of the server's four sections: a
    /// root no other format has, which outweighs the name an export is
    /// saved under (`ace-cli export > playbook.json`).
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        (input.syntax() == Syntax::Json
            && input.top_opens("playbook") == Some(b'{')
            && crate::sniff(input.text))
        .then_some(Confidence::Declared)
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        crate::read(text, ctx)
    }

    fn write(&self, pb: &Playbook, _: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let (text, report) = crate::write(pb);
        out.push_str(&text);
        report
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// The server mints `ctx-{seconds}-{4 hex}`; a pattern ace-tools adds
    /// gets a hash ID. A pattern has no status or times.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            ids: IdScheme::HEX,
            dialect: Some("code-engine-delta"),
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
}
