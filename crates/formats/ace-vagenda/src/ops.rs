//! A vAgenda PlaybookPatch (the first drafts' AcePatch) or a bare patch
//! operation as a canonical [`Delta`], for `ace-apply`. The patch is
//! refused for every error the reader's schema check and
//! [`crate::check_patch`] report in it.

use ace_jsonspan::Node;
use ace_model::delta::{Change, Delta, Dialect, Op, Reason, Target};
use ace_model::{Diagnostic, Severity};
use serde_json::Value;

use crate::{entry, reader, DocKind, Syntax};

fn entry_of(n: &Node) -> Option<ace_model::Entry> {
    match n.to_value() {
        Value::Object(m) => Some(entry::read(reader::as_ace_entry(m), Some(n.span))),
        _ => None,
    }
}

fn count(delta: Option<&Node>, key: &str) -> i64 {
    delta
        .and_then(|d| d.get(key))
        .and_then(|n| n.to_value().as_i64())
        .unwrap_or(0)
}

fn op(n: &Node) -> Option<Change> {
    let kind = n.get("op").and_then(Node::as_str)?;
    let entry = n.get("entry");
    let id = n
        .get("entryId")
        .and_then(Node::as_str)
        .or_else(|| entry.and_then(|e| e.get("id")).and_then(Node::as_str))
        .map(|s| Target::Id(s.to_owned()));
    let reason = n.get("reason").and_then(Node::as_str).map(str::to_owned);
    Some(match kind {
        "appendEntry" => Change::Add(entry_of(entry?)?),
        "updateEntry" => Change::Replace {
            target: id?,
            entry: Box::new(entry_of(entry?)?),
        },
        "incrementCounter" => {
            let delta = n.get("delta");
            Change::Count {
                target: id?,
                helpful: count(delta, "helpfulCount"),
                harmful: count(delta, "harmfulCount"),
            }
        }
        "deprecateEntry" => Change::Deprecate {
            target: id?,
            reason,
        },
        _ => return None,
    })
}

/// The patch in `text`, or `None` when `text` is not a patch or a patch
/// operation. A text that does not parse is the error.
pub fn read_patch(text: &str, syntax: Syntax) -> Result<Option<Delta>, Diagnostic> {
    let (read, kind) = reader::read_classified(text, syntax)?;
    if !matches!(kind, Some(DocKind::Patch | DocKind::PatchOp)) {
        return Ok(None);
    }
    let doc = reader::parse(text, syntax)?;
    let root = &doc.root;
    let mut delta = Delta::new(Dialect::VAgenda, root.span);
    delta.base_sequence = root
        .get("baseDocumentSequence")
        .and_then(|n| n.to_value().as_i64());
    let nodes: Vec<&Node> = match root.get("operations").and_then(Node::as_array) {
        Some(items) => items.iter().collect(),
        None => vec![root],
    };
    for n in nodes {
        match op(n) {
            Some(change) => delta.ops.push(Op {
                change,
                span: n.span,
            }),
            None => delta.refuse(
                Reason::Invalid,
                n.span,
                "expected an operation `appendEntry` (with `entry`), `updateEntry` (with `entryId` and `entry`), `incrementCounter` (with `entryId` and `delta`) or `deprecateEntry` (with `entryId`)",
            ),
        }
    }
    let patch_findings = crate::check_patch(text, syntax, None);
    for d in read.diagnostics.iter().chain(&patch_findings) {
        if d.severity < Severity::Error {
            continue;
        }
        delta.refuse(
            Reason::for_rule(d.code),
            d.span,
            format!("{} ({})", d.message, d.code),
        );
    }
    Ok(Some(delta))
}
