//! The grammars in `grammars/` as parsers. The hand-written readers are
//! fast; these are plain: each one follows its grammar rule by rule and
//! builds the same result as the reader it specifies (the span tree of
//! `ace-tron`), so that a differential test can require both to agree on
//! every input. A disagreement is a bug in one of them, or a leniency the
//! grammar must name.

pub mod agents;
pub mod diff;
pub mod markdown;
pub mod outline;
pub mod tron;

use ace_model::{rules, Diagnostic, Span};

/// A pest error as the readers report a parse error: an ACE000 at the
/// place, saying what the grammar expected there.
fn parse_error<R: pest::RuleType>(e: &pest::error::Error<R>) -> Diagnostic {
    let span = match e.location {
        pest::error::InputLocation::Pos(p) => Span::new(p, p),
        pest::error::InputLocation::Span((s, e)) => Span::new(s, e),
    };
    Diagnostic::new(&rules::PARSE_ERROR, span, e.variant.message().into_owned())
}
